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
// modes. Large, loopy islands (piles) make exact elimination fill in. Each island is therefore
// solved by whichever method is cheaper: a symbolic elimination in the chosen order counts the
// block operations of one exact factorisation (fill-in included), times the expected active-set
// iterations, against iterations × non-zero blocks of projected block Gauss–Seidel over the same
// 3×3 blocks. An exact solve that overruns its budget, cycles, or adds energy is replaced by
// the projected method, started from last step's impulses. Drift is removed after integration
// by post-stabilisation: the same factorisation (or the same blocks, iteratively) solves for a
// mass-weighted position correction; no velocity is changed, so no energy is added. An exact
// correction that leaves the island's error larger than it found it (near-redundant contacts
// with inconsistent targets) is undone and replaced by the projected iterative correction.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "dynamics/block_sparse_lu.h"
#include "dynamics/constraint_block.h"
#include "dynamics/contact_constraint.h"
#include "dynamics/island.h"
#include "dynamics/joint.h"
#include "dynamics/pooled_lists.h"
#include "dynamics/rigid_body.h"

namespace impetus {

enum class BlockOrdering { A, B, C };
enum class BlockMethod { Auto, Exact, Iterative };

struct BlockSolverSettings {
  BlockOrdering ordering = BlockOrdering::B;
  BlockMethod method = BlockMethod::Auto;
  int max_active_set_iterations = 16;
  // Projected block Gauss–Seidel sweeps at the velocity level, and per post-stabilisation pass.
  // 12 and 3 (× 2 passes) cost a quarter less than 16 and 4 on pile_boxes_1k and leave its
  // deepest overlap at 1.4 mm (1.6 mm with 16 and 4; Bullet's 10 iterations: 28 mm); fewer
  // velocity sweeps (8–10) or one pass let the pile's overlap reach 13–47 mm.
  int iterative_iterations = 12;
  int position_iterations = 3;
  // Islands with joints keep sweeping (up to max_joint_iterations) until no joint row's
  // velocity residual exceeds joint_velocity_tolerance: a violent impact on a ragdoll needs
  // more sweeps than 16 to close its joints (ragdolls_20 without the super-block: 11 mm joint
  // error after 16 sweeps, 1.5 mm after 32), while contact-only piles need no more.
  int max_joint_iterations = 64;
  double joint_velocity_tolerance = 1e-3;  // [m/s, rad/s]
  // Contact rows likewise: an island keeps sweeping (up to max_contact_iterations) while a
  // contact's normal row misses its target by more than contact_residual_slops × the island's
  // smallest contact slop per step (4 × 0.05 mm at 240 Hz: 0.05 m/s; less for small bodies).
  // Gauss–Seidel passes a load through a light body under a heavy one slowly: the error
  // shrinks by about M/(M + m) per sweep. A 4.6 kg crate under 52 kg of crates and gems landing
  // on the showcase terrain (tests/data/showcase_v1, a 5-body island whose exact solves ran out
  // of budget) still approached the terrain at 1.0–1.2 m/s after 12 sweeps (4–8% less per
  // sweep), and the crates sank 15–20 mm into each other and the terrain; sweeping on until
  // the residual is below the tolerance: 1 mm. Most islands of resting piles stop at 12.
  int max_contact_iterations = 64;
  double contact_residual_slops = 4.0;
  // All joint equality rows of an island form one Gauss–Seidel block, solved exactly by block
  // elimination (block_solver_articulated.cpp); false: every joint block on its own.
  bool articulated_super_block = true;
  double restitution_threshold = 0.5; // [m/s]
  double linear_slop = 0.00005;       // overlap left uncorrected [m] (the world lowers it per
                                      // contact for small bodies: ContactConstraint::slop)
  double stabilization = 1.0;         // fraction of the position error removed per pass
  int stabilization_passes = 2;       // exact path: re-linearised correction passes per step
  // Exact path: passes after the first stop once no block's position error exceeds this
  // [m, rad]. newton_cradle's first pass leaves under 1e-11 m, and its second pass was 8% of
  // the step. (The iterative path keeps its passes: on sphere_pile, skipping them below 1 nm
  // moved the 150-step golden by 78 mm, a chaotic scene's different branch.)
  double position_tolerance = 1e-9;
  int iterative_stabilization_passes = 2;  // iterative path: passes of position_iterations sweeps
  double max_linear_correction = 0.05;   // per body and pass [m]
  double max_angular_correction = 0.2;   // per body and pass [rad]
  double compliance = 1e-9;           // relative regularisation of joint rows (closed loops)
  double contact_compliance = 1e-6;   // relative regularisation of contact rows (redundant corners)
  double exact_budget_factor = 2.0;   // exact elimination may cost this × the iterative method
  // Cost model of the per-island choice, in 3×3 block multiply-adds: one Gauss–Seidel update
  // of a block costs this many per body it touches (J·u, the 3×3 solve and M⁻¹Jᵀ·δλ).
  double iterative_ops_per_body_block = 3.0;
  // Hard cap on contact blocks for the exact method (< 0: none, the cost model decides).
  int max_exact_contacts = -1;
  // Islands with at most this many contact blocks always try the exact method first (within
  // its budget): stacks need exact impulses to stand still, and such islands are cheap.
  int always_exact_contacts = 48;
  // Threads for one big island's iterative sweeps (nested dissection, block_solver_iterative.cpp,
  // so results do not depend on it); islands below parallel_min_blocks run on one thread.
  int threads = 1;
  int parallel_min_blocks = 1024;
};

struct IslandSolveInfo {
  bool exact = false;
  bool fell_back = false;
  bool rejected = false;  // the exact solution added energy and was replaced
  bool exact_attempted = false;  // an exact solve was tried (it may have failed)
  bool exact_skipped = false;    // one the cost model allowed was skipped: the island's own
                                 // failed attempts predict that it fails (choose_exact)
  int active_set_iterations = 0;
  long long block_ops = 0;            // block operations spent in exact factorisations
  long long estimated_exact_ops = 0;  // symbolic estimate of one factorisation (capped)
  long long iterative_ops = 0;        // cost model of the iterative method, same units (0: the
                                      // island was waiting after failed attempts, nothing chosen)
};

/// Consecutive failed exact attempts and the wait they impose: after the k-th failure in a row
/// the next 2^k − 1 chances to try are passed (k at most kMaxDoublings: 127 steps).
struct ExactBackoff {
  static constexpr int kMaxDoublings = 7;
  int failures = 0;
  int wait = 0;  // chances left to pass
  void failed() {
    failures = failures < kMaxDoublings ? failures + 1 : kMaxDoublings;
    wait = (1 << failures) - 1;
  }
  void succeeded() { failures = 0; }
  /// True (and one chance fewer to pass) while waiting.
  bool pass() {
    if (wait <= 0) return false;
    --wait;
    return true;
  }
};

/// What an island solver's method choice learnt from earlier steps (IslandBlockSolver).
struct MethodHistory {
  double expected_passes = 2;  // active-set passes the next exact solve is expected to need
  ExactBackoff backoff;        // failed exact attempts (Auto method), waits counted in steps
  // A big island whose symbolic count came out above its cap reuses that count for a few
  // steps while its contact count stays within 1/16 and the count still exceeds the cap
  // (solve_velocities).
  int costly_verdict_steps = 0;
  int costly_contact_blocks = 0;
  long long costly_estimate = 0;
};

/// Solver state of one island for one step (kept between the velocity solve and the position
/// correction so both use the same factorisation).
class IslandBlockSolver {
 public:
  /// Builds the island's blocks from prepared contacts and joints, solves for the post-solve
  /// velocities (written to `bodies`) and stores impulses/modes back for warm starting.
  /// `body_position`, when given, is build_islands' table of each body's index in its island
  /// (IslandScratch::position) for the build that made `island`; without it the bodies are
  /// found by a binary search in island.bodies.
  IslandSolveInfo solve_velocities(const Island& island, std::vector<RigidBodySim>& bodies,
                                   std::vector<ContactConstraint>& contacts,
                                   std::vector<JointSim>& joints, double h,
                                   const BlockSolverSettings& settings,
                                   const std::vector<int>* body_position = nullptr);
  /// After integration: corrects positions so joints close and overlaps shrink.
  void stabilize_positions(std::vector<RigidBodySim>& bodies,
                           const std::vector<ContactConstraint>& contacts,
                           const std::vector<JointSim>& joints, const BlockSolverSettings& settings);

