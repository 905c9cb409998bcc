#pragma once
// Local construction of the convolution (paper 2, §V.C–E: build only the part of ∂D near the
// answer), nearest first and with a certified stopping rule: the facets of the convolution of
// two closed meshes (convolution_mesh.h) are handed out one at a time by increasing distance to
// the origin, and at every moment a lower bound on the distance of every facet not yet handed
// out is known. A caller that looks for the facet point nearest the origin with some property
// can stop as soon as its best point is no farther than that bound, having built only the
// facets inside the ball through that point — the paper's growing sphere (α, β), centred at the
// origin and grown exactly as far as needed.
//
// How: a simultaneous descent of the two meshes' feature trees (convolution_bvh.h), best first.
// A node pair is kept only when its Gauss caps meet (B's cap against A's negated one, the
// compatibility condition of every facet kind) and is keyed by the distance between its
// bounding volumes (A's box, B's sphere placed in A's frame), a lower bound on ‖b − a‖ over its
// feature points, hence on the distance to the origin of any facet b − a it holds. A leaf pair
// runs the exact per-pair tests of convolution_mesh.h (bit-identical facets to the full
// listing) and keys each facet by its exact distance. Keys are lowered by a margin covering
// the Phong projection's barycentric tolerance, so that they bound every point a facet's
// projection may return, not only the facet's own points.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "collision/phong/convolution_mesh.h"

namespace impetus {

class ConvolutionSearch {
 public:
  /// Facets of `pair` (which must outlive the search) whose distance to the origin may be at
  /// most `limit` [m] (farther ones are never built). With a finite limit (a warm start's
  /// bound) the facets inside it are collected at once by a depth-first descent, cheaper than
  /// the best-first one, and sorted.
  explicit ConvolutionSearch(const ConvolutionPair& pair,
                             double limit = std::numeric_limits<double>::infinity());

  /// Lower bound on the distance to the origin of every point a facet not yet handed out can
  /// yield; the limit when none is left within it.
  double bound() const {
    if (collected_) return next_ < order_.size() ? order_[next_].key : limit_;
    return heap_.empty() ? limit_ : heap_.top().key;
  }
  bool done() const { return collected_ ? next_ >= order_.size() : heap_.empty(); }

  /// One step: refines the search (returns false), or hands out the facet with the smallest
  /// key left (returns true; `key` is bound() before the call).
  bool step(ConvolutionFacet* facet, double* key);

  std::size_t facets_built() const { return facets_built_; }

 private:
  struct Entry {
    double key = 0;
    std::uint64_t sequence = 0;  // tie-break: order of insertion (determinism)
    int a = 0, b = 0;            // node pair, or a = −1 and b = index into pending_
    int kinds = 0;               // node pair: facet kinds its Gauss caps allow (bits below)
  };
  // Facet kinds: B's faces with A's vertices, B's vertices with A's faces, edges with edges.
  static constexpr int kFaceVertex = 1, kVertexFace = 2, kEdgeEdge = 4;
  struct Later {
    bool operator()(const Entry& x, const Entry& y) const {
      return x.key > y.key || (x.key == y.key && x.sequence > y.sequence);
    }
  };

  void push_nodes(int a, int b, int kinds, double parent_key);
  void expand_leaves(int a, int b, int kinds);
  void push_facet(const ConvolutionFacet& facet);
  void push(const Entry& entry);

  const ConvolutionPair& pair_;
  const ConvolutionBvh& tree_a_;
  const ConvolutionBvh& tree_b_;
  double limit_;
  double margin_ = 0;
  std::vector<Vec3> b_centre_;                   // B's node spheres' centres in A's frame
  std::vector<std::array<Vec3, 3>> b_cap_axis_;  // B's node caps' axes in A's frame
  std::vector<ConvolutionFacet> pending_;
  std::priority_queue<Entry, std::vector<Entry>, Later> heap_;
  std::uint64_t sequence_ = 0;
  // Depth-first mode (finite limit): every entry goes to a stack, facets to order_ (sorted).
  bool collected_ = false;
  std::vector<Entry> stack_, order_;
  std::size_t next_ = 0;
  std::size_t facets_built_ = 0;
};

/// Distance from the origin to a facet (exact, over its one or two triangles) [m].
double facet_distance(const ConvolutionFacet& facet);

}  // namespace impetus
