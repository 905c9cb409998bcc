#pragma once
// One 3-row block of the impulse system (paper 5: every unknown and equation is a 3-vector).
// Velocity equation of the block:
//     Σ_bodies (jv_b · v_b + jw_b · ω_b) + self · λ = rhs
// and the generalised impulse it applies to body b is (jv_bᵀ λ, jw_bᵀ λ). Rows carry a kind so
// the active-set iteration and the projected iterative method know each row's law.
#include <array>
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

}  // namespace impetus