  /// The next solve treats its island as a new structure: orderings, symbolic count and
  /// eliminations made afresh, as on a structure's first step (benchmarks of those costs).
  void forget_structure() {
    previous_body_count_ = -1;
    lu_.forget_program();
    joint_lu_.forget_program();
  }
  /// Called before solving `island`: frees what a four times bigger island left behind (see
  /// kKeptIslandSize), keeping the method choice's history. While a pile merges, islands change
  /// solvers (dynamics/solver_assignment.h), and every solver in turn got a big island and kept
  /// its buffers: the 10,000-box pile held 4.6 GB after 720 steps, for 66,000 contacts.
  void fit(const Island& island);
  /// Called instead of fit() in a step without an island: a solver that held an island bigger
  /// than kKeptIslandSize frees its buffers after kIdleStepsKept such steps in a row (a pile
  /// that merged leaves its solvers idle; an island count that only wavers keeps them). One
  /// that held only small islands keeps them for kSmallIdleStepsKept steps: its island merged
  /// into another or went to sleep, and often comes back when it splits off or wakes. Freed
  /// after 8 steps, it paid ~20 allocations to come back and ~135 more at its next exact
  /// attempt: pile_boxes_1k's columns, touching and parting every ~130 steps, made 28
  /// allocations a step late in the run, with no island bigger than before.
  void idle();
  /// False once the buffers are freed (or before the first island): idle() then does nothing.
  bool holds_buffers() const { return largest_island_ > 0; }
  /// Frees every buffer; keeps the method choice's history (expected passes, back-off, verdict).
  void release_memory();
  /// The method choice's history, which the world keeps by place in the island list
  /// (engine/world_solve.cpp: assign_island_solvers).
  const MethodHistory& history() const { return history_; }
  void set_history(const MethodHistory& history) { history_ = history; }
  /// Blocks the solver can hold without allocating (for tests).
  std::size_t block_capacity() const { return blocks_.capacity(); }
  /// The equation order (rows) and pivot columns for an ordering; exposed for benchmarks/tests.
  void ordering(BlockOrdering which, std::vector<int>& rows, std::vector<int>& pivots) const;
  /// Assembles the current system (blocks and modes) into `lu` with right-hand side `rhs`; the
  /// momentum rows use the velocities and world inertias saved by save_start_velocities().
  void assemble(const std::vector<RigidBodySim>& bodies, BlockSparseLu& lu,
                std::vector<Vec3>& rhs) const;
  /// Block operations of one exact factorisation of the current blocks in ordering B, counted
  /// by a symbolic elimination (structure only, fill-in included); stops counting past `cap`
  /// (> 0) and returns a value above it. Same units as BlockSparseLu::factor_block_ops().
  long long estimate_exact_ops(long long cap) const;
  /// Big islands' sweep groups after a solve (CSR over groups: levels' groups consecutive, the
  /// parts first; empty when the island was swept in block order). Exposed for tests.
  const std::vector<int>& sweep_group_start() const { return group_start_; }
  const std::vector<int>& sweep_group_blocks() const { return group_blocks_; }
  /// The contact of block k (−1: a joint block). Exposed for tests.
  int block_contact(int k) const { return blocks_[k].contact; }
  /// Island body slots of block k (−1: not an unknown of this island). Exposed for tests.
  const std::array<int, 2>& block_slots(int k) const { return slots_[k]; }
  static constexpr int kDissectionLevels = 2;  // 4 parts: 4 + 2 + 1 groups on 3 levels
  int unknown_count() const { return 2 * static_cast<int>(bodies_.size()) + static_cast<int>(blocks_.size()); }

