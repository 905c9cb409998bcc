#pragma once
// Time of impact (TOI) of two shapes in uniform rigid motion, for continuous collision detection:
// the first time t in [t0, t1] at which their signed distance δ(t) (distance.h) comes down to a
// target level. Used by the world's CCD phase to stop fast bodies before they tunnel.
//
// Conservative advancement (paper 2, Alg. 3.1's inner loop; Mirtich's CA): from t, no contact can
// happen before t + (δ(t) − target)/μ, where μ bounds how fast δ can decrease. Each step is safe,
// so the returned time is never past the first crossing of the target level, and δ there lies in
// [target, target + tolerance].
//  - Any pair (meshes included): μ = ‖v_a − v_b‖ + ‖ω_a‖R_a + ‖ω_b‖R_b, the motion bound of
//    paper 2, eq. 3.3 / 4.7, with R the bounding radius about each body's rotation centre.
//  - Two convex shapes (planes count as convex): δ(t) >= gap_n(t), the separation along the fixed
//    unit normal n of the closest points at t (for convex sets δ = max over directions of the gap,
//    whether apart or overlapping), and gap_n decreases no faster than
//    μ_n = max(0, n·(v_a − v_b)) + ‖ω_a × n‖R_a + ‖ω_b × n‖R_b. A pure translation reaches the
//    target in one step, and a body sliding along a surface does not creep.
//  - A convex shape against a mesh that does not move: the mesh is its triangles (its surface,
//    as in distance_mesh.h), each a convex set, so each triangle the body's sweep can reach gets
//    the directional bound; the earliest TOI wins. A moving mesh uses the first bound.
//
// Against planes, convex polyhedra (boxes, hulls) use the extreme-vertex method of paper 3
// (plane_toi.h), whose cost does not depend on the step; `plane_time_of_impact` wraps it with the
// same target semantics and a rotation centre other than the shape's origin.
#include <optional>

#include "collision/base/math.h"
#include "collision/continuous/extreme_vertex_diagram.h"
#include "collision/continuous/rigid_motion.h"
#include "collision/shape/shape.h"

namespace impetus {

/// A shape in uniform rigid motion about a body-fixed centre (for a rigid body: its centre of
/// mass). The centre follows `motion` (pose0 = the centre's pose at t = 0, t absolute) and the
/// shape's own frame sits at `center_local` behind it: shape pose(t) = motion.at(t) ∘ (−center_local).
struct ToiBody {
  const Shape* shape = nullptr;
  RigidMotion motion;                  // of the rotation centre
  Vec3 center_local = Vec3::Zero();    // the centre in the shape's frame [m]
  /// Bound of ‖x − centre‖ over the shape's points [m]; ignored (may be infinite) when the body
  /// does not rotate. 0 = compute bounding_radius(shape) + ‖center_local‖.
  double radius = 0;

  /// Pose of the shape's frame at absolute time t.
  Pose shape_pose(double t) const;
};

struct ToiOptions {
  /// The level δ must come down to [m]; negative values allow that much penetration.
  double target = 0;
  /// Stop once δ − target <= tolerance [m] (> 0).
  double tolerance = 1e-4;
  /// Cap on distance evaluations. A capped run returns the time it had safely reached (no
  /// contact before it) as the TOI, with converged = false.
  int max_iterations = 200;
};

struct ToiResult {
  std::optional<double> toi;      // absolute time; nullopt: δ stays above target on [t0, t1]
  double distance = 0;            // δ at toi (or at the last evaluation when there is none)
  Vec3 normal = Vec3::UnitZ();    // unit normal a → b at toi (last evaluation otherwise)
  int iterations = 0;             // distance evaluations
  bool converged = true;          // false: stopped on max_iterations
};

/// Conservative advancement over [t0, t1]. Any pair signed_distance supports (not plane–plane).
/// If δ(t0) <= target + tolerance, toi = t0.
ToiResult conservative_advancement_toi(const ToiBody& a, const ToiBody& b, double t0, double t1,
                                       const ToiOptions& options = {});

/// The diagram of a box or convex hull (paper 3, §2) with its vertices expressed about
/// `center_local` (the body's rotation centre), as plane_time_of_impact needs.
/// Precondition: shape is a box or a convex hull.
ExtremeVertexDiagram build_centered_diagram(const Shape& shape, const Vec3& center_local);

/// First time in [t0, t1] at which a vertex of the moving polyhedron reaches distance
/// options.target above the plane normal·x = offset (unit normal; solid side normal·x <= offset),
/// by the extreme-vertex method of paper 3 (time accuracy ~1e-12 s; options.tolerance and
/// max_iterations are not used). `centered` comes from build_centered_diagram with the same
/// centre as `motion`. If a vertex is at or below the target level at t0, toi = t0.
ToiResult plane_time_of_impact(const ExtremeVertexDiagram& centered, const RigidMotion& motion,
                               const Vec3& normal, double offset, double t0, double t1,
                               const ToiOptions& options = {});

}  // namespace impetus
