// The articulated super-block of the projected iterative method.
//
// Projected block Gauss–Seidel converges slowly on articulated bodies: a ragdoll's joint
// impulses must travel along the whole chain, one block per sweep, and a violent impact leaves
// the joints open after a fixed number of sweeps (ragdolls_20: 11 mm after 16 sweeps). Here all
// joint equality rows of the island form one block of the Gauss–Seidel iteration, solved exactly
// and factored once per step. Each sweep updates the contacts and joint limits block by block,
// then corrects every joint impulse at once from the current velocities u:
//     (J M⁻¹ Jᵀ + R) Δλ = c − J_k u_k − J u − R λ,    ū = u + M⁻¹ Jᵀ Δλ
// (J_k u_k: the known velocity of static or kinematic bodies, R: the rows' compliance), the
// KKT system [M −Jᵀ; J R][ū; Δλ] = [M u; c − J_k u_k − Rλ] with the bodies' rows eliminated.
// ū satisfies J ū + R (λ + Δλ) = c exactly, so after every sweep the joints hold exactly for the
// contact impulses found so far. Joint-limit rows (unilateral) stay out of the super-block and
// keep their scalar projected updates. The same factorisation serves the position-level
// correction (no friction rows in joint blocks; same M and J).
//
// S = J M⁻¹ Jᵀ + R has a 3×3 block per pair of joint blocks that share a body, and is factored
// by paper 5's block elimination in ordering B's order of the joint rows (leaves first): on a
// tree the blocks of one body's joints already form a clique, so there is no fill-in and the
// cost is linear in the number of joints. Eliminating the bodies' rows in the KKT system made the
// same S as fill; solving the KKT system in every sweep then also carried the body rows through
// the substitution (ragdolls_20: 36 block rows and 174 block products a sweep, against 14 rows
// and 56 products for S, plus J u and M⁻¹Jᵀ Δλ from the sweep's own scratch).
#include "dynamics/block_solver.h"
#include "collision/base/vector_growth.h"

