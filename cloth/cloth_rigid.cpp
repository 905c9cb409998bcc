#include "cloth/cloth_rigid.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "cloth/point_shape_distance.h"
#include "cloth/proximity.h"
#include "cloth/cloth_parallel.h"

namespace impetus {
namespace {

constexpr int kSlotsPerVertex = 4;

// Edges against the rounded-segment shapes (sphere: a point core, capsule: a segment core):
// the closest point of the edge at the end of the step; only interior points (the end points
// are the vertices' business). Sequential: edges share vertices.
void resolve_edges(const std::vector<Vec3>& x0, std::vector<Vec3>& u, std::vector<Vec3>& v,
                   const std::vector<double>& mass, const std::vector<double>& inv_mass,
                   const std::vector<std::array<int, 2>>& edges,
                   std::span<const RigidCollider> colliders, const std::vector<Aabb>& boxes,
                   const std::vector<double>& mu, const ClothRigidSettings& s,
                   std::vector<RigidImpulse>& reactions, ClothRigidStats& stats) {
  constexpr double kInterior = 1e-3;
  const int nc = static_cast<int>(colliders.size());
  for (const auto& e : edges) {
    const int i = e[0], j = e[1];
    if (!(inv_mass[i] > 0) && !(inv_mass[j] > 0)) continue;
    for (int c = 0; c < nc; ++c) {
      const RigidCollider& col = colliders[c];
      const ShapeType type = col.shape.type;
      if (type != ShapeType::Sphere && type != ShapeType::Capsule) continue;
      const Vec3 a = x0[i] + u[i], b = x0[j] + u[j];
      Aabb eb;
      eb.grow(a);
      eb.grow(b);
      if (!boxes[c].overlaps(eb)) continue;
      // Core of the shape in world coordinates.
      const double hl = type == ShapeType::Capsule ? col.shape.half_length : 0.0;
      const Vec3 c0 = col.pose.apply(Vec3(0, 0, -hl)), c1 = col.pose.apply(Vec3(0, 0, hl));
      const SegmentSegmentClosest cl = segment_segment_closest(a, b, c0, c1);
      if (cl.s <= kInterior || cl.s >= 1 - kInterior) continue;
      const double dist = cl.distance - col.shape.radius;
      if (!(dist < s.thickness) || !(cl.distance > 0)) continue;
      const Vec3 n = (cl.point_p - cl.point_q) / cl.distance;
      const Vec3 surface = cl.point_q + col.shape.radius * n;
      const double w[2] = {1 - cl.s, cl.s};
      const int idx[2] = {i, j};
      double denom = 0;
      for (int k = 0; k < 2; ++k) denom += w[k] * w[k] * inv_mass[idx[k]];
      if (!(denom > 0)) continue;
      ++stats.edge_contacts;
      stats.max_penetration = std::max(stats.max_penetration, s.thickness - dist);
      // Push the edge point out to the thickness (displacement only).
      const Vec3 push = ((s.thickness - dist) / denom) * n;
      for (int k = 0; k < 2; ++k) u[idx[k]] += (w[k] * inv_mass[idx[k]]) * push;
      // Inelastic normal and Coulomb tangential change of the edge point's relative velocity.
      const Vec3 vb = col.point_velocity(surface);
      const Vec3 vr = w[0] * v[i] + w[1] * v[j] - vb;
      const double vn = vr.dot(n);
      if (!(vn < 0)) continue;
      Vec3 dv = -vn * n;
      const Vec3 vt = vr - vn * n;
      const double vt_len = vt.norm();
      if (vt_len > 0) dv -= std::min(1.0, mu[c] * (-vn) / vt_len) * vt;
      const Vec3 J = dv / denom;  // impulse on the edge point
      Vec3 momentum = Vec3::Zero();
      for (int k = 0; k < 2; ++k) {
        const Vec3 dvk = (w[k] * inv_mass[idx[k]]) * J;
        v[idx[k]] += dvk;
        u[idx[k]] += s.h * (dvk - dvk.dot(n) * n);
        momentum += mass[idx[k]] * dvk;
      }
      reactions.push_back(RigidImpulse{col.body, surface, -momentum});
    }
  }
}

}  // namespace

void resolve_cloth_rigid(const std::vector<Vec3>& x0, std::vector<Vec3>& u, std::vector<Vec3>& v,
                         const std::vector<double>& mass, const std::vector<double>& inv_mass,
                         const std::vector<std::array<int, 2>>& edges,
                         std::span<const RigidCollider> colliders, const ClothRigidSettings& s,
                         std::vector<RigidImpulse>& reactions, ClothRigidStats& stats) {
  stats = ClothRigidStats{};
  const int nv = static_cast<int>(x0.size());
  const int nc = static_cast<int>(colliders.size());
  if (nc == 0 || nv == 0) return;
  std::vector<Aabb> boxes(nc);
  std::vector<double> mu(nc);
  for (int c = 0; c < nc; ++c) {
    boxes[c] = compute_aabb(colliders[c].shape, colliders[c].pose).inflated(s.thickness);
    mu[c] = std::sqrt(std::max(0.0, s.friction * colliders[c].friction));
  }
  // Each vertex writes its own slots; the reactions are compacted in vertex order afterwards.
  std::vector<std::array<RigidImpulse, kSlotsPerVertex>> slots(nv);
  std::vector<int> count(nv, 0);
  std::vector<double> depth(nv, 0.0);
  cloth_parallel_for(nv, s.threads, [&](std::ptrdiff_t i) {
    if (!(inv_mass[i] > 0)) return;
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
  resolve_edges(x0, u, v, mass, inv_mass, edges, colliders, boxes, mu, s, reactions, stats);
}

double min_signed_distance(const std::vector<Vec3>& x, std::span<const RigidCollider> colliders) {
  double best = std::numeric_limits<double>::infinity();
  for (const Vec3& p : x) {
    for (const RigidCollider& c : colliders) {
      ShapeProximity prox;
      if (point_shape_proximity(c.shape, c.pose, p, p, std::numeric_limits<double>::infinity(), prox))
        best = std::min(best, prox.distance);
    }
  }
  return best;
}

}  // namespace impetus
