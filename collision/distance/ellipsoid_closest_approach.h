#pragma once
// Closest approach distance of two ellipsoids along their inter-centre direction
// (paper 1: M. G. Choi, "A robust and efficient method to compute the closest approach distance
// between two ellipsoids", 2019).
//
// Symbols (paper 1, §2): e1 sits at the origin, n is the unit direction from e1's centre to e2's
// centre, E_i = R_i diag(a_i^-2, b_i^-2, c_i^-2) R_i^T, so e_i(x) = x^T E_i x = 1 is the surface of
// ellipsoid i centred at the origin. d is the centre distance at which e1 and e2 (translated to
// d·n) touch externally; u ∈ (0,1) parametrises the curve of points x(u) where the two gradients
// are antiparallel (eqs. 4–7). d is found from the scalar equation f(u) = 0 (eq. 10).
#include <cstdint>

#include "collision/base/math.h"

namespace impetus {

/// Root finder for the closest approach equation.
enum class ClosestApproachMethod : std::uint8_t {
  /// Newton's method on f(u) (eq. 10) with the analytic f'(u) (eq. 11), safeguarded by bisection
  /// on a maintained bracket [lo, hi] ⊂ [0, 1] (rtsafe-style). Converges for any input.
  NewtonBisection,
  /// Fixed-point iteration of paper 1's ref. [4]: u ← G(u) = 1/(1 + sqrt(wᵀE1E2⁻¹E1w / wᵀE1w))
  /// (eqs. 8, 9 equated; λ = (u − 1)/u ← −sqrt(…) in ref. [4]'s variable). Linear convergence;
  /// stalls for elongated ellipsoids (paper 1: beyond γ ≈ 7 at 100 iterations).
  FixedPoint,
  /// Steffensen's method of ref. [4]: Aitken's Δ² extrapolation of G on u. Quadratic when it
  /// converges; unbracketed, so it can fail (paper 1: beyond γ ≈ 133).
  Steffensen,
};

/// Stopping rule.
enum class ClosestApproachStop : std::uint8_t {
  /// |u_{i+1} − u_i| ≤ tolerance (paper 1, eq. 12).
  StepSize,
  /// ‖x1 − x2‖ ≤ tolerance · r_min (paper 1, eq. 13): x1 = (1−u) d1 w on e1 with d1 from eq. 8,
  /// x2 = (1−u) d2 w on e2 (centred at d2·n) with d2 from eq. 9, so the gap is
  /// (1−u)‖w‖·|d1 − d2|, zero exactly at the root. r_min = smallest of the six radii. The gap
  /// is the bracket width |d1 − d2| scaled by ‖x‖/d1 (x measured from e1's centre, usually well
  /// below 1), so the error in d can exceed tolerance·r_min: up to ~14× was measured at γ = 5,
  /// Γ = 3. distance_lower/upper give the certified bound.
  ContactGap,
};

struct ClosestApproachOptions {
  ClosestApproachMethod method = ClosestApproachMethod::NewtonBisection;
  ClosestApproachStop stop = ClosestApproachStop::StepSize;
  /// ε of eq. 12 (absolute, on u) or eq. 13 (relative to r_min). The paper uses 1e-8 (eq. 12):
  /// Newton–bisection's last step being ≤ 1e-8 leaves u accurate to ~1e-15.
  double tolerance = 1e-8;
  /// Iteration cap; the result is flagged not converged when it is reached.
  int max_iterations = 100;
};

struct ClosestApproachResult {
  /// Closest approach distance d [m]: centre distance at which the ellipsoids touch along n.
  double distance = 0;
  /// A bracket on the exact d from the final u alone: d1 (eq. 8) and d2 (eq. 9) always enclose
  /// it (see the .cpp), so distance_upper − distance_lower bounds the error of `distance` even
  /// when the iteration did not converge.
  double distance_lower = 0;
  double distance_upper = 0;
  /// True when the current centre distance ‖pb − pa‖ < d (the ellipsoids overlap).
  bool overlap = false;
  /// World contact point x (eq. 6) in the *touching configuration*: a stays at pa, b is
  /// translated along n so that its centre is at pa + d·n. It lies on a's surface at its actual
  /// pose (exactly, to rounding; on b's translated surface to the solver's accuracy); the same
  /// material point of b at b's actual pose is contact_point − (d − ‖pb−pa‖)·n.
  Vec3 contact_point = Vec3::Zero();
  /// Unit contact normal ∇e1(x) ∝ E1 x (world), pointing from a towards b.
  Vec3 normal = Vec3::UnitX();
  /// Unit inter-centre direction n (world), a → b. When the centres coincide (‖pb − pa‖ below
  /// 1e-12 of the largest radius) n is a's shortest axis, the direction a is thinnest along.
  Vec3 direction = Vec3::UnitX();
  /// Support distances h_a = normal·(x − pa) and h_b = normal·(pa + d·n − x) of the two
  /// ellipsoids along the normal; d·(n·normal) = h_a + h_b.
  double support_a = 0;
  double support_b = 0;
  /// The root of eq. 10 (ref. [4]'s λ = (u − 1)/u). If an unconverged fixed-point or Steffensen
  /// run ends outside (0, 1), the outputs are those of u = 0.5.
  double u = 0.5;
  /// Iterations performed: evaluations of f and f' (Newton–bisection) or of the fixed-point map
  /// G (fixed point; Steffensen, whose Aitken cycle costs two). The final evaluation of w at the
  /// returned u, for the outputs, is not counted.
  int iterations = 0;
  bool converged = false;  // stopping rule met within max_iterations with a finite u in (0, 1)
};

/// Closest approach of ellipsoid a (semi-axes radii_a along its local x, y, z, placed at pa) and
/// ellipsoid b along the direction from pa's centre to pb's centre (paper 1). All radii > 0.
/// The computation runs in a's local frame (E1 diagonal); E2⁻¹ is formed from b's rotation and
/// radii, never by inversion. Deterministic, allocation-free, thread-safe.
ClosestApproachResult ellipsoid_closest_approach(const Vec3& radii_a, const Pose& pa,
                                                 const Vec3& radii_b, const Pose& pb,
                                                 const ClosestApproachOptions& options = {});

/// Paper 1's f(u) (eq. 10) and f'(u) (eq. 11, with the sign of its last term corrected, see the
/// .cpp) for E1 = diag(radii_a^-2), E2 = rot_b diag(radii_b^-2) rot_bᵀ and unit n, all in a's
/// local frame. Exposed for tests and benchmarks; u ∈ [0, 1].
struct ClosestApproachEquation {
  double f = 0;
  double df = 0;
};
ClosestApproachEquation ellipsoid_closest_approach_equation(const Vec3& radii_a,
                                                            const Vec3& radii_b,
                                                            const Mat3& rot_b, const Vec3& n,
                                                            double u);

}  // namespace impetus
