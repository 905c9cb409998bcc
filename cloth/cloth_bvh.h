#pragma once
// Self-collision hierarchy of a cloth: a binary tree over its triangles (flat arrays, built
// once on the rest shape, refitted every step) whose nodes carry a box and a normal cone
// (papers/4). A node can skip its self-test when (a) its cone is narrower than π/2 over the
// whole step, so every triangle of the patch faces the cone axis a, and (b) the patch is a
// topological disk whose boundary, projected on the plane ⊥ a, stays a simple closed curve
// during the step (the contour condition of Volino & Thalmann). Then the projection along a
// is injective at every time, so no two points of the patch ever meet and no vertex–triangle
// or edge–edge pair inside it can collide. (b) is checked with a star test: every boundary
// edge must turn positively about the boundary centroid c(t) for all t ∈ [0, 1] (a quadratic
// in t, checked through its Bernstein coefficients) and the boundary must wind once around c.
//
// Adjacent patches (the pair test of two nodes that share boundary edges) are culled the same
// way: when the merged cone of the two is narrower than π/2 and their union is a disk whose
// boundary (the two loops minus the shared edges) passes the same contour test, no feature of
// one can meet a feature of the other. Without it, every seam between two flat patches whose
// common ancestor is curved (a cloth draped over a sphere) keeps all its neighbour pairs.
//
// Features are owned by one triangle each (a vertex or edge by the lowest-index triangle
// that has it). A leaf pair (s, t) of triangles with no common vertex tests only the vertices
// and edges owned by s against t's (so nothing is tested twice); pairs of features whose owner
// triangles share a vertex ("orphans", Tang 2009) are listed once, at the lowest common
// ancestor of the two owner leaves, and tested when that node's self-test is not culled.
#include <array>
#include <cstdint>
#include <vector>

#include "cloth/cloth_params.h"
#include "cloth/cloth_topology.h"
#include "cloth/normal_cone.h"
#include "collision/base/aabb.h"

namespace impetus {

/// A vertex–triangle (vertex a, triangle b) or edge–edge (edge a, edge b) primitive pair.
struct PrimitivePair {
  enum Kind : std::uint8_t { kVertexTriangle = 0, kEdgeEdge = 1 };
  Kind kind = kVertexTriangle;
  int a = 0;
  int b = 0;
  std::uint64_t key() const {
    return (static_cast<std::uint64_t>(kind) << 62) | (static_cast<std::uint64_t>(a) << 31) |
           static_cast<std::uint64_t>(b);
  }
};

class ClothBvh {
 public:
  struct Node {
    int left = -1, right = -1, parent = -1;
    int triangle = -1;  // leaves
    int depth = 0;
  };

  void build(const ClothTopology& topology, const std::vector<Vec3>& rest);

  /// Swept boxes of x0 → x0 + u, grown by `pad`, and (unless mode is None) continuous cones.
  /// With `vertex_changed`, nodes also learn whether any of their vertices changed, and when
  /// the previous refit was refit_swept of the same x0 with the same pad and mode, only the
  /// nodes above a changed vertex are recomputed: the caller promises that u differs from that
  /// refit's u only at changed vertices (the CCD passes' contract), so the others are current.
  void refit_swept(const std::vector<Vec3>& x0, const std::vector<Vec3>& u, double pad,
                   ConeCulling mode, const std::vector<char>* vertex_changed, int threads);
  /// Static boxes at x, grown by `pad`; no cones.
  void refit_static(const std::vector<Vec3>& x, double pad, int threads);

  struct Traversal {
    std::vector<std::array<int, 2>> triangle_pairs;  // leaf pairs (no common vertex), boxes overlap
    std::vector<int> orphan_nodes;                   // nodes whose orphan pairs must be tested
    long long culled_nodes = 0;
    long long culled_pairs = 0;  // adjacent node pairs culled by their union's cone + contour
    void clear() {
      triangle_pairs.clear();
      orphan_nodes.clear();
      culled_nodes = 0;
      culled_pairs = 0;
    }
  };
  /// Self-collision traversal. `use_cones`: cull by cone + contour (needs refit_swept with a
  /// cone mode and the same x0, u). `only_changed`: skip node pairs without changed vertices.
  /// A large tree's traversal is cut, below its top levels, into tasks that `threads` threads
  /// share; their lists are joined in task order, which is the order of the serial descent, so
  /// the result is the same for any thread count.
  void traverse(bool use_cones, bool only_changed, const std::vector<Vec3>* x0,
                const std::vector<Vec3>* u, Traversal& out, int threads = 1) const;

