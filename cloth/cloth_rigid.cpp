#include "cloth/cloth_rigid.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include "cloth/cloth_parallel.h"
#include "collision/shape/convex_hull.h"
#include "collision/shape/convex_support.h"
#include "collision/distance/distance.h"
#include "collision/distance/gjk.h"
#include "collision/distance/point_shape_distance.h"
#include "collision/distance/segment_closest.h"
#include "collision/shape/triangle_mesh.h"

namespace impetus {
namespace {

constexpr int kSlotsPerVertex = 4;

// Shared state of the sequential (edge and face) contact passes.
struct ContactPass {
  const std::vector<Vec3>& x0;
  std::vector<Vec3>& u;
  std::vector<Vec3>& v;
  const std::vector<double>& mass;
  const std::vector<double>& inv_mass;
  const ClothRigidSettings& s;
  std::vector<RigidImpulse>& reactions;
  ClothRigidStats& stats;
  ClothRigidWorkspace& work;
  int collider = -1;  // index of `col` in the colliders, for the contact record
  const std::vector<char>* active = nullptr;  // settings.active_vertices

  // Whether the element with these vertices is resolved in this pass (one active vertex).
  bool any_active(const int* idx, int count) const {
    if (!active) return true;
    for (int k = 0; k < count; ++k)
      if ((*active)[idx[k]]) return true;
    return false;
  }