namespace impetus {

namespace {

bool is_super_row(const ConstraintBlock& b, int r) {
  return b.joint >= 0 && b.kind[r] == RowKind::Equality;
}

}  // namespace

void IslandBlockSolver::prepare_joint_subsystem(const BlockSolverSettings& settings) {
  // M⁻¹ comes from prepare_iterative's scratch (iter_[k].mv, .mw), made just before.
  joint_subsystem_ready_ = false;
  if (!settings.articulated_super_block) return;
  // One joint block (joint blocks come first: first_contact_block_ of them): its own 3×3
  // update is already exact.
  const int nj = first_contact_block_;
  if (nj < 2) return;
  resize_growing(joint_sweep_, nj);
  resize_growing(joint_left_to_super_block_, nj);
  for (int k = 0; k < nj; ++k) {
    const ConstraintBlock& b = blocks_[k];
    const IterBlock& it = iter_[k];
    JointSweep& js = joint_sweep_[k];
    bool limits = false;
    for (int r = 0; r < 3; ++r) {
      js.mask[r] = is_super_row(b, r) ? 1.0 : 0.0;
      js.limit[r] = b.kind[r] == RowKind::LimitLower ? 1 : b.kind[r] == RowKind::LimitUpper ? -1 : 0;
      limits = limits || js.limit[r] != 0;
    }
    joint_left_to_super_block_[k] = !limits;
    js.known_velocity = it.known_velocity;
    js.row_diagonal = it.row_diagonal;
    js.regularisation = regularisation_[k];
    js.slot = it.slot;
    for (int s = 0; s < 2; ++s) {
      const Mat3& jv = b.jv[s];
      js.linear[s] = !jv.isDiagonal(0.0)         ? LinearPart::Full
                     : jv.diagonal().isZero(0.0) ? LinearPart::Zero
                                                 : LinearPart::Diagonal;
      js.jw[s] = b.jw[s];
      js.mw[s] = it.mw[s];
      js.jv[s] = jv.diagonal();
      js.mv[s] = it.mv[s].diagonal();
    }
  }
  // The block rows of S in elimination order: the joint blocks in ordering B's order (leaves
  // first), contact blocks left out (they are no unknowns here).
  if (!joint_order_known_) {
    ordering(BlockOrdering::B, joint_rows_, joint_pivots_);
    const int nb = static_cast<int>(bodies_.size());
    std::size_t kept = 0;
    for (const int row : joint_rows_) {
      const int k = row - 2 * nb;
      if (k >= 0 && k < nj) joint_rows_[kept++] = k;
    }
    joint_rows_.resize(kept);  // a cut: nothing to grow
    joint_pivots_.clear();  // diagonal pivots: S is symmetric positive definite
    joint_order_known_ = true;  // until the island's structure changes (note_structure)
  }
  // S block by block: joint blocks ka ≤ kb that share island body l meet through
  // J_kb (M⁻¹ J_kaᵀ) = jv_kb·mv_ka + jw_kb·mw_ka of their sides on l. Rows outside the
  // super-block (limits, free axes) are decoupled identity rows: their Δλ is 0.
  auto masked = [&](Mat3 c, int row_block, int col_block) {
    for (int r = 0; r < 3; ++r) {
      if (joint_sweep_[row_block].mask[r] == 0.0) c.row(r).setZero();
      if (joint_sweep_[col_block].mask[r] == 0.0) c.col(r).setZero();
    }
    return c;
  };
  auto coupling_of = [&](const SCoupling& c) {
    const ConstraintBlock& b = blocks_[c.kb];
    // jv·mv + jw·mw, with jv's (and so mv's) zero and ±I parts skipped: the same sums.
    Mat3 coupling = b.jw[c.sb] * iter_[c.ka].mw[c.sa];
    if (joint_sweep_[c.ka].linear[c.sa] != LinearPart::Zero) {
      switch (joint_sweep_[c.kb].linear[c.sb]) {
        case LinearPart::Zero: break;
        case LinearPart::Diagonal: coupling += b.jv[c.sb].diagonal().asDiagonal() * iter_[c.ka].mv[c.sa]; break;
        case LinearPart::Full: coupling += b.jv[c.sb] * iter_[c.ka].mv[c.sa]; break;
      }
    }
    if (joint_sweep_[c.kb].mask.minCoeff() == 0.0 || joint_sweep_[c.ka].mask.minCoeff() == 0.0)
      coupling = masked(coupling, c.kb, c.ka);
    return coupling;
  };
  auto self_of = [&](int k) {
    Mat3 self = Mat3::Zero();
    for (int r = 0; r < 3; ++r) self(r, r) = joint_sweep_[k].mask[r] != 0.0 ? regularisation_[k] : 1.0;
    return self;
  };
  if (s_assembly_known_ && joint_lu_.records(nj, joint_rows_)) {
    // The island's structure, and so S's pattern, is last step's: its couplings go straight into
    // their slots of the recorded elimination, summed in the order add() met them.
    Mat3* const value = joint_lu_.pattern_values();
    for (const SCoupling& c : s_assembly_) {
      const Mat3 coupling = coupling_of(c);
      if (c.first) value[c.slot] = coupling;
      else value[c.slot] += coupling;
      if (c.slot_transposed < 0) continue;
      if (c.first_transposed) value[c.slot_transposed] = coupling.transpose();
      else value[c.slot_transposed] += coupling.transpose();
    }
    for (int k = 0; k < nj; ++k) value[s_diagonal_slot_[k]] += self_of(k);
    joint_subsystem_ready_ = joint_lu_.refactorize();
    return;
  }
  body_depths();  // each body's blocks (scratch_.body_block_*), joint blocks first
  const OrderingScratch& w = scratch_;
  joint_lu_.reset(nj);
  s_assembly_.clear();
  const int nb = static_cast<int>(bodies_.size());
  for (int l = 0; l < nb; ++l) {
    const int begin = w.body_block_start[l], end = w.body_block_start[l + 1];
    for (int i = begin; i < end && w.body_block_list[i] < nj; ++i) {
      const int ka = w.body_block_list[i];
      const int sa = slots_[ka][0] == l ? 0 : 1;
      for (int j = i; j < end && w.body_block_list[j] < nj; ++j) {
        const int kb = w.body_block_list[j];
        SCoupling c;
        c.ka = ka;
        c.sa = sa;
        c.kb = kb;
        c.sb = slots_[kb][0] == l ? 0 : 1;
        const Mat3 coupling = coupling_of(c);
        joint_lu_.add(kb, ka, coupling);
        if (kb != ka) joint_lu_.add(ka, kb, coupling.transpose());
        s_assembly_.push_back(c);
      }
    }
  }
  for (int k = 0; k < nj; ++k) joint_lu_.add(k, k, self_of(k));
  joint_subsystem_ready_ = joint_lu_.factorize(joint_rows_, joint_pivots_, 0);
  s_assembly_known_ = false;
  if (!joint_subsystem_ready_ || !joint_lu_.records(nj, joint_rows_)) return;
  // Each coupling's slots in the recorded elimination, and whether it is the first to reach
  // them (then it is assigned, else added: add()'s sums in add()'s order).
  s_written_.clear();
  auto first_write = [&](int slot) {
    if (static_cast<int>(s_written_.size()) <= slot) s_written_.resize(slot + 1, 0);
    const bool first = s_written_[slot] == 0;
    s_written_[slot] = 1;
    return first;
  };
  for (SCoupling& c : s_assembly_) {
    c.slot = joint_lu_.pattern_slot(c.kb, c.ka);
    c.first = first_write(c.slot);
    c.slot_transposed = c.kb != c.ka ? joint_lu_.pattern_slot(c.ka, c.kb) : -1;
    if (c.slot_transposed >= 0) c.first_transposed = first_write(c.slot_transposed);
  }
  resize_growing(s_diagonal_slot_, nj);
  for (int k = 0; k < nj; ++k) {
    s_diagonal_slot_[k] = joint_lu_.pattern_slot(k, k);
    if (first_write(s_diagonal_slot_[k])) return;  // no coupling on the diagonal: not expected, assemble afresh
  }
  s_assembly_known_ = true;  // until the island's structure changes (note_structure)
}

void IslandBlockSolver::solve_joint_subsystem(const std::vector<Vec3>& target,
                                              std::vector<Vec3>& lambda, std::vector<Vec3>& u_vector,
                                              bool position_level) {
  const int nj = first_contact_block_;
  resize_growing(joint_rhs_, nj);  // every entry is written below
  // Raw pointers: through the vectors, the stores to u and the right-hand side made the
  // compiler reload the data pointers.
  const JointSweep* const sweep = joint_sweep_.data();
  Vec3* const u = u_vector.data();
  Vec3* const rhs = joint_rhs_.data();
  for (int k = 0; k < nj; ++k) {
    const JointSweep& js = sweep[k];
    Vec3 e = target[k] - (position_level ? Vec3::Zero() : js.known_velocity) - js.regularisation * lambda[k];
    for (int s = 0; s < 2; ++s)
      if (js.slot[s] >= 0) e -= joint_side_velocity(js, k, s, u);
    rhs[k] = e.cwiseProduct(js.mask);
  }
  joint_lu_.solve_in_place(joint_rhs_);  // diagonal pivots (joint_pivots_ is empty)
  const Vec3* const x = rhs;
  for (int k = 0; k < nj; ++k) {
    const JointSweep& js = sweep[k];
    // Products with the 0/1 mask rather than tests per row (they mispredicted: a hinge's
    // blocks mix solved and free rows); a free row's Δλ is 0 either way.
    const Vec3 delta = x[k].cwiseProduct(js.mask);
    lambda[k] += delta;
    for (int s = 0; s < 2; ++s) {
      const int l = js.slot[s];
      if (l < 0) continue;
      switch (js.linear[s]) {
        case LinearPart::Zero: break;
        case LinearPart::Diagonal: u[2 * l] += js.mv[s].cwiseProduct(delta); break;
        case LinearPart::Full: u[2 * l] += iter_[k].mv[s] * delta; break;
      }
      u[2 * l + 1] += js.mw[s] * delta;
    }
  }
}

void IslandBlockSolver::iterate_joint_limits(int k, const std::vector<Vec3>& target,
                                             std::vector<Vec3>& lambda, std::vector<Vec3>& u_vector,
                                             bool position_level) const {
  const JointSweep& js = joint_sweep_[k];
  Vec3* const u = u_vector.data();
  const Vec3 residual = joint_limit_residual(k, target, lambda, u, position_level);
  for (int r = 0; r < 3; ++r) {
    if (js.limit[r] == 0) continue;
    double next = lambda[k][r] + residual[r] / js.row_diagonal[r];
    next = js.limit[r] > 0 ? std::max(next, 0.0) : std::min(next, 0.0);
    const double delta = next - lambda[k][r];
    lambda[k][r] = next;
    for (int s = 0; s < 2; ++s) {
      const int l = js.slot[s];
      if (l < 0) continue;
      switch (js.linear[s]) {
        case LinearPart::Zero: break;
        case LinearPart::Diagonal: u[2 * l][r] += js.mv[s][r] * delta; break;
        case LinearPart::Full: u[2 * l] += iter_[k].mv[s].col(r) * delta; break;
      }
      u[2 * l + 1] += js.mw[s].col(r) * delta;
    }
  }
}

}  // namespace impetus
