#pragma once
// Jacobian blocks of contacts and joints (the rows of paper 5's system, eqs. 5–8, extended to
// hinge, fixed and slider joints and to joint limits), and their position errors for
// post-stabilisation and statistics.
#include <vector>

#include "dynamics/constraint_block.h"
#include "dynamics/contact_constraint.h"
#include "dynamics/joint.h"
#include "dynamics/rigid_body.h"

namespace impetus {

/// Contact block: rows (n, t1, t2) on the relative velocity of the contact point, b minus a.
/// `c` must have been prepared (lever arms, velocity target). rhs = (target, 0, 0).
ConstraintBlock make_contact_block(const ContactConstraint& c, int contact_index);

/// A joint block's row impulses as the world-frame impulse on body b (angular blocks: the
/// angular impulse). Warm starts are stored this way because a hinge's or slider's row basis
/// (any_orthogonal of the axis) can jump between steps while the world impulse does not.
Vec3 joint_impulse_in_world(const ConstraintBlock& block, const Vec3& lambda);

/// Appends the joint's blocks (linear, then angular when it has one) with rhs for the step h
/// (limit rows get speculative targets (limit − value)/h) and the limit rows' activity.
void append_joint_blocks(const JointSim& joint, int joint_index,
                         const std::vector<RigidBodySim>& bodies, double h,
                         std::vector<ConstraintBlock>& out);

/// Position error C of each row of a joint block at the bodies' current poses (same row
/// directions and signs as the velocity rows): anchor gap, relative-rotation vector, limit
/// violation (0 inside the limits).
Vec3 joint_block_position_error(const JointSim& joint, const ConstraintBlock& block,
                                const std::vector<RigidBodySim>& bodies);

/// J M⁻¹ Jᵀ of one block (its 3×3 diagonal block of the Schur complement); non-dynamic bodies
/// contribute nothing.
Mat3 block_schur_diagonal(const ConstraintBlock& b, const std::vector<RigidBodySim>& bodies);

struct JointError {
  double linear = 0;   // distance between the two anchor points (perpendicular to the axis for sliders) [m]
  double angular = 0;  // norm of the locked relative-rotation error [rad]
};
JointError measure_joint_error(const JointSim& joint, const std::vector<RigidBodySim>& bodies);

/// Hinge angle / slider offset of a relative to b (0 at t = 0). Ball and fixed: 0.
double joint_coordinate(const JointSim& joint, const std::vector<RigidBodySim>& bodies);

}  // namespace impetus