  // Contact of the cloth point Σ w_k x_k with `col` at its surface point `surface`, normal n
  // out of the body, `depth` = thickness − gap > 0: push the point out to the thickness
  // (displacement only), then an inelastic normal and Coulomb tangential change of its velocity
  // relative to the body, whose opposite momentum goes to the body at `surface`.
  bool apply(const int* idx, const double* w, int count, const Vec3& n, const Vec3& surface,
             double depth, const RigidCollider& col, double mu) {
    double denom = 0;
    for (int k = 0; k < count; ++k) denom += w[k] * w[k] * inv_mass[idx[k]];
    if (!(denom > 0)) return false;
    stats.max_penetration = std::max(stats.max_penetration, depth);
    const Vec3 push = (depth / denom) * n;
    for (int k = 0; k < count; ++k) {
      u[idx[k]] += (w[k] * inv_mass[idx[k]]) * push;
      if (w[k] * inv_mass[idx[k]] > 0) {
        work.contact_collider[idx[k]] = collider;
        work.contact_point[idx[k]] = surface;
      }
    }
    Vec3 vr = -col.point_velocity(surface);
    for (int k = 0; k < count; ++k) vr += w[k] * v[idx[k]];
    const double vn = vr.dot(n);
    if (!(vn < 0)) return true;
    Vec3 dv = -vn * n;
    const Vec3 vt = vr - vn * n;
    const double vt_len = vt.norm();
    if (vt_len > 0) dv -= std::min(1.0, mu * (-vn) / vt_len) * vt;
    const Vec3 J = dv / denom;  // impulse on the cloth point
    Vec3 momentum = Vec3::Zero();
    for (int k = 0; k < count; ++k) {
      const Vec3 dvk = (w[k] * inv_mass[idx[k]]) * J;
      v[idx[k]] += dvk;
      u[idx[k]] += s.h * (dvk - dvk.dot(n) * n);
      momentum += mass[idx[k]] * dvk;
    }
    reactions.push_back(RigidImpulse{col.body, surface, -momentum});
    return true;
  }
};

// Whether one of the element's pinned or attached vertices (zero inverse mass) lies within the
// thickness of the collider at the end of the step. Such an element is held against that body by
// its constraint, not by contact: a flag attached along a pole, a sheet pinned on a rail. Its
// edge, face and swept contacts with that body are skipped (its free vertices still collide on
// their own); otherwise every step pushed its free corners out past the body's support plane
// while the constrained corner stayed put, and the sheet next to the pole tore apart (the
// cloth_flag scene reached 5,000% strain).
bool anchored_on(const ContactPass& pass, const int* idx, int count, const RigidCollider& col) {
  for (int k = 0; k < count; ++k) {
    const int i = idx[k];
    if (pass.inv_mass[i] > 0) continue;
    const Vec3 x = pass.x0[i] + pass.u[i];
    ShapeProximity prox;
    if (point_shape_proximity(col.shape, col.pose, x, pass.x0[i], pass.s.thickness, prox)) return true;
  }
  return false;
}

// Cloth edges against every shape but the plane (whose closest point to an edge is always an
// end point): the closest point of the edge at the end of the step; only interior points (the
// end points are the vertices' business). Sequential: edges share vertices.
void resolve_edges(ContactPass& pass, const std::vector<std::array<int, 2>>& edges,
                   std::span<const RigidCollider> colliders, const std::vector<Aabb>& boxes,
                   const std::vector<double>& mu) {
  constexpr double kInterior = 1e-3;
  const int nc = static_cast<int>(colliders.size());
  const ClothRigidSettings& s = pass.s;
  // Core segments of the spheres and capsules (the same numbers for every edge).
  std::vector<std::array<Vec3, 2>>& cores = pass.work.cores;
  const std::vector<double>& reach = pass.work.reach;
  cores.resize(nc);
  for (int c = 0; c < nc; ++c) {
    const RigidCollider& col = colliders[c];
    if (col.shape.type != ShapeType::Sphere && col.shape.type != ShapeType::Capsule) continue;
    const double hl = col.shape.type == ShapeType::Capsule ? col.shape.half_length : 0.0;
    cores[c] = {col.pose.apply(Vec3(0, 0, -hl)), col.pose.apply(Vec3(0, 0, hl))};
  }
  for (const auto& e : edges) {
    const int i = e[0], j = e[1];
    if (!(pass.inv_mass[i] > 0) && !(pass.inv_mass[j] > 0)) continue;
    if (!pass.any_active(e.data(), 2)) continue;
    for (int c = 0; c < nc; ++c) {
      pass.collider = c;
      const RigidCollider& col = colliders[c];
      const ShapeType type = col.shape.type;
      if (type == ShapeType::Plane) continue;
      const Vec3 a = pass.x0[i] + pass.u[i], b = pass.x0[j] + pass.u[j];
      Aabb eb;
      eb.grow(a);
      eb.grow(b);
      if (!boxes[c].overlaps(eb)) continue;
      // No point of the shape lies farther than reach[c] from its origin: an edge whose box is
      // farther than that plus the thickness from the origin is skipped before the closest
      // points are found (GJK for most shapes), as the distance test below would skip it. The
      // margin, 10⁻⁹ of the lengths involved, is far above their round-off.
      const Vec3& origin = col.pose.position;
      const Vec3 outside = (eb.min - origin).cwiseMax(origin - eb.max).cwiseMax(0.0);
      const double clear = reach[c] + s.thickness;
      if (outside.squaredNorm() >= clear * clear + 1e-9 * (a.squaredNorm() + b.squaredNorm() + origin.squaredNorm() + clear * clear))
        continue;
      double edge_s = 0, dist = 0;
      Vec3 n, surface;
      if (type == ShapeType::Sphere || type == ShapeType::Capsule) {
        // Closed form about the shape's core segment.
        const SegmentClosest cl = closest_segment_segment(a, b, cores[c][0], cores[c][1]);
        if (!(cl.distance > 0)) continue;
        edge_s = cl.s;
        dist = cl.distance - col.shape.radius;
        n = (cl.p - cl.q) / cl.distance;
        surface = cl.q + col.shape.radius * n;
      } else {
        // The edge as a zero-radius capsule against the shape (GJK/EPA or the mesh BVH).
        const Vec3 d = b - a;
        const double len = d.norm();
        if (!(len > 1e-12)) continue;
        Pose seg_pose;
        seg_pose.position = 0.5 * (a + b);
        seg_pose.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), d / len);
        const std::optional<DistanceResult> r =
            signed_distance(Shape::capsule(0.0, 0.5 * len), seg_pose, col.shape, col.pose);
        if (!r || !r->normal.allFinite()) continue;
        edge_s = (r->point_a - a).dot(d) / (len * len);
        dist = r->distance;
        n = -r->normal;  // normal a → b points from the edge to the shape
        surface = r->point_b;
      }
      if (edge_s <= kInterior || edge_s >= 1 - kInterior) continue;
      if (!(dist < s.thickness)) continue;
      const double w[2] = {1 - edge_s, edge_s};
      const int idx[2] = {i, j};
      if (anchored_on(pass, idx, 2, col)) continue;
      if (pass.apply(idx, w, 2, n, surface, s.thickness - dist, col, mu[c])) ++pass.stats.edge_contacts;
    }
  }
}

