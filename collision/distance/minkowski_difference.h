#pragma once
// Boundary of the Minkowski difference D = B ⊕ (−A) = {b − a} of two convex polytopes, built
// whole (the hull of all n·m vertex differences) or only where its outward normals lie in a cone
// (paper 2, §V.C–E: the part of ∂D the Phong projection can reach, grown around a candidate).
//
// The paper bounds the region by a ball S in space and finds the facet–vertex and edge–edge pairs
// inside it with sphere trees; for convex polytopes the same part of ∂D is found through the
// Gauss map (§V.E): the faces of D whose normal n lies in a cone C(m, θ) are spanned by the
// vertices of B whose normal cones meet C(m, θ) and the vertices of A whose normal cones meet
// C(−m, θ). The hull of those differences therefore has, for every direction in the cone,
// exactly D's face (same support value, same supporting vertices).
#include <cstddef>
#include <optional>
#include <vector>

#include "collision/base/math.h"
#include "collision/shape/convex_hull.h"

namespace impetus {

/// A convex polytope placed in the world, with a bounding cone of each vertex's normal cone.
struct PlacedPolytope {
  std::vector<Vec3> vertices;       // world
  std::vector<Vec3> cone_axis;      // unit, world: normalised sum of the incident face normals
  std::vector<double> cone_cos;     // cos of the cone's angular radius around cone_axis
  std::vector<double> cone_sin;
  double median_cone_angle = 0;     // [rad], sets the first search cone of a query
  // The normal cone itself, spanned by the incident face normals (world) of vertex v:
  // cone_normals[cone_start[v] .. cone_start[v + 1]).
  std::vector<int> cone_start;
  std::vector<Vec3> cone_normals;
};

/// True when the convex cones spanned by `first` and `second` (unit generators, each cone
/// pointed) share interior directions, i.e. no plane through the origin separates them; cones
/// that only touch (within `eps`, a cosine) count as apart.
bool cones_overlap(const Vec3* first, int first_count, const Vec3* second, int second_count,
                   double eps = 1e-9);

/// Places `hull` at `pose` and bounds each vertex's normal cone (the spherical polygon of its
/// incident face normals lies in the cap of radius max angle(axis, face normal), the cap being
/// convex).
PlacedPolytope place_polytope(const ConvexHull& hull, const Pose& pose);

/// A piece of ∂D: a hull of difference points, with which of its faces and vertices are exactly
/// faces and vertices of D (the whole star of an exact vertex is exact).
struct MinkowskiPatch {
  ConvexHull hull;
  std::vector<char> face_exact;
  std::vector<char> vertex_exact;
  std::size_t point_count = 0;   // difference points the hull was built from (after pruning)
};

/// All of ∂D: hull of the vertex differences (n·m pairs tested, only those whose normal cones
/// overlap kept). Nullopt when D is flat (no volume).
std::optional<MinkowskiPatch> minkowski_difference_full(const PlacedPolytope& a,
                                                        const PlacedPolytope& b);

/// The faces of D with outward normal within angle `theta` (< π/2) of unit `m`, and the hull
/// they sit on. Nullopt when the selected vertex pairs exceed `max_pairs` or span no volume.
std::optional<MinkowskiPatch> minkowski_difference_patch(const PlacedPolytope& a,
                                                         const PlacedPolytope& b, const Vec3& m,
                                                         double theta, std::size_t max_pairs);

}  // namespace impetus