 private:
  // -1 when not an unknown of this island; `position`: solve_velocities' body_position, or none.
  int local_index(int body, const std::vector<int>* position) const;
  /// Fills scratch_ with each body's blocks (CSR), the breadth-first depth of every island body
  /// from the bodies anchored to static ones or the world (0), and the visiting order.
  void body_depths() const;
  /// Bodies on the longest anchored path of the island (1 + the largest body depth).
  int layer_count() const;
  Vec3 block_velocity(const ConstraintBlock& b, const std::vector<RigidBodySim>& bodies) const;
  void effective_rows(const ConstraintBlock& b, Mat3 jv[2], Mat3 jw[2], Mat3& self, Vec3& rhs) const;
  bool update_modes(const std::vector<RigidBodySim>& bodies);
  /// Active-set iteration over the exact system; false when elimination failed or ran out of
  /// `budget` block operations (cumulative; 0 = none) — velocities are then restored. Falls
  /// back to the iterative method if it does not settle.
  bool run_active_set(std::vector<RigidBodySim>& bodies, const BlockSolverSettings& settings,
                      const std::vector<int>& rows, const std::vector<int>& pivots,
                      long long budget, IslandSolveInfo& info);
  bool propagate_impacts(std::vector<RigidBodySim>& bodies,
                         const std::vector<ContactConstraint>& contacts,
                         const BlockSolverSettings& settings, const std::vector<int>& rows,
                         const std::vector<int>& pivots, long long budget, IslandSolveInfo& info);
  /// Position error C of block k per row: overlap beyond the slop (normal row), joint row errors.
  Vec3 block_position_error(std::size_t k, const std::vector<RigidBodySim>& bodies,
                            const std::vector<ContactConstraint>& contacts,
                            const std::vector<JointSim>& joints) const;
  /// Asks the memory for what block_position_error will read a few blocks after k (contacts
  /// and their bodies' poses): in a big island they are far apart in the world's arrays.
  void prefetch_position_error(std::size_t k, const std::vector<RigidBodySim>& bodies,
                               const std::vector<ContactConstraint>& contacts) const;
  /// Largest position error of the island (largest |C| of any row). Keeps every block's C for
  /// position_targets while the poses stay as they are.
  double position_error(const std::vector<RigidBodySim>& bodies,
                        const std::vector<ContactConstraint>& contacts,
                        const std::vector<JointSim>& joints);
  /// True when a contact the velocity solve held inactive overlaps by more than its slop.
  bool inactive_contact_overlaps(const std::vector<RigidBodySim>& bodies,
                                 const std::vector<ContactConstraint>& contacts) const;
  /// How much an exact correction pass may increase position_error() before it is undone.
  double worsening_tolerance(const std::vector<ContactConstraint>& contacts) const;
  /// Position targets −βC per block; false when there is nothing to correct.
  bool position_targets(const std::vector<RigidBodySim>& bodies,
                        const std::vector<ContactConstraint>& contacts,
                        const std::vector<JointSim>& joints, const BlockSolverSettings& settings,
                        std::vector<Vec3>& target) const;
  bool stabilize_exact(std::vector<RigidBodySim>& bodies,
                       const std::vector<ContactConstraint>& contacts,
                       const std::vector<JointSim>& joints, const BlockSolverSettings& settings);
  void stabilize_iterative(std::vector<RigidBodySim>& bodies,
                           const std::vector<ContactConstraint>& contacts,
                           const std::vector<JointSim>& joints, const BlockSolverSettings& settings);
  /// Applies displacement_ (in sweep slots when `sweep_slots`, else by island body).
  void apply_displacements(std::vector<RigidBodySim>& bodies, const BlockSolverSettings& settings,
                           bool sweep_slots);
  double kinetic_energy(const std::vector<RigidBodySim>& bodies) const;
  double start_kinetic_energy() const;
  /// Saves the island's velocities (u0_) and, with `energy_reference`, the masses and world
  /// inertias that start_kinetic_energy() weighs them with.
  void save_start_velocities(const std::vector<RigidBodySim>& bodies, bool energy_reference = true);
  void restore_start_velocities(std::vector<RigidBodySim>& bodies) const;
  /// Per-block data of the projected method: local body slots, M⁻¹Jᵀ, inverse diagonal,
  /// known velocity of non-island bodies, and the dissection groups of big islands.
  void prepare_iterative(const std::vector<RigidBodySim>& bodies,
                         const BlockSolverSettings& settings);
  /// The method choice: exact elimination (true, with its operation `budget`) or the iterative
  /// method, from their estimated costs; fills info's cost figures. `impacts_possible`: a
  /// contact of the island has restitution (an attempt then propagates impacts, see the .cpp).
  bool choose_exact(const BlockSolverSettings& settings, bool impacts_possible, IslandSolveInfo& info,
                    long long& budget);
  /// What a failed exact attempt teaches the method history (MethodHistory).
  void note_failed_elimination(const BlockSolverSettings& settings);
  /// Groups the blocks of a big island for parallel sweeps (nested dissection, see the .cpp).
  void dissect_blocks(const std::vector<RigidBodySim>& bodies);
  /// The bisection of the island's bodies into parts (dissection_.order and .part).
  void bisect_island(const std::vector<RigidBodySim>& bodies);
  /// Dissection group of a block between island slots a and b (−1: not an island body).
  int dissection_group(int a, int b) const;
  /// Big islands: contacts_ in dissection-group order (see solve_velocities).
  void order_contacts_by_group(const std::vector<int>& island_contacts,
                               const std::vector<RigidBodySim>& bodies,
                               const std::vector<ContactConstraint>& contacts,
                               const std::vector<int>* body_position);
  void bisect_bodies(int begin, int end, int label, int depth);
  void find_static_blocks();  // static_blocks_: contacts with static or kinematic bodies
  /// Position level: undoes the part of the displacement `u` that moves block k's island body
  /// deep into its static (or kinematic) contact partner.
  void hold_off_static(int k, const std::vector<RigidBodySim>& bodies,
                       const std::vector<ContactConstraint>& contacts, std::vector<Vec3>& lambda,
                       std::vector<Vec3>& u) const;
  void solve_iterative(std::vector<RigidBodySim>& bodies, const BlockSolverSettings& settings);
  /// One projected Gauss–Seidel update of block k on the island velocities `u` (or
  /// displacements); returns nothing, updates lambda[k] and u.
  void iterate_block(int k, const std::vector<Vec3>& target, std::vector<Vec3>& lambda,
                     std::vector<Vec3>& u, bool position_level) const;
  /// One sweep by `team` (collision/base/parallel.h): every block's update in sweep order, then
  /// the articulated super-block's.
  template <class Team>
  void sweep(Team& team, const std::vector<Vec3>& target, std::vector<Vec3>& lambda,
             std::vector<Vec3>& u, bool position_level);
  /// Velocity sweeps past the fixed ones while a joint or contact is still off its target
  /// (block_solver.h: max_joint_iterations, max_contact_iterations), on target_, lambda_, u_.
  template <class Team>
  void sweep_until_settled(Team& team, const BlockSolverSettings& settings);
  /// hold_off_static for every static block, by `team` (dissected islands: part by part).
  template <class Team>
  void hold_off_statics(Team& team, const std::vector<RigidBodySim>& bodies,
                        const std::vector<ContactConstraint>& contacts);
  /// Threads that sweep this island: 1 unless it is dissected (big islands).
  int sweep_threads(int threads) const;
  /// visit(k) for every block in sweep order: block order, or for big islands group by group
  /// with the groups of a level shared out among `team` (collision/base/parallel.h; visit may
  /// then touch only block k's bodies). Every thread of the team calls it; it ends in a barrier.
  template <class Team, class Visit>
  void visit_in_sweep_order(Team& team, Visit&& visit);
  /// Largest velocity residual |target − J u − reg λ| over the rows of joint blocks (equality
  /// rows and active limits); 0 for islands without joints.
  double joint_residual_max(const std::vector<Vec3>& target, const std::vector<Vec3>& lambda,
                            const std::vector<Vec3>& u) const;
  /// Velocity residual of contact block k's normal row: |target − J u − reg λ| where the
  /// contact pushes (λ > 0), its approach beyond the target where it does not.
  double contact_residual(std::ptrdiff_t k, const std::vector<Vec3>& target,
                          const std::vector<Vec3>& lambda, const std::vector<Vec3>& u) const;
  /// Cost model of the iterative method for an island of `layers` layers (see the .cpp).
  long long iterative_cost(const BlockSolverSettings& settings, int layers) const;
  /// Factors the island's joint equality rows as one block (block_solver_articulated.cpp),
  /// from prepare_iterative's scratch.
  void prepare_joint_subsystem(const BlockSolverSettings& settings);
  /// Corrects all joint impulses at once so the joints hold for the current velocities `u`
  /// (or displacements) and the other blocks' impulses.
  void solve_joint_subsystem(const std::vector<Vec3>& target, std::vector<Vec3>& lambda,
                             std::vector<Vec3>& u, bool position_level);
  Mat3 block_diagonal(const ConstraintBlock& b, const std::vector<RigidBodySim>& bodies) const;
  /// Block k's diagonal block of JM⁻¹Jᵀ over the island's own bodies (the sweeps' unknowns).
  Mat3 island_diagonal(int k, const std::vector<RigidBodySim>& bodies) const;