  /// Every leaf pair of `pairs` → its primitive pairs (owned features only), appended to `out`
  /// in pair order; the pairs are shared out in fixed chunks, each chunk writing from its own
  /// offset.
  void append_leaf_pair_primitives(const std::vector<std::array<int, 2>>& pairs,
                                   std::vector<PrimitivePair>& out, int threads) const;
  /// Orphan pairs listed at node n.
  const PrimitivePair* orphans_begin(int n) const { return orphans_.data() + orphan_offsets_[n]; }
  const PrimitivePair* orphans_end(int n) const { return orphans_.data() + orphan_offsets_[n + 1]; }
  /// All orphan pairs in the order a traversal without cones lists them (the nodes in
  /// self-test pre-order): what gather makes of such a traversal's orphan_nodes.
  const std::vector<PrimitivePair>& all_orphans() const { return preorder_orphans_; }

  int node_count() const { return static_cast<int>(nodes_.size()); }
  const Aabb& box(int n) const { return box_[n]; }
  const NormalCone& cone(int n) const { return cone_[n]; }
  bool is_disk(int n) const { return loop_offsets_[n + 1] > loop_offsets_[n]; }
  /// The contour condition for node n over the step x0 → x0 + u about the node's cone axis.
  bool contour_ok(int n, const std::vector<Vec3>& x0, const std::vector<Vec3>& u) const;

 private:
  // Scratch of union_culled, one per thread: its boundary loop, and per vertex a stamp (= the
  // current union test's token when on its first loop) and the position in that loop.
  struct UnionScratch {
    std::vector<int> loop;
    std::vector<char> shared;  // per edge of the second loop
    std::vector<int> stamp, position;
    int token = 0;
  };
  // One descent: its options, the thread's scratch and where its pairs go.
  struct Walk {
    bool use_cones = false;
    bool only_changed = false;
    const std::vector<Vec3>* x0 = nullptr;
    const std::vector<Vec3>* u = nullptr;
    UnionScratch* scratch = nullptr;
    Traversal* out = nullptr;
  };
  // A piece of a traversal: the self-test of node a (b = kSelfTask), the orphans of node a
  // (b = kOrphanTask), or the pair test of nodes a and b.
  struct Task {
    int a = 0, b = 0;
  };
  static constexpr int kSelfTask = -1;
  static constexpr int kOrphanTask = -2;

  void refit_levels(int threads, const std::vector<char>* vertex_changed, ConeCulling mode,
                    const std::vector<Vec3>* x0, const std::vector<Vec3>* u, double pad,
                    bool swept);
  void self_test(int n, Walk& walk) const;
  void static_self_test(int n, Traversal& out) const;
  void static_visit(int a, int b, Traversal& out) const;
  void static_pair_test(int a, int b, Traversal& out) const;
  void pair_test(int a, int b, Walk& walk) const;
  // The top levels of self_test / pair_test, down to kTaskDepth: what they would descend
  // into below it becomes tasks, in the order they would descend.
  void split_self_test(int n, int depth, Walk& walk) const;
  void split_pair_test(int a, int b, int depth, Walk& walk) const;
  void run_task(const Task& task, Walk& walk) const;
  // leaf_pair_primitives into out[0, count), returning count; and that count alone.
  int write_leaf_pair_primitives(int s, int t, PrimitivePair* out) const;
  int leaf_pair_primitive_count(int s, int t) const;
  // Adjacent-patch culling of the pair (a, b) (see the header comment).
  bool union_culled(int a, int b, const std::vector<Vec3>& x0, const std::vector<Vec3>& u,
                    UnionScratch& scratch) const;
  bool loop_contour_ok(const int* loop, int m, const Vec3& axis, const std::vector<Vec3>& x0,
                       const std::vector<Vec3>& u) const;

  const ClothTopology* topology_ = nullptr;
  std::vector<Node> nodes_;
  std::vector<int> leaf_of_triangle_;
  std::vector<std::vector<int>> levels_;  // node indices by depth
  std::vector<Aabb> box_;
  std::vector<NormalCone> cone_;
  std::vector<char> changed_;
  // Boundary loop of disk nodes (vertex cycle, interior on the left of +normal).
  std::vector<int> loop_offsets_, loop_vertices_;
  // Feature ownership.
  std::vector<std::uint8_t> owned_vertices_, owned_edges_;  // bit k: vertex k / edge k of triangle
  std::vector<PrimitivePair> orphans_;
  std::vector<PrimitivePair> preorder_orphans_;
  ConeCulling mode_ = ConeCulling::None;  // cones of the last refit_swept
  bool swept_current_ = false;  // the last refit was refit_swept (boxes and cones swept)
  double swept_pad_ = 0;        // its pad
  // Traversal scratch: per thread, and the tasks of a split traversal with their lists.
  mutable std::vector<UnionScratch> scratch_;
  mutable std::vector<Task> tasks_;
  mutable std::vector<std::size_t> chunk_offsets_;  // append_leaf_pair_primitives' per chunk
  mutable std::vector<Traversal> task_out_;
  std::vector<int> orphan_offsets_;
};

}  // namespace impetus
