#pragma once
// Joints between two bodies (or a body and the world), as the solvers see them. Every joint is
// one or two 3-row blocks (paper 5 uses 3-vectors throughout; eq. 8 is the ball joint):
//   ball   — linear block: the two anchor points move together (3 rows)
//   hinge  — linear block + angular block: rows ⊥ axis lock relative rotation, row 3 = limit
//   fixed  — linear block + angular block (3 rows)
//   slider — linear block: rows ⊥ axis, row 3 = limit along axis; angular block (3 rows)
// Rows a block does not use are kept with an identity self-term and zero right-hand side, so
// the system keeps its 3×3 block structure.
#include <array>
#include <optional>

#include "collision/base/math.h"

namespace impetus {

enum class JointKind { Ball, Hinge, Fixed, Slider };

struct JointSim {
  JointKind kind = JointKind::Ball;
  int body_a = 0;          // dense body index
  int body_b = -1;         // dense body index, -1 = the world
  Vec3 anchor_a = Vec3::Zero();  // anchor in a's body axes, relative to a's COM
  Vec3 anchor_b = Vec3::Zero();  // in b's axes relative to its COM (world point if body_b < 0)
  Vec3 axis_a = Vec3::UnitX();   // hinge/slider axis in a's body axes
  Vec3 axis_b = Vec3::UnitX();   // same axis in b's axes (world if body_b < 0)
  Quat rest_relative = Quat::Identity();  // q_b⁻¹ q_a at t = 0 (fixed/slider/hinge angle zero)
  std::optional<std::array<double, 2>> limits;  // hinge angle [rad] / slider offset [m]
  // Warm start: accumulated impulses of the linear and angular blocks, in the world frame (the
  // impulse on body b), not in the rows' basis, which can jump from one step to the next.
  Vec3 linear_impulse = Vec3::Zero();
  Vec3 angular_impulse = Vec3::Zero();

  bool has_angular_block() const { return kind != JointKind::Ball; }
};

}  // namespace impetus
