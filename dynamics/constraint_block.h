#pragma once
// One 3-row block of the impulse system (paper 5: every unknown and equation is a 3-vector).
// Velocity equation of the block:
//     Σ_bodies (jv_b · v_b + jw_b · ω_b) + self · λ = rhs
// and the generalised impulse it applies to body b is (jv_bᵀ λ, jw_bᵀ λ). Rows carry a kind so
// the active-set iteration and the projected iterative method know each row's law.
#include <array>
#include <cmath>
#include <cstdint>

#include "collision/base/math.h"

namespace impetus {

enum class RowKind : std::uint8_t {
  Equality,       // bilateral: any sign of λ
  Unused,         // λ = 0 (self = 1, no Jacobian)
  Normal,         // contact normal: λ ≥ 0 (unilateral, paper 5 eq. 5 with restitution target)
  Friction,       // contact tangent: sticking (eqs. 6–7) or sliding on the cone boundary
  LimitLower,     // joint limit: λ ≥ 0
  LimitUpper,     // joint limit: λ ≤ 0
};

enum class ContactMode : std::uint8_t { Inactive, Sticking, Sliding };

struct ConstraintBlock {
  std::array<int, 2> body = {-1, -1};  // dense body indices; -1 = world
  std::array<Mat3, 2> jv = {Mat3::Zero(), Mat3::Zero()};
  std::array<Mat3, 2> jw = {Mat3::Zero(), Mat3::Zero()};
  Mat3 self = Mat3::Zero();
  Vec3 rhs = Vec3::Zero();             // velocity targets per row [m/s or rad/s]
  Vec3 position_error = Vec3::Zero();  // C per row after integration (post-stabilisation)
  std::array<RowKind, 3> kind = {RowKind::Equality, RowKind::Equality, RowKind::Equality};
  Vec3 lambda = Vec3::Zero();          // accumulated impulse of the step (warm start in)
  // Contact blocks only.
  int contact = -1;                    // index into the contact list
  double friction = 0;
  ContactMode mode = ContactMode::Sticking;
  Vec3 slide_direction = Vec3::Zero(); // (0, s1, s2): unit tangential impulse direction when sliding
  // Joint blocks only.
  int joint = -1;
  bool angular = false;
  // Rows' active flags for limits: a limit row is active only while at its limit.
  std::array<bool, 3> limit_active = {false, false, false};
};

/// Coulomb sliding friction for iterative solvers: the tangential impulse (t1, t2) on the
/// circle of radius `limit` (= μλₙ) along λ_t − step·slip, slip being the current tangential
/// relative velocity. Its fixed point is λ_t = −limit·slip/‖slip‖, friction opposing the slip of
/// the point, whatever the metric of the unconstrained update: clamping an update made with
/// per-axis or coupled effective masses instead settles where K⁻¹·slip (not slip) is parallel
/// to λ_t, so the corners of a sliding box pull sideways, turn it and lose friction. `step`
/// > 0 only sets the pace (1/‖K_tt‖ keeps it stable).
inline void sliding_friction_impulse(double& t1, double& t2, double slip1, double slip2,
                                     double step, double limit) {
  const double d1 = t1 - step * slip1, d2 = t2 - step * slip2;
  const double norm = std::sqrt(d1 * d1 + d2 * d2);
  const double scale = norm > 0 ? limit / norm : 0.0;
  t1 = d1 * scale;
  t2 = d2 * scale;
}

}  // namespace impetus

namespace impetus {

/// Projects a contact impulse (rows n, t1, t2) onto its law: λₙ ≥ 0 and the tangential part
/// onto the Coulomb disc μλₙ.
inline Vec3 project_contact_impulse(double friction, Vec3 lambda) {
  lambda[0] = lambda[0] > 0 ? lambda[0] : 0.0;
  const double limit = friction * lambda[0];
  const double lt = std::sqrt(lambda[1] * lambda[1] + lambda[2] * lambda[2]);
  if (lt > limit) {
    const double scale = lt > 0 ? limit / lt : 0.0;
    lambda[1] *= scale;
    lambda[2] *= scale;
  }
  return lambda;
}

/// Projects a block impulse onto its rows' laws: unused rows 0, normal and lower-limit rows
/// ≥ 0, upper-limit rows ≤ 0, and for contacts the tangential part onto the Coulomb disc μλₙ.
inline Vec3 project_block_impulse(const ConstraintBlock& b, Vec3 lambda) {
  for (int r = 0; r < 3; ++r) {
    switch (b.kind[r]) {
      case RowKind::Unused: lambda[r] = 0; break;
      case RowKind::Normal:
      case RowKind::LimitLower: lambda[r] = lambda[r] > 0 ? lambda[r] : 0.0; break;
      case RowKind::LimitUpper: lambda[r] = lambda[r] < 0 ? lambda[r] : 0.0; break;
      case RowKind::Equality:
      case RowKind::Friction: break;
    }
  }
  return b.contact >= 0 ? project_contact_impulse(b.friction, lambda) : lambda;
}

}  // namespace impetus
