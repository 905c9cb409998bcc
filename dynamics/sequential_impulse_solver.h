#pragma once
// The baseline contact solver: sequential impulses (projected Gauss–Seidel on the velocity
// constraints, Catto 2005) with Coulomb friction (tangent impulses clamped to the disc μλₙ),
// restitution above a velocity threshold, speculative contacts for small gaps, warm starting,
// and a position-level post-stabilisation pass (non-linear Gauss–Seidel on the separations after
// integration) so that drift is removed without feeding energy into the velocities.
// It stays as the baseline the block solver of paper 5 is measured against.
#include <vector>

#include "dynamics/constraint_block.h"
#include "dynamics/contact_constraint.h"
#include "dynamics/joint.h"
#include "dynamics/rigid_body.h"

namespace impetus {

struct SequentialImpulseSettings {
  int velocity_iterations = 10;
  int position_iterations = 8;
  double restitution_threshold = 0.5;  // |v_n| below this bounces with e = 0 [m/s]
  double linear_slop = 0.00005;         // overlap left uncorrected, avoids jitter [m]
  double baumgarte = 0.4;              // fraction of the overlap removed per position iteration
  double max_correction = 0.05;        // per iteration [m]
};

class SequentialImpulseSolver {
 public:
  /// Computes lever arms, effective masses and velocity targets; applies the warm-start
  /// impulses already stored in the constraints. `h` is the (sub)step.
  void prepare(std::vector<RigidBodySim>& bodies, std::vector<ContactConstraint>& contacts,
               double h, const SequentialImpulseSettings& settings) const;
  /// Velocity iterations over all contacts in their given order (deterministic).
  void solve_velocities(std::vector<RigidBodySim>& bodies, std::vector<ContactConstraint>& contacts,
                        const SequentialImpulseSettings& settings,
                        std::vector<ConstraintBlock>* joint_blocks = nullptr) const;
  /// After integration: pushes overlapping bodies apart at the position level; returns the
  /// deepest remaining overlap [m] (≥ 0).
  double correct_positions(std::vector<RigidBodySim>& bodies,
                           const std::vector<ContactConstraint>& contacts,
                           const SequentialImpulseSettings& settings) const;

  // Joints, solved in the same sweeps as 3×3 block impulses (as point joints are in Box2D).
  /// Builds the joint blocks for the step and applies their warm-start impulses.
  void prepare_joints(std::vector<RigidBodySim>& bodies, std::vector<JointSim>& joints, double h,
                      std::vector<ConstraintBlock>& blocks) const;
  /// One velocity sweep over the joint blocks (called before each contact sweep).
  void solve_joint_sweep(std::vector<RigidBodySim>& bodies,
                         std::vector<ConstraintBlock>& blocks) const;
  /// Stores the accumulated joint impulses for warm starting.
  void store_joint_impulses(const std::vector<ConstraintBlock>& blocks,
                            std::vector<JointSim>& joints) const;
  /// Non-linear Gauss–Seidel position sweeps over the joint blocks after integration.
  void correct_joint_positions(std::vector<RigidBodySim>& bodies, const std::vector<JointSim>& joints,
                               std::vector<ConstraintBlock>& blocks,
                               const SequentialImpulseSettings& settings) const;
};

}  // namespace impetus
