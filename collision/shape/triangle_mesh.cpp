#include "collision/shape/triangle_mesh.h"

#include <algorithm>
#include <array>
#include <utility>

#include "collision/base/assert.h"

namespace impetus {
namespace {

constexpr int kLeafSize = 4;
// Median splits halve the count, so depth ≤ log2(n) + 1 < 32 for any int n; the traversal
// stack holds at most one pending sibling per level plus the current node.
constexpr int kMaxStack = 64;

}  // namespace

void Bvh::build(const std::vector<Aabb>& input) {
  nodes.clear();
  primitives.clear();
  boxes.clear();
  const int n = static_cast<int>(input.size());
  if (n == 0) return;
  primitives.resize(n);
  std::vector<Vec3> centroid(n);
  for (int i = 0; i < n; ++i) {
    primitives[i] = i;
    centroid[i] = input[i].center();
  }

  struct Range {
    int node, begin, end;
  };
  std::vector<Range> pending;
  nodes.emplace_back();
  pending.push_back({0, 0, n});
  while (!pending.empty()) {
    const Range r = pending.back();
    pending.pop_back();
    Aabb box, centroid_box;
    for (int k = r.begin; k < r.end; ++k) {
      box.grow(input[primitives[k]]);
      centroid_box.grow(centroid[primitives[k]]);
    }
    nodes[r.node].box = box;
    if (r.end - r.begin <= kLeafSize) {
      nodes[r.node].first = r.begin;
      nodes[r.node].count = r.end - r.begin;
      continue;
    }
    // Median split on the longest axis of the centroid bounds; ties in the centroid coordinate
    // break by primitive index, a strict total order, so the partition is reproducible.
    int axis = 0;
    const Vec3 extent = centroid_box.extent();
    if (extent.y() > extent[axis]) axis = 1;
    if (extent.z() > extent[axis]) axis = 2;
    const int mid = r.begin + (r.end - r.begin) / 2;
    std::nth_element(primitives.begin() + r.begin, primitives.begin() + mid,
                     primitives.begin() + r.end, [&](int a, int b) {
                       const double ca = centroid[a][axis], cb = centroid[b][axis];
                       return ca != cb ? ca < cb : a < b;
                     });
    const int left = static_cast<int>(nodes.size());
    nodes.emplace_back();
    nodes.emplace_back();
    nodes[r.node].left = left;
    nodes[r.node].right = left + 1;
    // Right pushed first so the left subtree is built (and numbered) first.
    pending.push_back({left + 1, mid, r.end});
    pending.push_back({left, r.begin, mid});
  }
  boxes.resize(n);
  for (int k = 0; k < n; ++k) boxes[k] = input[primitives[k]];
}

void Bvh::query(const Aabb& query_box, const std::function<void(int)>& visit) const {
  if (nodes.empty()) return;
  std::array<int, kMaxStack> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes[stack[--top]];
    if (!node.box.overlaps(query_box)) continue;
    if (node.left < 0) {
      for (int k = node.first; k < node.first + node.count; ++k) {
        if (boxes[k].overlaps(query_box)) visit(primitives[k]);
      }
      continue;
    }
    IMPETUS_ASSERT(top + 2 <= kMaxStack, "BVH deeper than the traversal stack");
    stack[top++] = node.right;
    stack[top++] = node.left;
  }
}

void TriangleMesh::build_bvh() {
  std::vector<Aabb> boxes;
  boxes.reserve(triangles.size());
  for (const std::array<int, 3>& t : triangles) {
    Aabb box;
    for (int v : t) box.grow(vertices[v]);
    boxes.push_back(box);
  }
  bvh.build(boxes);
}

bool TriangleMesh::is_closed() const {
  if (triangles.empty()) return false;
  // Closed and consistently oriented ⇔ every directed edge occurs once and so does its reverse
  // (then each undirected edge has exactly two triangles, traversing it in opposite directions).
  std::vector<std::pair<int, int>> directed;
  directed.reserve(3 * triangles.size());
  for (const std::array<int, 3>& t : triangles) {
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0]) return false;
    for (int e = 0; e < 3; ++e) directed.emplace_back(t[e], t[(e + 1) % 3]);
  }
  std::sort(directed.begin(), directed.end());
  if (std::adjacent_find(directed.begin(), directed.end()) != directed.end()) return false;
  for (const std::pair<int, int>& e : directed) {
    if (!std::binary_search(directed.begin(), directed.end(), std::make_pair(e.second, e.first))) {
      return false;
    }
  }
  return true;
}

}  // namespace impetus
