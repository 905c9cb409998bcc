// The articulated super-block of the projected iterative method.
//
// Projected block Gauss–Seidel converges slowly on articulated bodies: a ragdoll's joint
// impulses must travel along the whole chain, one block per sweep, and a violent impact leaves
// the joints open after a fixed number of sweeps (ragdolls_20: 11 mm after 16 sweeps). Here all
// joint equality rows of the island form one block of the Gauss–Seidel iteration, solved exactly
// with paper 5's block elimination (ordering B, leaves first: no fill-in on trees, so linear in
// the number of bodies) and factored once per step. Each sweep updates the contacts and joint
// limits block by block, then corrects every joint impulse at once from the current velocities:
//     [ M   −Jᵀ ] [ ū  ]   [ M u            ]
//     [ J    R  ] [ Δλ ] = [ c − J_k u_k − Rλ ]
// (u: the island velocities so far, J_k u_k: the known velocity of static or kinematic bodies,
// R: the rows' compliance). The solution satisfies J ū + R (λ + Δλ) = c exactly, with ū = u +
// M⁻¹ Jᵀ Δλ, so after every sweep the joints hold exactly for the contact impulses found so far.
// Joint-limit rows (unilateral) stay out of the super-block and keep their scalar projected
// updates. The same factorisation serves the position-level correction (no friction rows in
// joint blocks; same M and J).
#include "dynamics/block_solver.h"

namespace impetus {

namespace {

bool is_super_row(const ConstraintBlock& b, int r) {
  return b.joint >= 0 && b.kind[r] == RowKind::Equality;
}

}  // namespace

void IslandBlockSolver::prepare_joint_subsystem(const std::vector<RigidBodySim>& bodies,
                                                const BlockSolverSettings& settings) {
  joint_subsystem_ready_ = false;
  if (!settings.articulated_super_block) return;
  // One joint block (joint blocks come first: first_contact_block_ of them): its own 3×3
  // update is already exact.
  if (first_contact_block_ < 2) return;
  // Unknowns: the bodies' velocities and the joint blocks' impulses. Joint blocks come first in
  // blocks_ (first_contact_block_); contact rows would be decoupled identity rows, so they are
  // left out of the system rather than eliminated and substituted for nothing (a fifth of
  // ragdolls_20's rows). The row order is the full ordering with them removed: the same
  // elimination, operation for operation.
  const int nb = static_cast<int>(bodies_.size());
  const int n = joint_unknowns();
  joint_lu_.reset(n);
  joint_lu_.mark_diagonal_blocks(true);  // solved once per sweep
  joint_mass_.resize(nb);
  joint_inertia_.resize(nb);
  for (int l = 0; l < nb; ++l) {
    const RigidBodySim& body = bodies[bodies_[l]];
    const Mat3 rot = body.q.toRotationMatrix();
    joint_mass_[l] = 1.0 / body.inv_mass;
    joint_inertia_[l] = rot * body.inertia_local * rot.transpose();
    joint_lu_.add(2 * l, 2 * l, joint_mass_[l] * Mat3::Identity());
    joint_lu_.add(2 * l + 1, 2 * l + 1, joint_inertia_[l]);
  }
  joint_super_rows_.resize(first_contact_block_);
  for (int k = 0; k < first_contact_block_; ++k) {
    const ConstraintBlock& b = blocks_[k];
    const int row = 2 * nb + k;
    // Rows outside the super-block (limits, free axes) are decoupled identity rows: their Δλ
    // is 0, and they add no fill-in.
    Mat3 mask = Mat3::Zero();
    Mat3 self = Mat3::Identity();
    for (int r = 0; r < 3; ++r) {
      joint_super_rows_[k][r] = is_super_row(b, r);
      if (!joint_super_rows_[k][r]) continue;
      mask(r, r) = 1.0;
      self(r, r) = regularisation_[k];
    }
    for (int s = 0; s < 2; ++s) {
      const int l = slots_[k][s];
      if (l < 0) continue;
      const Mat3 jv = mask * b.jv[s];
      const Mat3 jw = mask * b.jw[s];
      // An angular block's rows do not involve the linear velocity (jv = 0), and a block of
      // limit rows only has no super rows: zero blocks are left out of the pattern, where
      // elimination would carry them as fill and the solve would multiply them every sweep.
      if (!jv.isZero(0.0)) {
        joint_lu_.add(row, 2 * l, jv);
        joint_lu_.add(2 * l, row, -jv.transpose());
      }
      if (!jw.isZero(0.0)) {
        joint_lu_.add(row, 2 * l + 1, jw);
        joint_lu_.add(2 * l + 1, row, -jw.transpose());
      }
    }
    joint_lu_.add(row, row, self);
  }
  if (!joint_order_known_) {
    ordering(settings.ordering, joint_rows_, joint_pivots_);
    size_t kept = 0;
    for (size_t i = 0; i < joint_rows_.size(); ++i) {
      if (joint_rows_[i] >= n) continue;
      joint_rows_[kept] = joint_rows_[i];
      if (!joint_pivots_.empty()) joint_pivots_[kept] = joint_pivots_[i];
      ++kept;
    }
    joint_rows_.resize(kept);
    if (!joint_pivots_.empty()) joint_pivots_.resize(kept);
    joint_order_known_ = true;  // until the island's structure changes (note_structure)
  }
  joint_subsystem_ready_ = joint_lu_.factorize(joint_rows_, joint_pivots_, 0);
}

void IslandBlockSolver::solve_joint_subsystem(const std::vector<Vec3>& target,
                                              std::vector<Vec3>& lambda, std::vector<Vec3>& u,
                                              bool position_level) {
  const int nb = static_cast<int>(bodies_.size());
  const int n = joint_unknowns();
  joint_rhs_.resize(n);  // every entry is written below
  for (int l = 0; l < nb; ++l) {
    const int at = sweep_slot(l);
    joint_rhs_[2 * l] = joint_mass_[l] * u[2 * at];
    joint_rhs_[2 * l + 1] = joint_inertia_[l] * u[2 * at + 1];
  }
  for (int k = 0; k < first_contact_block_; ++k) {
    const std::array<bool, 3>& super = joint_super_rows_[k];
    const Vec3 e = target[k] - (position_level ? Vec3::Zero() : iter_[k].known_velocity) -
                   regularisation_[k] * lambda[k];
    for (int r = 0; r < 3; ++r) joint_rhs_[2 * nb + k][r] = super[r] ? e[r] : 0.0;
  }
  joint_lu_.solve(joint_rhs_, joint_x_);
  for (int l = 0; l < nb; ++l) {
    const int at = sweep_slot(l);
    u[2 * at] = joint_x_[2 * l];
    u[2 * at + 1] = joint_x_[2 * l + 1];
  }
  for (int k = 0; k < first_contact_block_; ++k) {
    const std::array<bool, 3>& super = joint_super_rows_[k];
    for (int r = 0; r < 3; ++r) {
      if (super[r]) lambda[k][r] += joint_x_[2 * nb + k][r];
    }
  }
}

}  // namespace impetus
