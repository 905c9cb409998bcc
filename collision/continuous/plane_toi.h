#pragma once
// Time of impact of a moving convex polyhedron against a fixed plane (paper 3: Kim 2004,
// "An animation speed-independent collision detection algorithm"). The plane's solid half-space
// is normal·x <= offset; the TOI is the first time in [t0, t1] at which a vertex of the
// polyhedron reaches normal·x = offset from outside.
//
// Extreme-vertex method (plane_toi): the nearest vertex to the plane is the extreme vertex of the
// hull in the body-frame direction u(t) = −R(t)ᵀ·normal, which traces a curve on the Gauss sphere
// of the hull's extreme-vertex diagram (§3). Time intervals are classified so that the curve
// provably stays inside a small set of regions (§4.1: one region, two adjacent regions, or —
// generalising the paper — a few regions around a diagram vertex or boundary), so the distance
// is the minimum of one or a few closed-form vertex distances d_v(t) (§4.2), whose first root is
// found by interval Newton (§5). The cost depends on the motion and the diagram, not on any step
// size. Grazing contacts (even-multiplicity roots) are found when the vertex comes within
// `distance_tolerance` of the plane.
//
// Discrete baseline (plane_toi_discrete): evaluate the distance every dt and bisect the first
// step that ends at or below the plane. It misses contacts that begin and end inside one step.
#include <optional>
#include <string>

#include "collision/base/math.h"
#include "collision/shape/convex_hull.h"
#include "collision/continuous/extreme_vertex_diagram.h"
#include "collision/continuous/rigid_motion.h"
#include "collision/shape/shape.h"

namespace impetus {

struct PlaneToiOptions {
  /// Accuracy of the returned time [s]; transversal roots are polished to machine precision.
  double time_tolerance = 1e-12;
  /// A vertex within this distance of the plane counts as touching [m]; this is what lets a
  /// grazing contact (a double root of the distance) be found at all in floating point.
  double distance_tolerance = 1e-10;
  /// Skip time intervals on which a motion bound already proves the distance stays positive
  /// (conservative-advancement test, an addition to the paper). Off = the paper's pure method:
  /// every interval is classified on the diagram and searched by interval Newton.
  bool motion_bound_pruning = true;
  /// Regions allowed in one classified interval before it is subdivided (the paper uses 2).
  int max_candidates = 6;
};

struct PlaneToiResult {
  std::optional<double> toi;  // first contact time, absolute; nullopt = no contact in [t0, t1]
  int vertex = -1;            // hull vertex index touching at toi (-1 without contact)
  int iterations = 0;         // time intervals examined + root-finding iterations
                              // (discrete: distance evaluations)
};

/// Extreme-vertex method with a diagram built once per hull (build_extreme_vertex_diagram).
/// `normal` must be unit (world frame); the motion is the body's, t absolute. If the body already
/// touches or penetrates the plane at t0, toi = t0.
PlaneToiResult plane_toi(const ExtremeVertexDiagram& diagram, const RigidMotion& motion,
                         const Vec3& normal, double offset, double t0, double t1,
                         const PlaneToiOptions& options = {});
/// Convenience: builds the diagram of `hull` (O(n)) and runs the extreme-vertex method.
PlaneToiResult plane_toi(const ConvexHull& hull, const RigidMotion& motion, const Vec3& normal,
                         double offset, double t0, double t1, const PlaneToiOptions& options = {});

/// Discrete baseline: distance (brute-force extreme vertex) at t0, t0 + dt, ..., t1, then
/// bisection of the first bracketing step down to options.time_tolerance.
PlaneToiResult plane_toi_discrete(const ConvexHull& hull, const RigidMotion& motion,
                                  const Vec3& normal, double offset, double t0, double t1,
                                  double dt, const PlaneToiOptions& options = {});
/// Same, with the extreme vertex found incrementally (walk from the previous sample's vertex on
/// the diagram's vertex graph), as the incremental discrete methods the paper compares with.
PlaneToiResult plane_toi_discrete(const ExtremeVertexDiagram& diagram, const RigidMotion& motion,
                                  const Vec3& normal, double offset, double t0, double t1,
                                  double dt, const PlaneToiOptions& options = {});

/// For the `plane_toi` query: `shape` must be a box (vertices in box_hull order) or a convex hull
/// (its vertex list). `normal` need not be unit: the plane normal·x = offset is rescaled. A
/// positive `discrete_dt` selects the discrete baseline, otherwise the extreme-vertex method.
/// Returns nullopt with `error` set for any other shape, a zero normal or an empty interval.
std::optional<PlaneToiResult> plane_toi_for_shape(const Shape& shape, const RigidMotion& motion,
                                                  const Vec3& normal, double offset, double t0,
                                                  double t1, double discrete_dt = 0,
                                                  std::string* error = nullptr);

}  // namespace impetus
