#pragma once
// The block-sparse impulse solver (paper 5, generalised). For one island the unknowns are the
// bodies' post-solve velocities (v̄ᵢ, ω̄ᵢ) and every constraint block's impulse λ, all 3-vectors:
//   body rows        Mᵢ (ūᵢ − uᵢ) − Σ_k J_kiᵀ λ_k = 0          (paper 5, eqs. 1–4)
//   constraint rows  Σ_i J_ki ūᵢ + S_k λ_k = c_k                (eqs. 5–8, extended)
// Orderings of the equations (§III.2): A = Moore's topological order, B = all body momentum rows
// first, then constraints (the paper's fastest), C = constraints first. With B, eliminating the
// body rows first leaves the constraint Schur complement JM⁻¹Jᵀ; we go past the paper by
// ordering the constraint rows leaves-first (deepest in a breadth-first tree first), which for
// tree topologies is a perfect elimination order: no fill-in, linear time.
//
// Contacts are unilateral with Coulomb friction: an active-set iteration over the exact system
// (drop pulling contacts, switch sticking ↔ sliding, re-solve), warm-started from last step's
// modes. Large, loopy islands (piles) make exact elimination fill in; elimination is abandoned
// once it has spent more block operations than the iterative method would, and the island is
// solved by projected block Gauss–Seidel over the same 3×3 blocks instead. If the active set
// does not settle within its iteration bound, the same projected method, warm-started from the
// last iterate, finishes the solve (the documented fallback). Drift is removed after
// integration by post-stabilisation: the same factorisation (or the same blocks, iteratively)
// solves for a mass-weighted position correction; no velocity is changed, so no energy is added.
//
// Known problem (open): on the 1,000-box pile (one island, ~4,900 contacts, solved by the
// iterative path) some boxes are pushed through the floor; small piles, stacks, chains and
// linkages are fine. Until that is fixed, scenes default to the sequential-impulse solver.
#include <vector>

#include "dynamics/block_sparse_lu.h"
#include "dynamics/constraint_block.h"
#include "dynamics/contact_constraint.h"
#include "dynamics/island.h"
#include "dynamics/joint.h"
#include "dynamics/rigid_body.h"

namespace impetus {

enum class BlockOrdering { A, B, C };
enum class BlockMethod { Auto, Exact, Iterative };

struct BlockSolverSettings {
  BlockOrdering ordering = BlockOrdering::B;
  BlockMethod method = BlockMethod::Auto;
  int max_active_set_iterations = 16;
  int iterative_iterations = 20;      // projected block Gauss–Seidel sweeps
  int position_iterations = 4;        // iterative post-stabilisation sweeps
  double restitution_threshold = 0.5; // [m/s]
  double linear_slop = 0.00005;       // overlap left uncorrected [m]
  double stabilization = 1.0;         // fraction of the position error removed per pass
  int stabilization_passes = 2;       // exact path: re-linearised correction passes per step
  double max_linear_correction = 0.05;   // per body and pass [m]
  double max_angular_correction = 0.2;   // per body and pass [rad]
  double compliance = 1e-9;           // relative regularisation of joint rows (closed loops)
  double contact_compliance = 1e-6;   // relative regularisation of contact rows (redundant corners)
  double exact_budget_factor = 2.0;   // exact elimination may cost this × the iterative method
  // Islands with more contact blocks go to the iterative method directly: many contacts in
  // loops fill in and make the active set cycle between equivalent impulse distributions.
  int max_exact_contacts = 48;
};

struct IslandSolveInfo {
  bool exact = false;
  bool fell_back = false;
  bool rejected = false;  // the exact solution added energy and was replaced
  int active_set_iterations = 0;
  long long block_ops = 0;
};

/// Solver state of one island for one step (kept between the velocity solve and the position
/// correction so both use the same factorisation).
class IslandBlockSolver {
 public:
  /// Builds the island's blocks from prepared contacts and joints, solves for the post-solve
  /// velocities (written to `bodies`) and stores impulses/modes back for warm starting.
  IslandSolveInfo solve_velocities(const Island& island, std::vector<RigidBodySim>& bodies,
                                   std::vector<ContactConstraint>& contacts,
                                   std::vector<JointSim>& joints, double h,
                                   const BlockSolverSettings& settings);
  /// After integration: corrects positions so joints close and overlaps shrink.
  void stabilize_positions(std::vector<RigidBodySim>& bodies,
                           const std::vector<ContactConstraint>& contacts,
                           const std::vector<JointSim>& joints, const BlockSolverSettings& settings);

