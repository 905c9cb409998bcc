#pragma once
// Creases of the boundary of a non-convex Minkowski difference: where two sheets of the
// convolution (convolution_mesh.h) cross, ∂D has a reflex edge that is no facet's interior. It
// arises whenever two separate contacts are active at once (a ring resting on a floor and
// pressed against a wall): D is locally the union of two half-spaces, the origin is inside
// both, and the shortest way out is to the crease, where every Phong projection onto either
// sheet lands inside the other. Such a crease point is a candidate of its own: the closest
// point to the origin of the segment where two facets cross, kept when the origin lies in the
// crease's normal wedge (the point is a non-negative combination of the two facet normals).
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "collision/base/math.h"
#include "collision/phong/convolution_mesh.h"

namespace impetus {

struct CreasePoint {
  Vec3 point = Vec3::Zero();  // on both facets
  Vec3 push = Vec3::UnitZ();  // unit, out of both half-spaces: normalised n1 + n2
  int other = -1;             // index of the earlier facet (the new one is add()'s index)
};

/// Finds crease points between facets added one at a time (each new facet against those added
/// before it that share no convolution vertex and whose boxes meet), with a uniform hash grid.
class CreaseFinder {
 public:
  /// `facets` must outlive the finder and may grow (facets appended) between calls to add();
  /// `cell` [m] is the grid spacing (it changes the work, never the crease points found).
  CreaseFinder(const std::vector<ConvolutionFacet>& facets, double cell);

  /// Adds facet `index` and appends to `out` the crease points it forms with earlier facets.
  void add(int index, std::vector<CreasePoint>* out);

 private:
  const std::vector<ConvolutionFacet>& facets_;
  double cell_;
  std::unordered_map<std::uint64_t, std::vector<int>> grid_;  // looked up only, never iterated
  std::vector<int> oversized_;  // facets spanning too many cells, tested against every facet
  std::vector<int> stamp_;      // last facet each facet was tested against (no double tests)
  std::vector<int> added_;      // facets added so far, in order
};

}  // namespace impetus