// Shapes poking into the interior of cloth triangles. Convex shapes: the shape's deepest
// point beyond the triangle's plane (its support point along n, the face normal turned away
// from the body) — a box corner, a pyramid apex, the top of an ellipsoid bulging through a
// large triangle. Meshes: their vertices against the triangles.
void resolve_faces(ContactPass& pass, const std::vector<std::array<int, 3>>& triangles,
                   std::span<const RigidCollider> colliders, const std::vector<Aabb>& boxes,
                   const std::vector<double>& mu, std::vector<Aabb>& tri_box) {
  constexpr double kInterior = 1e-3;
  const ClothRigidSettings& s = pass.s;
  const int nt = static_cast<int>(triangles.size());
  // Each triangle's box (the union only when a mesh needs it).
  tri_box.resize(nt);
  cloth_serial_for(nt, [&](std::ptrdiff_t t) {
    Aabb box;  // an inactive triangle keeps the empty box, which overlaps nothing
    if (pass.any_active(triangles[t].data(), 3)) {
      for (int k : triangles[t]) box.grow(Vec3(pass.x0[k] + pass.u[k]));
      box = box.inflated(s.thickness);
    }
    tri_box[t] = box;
  });
  std::optional<Aabb> cloth_box;  // their union, for mesh colliders only
  auto end_position = [&](int k) { return Vec3(pass.x0[k] + pass.u[k]); };
  // Contact of the point p of the body with triangle t whose plane has unit normal n (out of
  // the body) when p lies under the triangle's interior, less than the thickness below it.
  auto touch = [&](int t, const Vec3& n, const Vec3& p, const RigidCollider& col, double mu_c) {
    const auto& tri = triangles[t];
    const Vec3 a = end_position(tri[0]), b = end_position(tri[1]), c = end_position(tri[2]);
    const double gap = n.dot(a - p);
    if (!(gap < s.thickness) || gap < -s.thickness - 0.5 * tri_box[t].extent().maxCoeff()) return;
    const Vec3 q = p + gap * n;  // p projected on the plane
    const Vec3 cr = (b - a).cross(c - a);
    const double area2 = cr.squaredNorm();
    if (!(area2 > 0)) return;
    const double w1 = (q - a).cross(c - a).dot(cr) / area2;
    const double w2 = (b - a).cross(q - a).dot(cr) / area2;
    const double w0 = 1 - w1 - w2;
    if (w0 <= kInterior || w1 <= kInterior || w2 <= kInterior) return;  // edges, vertices do the rest
    const double w[3] = {w0, w1, w2};
    const int idx[3] = {tri[0], tri[1], tri[2]};
    if (anchored_on(pass, idx, 3, col)) return;
    if (pass.apply(idx, w, 3, n, p, s.thickness - gap, col, mu_c)) ++pass.stats.face_contacts;
  };
  // Triangle t at the end of the step: its first corner, centroid and unit normal (false when
  // degenerate).
  auto end_triangle = [&](int t, Vec3& a, Vec3& centroid, Vec3& n) {
    const auto& tri = triangles[t];
    a = end_position(tri[0]);
    const Vec3 b = end_position(tri[1]), cc = end_position(tri[2]);
    n = (b - a).cross(cc - a);
    const double len = n.norm();
    if (!(len > 0)) return false;
    n /= len;
    centroid = (a + b + cc) / 3.0;
    return true;
  };
  for (size_t c = 0; c < colliders.size(); ++c) {
    pass.collider = static_cast<int>(c);
    const RigidCollider& col = colliders[c];
    if (col.shape.is_convex()) {
      // No point of the shape lies farther than `reach` from its origin, so touch()'s gap
      // n·(a − support) is at least n·(a − origin) − reach: a triangle whose plane lies that far
      // out is skipped before its support point is found (two rotations of n), as touch() would
      // skip it. The margin, 10⁻⁹ of the lengths involved, is far above their round-off.
      // (cloth_drape_sphere: 38% of the ~2,000 triangles in the sphere's box a pass.)
      const double reach = pass.work.reach[c];
      const Vec3& origin = col.pose.position;
      for (int t = 0; t < nt; ++t) {
        if (!tri_box[t].overlaps(boxes[c])) continue;
        Vec3 a, centroid, n;
        if (!end_triangle(t, a, centroid, n)) continue;
        if (n.dot(centroid - origin) < 0) n = -n;
        const double lower = n.dot(a - origin) - reach;
        if (lower >= s.thickness + 1e-9 * (a.norm() + origin.norm() + reach + s.thickness)) continue;
        touch(t, n, support_world(col.shape, col.pose, n), col, mu[c]);
      }
    } else if (col.shape.type == ShapeType::Mesh && col.shape.mesh) {
      if (!cloth_box) {
        cloth_box.emplace();
        for (const Aabb& box : tri_box) cloth_box->grow(box);
      }
      for (const Vec3& local : col.shape.mesh->vertices) {
        const Vec3 p = col.pose.apply(local);
        if (!cloth_box->overlaps(Aabb{p, p})) continue;
        for (int t = 0; t < nt; ++t) {
          if (!tri_box[t].overlaps(Aabb{p, p})) continue;
          Vec3 a, centroid, n;
          if (!end_triangle(t, a, centroid, n)) continue;
          // The side the cloth is on now (a mesh has no inside).
          if (n.dot(a - p) < 0) n = -n;
          touch(t, n, p, col, mu[c]);
        }
      }
    }
  }
}

