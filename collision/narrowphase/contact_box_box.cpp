// Box–box by the separating axis theorem over the 15 candidate axes (3 + 3 face normals, 9 edge
// cross products; Gottschalk et al. 1996). The axis of least penetration, with a bias towards
// face axes (and towards a's faces) so that resting stacks keep the same reference face from
// step to step; face axes give up to 4 points by clipping the incident face against the
// reference face, edge axes the closest points of the two edges.
#include <cmath>

#include "collision/narrowphase/contact_pairs.h"
#include "collision/narrowphase/contact_reduction.h"
#include "collision/narrowphase/face_manifold.h"
#include "collision/distance/segment_closest.h"

namespace impetus {
namespace {

// Bias (relative to the smaller box's smallest half extent): b's face must beat a's by this
// much, and an edge axis must beat the best face by kEdgeBias, to be chosen.
constexpr double kFaceBias = 1e-4;
constexpr double kEdgeBias = 1e-3;

double sign_or_plus(double x) { return x < 0 ? -1.0 : 1.0; }

}  // namespace

bool collide_box_box(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                     double margin, Manifold& m) {
  const Mat3 ra = pa.orientation.toRotationMatrix();
  const Mat3 rb = pb.orientation.toRotationMatrix();
  const Vec3& ha = a.half_extents;
  const Vec3& hb = b.half_extents;
  const Vec3 d = pb.position - pa.position;

  // Separation along unit axis L: |L·d| − (projected radius of a + of b).
  auto separation = [&](const Vec3& axis) {
    double r = 0;
    for (int k = 0; k < 3; ++k) {
      r += ha[k] * std::abs(axis.dot(ra.col(k))) + hb[k] * std::abs(axis.dot(rb.col(k)));
    }
    return std::abs(axis.dot(d)) - r;
  };

  int face_a = 0, face_b = 0;
  double sep_a = -1e300, sep_b = -1e300;
  for (int k = 0; k < 3; ++k) {
    double s = separation(ra.col(k));
    if (s > margin) return false;
    if (s > sep_a) {
      sep_a = s;
      face_a = k;
    }
    s = separation(rb.col(k));
    if (s > margin) return false;
    if (s > sep_b) {
      sep_b = s;
      face_b = k;
    }
  }
  int edge_i = -1, edge_j = -1;
  double sep_e = -1e300;
  Vec3 edge_axis = Vec3::Zero();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      Vec3 axis = ra.col(i).cross(rb.col(j));
      double len = axis.norm();
      if (len < 1e-6) continue;  // parallel edges: covered by the face axes
      axis /= len;
      double s = separation(axis);
      if (s > margin) return false;
      if (s > sep_e) {
        sep_e = s;
        edge_i = i;
        edge_j = j;
        edge_axis = axis;
      }
    }
  }

  const double size = std::min(ha.minCoeff(), hb.minCoeff());
  const bool use_b = sep_b > sep_a + kFaceBias * size;
  const double sep_face = use_b ? sep_b : sep_a;

  if (edge_i >= 0 && sep_e > sep_face + kEdgeBias * size) {
    // Edge–edge: the edge of a farthest along the axis against the edge of b farthest against.
    Vec3 axis = edge_axis.dot(d) < 0 ? Vec3(-edge_axis) : edge_axis;
    Vec3 ca = pa.position;
    Vec3 cb = pb.position;
    std::uint32_t signs = 0;
    for (int k = 0; k < 3; ++k) {
      if (k != edge_i) {
        double s = sign_or_plus(axis.dot(ra.col(k)));
        ca += s * ha[k] * ra.col(k);
        signs |= (s > 0 ? 1u : 0u) << k;
      }
      if (k != edge_j) {
        double s = sign_or_plus(-axis.dot(rb.col(k)));
        cb += s * hb[k] * rb.col(k);
        signs |= (s > 0 ? 1u : 0u) << (3 + k);
      }
    }
    Vec3 ea = ha[edge_i] * ra.col(edge_i);
    Vec3 eb = hb[edge_j] * rb.col(edge_j);
    SegmentClosest c = closest_segment_segment(ca - ea, ca + ea, cb - eb, cb + eb);
    ContactPoint p;
    p.normal = axis;
    p.point_a = c.p;
    p.point_b = c.q;
    p.separation = (c.q - c.p).dot(axis);
    if (!(p.separation < margin)) return false;
    std::uint32_t id = feature_hash(kFeatureSeed, 3u);
    id = feature_hash(id, static_cast<std::uint32_t>(3 * edge_i + edge_j));
    p.feature_id = feature_hash(id, signs);
    m.add(p);
    return true;
  }

  // Face: reference face of a (normal towards b) or of b (towards a); incident face of the other.
  SupportFace ref;
  SupportFace inc;
  std::array<ContactPoint, 4> points;
  int n = 0;
  if (!use_b) {
    Vec3 nr = sign_or_plus(ra.col(face_a).dot(d)) * ra.col(face_a);
    support_face(a, pa, nr, ref);
    support_face(b, pb, -nr, inc);
    n = clip_against_reference(ref, inc, true, margin, points);
  } else {
    Vec3 nr = sign_or_plus(-rb.col(face_b).dot(d)) * rb.col(face_b);
    support_face(b, pb, nr, ref);
    support_face(a, pa, -nr, inc);
    n = clip_against_reference(ref, inc, false, margin, points);
  }
  for (int i = 0; i < n; ++i) m.add(points[i]);
  return n > 0;
}

}  // namespace impetus
