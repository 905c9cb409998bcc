#pragma once
// Phong distance of pairs with a non-convex closed mesh (paper 2, §V.E–F): the Phong projection
// of the origin onto the convolution of the two meshes (convolution_mesh.h), accepting only
// points that lie on the true boundary of the Minkowski difference D = B ⊕ (−A).
//
// What it returns: among the points q of the convolution's facets that satisfy the Phong
// condition (q − o) × n(q) = 0 (eq. 5.2, n the tangent-plane field of eqs. 5.9–5.11 built from
// the convolution's angle-weighted vertex normals) AND lie on ∂D (B moved by −q touches A
// without overlapping it), together with the crease points of ∂D (convolution_crease.h: where
// two sheets cross, two contacts at once, the origin in the crease's normal wedge; their
// direction is q/‖q‖, the Euclidean one), the one with the smallest ‖q‖ — eq. 5.3 with the
// non-convex ∂D in place of the convex boundary. Without the creases a pair held by two
// contacts at once (a ring on a floor against a wall) has no nearby projection on ∂D at all and
// the answer would jump to a far sheet. Facets with a corner whose convolution normal faces
// away from the facet (folds of the convolution) get no Phong projection.
//
// How: facets are visited by increasing lower bound of their distance to the origin; a
// projection found is queued by ‖q‖ and tested for lying on ∂D only once every facet that could
// hold a shorter one has been tried. So the Phong projection and the (costly) overlap tests run
// only on the part of the convolution inside the ball ‖x‖ ≤ ‖q‖ around the origin, grown until
// the answer is inside: the paper's local construction (sphere S grown by β) with the sphere
// centred at the origin, which makes the answer the global minimum of eq. 5.3 rather than a
// local one. The facets themselves are built only there too (convolution_search.h: a best-first
// descent of the two meshes' feature trees, culled by distance and by Gauss map), so a query
// builds tens to hundreds of facets instead of the whole convolution (~8,000 at 2K × 1K
// triangles).
//
// Warm start: the previous result of this thread for the same pair (matched by the warm-start
// direction, which must equal the previous result's) is found again at the new poses — the
// projection onto the same facet triangle, or the same crease — and, if it still lies on ∂D,
// its norm caps the search, which then collects only the facets inside that ball. The answer
// does not depend on it (it is exact either way; ties of equal norm aside): a stale or failed
// warm start only costs the check and a cold search.
#include <memory>

#include "collision/phong/convolution_mesh.h"
#include "collision/phong/phong_distance.h"
#include "collision/shape/shape.h"

namespace impetus {

/// Convolution data of a box, convex hull or closed mesh shape (cached per thread, keyed by
/// the shared hull / mesh). Throws std::invalid_argument for other shapes or open meshes.
std::shared_ptr<const ConvolutionMesh> convolution_mesh_of(const Shape& shape);

/// How the facets are produced: Local builds them nearest first from the two meshes' feature
/// trees and stops at the answer (convolution_search.h); Full lists the whole convolution
/// first (the reference, kept for tests). Both give the same answer (see phong_local_test).
enum class ConvolutionListing { Local, Full };

/// Phong distance over the convolution (see above). Same conventions as phong_distance().
/// `converged` is false when no projection lies on ∂D; the result is then the nearest facet
/// point on ∂D (Euclidean), or failing that the shortest projection found.
PhongDistanceResult phong_distance_convolution(const ConvolutionMesh& a, const Pose& pose_a,
                                               const ConvolutionMesh& b, const Pose& pose_b,
                                               const PhongDistanceOptions& options,
                                               ConvolutionListing listing = ConvolutionListing::Local);

}  // namespace impetus
