#include "collision/distance_mesh.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "collision/base/assert.h"
#include "collision/convex_signed_distance.h"
#include "collision/convex_support.h"
#include "collision/point_in_mesh.h"

namespace impetus {
namespace {

constexpr int kMaxStack = 256;

double aabb_distance(const Aabb& a, const Aabb& b) {
  Vec3 gap = (a.min - b.max).cwiseMax(b.min - a.max).cwiseMax(0.0);
  return gap.norm();
}

Aabb transformed_box(const Aabb& box, const Pose& pose) {
  Aabb out;
  for (int k = 0; k < 8; ++k) {
    Vec3 corner((k & 1) ? box.max.x() : box.min.x(), (k & 2) ? box.max.y() : box.min.y(),
                (k & 4) ? box.max.z() : box.min.z());
    out.grow(pose.apply(corner));
  }
  return out;
}

ConvexSupport triangle_of(const TriangleMesh& mesh, int t, const Pose& pose) {
  const auto& tri = mesh.triangles[t];
  return make_triangle_support(pose.apply(mesh.vertices[tri[0]]),
                               pose.apply(mesh.vertices[tri[1]]),
                               pose.apply(mesh.vertices[tri[2]]));
}

// A subtree can be skipped when its box is apart from the other's box by at least the best
// distance so far (overlapping boxes bound nothing: the distance there may be negative).
bool prune(double lower_bound, double best) { return lower_bound > 0 && lower_bound >= best; }

struct Best {
  double distance = std::numeric_limits<double>::infinity();
  ConvexDistance r;
  bool found = false;
  void offer(const ConvexDistance& c) {
    if (c.distance < distance) {
      distance = c.distance;
      r = c;
      found = true;
    }
  }
};

// Mesh (local frame) against a convex set given in the mesh's local frame.
Best mesh_convex(const TriangleMesh& mesh, const ConvexSupport& other, const Aabb& other_box) {
  Best best;
  const Bvh& bvh = mesh.bvh;
  if (bvh.nodes.empty()) {
    // No tree built: every triangle.
    for (int t = 0; t < static_cast<int>(mesh.triangles.size()); ++t) {
      best.offer(convex_signed_distance(triangle_of(mesh, t, Pose{}), other, best.distance));
    }
    return best;
  }
  std::array<int, kMaxStack> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Bvh::Node& node = bvh.nodes[stack[--top]];
    if (prune(aabb_distance(node.box, other_box), best.distance)) continue;
    if (node.left < 0) {
      for (int k = node.first; k < node.first + node.count; ++k) {
        ConvexSupport tri = triangle_of(mesh, bvh.primitives[k], Pose{});
        best.offer(convex_signed_distance(tri, other, best.distance));
      }
      continue;
    }
    // Nearer child on top of the stack, so that good bounds come early.
    double dl = aabb_distance(bvh.nodes[node.left].box, other_box);
    double dr = aabb_distance(bvh.nodes[node.right].box, other_box);
    IMPETUS_ASSERT(top + 2 <= kMaxStack, "mesh BVH deeper than the traversal stack");
    if (dl <= dr) {
      stack[top++] = node.right;
      stack[top++] = node.left;
    } else {
      stack[top++] = node.left;
      stack[top++] = node.right;
    }
  }
  return best;
}

// Mesh a (its local frame) against mesh b placed at `b_in_a` in a's frame.
Best mesh_mesh(const TriangleMesh& a, const TriangleMesh& b, const Pose& b_in_a) {
  Best best;
  if (a.bvh.nodes.empty() || b.bvh.nodes.empty()) return best;
  std::array<std::pair<int, int>, kMaxStack> stack;
  int top = 0;
  stack[top++] = {0, 0};
  while (top > 0) {
    auto [ia, ib] = stack[--top];
    const Bvh::Node& na = a.bvh.nodes[ia];
    const Bvh::Node& nb = b.bvh.nodes[ib];
    Aabb box_b = transformed_box(nb.box, b_in_a);
    if (prune(aabb_distance(na.box, box_b), best.distance)) continue;
    if (na.left < 0 && nb.left < 0) {
      for (int i = na.first; i < na.first + na.count; ++i) {
        ConvexSupport ta = triangle_of(a, a.bvh.primitives[i], Pose{});
        for (int j = nb.first; j < nb.first + nb.count; ++j) {
          ConvexSupport tb = triangle_of(b, b.bvh.primitives[j], b_in_a);
          best.offer(convex_signed_distance(ta, tb, best.distance));
        }
      }
      continue;
    }
    // Descend into the larger node (or the one that is not a leaf).
    bool split_a = nb.left < 0 ||
                   (na.left >= 0 && na.box.extent().squaredNorm() >= box_b.extent().squaredNorm());
    IMPETUS_ASSERT(top + 2 <= kMaxStack, "mesh–mesh traversal stack overflow");
    if (split_a) {
      stack[top++] = {na.right, ib};
      stack[top++] = {na.left, ib};
    } else {
      stack[top++] = {ia, nb.right};
      stack[top++] = {ia, nb.left};
    }
  }
  return best;
}

}  // namespace

DistanceResult mesh_signed_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                    const Pose& pose_b) {
  IMPETUS_ASSERT(a.type == ShapeType::Mesh && b.type != ShapeType::Plane,
                 "mesh_signed_distance: mesh against convex or mesh");
  const TriangleMesh& mesh = *a.mesh;
  const Pose b_in_a = pose_a.inverse() * pose_b;
  Best best;
  if (b.type == ShapeType::Mesh) {
    best = mesh_mesh(mesh, *b.mesh, b_in_a);
  } else {
    ConvexSupport other = make_convex_support(b, b_in_a);
    best = mesh_convex(mesh, other, compute_aabb(b, b_in_a));
  }
  DistanceResult out;
  if (!best.found) {
    out.distance = std::numeric_limits<double>::infinity();
    return out;
  }
  ConvexDistance r = best.r;
  if (r.distance > 0) {
    // Solid closed meshes: a shape enclosed without touching the surface is inside.
    bool inside = false;
    if (mesh.is_closed()) inside = point_in_mesh(mesh, r.point_b);
    if (!inside && b.type == ShapeType::Mesh && b.mesh->is_closed()) {
      inside = point_in_mesh(*b.mesh, b_in_a.inverse_apply(r.point_a));
    }
    if (inside) {
      r.distance = -r.distance;
      r.normal = -r.normal;
    }
  }
  out.distance = r.distance;
  out.normal = pose_a.rotate(r.normal);
  out.point_a = pose_a.apply(r.point_a);
  out.point_b = pose_a.apply(r.point_b);
  return out;
}

}  // namespace impetus
