#pragma once
// Gradient-continuous signed distance by Phong projection (paper 2: Lee 2017, §V, eqs. 5.4–5.11).
//
// The Euclidean penetration depth (EPA) projects the origin onto the nearest point of the boundary
// of the Minkowski difference D = B ⊕ (−A); its direction jumps where the origin crosses a medial
// axis of D. Phong distance instead projects the origin along a normal field that is interpolated
// continuously over the boundary of D (vertex normals blended over each face), so the direction
// varies continuously with the poses.
//
// Convention (same as DistanceResult / EPA): `direction` is a unit vector a → b, and
//   point == distance · direction   (at convergence),
// `point` lies on ∂D and the interpolated outward normal of ∂D at `point` is −direction.
// Translating b by −distance·direction brings the two shapes into touching contact (for a
// separated pair the gap closes, for an overlapping pair they are pushed apart).
#include <cstddef>

#include "collision/base/math.h"
#include "collision/shape/shape.h"

namespace impetus {

struct PhongDistanceOptions {
  const Vec3* warm_start = nullptr;  // previous result's direction (motion coherence); null = cold
  int max_iterations = 64;           // Newton iterations per triangle (eq. 5.4)
  double tolerance = 1e-9;           // on the projection's fixed point: the component of
                                     // point − origin tangent to the interpolated plane [m]
};

struct PhongDistanceResult {
  double distance = 0;             // signed: > 0 separation, < 0 = −(penetration depth) [m]
  Vec3 direction = Vec3::UnitZ();  // unit, a → b; see the convention above
  Vec3 point = Vec3::Zero();       // on the boundary of the Minkowski difference (B ⊕ −A)
  bool converged = false;          // a projection satisfying eqs. 5.4–5.6 was found; false:
                                   // none was, and the Euclidean distance is returned instead
  int iterations = 0;              // Newton iterations of the accepted projection
  int regions = 0;                 // parts of ∂D built (paper 2, Alg. 5.1 rounds)
  std::size_t triangles = 0;       // triangles of ∂D the projection was tried on
  bool mesh_hull_used = false;     // a non-convex mesh was replaced by its convex hull (no
                                   // longer done: always false, kept for compatibility)
  // Non-convex pairs (see below): ∂D was taken from the convolution of the two meshes.
  bool convolution_used = false;
  std::size_t convolution_facets = 0;  // facets of the convolution enumerated
  int boundary_checks = 0;             // projections tested for lying on ∂D (overlap tests)
  bool crease = false;  // the point is on a crease of ∂D where two sheets of the convolution
                        // cross (two contacts at once); its direction is the Euclidean one
};

/// Shapes: Box, Convex (hull) and Mesh (closed triangle mesh); throws std::invalid_argument
/// otherwise (and for a mesh that is not closed or has no volume).
///
/// Method: pairs with few vertex pairs (≤ 20000, e.g. box–box, box–1K-triangle hull) project
/// onto the whole ∂D; larger pairs build ∂D only inside a cone of normals around the warm start
/// (or the Euclidean direction), re-centring and widening it as in Alg. 5.1, and fall back to
/// the whole ∂D (≤ 500000 vertex pairs) if the regions do not settle.
///
/// Meshes: a convex closed mesh is exactly its hull. When either shape is a NON-CONVEX closed
/// mesh, ∂D is taken from the convolution of the two triangle meshes (paper 2, §V.E; boxes and
/// hulls enter as their triangulations) and a projection counts only if it lies on the true
/// boundary of the non-convex D, checked by an exact overlap test of the translated meshes
/// (phong_convolution.h says precisely what is returned). `convolution_used` is then set. The
/// answer is the global minimum of eq. 5.3, found nearest first over a tree of both meshes'
/// features; a warm start only bounds that search (the previous facet, re-checked at the new
/// poses), so it changes the cost, never the answer.
PhongDistanceResult phong_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                   const Pose& pose_b, const PhongDistanceOptions& options = {});

}  // namespace impetus
