#pragma once
// General (possibly non-convex) triangle mesh with a flat-array AABB tree over its triangles.
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "collision/base/aabb.h"
#include "collision/base/math.h"

namespace impetus {

/// Flat-array bounding-volume tree. Leaves hold a contiguous range of `primitive` indices.
struct Bvh {
  struct Node {
    Aabb box;
    int left = -1;   // child indices (internal nodes); -1 for leaves
    int right = -1;
    int first = 0;   // leaves: range [first, first + count) into `primitives`
    int count = 0;
  };
  std::vector<Node> nodes;      // nodes[0] is the root (when not empty)
  std::vector<int> primitives;  // permutation of primitive indices
  std::vector<Aabb> boxes;      // boxes[k] bounds primitives[k]; lets query test primitives

  /// Builds a median-split tree over the given primitive boxes (leaf size <= 4).
  void build(const std::vector<Aabb>& boxes);
  /// Calls visit(primitive) for every primitive whose box overlaps `query`, in a fixed order.
  void query(const Aabb& query, const std::function<void(int)>& visit) const;
};

struct TriangleMesh {
  std::vector<Vec3> vertices;                 // local frame
  std::vector<std::array<int, 3>> triangles;  // CCW = outward for closed meshes
  Bvh bvh;                                    // over triangles, local frame

  /// Fills `bvh` from the triangles. Call once after vertices/triangles are set.
  void build_bvh();
  /// True when every edge is shared by exactly two triangles with opposite orientation.
  bool is_closed() const;
};

}  // namespace impetus
