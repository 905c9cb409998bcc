#include "collision/phong/convolution_overlap.h"

#include <utility>
#include <vector>

#include "collision/shape/point_in_mesh.h"
#include "collision/distance/triangle_distance.h"

namespace impetus {
namespace {

// AABB of a box given in b's frame, in a's frame.
Aabb transformed_box(const Aabb& box, const Pose& pose, const Mat3& abs_rotation) {
  const Vec3 centre = pose.apply(box.center());
  const Vec3 half = abs_rotation * (0.5 * box.extent());
  return Aabb{centre - half, centre + half};
}

double largest_extent(const Aabb& box) { return box.extent().maxCoeff(); }

}  // namespace

bool meshes_overlap(const TriangleMesh& a, const TriangleMesh& b, const Pose& b_in_a) {
  if (a.bvh.nodes.empty() || b.bvh.nodes.empty()) return false;
  const Mat3 abs_rotation = b_in_a.orientation.toRotationMatrix().cwiseAbs();
  std::vector<Vec3> xb(b.vertices.size());
  for (std::size_t v = 0; v < xb.size(); ++v) xb[v] = b_in_a.apply(b.vertices[v]);

  std::vector<std::pair<int, int>> stack = {{0, 0}};
  while (!stack.empty()) {
    const auto [na, nb] = stack.back();
    stack.pop_back();
    const Bvh::Node& node_a = a.bvh.nodes[na];
    const Bvh::Node& node_b = b.bvh.nodes[nb];
    const Aabb box_b = transformed_box(node_b.box, b_in_a, abs_rotation);
    if (!node_a.box.overlaps(box_b)) continue;
    const bool leaf_a = node_a.left < 0, leaf_b = node_b.left < 0;
    if (leaf_a && leaf_b) {
      for (int i = node_a.first; i < node_a.first + node_a.count; ++i) {
        const Aabb& prim_a = a.bvh.boxes[i];
        const std::array<int, 3>& ta = a.triangles[a.bvh.primitives[i]];
        const Triangle tri_a = {a.vertices[ta[0]], a.vertices[ta[1]], a.vertices[ta[2]]};
        for (int j = node_b.first; j < node_b.first + node_b.count; ++j) {
          if (!prim_a.overlaps(transformed_box(b.bvh.boxes[j], b_in_a, abs_rotation))) continue;
          const std::array<int, 3>& tb = b.triangles[b.bvh.primitives[j]];
          const TriangleDistance d = triangle_distance(tri_a, {xb[tb[0]], xb[tb[1]], xb[tb[2]]});
          if (d.crossing || d.distance <= 0) return true;
        }
      }
      continue;
    }
    // Descend the larger node (or the internal one).
    if (leaf_b || (!leaf_a && largest_extent(node_a.box) >= largest_extent(node_b.box))) {
      stack.push_back({node_a.right, nb});
      stack.push_back({node_a.left, nb});
    } else {
      stack.push_back({na, node_b.right});
      stack.push_back({na, node_b.left});
    }
  }
  // Surfaces apart: either disjoint solids or one inside the other.
  if (!b.vertices.empty() && point_in_mesh(a, xb[0])) return true;
  if (!a.vertices.empty() && point_in_mesh(b, b_in_a.inverse_apply(a.vertices[0]))) return true;
  return false;
}

}  // namespace impetus
