#pragma once
// Minimum of continuous distance, MCD (paper 2: Lee 2017, §III–IV): for two bodies in uniform
// rigid motion (rigid_motion.h), the minimum over t in [t0, t1] of their signed distance δ(t)
// (positive = separation, negative = −penetration depth; eq. 1.3–1.4).
//
// Methods:
//  - golden_section (§III.B): golden-section search for a local minimum; fast, may miss the
//    global minimum, no certificate.
//  - conservative_advancement (§III.C, Alg. 3.1, capsules and spheres): bisection of the RANGE
//    [−(rA + rB), min(δ(t0), δ(t1))]; for each level d, conservative advancement with steps
//    Δt <= (δ − d)/μ (eq. 3.4, motion bound μ of eq. 3.3) decides whether δ reaches d.
//  - hybrid (§III.D, capsules and spheres): golden section inside a time window, then one pass
//    of forward and backward advancement (interleaved) at a level just below the value found
//    either certifies it (the level is not reached) or, where it is reached, shrinks the window
//    to the part holding lower values and lowers the upper bound; repeat. Beyond the paper, each
//    refinement also descends from the pointers that reached the level into the window, and
//    both advancement methods step by the longer of eq. 3.4's first-order step and a
//    second-order one (a concave quadratic lower bound of the support gap along the sample's
//    normal, mcd_capsule.cpp), which keeps fast spinners (20 rad/s, 2 m) to ~10⁴ evaluations.
//  - adaptive_subdivision (§IV, Alg. 4.1, any pair signed_distance supports): branch and bound
//    over time with the upper bound from evaluated distances (eqs. 4.5–4.6) and per-interval lower
//    bounds from the motion bound (eq. 4.7) tightened by the end-point gap (eq. 4.8) and by
//    evaluating predicted extrema (eqs. 4.9–4.11).
//  - sampling (baseline): n uniform samples; certified error <= (t1 − t0)·μ/(2(n − 1)) (eq. 6.3).
//
// Certified methods return [lower_bound, upper_bound] provably containing the true minimum, with
// upper_bound − lower_bound <= tolerance (certified = true), unless the evaluation cap was hit.
// The proofs assume δ(t) changes no faster than the motion bound: true for separation distances
// of any shapes and for penetration depths of convex shapes (δ = max over directions of the
// support gap); for a mesh, `signed_distance` defines what its negative values mean.
#include <optional>
#include <string>

#include "collision/base/math.h"
#include "collision/continuous/rigid_motion.h"
#include "collision/shape/shape.h"

namespace impetus {

struct McdResult {
  double mcd = 0;          // best (smallest) evaluated signed distance = upper_bound
  double time = 0;         // an absolute time at which δ(time) == mcd
  double lower_bound = 0;  // certified: true minimum >= lower_bound
  double upper_bound = 0;  // true minimum <= upper_bound (an evaluated value)
  bool certified = false;  // upper_bound − lower_bound <= tolerance is proven
  int evaluations = 0;     // distance evaluations (capsule closed form or signed_distance)
};

enum class McdMethod { GoldenSection, ConservativeAdvancement, Hybrid, AdaptiveSubdivision, Sampling };

struct McdOptions {
  /// ε [m]: certified methods stop once upper − lower <= ε; golden section stops when its
  /// bracket's values agree to a small fraction of ε.
  double tolerance = 1e-6;
  /// Sampling: number of samples (>= 2); 0 = the smallest number certifying `tolerance` (eq. 6.3).
  int samples = 0;
  /// Safety cap on distance evaluations; a capped run keeps a valid but wider bracket and
  /// reports certified = false.
  int max_evaluations = 2000000;
  /// Hybrid: before the first golden section, range bisection with two-sided advancement runs
  /// while upper − lower > hybrid_switch · ε (the paper's order, §III.D); 0 = golden section
  /// first. On fixed-seed random capsule pairs golden section first needed 1.1–1.8× fewer
  /// evaluations at ε = 1e-3…1e-6 (every result certified either way), hence the default.
  double hybrid_switch = 0;
};

/// Lower-case method name as in the query format ("golden_section", "hybrid", ...).
const char* mcd_method_name(McdMethod method);
/// Parses a method name; nullopt if unknown.
std::optional<McdMethod> parse_mcd_method(const std::string& name);
/// The query format's default: hybrid for two capsules/spheres, adaptive subdivision otherwise.
McdMethod default_mcd_method(const Shape& a, const Shape& b);

/// Signed distance of two capsules (or spheres, as capsules of zero length): distance of the core
/// segments minus rA + rB (paper 2, eq. 3.1), with the closest core points and the unit normal
/// a → b. Exact closed form, independent of signed_distance.
struct CapsuleDistance {
  double distance = 0;
  Vec3 core_a = Vec3::Zero();  // closest point on a's segment
  Vec3 core_b = Vec3::Zero();  // closest point on b's segment
  Vec3 normal = Vec3::UnitZ(); // (core_b − core_a)/|…|; arbitrary when the segments meet
};
CapsuleDistance capsule_signed_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                        const Pose& pose_b);

/// Golden-section search (§III.B). Any pair signed_distance supports (capsule/sphere pairs use
/// eq. 3.1). Not certified: lower_bound is only the trivial bound (−(rA + rB) for capsules,
/// −infinity otherwise).
McdResult mcd_golden_section(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                             const RigidMotion& motion_b, double t0, double t1,
                             const McdOptions& options = {});
/// FindMinDistCA (Alg. 3.1). Capsules and spheres only.
McdResult mcd_conservative_advancement(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                                       const RigidMotion& motion_b, double t0, double t1,
                                       const McdOptions& options = {});
/// Hybrid method (§III.D). Capsules and spheres only.
McdResult mcd_hybrid(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                     const RigidMotion& motion_b, double t0, double t1,
                     const McdOptions& options = {});
/// FindMinDistAS (Alg. 4.1), best-first. Any pair signed_distance supports except planes.
McdResult mcd_adaptive_subdivision(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                                   const RigidMotion& motion_b, double t0, double t1,
                                   const McdOptions& options = {});
/// Uniform sampling baseline with the certified bracket of eq. 4.8 between neighbouring samples.
McdResult mcd_sampling(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                       const RigidMotion& motion_b, double t0, double t1,
                       const McdOptions& options = {});

/// Bound on |dδ/dt| for the pair (eq. 4.7 for the relative motion):
/// |v_a − v_b| + |ω_a|·R_a + |ω_b|·R_b with R the shapes' bounding radii.
double mcd_motion_bound(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                        const RigidMotion& motion_b);
/// Samples that certify `tolerance` over [t0, t1] (eq. 6.3): 1 + ceil(μ (t1 − t0) / (2ε)).
long long mcd_samples_for_tolerance(double motion_bound, double t0, double t1, double tolerance);

/// Dispatch on `method`. Returns nullopt with `error` set for an unsupported pair (planes; CA and
/// hybrid on anything but capsules/spheres), an empty interval or a non-positive tolerance.
std::optional<McdResult> continuous_distance(const Shape& a, const RigidMotion& motion_a,
                                             const Shape& b, const RigidMotion& motion_b,
                                             double t0, double t1, McdMethod method,
                                             const McdOptions& options = {},
                                             std::string* error = nullptr);

}  // namespace impetus
