#include "collision/narrowphase/face_manifold.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "collision/narrowphase/contact_reduction.h"

namespace impetus {
namespace {

struct ClipVertex {
  Vec3 p;
  std::uint32_t id;
};

// Sutherland–Hodgman needs at most n + m vertices for an n-gon clipped by an m-gon's planes.
constexpr int kMaxClip = 2 * SupportFace::kMaxVertices + 8;

struct ClipPolygon {
  std::array<ClipVertex, kMaxClip> v;
  int count = 0;
  void push(const Vec3& p, std::uint32_t id) {
    if (count < kMaxClip) v[count++] = ClipVertex{p, id};
  }
};

// sin of the largest tilt of a capsule's axis off a face for a two-point (segment) contact; the
// second point's witness then lies within radius·(1 − cos) of the capsule's surface.
constexpr double kCapsuleFlatSin = 0.087;  // 5 degrees

// Fraction of an edge within which a crossing point inherits the id of the vertex it replaces.
constexpr double kKeepIdFraction = 1e-2;

// Id of a vertex created where incident edge (id_p → id_q) crosses side plane k.
std::uint32_t crossing_id(std::uint32_t id_p, std::uint32_t id_q, int k) {
  return 0x80000000u | ((id_p & 0x7ffu) << 16) | ((id_q & 0x7ffu) << 5) |
         static_cast<std::uint32_t>(k & 0x1f);
}

// Keeps the part of `in` with s·x <= offset.
void clip_polygon(const ClipPolygon& in, const Vec3& s, double offset, int k, ClipPolygon& out) {
  out.count = 0;
  for (int i = 0; i < in.count; ++i) {
    const ClipVertex& p = in.v[i];
    const ClipVertex& q = in.v[(i + 1) % in.count];
    double dp = s.dot(p.p) - offset;
    double dq = s.dot(q.p) - offset;
    if (dp <= 0) out.push(p.p, p.id);
    if ((dp <= 0) != (dq <= 0)) {
      double t = dp / (dp - dq);
      // A vertex that slid just past the plane is replaced by a point next to it: it keeps its
      // id, so that exactly aligned faces keep their feature ids while jittering.
      std::uint32_t id = crossing_id(p.id, q.id, k);
      if (dp > 0 && t < kKeepIdFraction) id = p.id;
      if (dq > 0 && t > 1 - kKeepIdFraction) id = q.id;
      out.push(p.p + t * (q.p - p.p), id);
    }
  }
}

}  // namespace

void support_face(const Shape& shape, const Pose& pose, const Vec3& dir, SupportFace& out) {
  out.count = 0;
  out.radius = 0;
  out.face_id = 0;
  switch (shape.type) {
    case ShapeType::Box: {
      const Vec3 d = pose.inverse_rotate(dir);
      const Vec3& h = shape.half_extents;
      int k = 0;
      for (int a = 1; a < 3; ++a) {
        if (std::abs(d[a]) > std::abs(d[k])) k = a;
      }
      const double s = d[k] >= 0 ? 1.0 : -1.0;
      const int i = (k + 1) % 3;
      const int j = (k + 2) % 3;
      // CCW around +e_k in the (e_i, e_j) plane; reversed for the −e_k face.
      static constexpr double kCorner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
      for (int c = 0; c < 4; ++c) {
        const int cc = s > 0 ? c : 3 - c;
        Vec3 local = Vec3::Zero();
        local[k] = s * h[k];
        local[i] = kCorner[cc][0] * h[i];
        local[j] = kCorner[cc][1] * h[j];
        out.vertices[c] = pose.apply(local);
        std::uint32_t id = 0;
        for (int a = 0; a < 3; ++a) id |= (local[a] > 0 ? 1u : 0u) << a;
        out.ids[c] = id;
      }
      out.count = 4;
      out.normal = pose.rotate(s * Vec3::Unit(k));
      out.face_id = static_cast<std::uint32_t>(2 * k + (s > 0 ? 1 : 0));
      return;
    }
    case ShapeType::Convex: {
      const Vec3 d = pose.inverse_rotate(dir);
      const ConvexHull& hull = *shape.hull;
      int best = -1;
      double best_dot = -2;
      for (int f = 0; f < static_cast<int>(hull.faces.size()); ++f) {
        double c = hull.faces[f].normal.dot(d);
        if (c > best_dot) {
          best_dot = c;
          best = f;
        }
      }
      if (best < 0) return;
      const HullFace& face = hull.faces[best];
      if (static_cast<int>(face.vertices.size()) > SupportFace::kMaxVertices) return;
      for (std::size_t c = 0; c < face.vertices.size(); ++c) {
        out.vertices[c] = pose.apply(hull.vertices[face.vertices[c]]);
        out.ids[c] = static_cast<std::uint32_t>(face.vertices[c]);
      }
      out.count = static_cast<int>(face.vertices.size());
      out.normal = pose.rotate(face.normal);
      out.face_id = static_cast<std::uint32_t>(best);
      return;
    }
    case ShapeType::Capsule: {
      // The core segment only when it lies (nearly) flat across dir: then both of its clipped
      // ends touch. A tilted capsule touches with its lower end alone.
      const Vec3 axis = pose.rotate(Vec3(0, 0, shape.half_length));
      const double len = axis.norm() * dir.norm();
      if (!(len > 0) || std::abs(axis.dot(dir)) > kCapsuleFlatSin * len) return;
      out.vertices[0] = pose.position - axis;
      out.vertices[1] = pose.position + axis;
      out.ids[0] = 0;
      out.ids[1] = 1;
      out.count = 2;
      out.radius = shape.radius;
      return;
    }
    default:
      return;  // smooth: no face
  }
}

void triangle_face(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& dir,
                   std::uint32_t face_id, std::array<std::uint32_t, 3> ids, SupportFace& out) {
  Vec3 n = (p1 - p0).cross(p2 - p0);
  double len = n.norm();
  out.radius = 0;
  out.count = 0;
  if (!(len > 0)) return;
  n /= len;
  const bool front = n.dot(dir) >= 0;
  out.vertices[0] = p0;
  out.ids[0] = ids[0];
  out.vertices[1] = front ? p1 : p2;
  out.ids[1] = front ? ids[1] : ids[2];
  out.vertices[2] = front ? p2 : p1;
  out.ids[2] = front ? ids[2] : ids[1];
  out.normal = front ? n : Vec3(-n);
  out.count = 3;
  out.face_id = 2 * face_id + (front ? 0u : 1u);
}

int clip_against_reference(const SupportFace& ref, const SupportFace& inc, bool ref_is_a,
                           double margin, std::array<ContactPoint, 4>& out) {
  if (ref.count < 3 || inc.count < 2) return 0;
  const Vec3& nr = ref.normal;
  double size = 0;
  for (int i = 1; i < ref.count; ++i) {
    size = std::max(size, (ref.vertices[i] - ref.vertices[0]).norm());
  }
  const double tol = 1e-12 * size;

  ClipPolygon poly[2];
  int cur = 0;
  for (int i = 0; i < inc.count; ++i) poly[0].push(inc.vertices[i], inc.ids[i]);
  for (int k = 0; k < ref.count; ++k) {
    const Vec3& v0 = ref.vertices[k];
    const Vec3& v1 = ref.vertices[(k + 1) % ref.count];
    Vec3 side = (v1 - v0).cross(nr);
    double len = side.norm();
    if (!(len > 0)) continue;
    side /= len;
    const double offset = side.dot(v0) + tol;
    if (inc.count == 2) {
      // An open segment (capsule core): clip it as a parametric interval, not a closed loop.
      ClipPolygon& seg = poly[cur];
      if (seg.count < 2) break;
      double da = side.dot(seg.v[0].p) - offset;
      double db = side.dot(seg.v[1].p) - offset;
      if (da > 0 && db > 0) {
        seg.count = 0;
        break;
      }
      if (da > 0) {
        const double t = da / (da - db);
        seg.v[0].p = seg.v[0].p + t * (seg.v[1].p - seg.v[0].p);
        if (t >= kKeepIdFraction) seg.v[0].id = crossing_id(seg.v[0].id, seg.v[1].id, k);
      } else if (db > 0) {
        const double t = da / (da - db);
        seg.v[1].p = seg.v[0].p + t * (seg.v[1].p - seg.v[0].p);
        if (t <= 1 - kKeepIdFraction) seg.v[1].id = crossing_id(seg.v[1].id, seg.v[0].id, k);
      }
      continue;
    }
    clip_polygon(poly[cur], side, offset, k, poly[1 - cur]);
    cur = 1 - cur;
    if (poly[cur].count == 0) break;
  }
  // A vertex just past a side plane leaves two crossing points next to it that both took its
  // id (see clip_polygon): keep the first.
  ClipPolygon& result = poly[cur];
  int kept = 0;
  for (int i = 0; i < result.count; ++i) {
    bool seen = false;
    for (int j = 0; j < kept; ++j) seen = seen || result.v[j].id == result.v[i].id;
    if (!seen) result.v[kept++] = result.v[i];
  }
  result.count = kept;

  // Scratch reused per thread (a stack array of ContactPoint would be value-initialised on
  // every call).
  thread_local std::vector<ContactPoint> cand;
  cand.clear();
  const Vec3 normal_ab = ref_is_a ? nr : Vec3(-nr);
  const double ref_offset = nr.dot(ref.vertices[0]);
  for (int i = 0; i < result.count; ++i) {
    const Vec3& p = result.v[i].p;
    const double height = nr.dot(p) - ref_offset;
    const double sep = height - inc.radius - ref.radius;
    if (!(sep < margin)) continue;
    // Incident surface point: the core point moved by its radius towards the reference face.
    const Vec3 on_inc = p - inc.radius * nr;
    const Vec3 on_ref = p - height * nr + ref.radius * nr;
    ContactPoint c;
    c.normal = normal_ab;
    c.point_a = ref_is_a ? on_ref : on_inc;
    c.point_b = ref_is_a ? on_inc : on_ref;
    c.separation = sep;
    std::uint32_t id = feature_hash(kFeatureSeed, ref_is_a ? 1u : 2u);
    id = feature_hash(id, ref.face_id);
    id = feature_hash(id, inc.face_id);
    c.feature_id = feature_hash(id, result.v[i].id);
    cand.push_back(c);
  }
  const int n = reduce_to_four(cand.data(), static_cast<int>(cand.size()));
  for (int i = 0; i < n; ++i) out[i] = cand[i];
  return n;
}

int clip_face_contacts(const SupportFace& fa, const SupportFace& fb, const Vec3& normal,
                       double margin, std::array<ContactPoint, 4>& out) {
  const double cos_a = fa.count >= 3 ? fa.normal.dot(normal) : -2.0;
  const double cos_b = fb.count >= 3 ? -fb.normal.dot(normal) : -2.0;
  if (std::max(cos_a, cos_b) < kFaceAlignCos) return 0;
  // Ties prefer a's face, so that the choice is a deterministic function of the inputs.
  if (cos_a >= cos_b) return clip_against_reference(fa, fb, true, margin, out);
  return clip_against_reference(fb, fa, false, margin, out);
}

int convex_contact_points(const SupportFace& fa, const SupportFace& fb, const Vec3& normal,
                          double distance, const Vec3& point_a, const Vec3& point_b, double margin,
                          std::array<ContactPoint, 4>& out) {
  int n = clip_face_contacts(fa, fb, normal, margin, out);
  if (n > 0) return n;
  if (!(distance < margin)) return 0;
  ContactPoint c;
  c.normal = normal;
  c.point_a = point_a;
  c.point_b = point_b;
  c.separation = distance;
  c.feature_id = 0;
  out[0] = c;
  return 1;
}

}  // namespace impetus