// Continuous contact of every cloth triangle with every moving convex body (see the header):
// conservative advancement in the body's frame, then the separating plane of the first touch
// holds the triangle's free corners on their side at the end of the step.
void resolve_swept(ContactPass& pass, const std::vector<std::array<int, 3>>& triangles,
                   std::span<const RigidCollider> colliders, const std::vector<double>& mu) {
  const ClothRigidSettings& s = pass.s;
  constexpr int kMaxAdvances = 64;
  for (size_t c = 0; c < colliders.size(); ++c) {
    pass.collider = static_cast<int>(c);
    const RigidCollider& col = colliders[c];
    if (!col.shape.is_convex()) continue;
    const Pose p1 = col.pose, p0 = col.pose_at_step_start(s.h);
    // Below this relative motion per step the end-of-step tests cannot pick the wrong side.
    const double gate = std::max(s.thickness, 0.1 * smallest_size(col.shape));
    Aabb swept = compute_aabb(col.shape, p0);
    swept.grow(compute_aabb(col.shape, p1));
    swept = swept.inflated(s.thickness);
    const ConvexSupport body = make_convex_support(col.shape, Pose{});
    GjkOptions options;
    options.inflate_a = body.radius;
    // A cheap upper bound of a corner's motion relative to the body, to skip the triangles that
    // the gate below would skip without rotating their corners into the body frame (most of
    // them, and all against a static body): with q = Rᵀ(x − t) at both ends,
    // q1 − q0 = (R1 − R0)ᵀ(x0 − t0) + R1ᵀ(u − (t1 − t0)), so
    // |q1 − q0| ≤ ‖R1 − R0‖_F·|x0 − t0| + |u| + |t1 − t0|. The margin (10⁻⁹ of the lengths
    // involved, far above their round-off) makes sure the exact test would skip them too.
    const double dt = (p1.position - p0.position).norm();
    const double dr = (p1.orientation.toRotationMatrix() - p0.orientation.toRotationMatrix()).norm();
    std::vector<char>& slow = pass.work.slow;
    slow.resize(pass.x0.size());
    for (size_t k = 0; k < pass.x0.size(); ++k) {
      const double reach = (pass.x0[k] - p0.position).norm(), step = pass.u[k].norm();
      const double est = dr * reach + step + dt;
      slow[k] = est + 1e-9 * (reach + step + dt + est) < gate;
    }
    for (const auto& tri : triangles) {
      if (slow[tri[0]] && slow[tri[1]] && slow[tri[2]]) continue;
      if (!(pass.inv_mass[tri[0]] > 0) && !(pass.inv_mass[tri[1]] > 0) && !(pass.inv_mass[tri[2]] > 0))
        continue;
      if (!pass.any_active(tri.data(), 3)) continue;
      Aabb box;
      for (int k : tri) {
        box.grow(pass.x0[k]);
        box.grow(Vec3(pass.x0[k] + pass.u[k]));
      }
      if (!box.overlaps(swept)) continue;
      if (anchored_on(pass, tri.data(), 3, col)) continue;
      std::array<Vec3, 3> q0, q1;
      double bound = 0;  // fastest corner's displacement relative to the body over the step
      for (int k = 0; k < 3; ++k) {
        q0[k] = p0.inverse_apply(pass.x0[tri[k]]);
        q1[k] = p1.inverse_apply(Vec3(pass.x0[tri[k]] + pass.u[tri[k]]));
        bound = std::max(bound, (q1[k] - q0[k]).norm());
      }
      if (bound <= gate) continue;
      // Conservative advancement to distance `thickness`: no contact before t + (d − thickness)/bound.
      ConvexSupport moving;
      moving.point_count = 3;
      double t = 0;
      bool touch = false, overlap = false;
      GjkResult g;
      for (int it = 0; it < kMaxAdvances; ++it) {
        for (int k = 0; k < 3; ++k) moving.points[k] = q0[k] + t * (q1[k] - q0[k]);
        g = gjk_closest_points(body, moving, options);
        if (g.overlap) {
          overlap = t == 0;
          touch = !overlap;
          break;
        }
        if (g.distance <= 1.25 * s.thickness) {
          touch = true;
          break;
        }
        t += (g.distance - s.thickness) / bound;
        if (t >= 1) break;
      }
      if (!touch && !overlap) continue;
      // The plane the corners must end beyond: the separating plane at the first touch, or, for
      // a triangle already overlapping the body at the start (left there by an earlier step's
      // cloth–cloth response, or a sheet stretched so far that the body pokes through a face),
      // the body's support plane along the triangle's start normal turned away from the body's
      // centre, which has not crossed the sheet.
      Vec3 n;
      double level = 0;
      if (touch) {
        const Vec3 gap_vec = g.point_b - g.point_a;
        const double gap_len = gap_vec.norm();
        if (!(gap_len > 0)) continue;
        n = gap_vec / gap_len;  // body → triangle, body frame
        level = n.dot(g.point_a);
      } else {
        n = (q0[1] - q0[0]).cross(q0[2] - q0[0]);
        const double len = n.norm();
        if (!(len > 0)) continue;
        n /= len;
        if (n.dot((q0[0] + q0[1] + q0[2]) / 3.0 - body.center()) < 0) n = -n;
        level = n.dot(support_local(col.shape, n));
      }
      const Vec3 n_world = p1.rotate(n);
      bool any = false;
      for (int k = 0; k < 3; ++k) {
        const int i = tri[k];
        if (!(pass.inv_mass[i] > 0)) continue;
        const double gap = n.dot(p1.inverse_apply(Vec3(pass.x0[i] + pass.u[i]))) - level;
        if (!(gap < s.thickness)) continue;
        const Vec3 end = pass.x0[i] + pass.u[i];
        const Vec3 surface = end - gap * n_world;
        const double w = 1.0;
        any = pass.apply(&i, &w, 1, n_world, surface, s.thickness - gap, col, mu[c]) || any;
      }
      if (any) ++pass.stats.swept_contacts;
    }
  }
}

}  // namespace