  std::vector<int> bodies_;               // island bodies (dense indices, ascending)
  // The island's contacts: block first_contact_block_ + i is contacts_[i] (also its `contact`;
  // read from here, the position level's passes skip the ~490-byte blocks).
  std::vector<int> contacts_;
  int threads_ = 1;                       // for per-block loops (> 1: big islands, a lone lead one)
  int first_contact_block_ = 0;           // blocks: the joints' first, then the contacts
  std::vector<ConstraintBlock> blocks_;
  std::vector<ConstraintBlock> joint_block_scratch_;  // this step's joint blocks, then copied to blocks_
  std::vector<std::array<int, 2>> slots_;  // per block: local index of its bodies, −1 = not ours
  std::vector<double> regularisation_;    // per block: compliance × mean diagonal of JM⁻¹Jᵀ
  std::vector<Mat3> diagonal_;            // per block: JM⁻¹Jᵀ's diagonal block at the step's start
  bool diagonal_current_ = false;         // diagonal_ is of the bodies' current inertia
  std::vector<Vec3> warm_lambda_;         // impulses the step started from (warm start)
  std::vector<double> start_inv_mass_;
  std::vector<Mat3> start_inertia_;
  std::vector<Vec3> u0_;                  // island velocities before the current solve
  std::vector<Vec3> impact_impulses_;     // impulses of the impact-propagation pass
  int impact_block_ = -1;                 // the one contact of the current impact, if any
  BlockSparseLu lu_;
  bool exact_ = false;
  bool iter_prepared_ = false;  // iter_ holds this step's blocks
  // What the method choice learnt from earlier steps: the one state that release_memory()
  // keeps.
  MethodHistory history_;
  // The failed eliminations of the island this solver serves, kept with that island: the
  // solver serves it while its smallest body (the key) stays the same, and release_memory()
  // keeps them. choose_exact skips the attempts of a big island whose contacts cannot bounce
  // while its back-off lasts.
  struct FailedEliminations {
    int island_key = -1;
    ExactBackoff backoff;  // waits counted in solves of the island
  };
  FailedEliminations failed_;
  // Bodies + contacts + joints of the largest island solved since the buffers were last freed;
  // islands up to kKeptIslandSize keep theirs whatever follows (small, and often back).
  int largest_island_ = 0;
  int idle_steps_ = 0;
  static constexpr int kKeptIslandSize = 256;
  static constexpr int kIdleStepsKept = 8;
  // Small islands' solvers: a bound on the memory that merged islands' solvers keep (4 s at
  // 240 Hz), far past the ~130 steps pile_boxes_1k's columns stay merged.
  static constexpr int kSmallIdleStepsKept = 960;
  double h_ = 0;
  double contact_tolerance_ = 0;  // [m/s] contact residual the iterative sweeps stop below