  /// The equation order (rows) and pivot columns for an ordering; exposed for benchmarks/tests.
  void ordering(BlockOrdering which, std::vector<int>& rows, std::vector<int>& pivots) const;
  /// Assembles the current system (blocks and modes) into `lu` with right-hand side `rhs`; the
  /// momentum rows use the velocities saved by save_start_velocities().
  void assemble(const std::vector<RigidBodySim>& bodies, BlockSparseLu& lu,
                std::vector<Vec3>& rhs) const;
  int unknown_count() const { return 2 * static_cast<int>(bodies_.size()) + static_cast<int>(blocks_.size()); }
  const std::vector<ConstraintBlock>& blocks() const { return blocks_; }

 private:
  int local_index(int body) const;  // -1 when not an unknown of this island
  Vec3 block_velocity(const ConstraintBlock& b, const std::vector<RigidBodySim>& bodies) const;
  void effective_rows(const ConstraintBlock& b, Mat3 jv[2], Mat3 jw[2], Mat3& self, Vec3& rhs) const;
  bool update_modes(const std::vector<RigidBodySim>& bodies);
  /// Active-set iteration over the exact system; false when elimination failed or was
  /// abandoned (velocities restored). Falls back to the iterative method if it does not settle.
  bool run_active_set(std::vector<RigidBodySim>& bodies, const BlockSolverSettings& settings,
                      const std::vector<int>& rows, const std::vector<int>& pivots,
                      long long budget, IslandSolveInfo& info);
  bool propagate_impacts(std::vector<RigidBodySim>& bodies,
                         const std::vector<ContactConstraint>& contacts,
                         const BlockSolverSettings& settings, const std::vector<int>& rows,
                         const std::vector<int>& pivots, long long budget, IslandSolveInfo& info);
  bool stabilize_once(std::vector<RigidBodySim>& bodies,
                      const std::vector<ContactConstraint>& contacts,
                      const std::vector<JointSim>& joints, const BlockSolverSettings& settings);
  double kinetic_energy(const std::vector<RigidBodySim>& bodies) const;
  double start_kinetic_energy() const;
  void save_start_velocities(const std::vector<RigidBodySim>& bodies);
  void restore_start_velocities(std::vector<RigidBodySim>& bodies) const;
  void solve_iterative(std::vector<RigidBodySim>& bodies, const BlockSolverSettings& settings,
                       bool warm_start_applied);
  Mat3 block_diagonal(const ConstraintBlock& b, const std::vector<RigidBodySim>& bodies) const;

  std::vector<int> bodies_;               // island bodies (dense indices, ascending)
  std::vector<ConstraintBlock> blocks_;
  std::vector<double> regularisation_;    // per block: compliance × mean diagonal of JM⁻¹Jᵀ
  std::vector<Vec3> warm_lambda_;         // impulses the step started from (warm start)
  std::vector<double> start_inv_mass_;
  std::vector<Mat3> start_inertia_;
  std::vector<Vec3> u0_;                  // island velocities before the current solve
  std::vector<Vec3> impact_impulses_;     // impulses of the impact-propagation pass
  int impact_block_ = -1;                 // the one contact of the current impact, if any
  BlockSparseLu lu_;
  bool exact_ = false;
  double h_ = 0;
};

}  // namespace impetus