void resolve_cloth_rigid(const std::vector<Vec3>& x0, std::vector<Vec3>& u, std::vector<Vec3>& v,
                         const std::vector<double>& mass, const std::vector<double>& inv_mass,
                         const std::vector<std::array<int, 2>>& edges,
                         std::span<const RigidCollider> colliders, const ClothRigidSettings& s,
                         ClothRigidWorkspace& work, std::vector<RigidImpulse>& reactions,
                         ClothRigidStats& stats) {
  stats = ClothRigidStats{};
  const int nv = static_cast<int>(x0.size());
  const int nc = static_cast<int>(colliders.size());
  const std::vector<char>* active = s.active_vertices;
  // A restricted pass keeps the contact records of the vertices it does not visit.
  if (!active || work.contact_collider.size() != x0.size()) work.contact_collider.assign(nv, -1);
  work.contact_point.resize(nv);
  if (nc == 0 || nv == 0) return;
  std::vector<Aabb>& boxes = work.collider_boxes;
  std::vector<double>& mu = work.mu;
  boxes.resize(nc);
  mu.resize(nc);
  work.reach.resize(nc);
  for (int c = 0; c < nc; ++c) {
    boxes[c] = compute_aabb(colliders[c].shape, colliders[c].pose).inflated(s.thickness);
    mu[c] = std::sqrt(std::max(0.0, s.friction * colliders[c].friction));
    work.reach[c] = bounding_radius(colliders[c].shape);
  }
  ContactPass pass{x0, u, v, mass, inv_mass, s, reactions, stats, work};
  pass.active = active;
  if (s.triangles) resolve_swept(pass, *s.triangles, colliders, mu);
  // Each vertex writes its own slots; the reactions are compacted in vertex order afterwards.
  std::vector<std::array<RigidImpulse, kSlotsPerVertex>>& slots = work.slots;
  std::vector<int>& count = work.slot_count;
  std::vector<double>& depth = work.depth;
  slots.resize(nv);
  count.assign(nv, 0);
  depth.assign(nv, 0.0);
  cloth_parallel_for(nv, s.threads, [&](std::ptrdiff_t i) {
    if (!(inv_mass[i] > 0)) return;
    if (active && !(*active)[i]) return;
    for (int c = 0; c < nc; ++c) {
      const RigidCollider& col = colliders[c];
      const Vec3 x = x0[i] + u[i];
      if (!boxes[c].overlaps(Aabb{x, x})) continue;
      ShapeProximity prox;
      if (!point_shape_proximity(col.shape, col.pose, x, x0[i], s.thickness, prox)) continue;
      const Vec3& n = prox.normal;
      depth[i] = std::max(depth[i], s.thickness - prox.distance);
      // Push the end position out to the thickness (displacement only).
      u[i] += (s.thickness - prox.distance) * n;
      work.contact_collider[i] = c;
      work.contact_point[i] = prox.point;
      // Inelastic normal and Coulomb tangential velocity change relative to the body.
      const Vec3 vb = col.point_velocity(prox.point);
      const Vec3 vr = v[i] - vb;
      const double vn = vr.dot(n);
      Vec3 dv = Vec3::Zero();
      if (vn < 0) {
        dv = -vn * n;
        const Vec3 vt = vr - vn * n;
        const double vt_len = vt.norm();
        if (vt_len > 0) dv -= std::min(1.0, mu[c] * (-vn) / vt_len) * vt;
      }
      v[i] += dv;
      // The tangential part also acts on this step's displacement (sticking holds in place).
      u[i] += s.h * (dv - dv.dot(n) * n);
      if (count[i] < kSlotsPerVertex && dv.squaredNorm() > 0) {
        slots[i][count[i]++] = RigidImpulse{col.body, prox.point, -mass[i] * dv};
      }
    }
  });
  for (int i = 0; i < nv; ++i) {
    for (int k = 0; k < count[i]; ++k) reactions.push_back(slots[i][k]);
    if (depth[i] > 0) ++stats.contacts;
    stats.max_penetration = std::max(stats.max_penetration, depth[i]);
  }
  resolve_edges(pass, edges, colliders, boxes, mu);
  if (s.triangles) resolve_faces(pass, *s.triangles, colliders, boxes, mu, work.triangle_boxes);
}

}  // namespace impetus