  // Iterative method scratch (reused between steps: no allocation in steady state).
  struct IterBlock {
    std::array<int, 2> slot = {-1, -1};   // local body index or −1
    std::array<Mat3, 2> mv, mw;           // M⁻¹ jvᵀ, I⁻¹ jwᵀ of island bodies
    // The block's own Gauss–Seidel update, made only when no super-block solves its rows.
    Mat3 inverse_diagonal = Mat3::Identity();           // velocity level
    Mat3 inverse_diagonal_position = Mat3::Identity();  // position level (no friction rows)
    Vec3 known_velocity = Vec3::Zero();   // J·u of static / kinematic bodies
    Vec3 row_diagonal = Vec3::Ones();     // (JM⁻¹Jᵀ)_rr + compliance: scalar limit-row updates
  };
  std::vector<IterBlock> iter_;  // joint blocks, k < first_contact_block_ (contacts: contact_sweep_)
  // A contact block as the sweeps read it: rows n, t1, t2 (world) and the lever arms, from which
  // J·u = basis·(v_b + ω_b×r_b − v_a − ω_a×r_a) and M⁻¹Jᵀλ are formed with the bodies' masses
  // (local_inverse_): a quarter of the bytes of the generic J and M⁻¹Jᵀ
  // matrices that the sweeps streamed block after block.
  struct ContactSweep {
    Mat3 basis;
    std::array<Vec3, 2> lever;
    Mat3 inverse_diagonal;       // velocity level: (JM⁻¹Jᵀ + reg)⁻¹
    Vec3 known_velocity;         // J·u of a static or kinematic body
    Vec3 row_diagonal;           // (JM⁻¹Jᵀ)_rr + reg: the sliding update's pace
    double inverse_normal = 0;   // position level (friction rows free): 1 / ((JM⁻¹Jᵀ)_nn + reg)
    double regularisation = 0;
    double friction = 0;
    std::array<int, 2> slot = {-1, -1};
  };
  std::vector<ContactSweep> contact_sweep_;      // contact block k at k − first_contact_block_
  std::vector<std::array<Vec3, 2>> levers_;      // per block: the contact's ra, rb (world)
  // Per island body (at its sweep slot): inverse mass and world inverse inertia side by side,
  // read together by every impulse the sweeps apply (two arrays took a cache line more per
  // body: the 10,000-box pile's bodies do not stay in cache between their contacts).
  struct BodyInverse {
    Mat3 inertia;
    double mass = 0;
  };
  std::vector<BodyInverse> local_inverse_;
  /// The contact part of the sweeps: relative velocity rows at the point, and applying a block
  /// impulse (rows n, t1, t2) to the island bodies' velocities or displacements `u`.
  Vec3 contact_velocity(const ContactSweep& c, const std::vector<Vec3>& u) const;
  double contact_normal_velocity(const ContactSweep& c, const std::vector<Vec3>& u) const;
  void apply_contact_impulse(const ContactSweep& c, const Vec3& impulse_world,
                             std::vector<Vec3>& u) const;
  void iterate_contact(int k, const std::vector<Vec3>& target, std::vector<Vec3>& lambda,
                       std::vector<Vec3>& u, bool position_level) const;
  std::vector<Vec3> u_, lambda_, target_, displacement_;
  std::vector<double> residual_part_;  // sweep_until_settled: each thread's largest residual
  bool joints_open_ = false;           // sweep_until_settled: the team's shared verdict
  // Where island body l's velocity (and displacement, inverse mass and inertia) lives in the
  // iterative method's arrays: u_[2 · sweep_slot_[l]]. Dissected islands store their bodies
  // part by part, so the two threads' halves do not share cache lines; empty = l itself.
  // Storage only: every update is the same arithmetic in the same order.
  std::vector<int> sweep_slot_;
  int sweep_slot(int l) const { return sweep_slot_.empty() || l < 0 ? l : sweep_slot_[l]; }
  std::vector<double> corrected_;  // per island body: distance corrected so far this step
  // Big islands: blocks by dissection group (CSR; empty = swept serially in block order).
  std::vector<int> group_start_, group_blocks_;
  struct Dissection {
    std::vector<int> order, part, group;  // bodies by bisection; part per body; group per block
    std::vector<Vec3> centre;             // per island body: its centre (bisect_island)
  } dissection_;
  // This velocity solve's dissection was made beside the method choice (solve_velocities);
  // prepare_iterative uses it instead of dissecting again.
  bool dissected_early_ = false;
  // The bodies' parts were made for this velocity solve before its blocks (to order them by
  // group): dissect_blocks uses them instead of bisecting again.
  bool parts_known_ = false;
  std::vector<int> static_blocks_;  // repeated at the end of position sweeps (find_static_blocks)
  std::vector<int> static_part_start_;  // dissected islands: static_blocks_ part by part (CSR)
  // Articulated super-block: factorisation of S = J M⁻¹ Jᵀ + R over the joint blocks' equality
  // rows (block_solver_articulated.cpp), and solve scratch.
  BlockSparseLu joint_lu_;
  // While true, every joint block's equality rows are solved by the super-block (each sweep
  // ends with its exact solve): the Gauss–Seidel updates only move their limit rows.
  bool joint_subsystem_ready_ = false;
  std::vector<Vec3> joint_rhs_;  // the super-block's right-hand side, then its solution Δλ
  // Per joint block and side: what its linear rows jv (and so M⁻¹jvᵀ) are. A point joint's are
  // ±I, an angular block's zero: the super-block's J u and M⁻¹Jᵀ Δλ, every sweep, multiply only
  // what is not zero (the same values: the rest adds exact zeros).
  enum class LinearPart : std::uint8_t { Zero, Diagonal, Full };
  // A joint block as the super-block's sweeps read it (J u before the solve, M⁻¹Jᵀ Δλ after),
  // and the limit rows' updates, made once per step by prepare_joint_subsystem: one record,
  // where each block's data sat in five places (the ~490-byte block, the ~490-byte IterBlock and
  // three per-block arrays; ragdolls_20: 259 → 212 instructions a block and sweep for J u and
  // M⁻¹Jᵀ Δλ). A Full linear part (rare: no joint of the bench scenes has one) is read from the
  // block and IterBlock.
  struct JointSweep {
    std::array<Mat3, 2> jw, mw;        // angular rows, I⁻¹jwᵀ (island sides)
    std::array<Vec3, 2> jv, mv;        // diagonals of jv and M⁻¹jvᵀ (LinearPart::Diagonal)
    Vec3 mask;                         // 1 for the rows the super-block solves (is_super_row), else 0
    Vec3 known_velocity;               // J·u of static / kinematic bodies
    Vec3 row_diagonal;                 // (JM⁻¹Jᵀ)_rr + compliance: the limit rows' scalar updates
    double regularisation = 0;
    std::array<int, 2> slot = {-1, -1};  // sweep slot or −1
    std::array<LinearPart, 2> linear = {LinearPart::Zero, LinearPart::Zero};
    std::array<std::int8_t, 3> limit = {0, 0, 0};  // per row: +1 lower limit (λ ≥ 0), −1 upper, 0 none
  };
  std::vector<JointSweep> joint_sweep_;
  /// jv·v + jw·ω of joint block k's side s (an island body) from the sweep's u: only the
  /// linear part's non-zero entries are multiplied (the same values).
  [[gnu::always_inline]] Vec3 joint_side_velocity(const JointSweep& js, int k, int s, const Vec3* u) const {
    const int l = js.slot[s];
    switch (js.linear[s]) {
      case LinearPart::Zero: return js.jw[s] * u[2 * l + 1];
      case LinearPart::Diagonal: return js.jv[s].cwiseProduct(u[2 * l]) + js.jw[s] * u[2 * l + 1];
      case LinearPart::Full: break;
    }
    return blocks_[k].jv[s] * u[2 * l] + js.jw[s] * u[2 * l + 1];
  }
  /// (JM⁻¹Jᵀ + R)⁻¹ of block k from its `diagonal` JM⁻¹Jᵀ, at the velocity or position level.
  Mat3 diagonal_inverse(int k, const Mat3& diagonal, bool position_level) const;
  /// target − J u − R λ of joint block k (J u with the known velocity at the velocity level),
  /// summed as the sweeps' limit updates and the settle check read it.
  [[gnu::always_inline]] Vec3 joint_limit_residual(int k, const std::vector<Vec3>& target,
                                                   const std::vector<Vec3>& lambda, const Vec3* u,
                                                   bool position_level) const {
    const JointSweep& js = joint_sweep_[k];
    Vec3 vel = position_level ? Vec3::Zero() : js.known_velocity;
    for (int s = 0; s < 2; ++s)
      if (js.slot[s] >= 0) vel += joint_side_velocity(js, k, s, u);
    return target[k] - vel - js.regularisation * lambda[k];
  }
  /// A joint block's limit rows, as scalar projected Gauss–Seidel updates (its equality rows
  /// are the super-block's), from its JointSweep.
  void iterate_joint_limits(int k, const std::vector<Vec3>& target, std::vector<Vec3>& lambda,
                            std::vector<Vec3>& u, bool position_level) const;
  // Per joint block: no limit row, so the super-block solves all its rows and the sweeps' own
  // update of it has nothing to do (valid while joint_subsystem_ready_).
  std::vector<char> joint_left_to_super_block_;
  // S's assembly while the island's structure holds (s_assembly_known_): each coupling of joint
  // blocks ka ≤ kb on a shared body (sides sa, sb), in the order the assembly makes them, with
  // its value slots in joint_lu_'s recorded elimination (and its transpose's, −1 on the
  // diagonal) and whether it is the first to write them. Later steps write S's values straight
  // into those slots and replay (ragdolls_20: the rows' appends, inserts and the pattern
  // comparison were a third of S's assembly).
  struct SCoupling {
    int ka = 0, sa = 0, kb = 0, sb = 0;
    int slot = -1, slot_transposed = -1;
    bool first = false, first_transposed = false;
  };
  std::vector<SCoupling> s_assembly_;
  std::vector<int> s_diagonal_slot_;  // per joint block: its diagonal slot (the compliance is added there last)
  std::vector<char> s_written_;       // scratch: slots written so far while the slots are found
  bool s_assembly_known_ = false;
  std::vector<int> joint_rows_, joint_pivots_;  // S's elimination order: joint blocks (kept: no per-step allocation)
  // Scratch of ordering() and estimate_exact_ops(), const queries of the island's graph; kept
  // between steps so that neither allocates once the island has been seen at its size.
  struct OrderingScratch {
    std::vector<int> body_block_start, body_block_list;  // each body's blocks (CSR)
    std::vector<int> fill, roots, depth, bfs_order, block_order, position, owned;
    std::vector<int> rows, pivots;                // estimate_exact_ops's ordering B
    PooledLists adjacent;                         // Schur complement graph with fill-in
    std::vector<int> mark;                        // its duplicate removal
  };
  mutable OrderingScratch scratch_;
  // scratch_'s depths and lists are those of the blocks' structure. They depend on it alone, so
  // they stand while it repeats (note_structure): the 10,000-box pile's big islands repeat last
  // step's structure in 87% of their solves, and each needs its depth for the method choice.
  mutable bool depths_current_ = false;
  std::vector<int> exact_rows_, exact_pivots_;  // the exact path's elimination order
  // The island's structure (its body and joint block counts, every block's body slots) as the
  // last step left it. While it repeats, what depends on it alone is kept: the bodies' depths,
  // the symbolic count, the exact path's ordering and the super-block's row order (their
  // factorisations replay their recorded programs on their own, see BlockSparseLu).
  std::vector<std::array<int, 2>> previous_slots_;
  int previous_body_count_ = -1;
  int previous_joint_blocks_ = -1;
  long long known_estimate_ = -1;  // the last complete symbolic count of this structure, or −1
  bool exact_order_known_ = false;  // exact_rows_/exact_pivots_ are this structure's
  bool joint_order_known_ = false;  // joint_rows_/joint_pivots_ likewise
  BlockOrdering known_ordering_ = BlockOrdering::B;  // the ordering those were made for
  /// Compares this step's structure with the last step's and forgets what no longer holds.
  void note_structure(const BlockSolverSettings& settings);
  /// estimate_exact_ops(cap), or this structure's last complete count when the count would
  /// complete again under `cap` (it can only return the same value then).
  long long structure_estimate(long long cap);
  std::vector<Vec3> exact_rhs_, exact_x_;       // the exact path's right-hand side and solution
  std::vector<ContactMode> impact_modes_;       // propagate_impacts scratch
  std::vector<Vec3> impact_total_;
  // Exact post-stabilisation scratch: right-hand side and solution of a pass, and the poses
  // before it (to undo a pass that made things worse).
  std::vector<Vec3> stabilize_rhs_, stabilize_x_, saved_x_;
  // Every block's C as last measured by position_error; valid until a pose changes. An exact
  // pass's targets are the previous measurement's errors: measuring again was a third of
  // capsule_chain_50's joint pose evaluations (14% of its step).
  std::vector<Vec3> block_error_;
  bool block_error_current_ = false;
  std::vector<Quat> saved_q_;
  std::vector<double> saved_corrected_;
};

// Inline: called for both bodies of every contact of a big island twice a step (its group
// order, its blocks); out of line it was 0.6% of pile_spheres_1k's instructions.
inline int IslandBlockSolver::local_index(int body, const std::vector<int>* position) const {
  // The island build's table when the caller passed it: one table over the world's bodies for
  // all islands (a table per solver had cost the 10,000-box pile's peak memory 0.87 → 1.42 GB).
  // A body of another island, or asleep, holds a position that names another body here.
  if (body < 0) return -1;
  if (position != nullptr) {
    const int l = (*position)[body];
    return l >= 0 && l < static_cast<int>(bodies_.size()) && bodies_[l] == body ? l : -1;
  }
  // Else a binary search in the island's sorted bodies.
  auto it = std::lower_bound(bodies_.begin(), bodies_.end(), body);
  return (it != bodies_.end() && *it == body) ? static_cast<int>(it - bodies_.begin()) : -1;
}

}  // namespace impetus
