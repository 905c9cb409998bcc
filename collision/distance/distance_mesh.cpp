#include "collision/distance/distance_mesh.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "collision/base/assert.h"
#include "collision/distance/convex_signed_distance.h"
#include "collision/shape/convex_support.h"
#include "collision/shape/point_in_mesh.h"
#include "collision/distance/triangle_distance.h"

namespace impetus {
namespace {

// Below this gap (relative to the pair's size) a triangle pair counts as touching and goes to
// GJK/EPA, which then decides the sign; above it the closed form is exact.
constexpr double kTouchTol = 1e-7;

// Lower bound of the signed distance of any two sets inside boxes a and b (same frame): their
// gap when apart, else −(the penetration depth of the boxes), the smallest overlap over the
// three axes. Valid because the penetration depth only grows when the sets grow.
double signed_box_bound(const Aabb& a, const Aabb& b) {
  const Vec3 gap = (a.min - b.max).cwiseMax(b.min - a.max);
  const double largest = gap.maxCoeff();
  if (largest <= 0) return largest;
  return gap.cwiseMax(0.0).norm();
}

// Axis-aligned box, in the frame of `rotation`/`translation`, around `box` moved by them: the
// centre moved, the half extents through |R| (the same box as the eight moved corners).
Aabb moved_box(const Aabb& box, const Mat3& rotation, const Mat3& abs_rotation,
               const Vec3& translation) {
  const Vec3 centre = rotation * box.center() + translation;
  const Vec3 half = abs_rotation * (0.5 * box.extent());
  return Aabb{centre - half, centre + half};
}

Triangle triangle_at(const TriangleMesh& mesh, int t) {
  const auto& tri = mesh.triangles[t];
  return {mesh.vertices[tri[0]], mesh.vertices[tri[1]], mesh.vertices[tri[2]]};
}

Aabb triangle_box(const Triangle& t) {
  Aabb box;
  for (const Vec3& v : t) box.grow(v);
  return box;
}

double triangle_size(const Triangle& t) {
  return std::max({(t[1] - t[0]).norm(), (t[2] - t[1]).norm(), (t[0] - t[2]).norm()});
}

// Winding number of a closed mesh around x (local frame) as the signed count of crossings of a
// ray from x (a closed oriented surface is crossed outward once more than inward from inside,
// as often both ways from outside), the BVH pruning the triangles the ray misses. Returns
// false when the ray passes within round-off of an edge, grazes a triangle or x is on the
// surface: then the count is not trustworthy and the caller uses the solid-angle sum.
bool ray_winding(const TriangleMesh& mesh, const Vec3& x, int* winding) {
  // A fixed direction with no zero or repeated components (ties with axis-aligned geometry).
  const Vec3 dir = Vec3(0.5407, 0.6273, 0.5604).normalized();
  const Vec3 inv = dir.cwiseInverse();
  const Bvh& bvh = mesh.bvh;
  const double size = bvh.nodes[0].box.extent().norm();
  constexpr double kEdgeTol = 1e-9;
  constexpr int kStack = 128;
  std::array<int, kStack> stack;
  int top = 0;
  stack[top++] = 0;
  int count = 0;
  while (top > 0) {
    const Bvh::Node& node = bvh.nodes[stack[--top]];
    // Slab test of the ray t ≥ 0 against the node box (slightly inflated for round-off).
    const Vec3 t0 = (node.box.min.array() - 1e-12 * size - x.array()) * inv.array();
    const Vec3 t1 = (node.box.max.array() + 1e-12 * size - x.array()) * inv.array();
    const double enter = t0.cwiseMin(t1).maxCoeff();
    const double leave = t0.cwiseMax(t1).minCoeff();
    if (leave < 0 || enter > leave) continue;
    if (node.left >= 0) {
      IMPETUS_ASSERT(top + 2 <= kStack, "mesh BVH deeper than the ray stack");
      stack[top++] = node.left;
      stack[top++] = node.right;
      continue;
    }
    for (int k = node.first; k < node.first + node.count; ++k) {
      const Triangle t = triangle_at(mesh, bvh.primitives[k]);
      const Vec3 e1 = t[1] - t[0];
      const Vec3 e2 = t[2] - t[0];
      const Vec3 n = e1.cross(e2);
      const Vec3 p = dir.cross(e2);
      const double det = e1.dot(p);  // = −dir·n
      const Vec3 s = x - t[0];
      if (std::abs(det) <= kEdgeTol * n.norm()) {
        // Ray (nearly) parallel to the plane: harmless unless x is (nearly) in that plane.
        if (std::abs(n.dot(s)) <= kEdgeTol * n.norm() * size) return false;
        continue;
      }
      const double inv_det = 1.0 / det;
      const double u = s.dot(p) * inv_det;
      const Vec3 q = s.cross(e1);
      const double v = dir.dot(q) * inv_det;
      const double along = e2.dot(q) * inv_det;
      if (u < -kEdgeTol || v < -kEdgeTol || u + v > 1 + kEdgeTol) continue;
      if (along < -kEdgeTol * size) continue;
      if (along <= kEdgeTol * size || u <= kEdgeTol || v <= kEdgeTol || u + v >= 1 - kEdgeTol) {
        return false;  // through an edge or vertex, or x on the surface
      }
      count += det < 0 ? 1 : -1;  // leaving through the outward side counts +1
    }
  }
  *winding = count;
  return true;
}

// point_in_mesh for a closed mesh, false for an open one; the closedness check and the
// solid-angle sum (both linear in the mesh) run only when the fast tests cannot decide.
bool inside_closed_mesh(const TriangleMesh& mesh, const Vec3& x) {
  if (mesh.bvh.nodes.empty()) return mesh.is_closed() && point_in_mesh(mesh, x);
  const Aabb& root = mesh.bvh.nodes[0].box;
  // Outside the box a closed surface has winding number 0 (and an open one never counts).
  if ((x.array() < root.min.array()).any() || (x.array() > root.max.array()).any()) return false;
  int winding = 0;
  if (ray_winding(mesh, x, &winding)) return winding >= 1 && mesh.is_closed();
  return mesh.is_closed() && point_in_mesh(mesh, x);
}

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

// One triangle pair: the closed form when the triangles are clearly apart, else GJK/EPA for
// the signed (penetrating) value.
void offer_triangle_pair(const Triangle& ta, const Triangle& tb, Best* best) {
  const TriangleDistance t = triangle_distance(ta, tb);
  const double scale = triangle_size(ta) + triangle_size(tb);
  if (!t.crossing && t.distance > kTouchTol * scale) {
    if (t.distance >= best->distance) return;
    ConvexDistance c;
    c.distance = t.distance;
    c.point_a = t.point_a;
    c.point_b = t.point_b;
    c.normal = (t.point_b - t.point_a) / t.distance;
    best->offer(c);
    return;
  }
  best->offer(convex_signed_distance(make_triangle_support(ta[0], ta[1], ta[2]),
                                     make_triangle_support(tb[0], tb[1], tb[2]),
                                     best->distance));
}

// Pending pair of subtrees with the lower bound of their distance; a min-heap on the bound
// gives nearest-first traversal, and the first bound ≥ the best distance ends the search.
struct Pending {
  double bound;
  int a;
  int b;
};
struct FartherFirst {
  bool operator()(const Pending& x, const Pending& y) const {
    if (x.bound != y.bound) return x.bound > y.bound;
    if (x.a != y.a) return x.a > y.a;
    return x.b > y.b;
  }
};

void push(std::vector<Pending>* heap, const Pending& p) {
  heap->push_back(p);
  std::push_heap(heap->begin(), heap->end(), FartherFirst{});
}

Pending pop(std::vector<Pending>* heap) {
  std::pop_heap(heap->begin(), heap->end(), FartherFirst{});
  Pending p = heap->back();
  heap->pop_back();
  return p;
}

// Mesh (local frame) against a convex set given in the mesh's local frame.
Best mesh_convex(const TriangleMesh& mesh, const ConvexSupport& other, const Aabb& other_box) {
  Best best;
  const Bvh& bvh = mesh.bvh;
  auto visit_triangle = [&](int t) {
    const Triangle tri = triangle_at(mesh, t);
    if (signed_box_bound(triangle_box(tri), other_box) >= best.distance) return;
    best.offer(convex_signed_distance(make_triangle_support(tri[0], tri[1], tri[2]), other,
                                      best.distance));
  };
  if (bvh.nodes.empty()) {
    // No tree built: every triangle.
    for (int t = 0; t < static_cast<int>(mesh.triangles.size()); ++t) visit_triangle(t);
    return best;
  }
  std::vector<Pending> heap;
  heap.reserve(64);
  heap.push_back({signed_box_bound(bvh.nodes[0].box, other_box), 0, 0});
  while (!heap.empty()) {
    const Pending p = pop(&heap);
    if (p.bound >= best.distance) break;  // every other pending bound is at least as large
    const Bvh::Node& node = bvh.nodes[p.a];
    if (node.left < 0) {
      for (int k = node.first; k < node.first + node.count; ++k) visit_triangle(bvh.primitives[k]);
      continue;
    }
    for (int child : {node.left, node.right}) {
      const double bound = signed_box_bound(bvh.nodes[child].box, other_box);
      if (bound < best.distance) push(&heap, {bound, child, 0});
    }
  }
  return best;
}

// Mesh b's vertices and node boxes in a's frame, computed once each when first needed.
class MovedMesh {
 public:
  MovedMesh(const TriangleMesh& mesh, const Pose& pose)
      : mesh_(mesh),
        rotation_(pose.orientation.toRotationMatrix()),
        abs_rotation_(rotation_.cwiseAbs()),
        translation_(pose.position),
        boxes_(mesh.bvh.nodes.size()),
        box_done_(mesh.bvh.nodes.size(), 0),
        vertices_(mesh.vertices.size()),
        vertex_done_(mesh.vertices.size(), 0) {}

  const Aabb& box(int node) {
    if (!box_done_[node]) {
      boxes_[node] = moved_box(mesh_.bvh.nodes[node].box, rotation_, abs_rotation_, translation_);
      box_done_[node] = 1;
    }
    return boxes_[node];
  }
  const Vec3& vertex(int v) {
    if (!vertex_done_[v]) {
      vertices_[v] = rotation_ * mesh_.vertices[v] + translation_;
      vertex_done_[v] = 1;
    }
    return vertices_[v];
  }
  Triangle triangle(int t) {
    const auto& tri = mesh_.triangles[t];
    return {vertex(tri[0]), vertex(tri[1]), vertex(tri[2])};
  }

 private:
  const TriangleMesh& mesh_;
  Mat3 rotation_;
  Mat3 abs_rotation_;
  Vec3 translation_;
  std::vector<Aabb> boxes_;
  std::vector<std::uint8_t> box_done_;
  std::vector<Vec3> vertices_;
  std::vector<std::uint8_t> vertex_done_;
};

// Mesh a (its local frame) against mesh b placed at `b_in_a` in a's frame.
Best mesh_mesh(const TriangleMesh& a, const TriangleMesh& b, const Pose& b_in_a) {
  Best best;
  if (a.bvh.nodes.empty() || b.bvh.nodes.empty()) return best;
  MovedMesh moved(b, b_in_a);
  // Bounds from the boxes and from the balls around them (the ball bound is often the tighter
  // one for b's box, which grows when re-boxed in a's frame).
  auto bound = [&](int ia, int ib) {
    const Aabb& box_a = a.bvh.nodes[ia].box;
    const Aabb& box_b = moved.box(ib);
    const double boxes = signed_box_bound(box_a, box_b);
    if (boxes <= 0) return boxes;
    const double ball_a = 0.5 * box_a.extent().norm();
    const double ball_b = 0.5 * b.bvh.nodes[ib].box.extent().norm();
    return std::max(boxes, (box_b.center() - box_a.center()).norm() - ball_a - ball_b);
  };
  std::vector<Pending> heap;
  heap.reserve(256);
  heap.push_back({bound(0, 0), 0, 0});
  while (!heap.empty()) {
    const Pending p = pop(&heap);
    if (p.bound >= best.distance) break;  // every other pending bound is at least as large
    const Bvh::Node& na = a.bvh.nodes[p.a];
    const Bvh::Node& nb = b.bvh.nodes[p.b];
    if (na.left < 0 && nb.left < 0) {
      for (int j = nb.first; j < nb.first + nb.count; ++j) {
        const Triangle tb = moved.triangle(b.bvh.primitives[j]);
        const Aabb box_tb = triangle_box(tb);
        for (int i = na.first; i < na.first + na.count; ++i) {
          if (signed_box_bound(a.bvh.boxes[i], box_tb) >= best.distance) continue;
          offer_triangle_pair(triangle_at(a, a.bvh.primitives[i]), tb, &best);
        }
      }
      continue;
    }
    // Descend into the larger node (or the one that is not a leaf).
    const bool split_a = nb.left < 0 || (na.left >= 0 && na.box.extent().squaredNorm() >=
                                                             nb.box.extent().squaredNorm());
    if (split_a) {
      for (int child : {na.left, na.right}) {
        const double lower = bound(child, p.b);
        if (lower < best.distance) push(&heap, {lower, child, p.b});
      }
    } else {
      for (int child : {nb.left, nb.right}) {
        const double lower = bound(p.a, child);
        if (lower < best.distance) push(&heap, {lower, p.a, child});
      }
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
    bool inside = inside_closed_mesh(mesh, r.point_b);
    if (!inside && b.type == ShapeType::Mesh) {
      inside = inside_closed_mesh(*b.mesh, b_in_a.inverse_apply(r.point_a));
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
