// The projected iterative method of the block solver: block Gauss–Seidel over the same 3×3
// blocks as the exact system (each block's 3×3 diagonal of JM⁻¹Jᵀ inverted exactly, then the
// impulse projected onto its rows' laws), at the velocity level for the impulse solve and at the
// position level for post-stabilisation (split impulses: displacements, no velocity change).
//
// Big islands are swept in parallel by nested dissection: their bodies are split in space into
// kParts parts by recursive bisection, and each block goes to the smallest subtree that holds
// both its island bodies. The blocks of one part (level 0), then those across the first
// separators (level 1), and so on up to the root, are swept in order; the groups of one level
// touch disjoint bodies, so they run in parallel, each group in ascending block order. Unlike a
// greedy graph colouring, which scatters a box's four contact points over four colours, most
// blocks keep their neighbours (manifold points, the bodies around) and their sequential
// Gauss–Seidel order: at 1 thread a coloured pile_spheres_1k swept 13% slower and ended 18%
// deeper (0.248 against 0.210 mm). The groups depend on the island only, never on the thread
// count, so results are bit-identical for 1 or N threads.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <Eigen/LU>
#include <omp.h>

#include "collision/base/parallel.h"
#include "collision/base/vector_growth.h"
#include "dynamics/block_solver.h"
#include "dynamics/constraint_rows.h"

namespace impetus {

namespace {

constexpr double kImpulseTolerance = 1e-10;  // [N s] a normal impulse this small is no contact
constexpr double kSlidingSlip = 1e-3;        // [m/s] slower slip keeps the projected friction

// Position-level projection: friction rows carry no correction; unilateral rows only push.
Vec3 project_position_impulse(const ConstraintBlock& b, Vec3 mu) {
  for (int r = 0; r < 3; ++r) {
    switch (b.kind[r]) {
      case RowKind::Unused:
      case RowKind::Friction: mu[r] = 0; break;
      case RowKind::Normal:
      case RowKind::LimitLower: mu[r] = std::max(mu[r], 0.0); break;
      case RowKind::LimitUpper: mu[r] = std::min(mu[r], 0.0); break;
      case RowKind::Equality: break;
    }
  }
  return mu;
}

// Velocity-level update of a contact block. Inside the friction cone the exact 3×3 block
// solution stands (sticking). Outside it, projecting that solution onto the cone would keep
// the direction of D⁻¹·residual, which the normal–tangent coupling and the unequal tangent
// masses of an off-centre point turn away from the slip: the corners of a sliding box would
// pull sideways and turn it. Instead the normal row is solved on its own (λₙ ≥ 0) and the
// friction slides on the disc's edge against the slip (−residual of the tangent rows).
// The cone tests compare squares (t₁² + t₂² against (μλₙ)²): std::hypot, which guards against
// overflow that impulses never reach, was 14% of pile_boxes_1k's step.
Vec3 contact_block_impulse(double friction, const Vec3& lambda, const Vec3& trial,
                           const Vec3& residual, const Vec3& row_diagonal) {
  const double limit = friction * trial[0];
  if (trial[0] >= 0 && trial[1] * trial[1] + trial[2] * trial[2] <= limit * limit) return trial;
  // A point that barely slips (resting contacts while the sweeps converge) keeps the plain
  // projection: the direction of its friction is immaterial, and the projection settles
  // resting piles with less creep (pyramid drift in the solver bench).
  if (residual[1] * residual[1] + residual[2] * residual[2] < kSlidingSlip * kSlidingSlip)
    return project_contact_impulse(friction, trial);
  Vec3 next(std::max(lambda[0] + residual[0] / row_diagonal[0], 0.0), lambda[1], lambda[2]);
  sliding_friction_impulse(next[1], next[2], -residual[1], -residual[2],
                           1.0 / std::max(row_diagonal[1], row_diagonal[2]),
                           friction * next[0]);
  return next;
}

// What is left of a limit row's residual e after the projection of its impulse: a limit row is
// satisfied when it does not pass its target, or pushes (λ ≠ 0) exactly there. side: +1 for a
// lower limit (λ ≥ 0), −1 for an upper one (λ ≤ 0).
double limit_row_residual(int side, double lambda, double e) {
  if (side > 0) return lambda > 0 ? e : std::max(e, 0.0);
  return lambda < 0 ? e : std::min(e, 0.0);
}

// Stable counting sort of the indices [0, n) by key(i) in [0, buckets) (a negative key leaves
// i out): place(i, position) puts each index bucket by bucket, in index order within a bucket,
// and start[b] (buckets + 1 entries) is where bucket b begins. One routine for the dissection's
// orders: contacts by group, blocks by group, bodies by part, static blocks by part.
template <class Key, class Place>
void counting_sort(int n, int buckets, int* start, Key&& key, Place&& place) {
  std::fill(start, start + buckets + 1, 0);
  for (int i = 0; i < n; ++i)
    if (const int b = key(i); b >= 0) ++start[b + 1];
  for (int b = 0; b < buckets; ++b) start[b + 1] += start[b];
  for (int i = 0; i < n; ++i)
    if (const int b = key(i); b >= 0) place(i, start[b]++);
  // Each start[b] now holds where bucket b + 1 begins: shift them back.
  for (int b = buckets; b > 0; --b) start[b] = start[b - 1];
  start[0] = 0;
}

}  // namespace

long long IslandBlockSolver::iterative_cost(const BlockSolverSettings& settings, int layers) const {
  long long touches = 0;
  for (const std::array<int, 2>& slot : slots_) touches += (slot[0] >= 0) + (slot[1] >= 0);
  // A Gauss–Seidel sweep carries a load at worst one layer further down: an island with more
  // layers than the method sweeps (a tower of 30 boxes against 15 sweeps) is not held still by
  // them — it swayed and fell (issue 16). Matching the exact method's accuracy there costs
  // about one sweep per layer, which is what it is charged.
  const double sweeps = std::max(settings.iterative_iterations + settings.position_iterations, layers);
  return static_cast<long long>(sweeps * settings.iterative_ops_per_body_block *
                                static_cast<double>(touches)) + 1;
}

void IslandBlockSolver::prepare_iterative(const std::vector<RigidBodySim>& bodies,
                                          const BlockSolverSettings& settings) {
  // Velocity-level and position-level diagonals both: post-stabilisation reuses this step's
  // blocks (linearised at the start of the step, like the exact path's factorisation).
  const int nb = static_cast<int>(bodies_.size());
  // The groups depend on the island only, never on the thread count: same sweep order.
  if (static_cast<int>(blocks_.size()) >= settings.parallel_min_blocks) {
    if (!dissected_early_) dissect_blocks(bodies);  // else made beside the method choice
    dissected_early_ = false;
  } else {
    group_start_.clear();
    sweep_slot_.clear();
  }
  resize_growing(local_inverse_, nb);
  parallel_for(nb, threads_, [&](std::ptrdiff_t l) {
    local_inverse_[sweep_slot(static_cast<int>(l))].mass = bodies[bodies_[l]].inv_mass;
    local_inverse_[sweep_slot(static_cast<int>(l))].inertia = bodies[bodies_[l]].inv_inertia_world;
  }, 0, kMinParallelCheap);
  // Joint blocks come first (their generic rows), the contact blocks after them (compact rows).
  resize_growing(iter_, first_contact_block_);
  resize_growing(contact_sweep_, blocks_.size() - first_contact_block_);
  parallel_for_static(static_cast<std::ptrdiff_t>(blocks_.size()), threads_, [&](std::ptrdiff_t k) {
    const ConstraintBlock& b = blocks_[k];
    const Mat3 d = diagonal_current_ ? diagonal_[k] : island_diagonal(static_cast<int>(k), bodies);
    Vec3 known_velocity = Vec3::Zero();
    for (int s = 0; s < 2; ++s) {
      const int l = slots_[k][s];
      if (l < 0 && b.body[s] >= 0) {
        // Static or kinematic body: its velocity is known.
        const RigidBodySim& body = bodies[b.body[s]];
        known_velocity += b.jv[s] * body.v + b.jw[s] * body.w;
      }
    }
    Vec3 row_diagonal;
    for (int r = 0; r < 3; ++r) row_diagonal[r] = d(r, r) + regularisation_[k];
    // Contact blocks sweep their position level as a scalar normal row (iterate_contact): they
    // need only the velocity-level inverse. Joint blocks' inverses are made below.
    if (k >= first_contact_block_) {
      ContactSweep& c = contact_sweep_[k - first_contact_block_];
      c.basis = b.jv[1];
      c.lever = levers_[k];
      c.inverse_diagonal = diagonal_inverse(static_cast<int>(k), d, false);
      c.known_velocity = known_velocity;
      c.row_diagonal = row_diagonal;
      c.inverse_normal = 1.0 / row_diagonal[0];
      c.regularisation = regularisation_[k];
      c.friction = b.friction;
      c.slot = {sweep_slot(slots_[k][0]), sweep_slot(slots_[k][1])};
      return;
    }
    IterBlock& it = iter_[k];
    it.known_velocity = known_velocity;
    it.row_diagonal = row_diagonal;
    for (int s = 0; s < 2; ++s) {
      const int l = slots_[k][s];
      it.slot[s] = sweep_slot(l);
      it.mv[s].setZero();
      it.mw[s].setZero();
      if (l >= 0) {
        const RigidBodySim& body = bodies[b.body[s]];
        it.mv[s] = body.inv_mass * b.jv[s].transpose();
        it.mw[s] = body.inv_inertia_world * b.jw[s].transpose();
      }
    }
  });
  prepare_joint_subsystem(settings);
  // Joint blocks take a Gauss–Seidel update of their own only without the super-block (with it,
  // their limit rows move by scalar updates): ragdolls_20 inverted two 3×3 blocks per joint
  // block and step for no use.
  if (!joint_subsystem_ready_) {
    parallel_for_static(first_contact_block_, threads_, [&](std::ptrdiff_t k) {
      const Mat3 d = diagonal_current_ ? diagonal_[k] : island_diagonal(static_cast<int>(k), bodies);
      iter_[k].inverse_diagonal = diagonal_inverse(static_cast<int>(k), d, false);
      iter_[k].inverse_diagonal_position = diagonal_inverse(static_cast<int>(k), d, true);
    });
  }
  find_static_blocks();
  iter_prepared_ = true;
}

Mat3 IslandBlockSolver::diagonal_inverse(int k, const Mat3& diagonal, bool position_level) const {
  // Free rows (unused; friction at the position level) are decoupled identity rows.
  const ConstraintBlock& b = blocks_[k];
  Mat3 d = diagonal;
  for (int r = 0; r < 3; ++r) {
    const bool free_row = b.kind[r] == RowKind::Unused || (position_level && b.kind[r] == RowKind::Friction);
    if (free_row) {
      d.row(r).setZero();
      d.col(r).setZero();
      d(r, r) = 1.0;
    } else {
      d(r, r) += regularisation_[k];
    }
  }
  return d.inverse();
}

void IslandBlockSolver::find_static_blocks() {
  // Position level: every correction pass ends by holding the bodies off static or kinematic
  // bodies (hold_off_static). Such a block touches one island body, so its update is exact; done
  // last, no other update can undo it, and an unconverged correction never carries a body
  // into static geometry under the push of its neighbours (issue 16: 200 spheres spawned
  // overlapping above a floor sank 4 mm per step and went through it). Sweeping these blocks
  // last with their full targets let the boxes of piles sink deeper into each other instead
  // (pile_boxes_1k: 1.4 → 3.0 mm; at the velocity level, a 200-box pile at 30 Hz: 22 → 190 mm),
  // and so did holding off after every sweep rather than once per pass (2.4 mm).
  // Contact blocks follow the joint blocks: told apart by index, not by a read of the block.
  auto is_static = [&](int k) { return k >= first_contact_block_ && (slots_[k][0] < 0 || slots_[k][1] < 0); };
  const int n = static_cast<int>(blocks_.size());
  static_blocks_.clear();
  static_part_start_.clear();
  if (group_start_.empty()) {
    for (int k = 0; k < n; ++k)
      if (is_static(k)) static_blocks_.push_back(k);
    return;
  }
  // Dissected: part by part (a static block's group is its body's part), block order within.
  constexpr int kParts = 1 << kDissectionLevels;
  static_part_start_.resize(kParts + 1);
  resize_growing(static_blocks_, n);  // at most every block; cut to the count below
  counting_sort(n, kParts, static_part_start_.data(),
                [&](int k) { return is_static(k) ? dissection_.group[k] : -1; },
                [&](int k, int position) { static_blocks_[position] = k; });
  static_blocks_.resize(static_part_start_[kParts]);
}

void IslandBlockSolver::hold_off_static(int k, const std::vector<RigidBodySim>& bodies,
                                        const std::vector<ContactConstraint>& contacts,
                                        std::vector<Vec3>& lambda, std::vector<Vec3>& u) const {
  // Only the normal row, and only when the displacement would leave the body deeper in the
  // static body than both its overlap now and a fifth of its step correction bound (its
  // contact margin: 1 mm for bodies of 10 cm and more): a push (λ ≥ 0) brings it back to that
  // depth. Smaller approaches stay: holding every one of them off made the boxes of
  // pile_boxes_1k overlap 2.3 mm instead of 1.4 mm.
  const ConstraintBlock& b = blocks_[k];
  const ContactSweep& cs = contact_sweep_[k - first_contact_block_];
  const ContactConstraint& c = contacts[b.contact];
  const int island_side = cs.slot[0] >= 0 ? 0 : 1;
  const double tolerance = 0.2 * bodies[b.body[island_side]].max_step_correction;
  const double separation = contact_separation(c, bodies[c.body_a], bodies[c.body_b]);
  const double lowest = -std::max(-separation, tolerance) - separation;  // least J·Δ allowed
  const double approach = contact_normal_velocity(cs, u);
  if (approach >= lowest) return;
  const double delta = (lowest - approach) / cs.row_diagonal[0];
  lambda[k][0] += delta;
  apply_contact_impulse(cs, cs.basis.row(0).transpose() * delta, u);
}

void IslandBlockSolver::bisect_bodies(int begin, int end, int label, int depth) {
  std::vector<int>& order = dissection_.order;
  const std::vector<Vec3>& centre = dissection_.centre;
  if (depth == kDissectionLevels || end - begin < 2) {
    for (int i = begin; i < end; ++i) dissection_.part[order[i]] = label;
    return;
  }
  // Split at the median along the widest extent of these bodies' centres; ties by index keep
  // the split a function of the island alone.
  Vec3 lo = centre[order[begin]], hi = lo;
  for (int i = begin; i < end; ++i) {
    lo = lo.cwiseMin(centre[order[i]]);
    hi = hi.cwiseMax(centre[order[i]]);
  }
  int axis = 0;
  (hi - lo).maxCoeff(&axis);
  const int mid = begin + (end - begin) / 2;
  std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end, [&](int a, int b) {
    const double xa = centre[a][axis], xb = centre[b][axis];
    return xa != xb ? xa < xb : a < b;
  });
  const int half = 1 << (kDissectionLevels - depth - 1);
  bisect_bodies(begin, mid, label, depth + 1);
  bisect_bodies(mid, end, label + half, depth + 1);
}

void IslandBlockSolver::bisect_island(const std::vector<RigidBodySim>& bodies) {
  // The centres are gathered first: the selections compare them many times each, and read
  // through the island's body list from the world's bodies each comparison was two dependent
  // loads from lines far apart.
  const int nb = static_cast<int>(bodies_.size());
  Dissection& d = dissection_;
  resize_growing(d.order, nb);
  resize_growing(d.part, nb);
  resize_growing(d.centre, nb);
  for (int l = 0; l < nb; ++l) {
    d.order[l] = l;
    d.centre[l] = bodies[bodies_[l]].x;
  }
  bisect_bodies(0, nb, 0, 0);
}

// Inline: called for every contact of a big island twice a step (its group order, its groups).
[[gnu::always_inline]] inline int IslandBlockSolver::dissection_group(int a, int b) const {
  // Parts are labelled so that the first bisection sets the highest bit: two bodies first
  // separated at depth d differ in bit (levels − 1 − d) and no higher one. A block between parts
  // x ≠ y belongs to level 1 + (highest bit of x ⊕ y), group x >> level of that level.
  constexpr int kParts = 1 << kDissectionLevels;
  const int x = dissection_.part[a >= 0 ? a : b], y = dissection_.part[b >= 0 ? b : a];
  int level = 0, offset = 0;
  if (x != y) level = 32 - __builtin_clz(static_cast<unsigned>(x ^ y));
  for (int l = 0; l < level; ++l) offset += kParts >> l;
  return offset + (x >> level);
}

void IslandBlockSolver::order_contacts_by_group(const std::vector<int>& island_contacts,
                                                const std::vector<RigidBodySim>& bodies,
                                                const std::vector<ContactConstraint>& contacts,
                                                const std::vector<int>* body_position) {
  // A big island's contact blocks are stored group by group, in island order within a group:
  // the sweep visits them in the same order as in island order (a group's blocks by block
  // index), but each thread's blocks (their impulses, targets and sweep records) lie in ranges
  // of their own. In island order, neighbouring blocks of different groups shared cache lines
  // that both threads wrote: pile_spheres_1k, one contact point per pair, ran 3.24 ms/step at
  // 2 threads, 3.09 ms stored by group. The bisection, made here for the order, serves
  // dissect_blocks as well.
  constexpr int kGroups = 2 * (1 << kDissectionLevels) - 1;
  bisect_island(bodies);
  parts_known_ = true;
  const int nc = static_cast<int>(island_contacts.size());
  std::vector<int>& group = dissection_.group;  // scratch here: dissect_blocks refills it
  resize_growing(group, nc);
  // Each contact's group in parallel (a read of each contact), then a serial counting sort.
  parallel_for_static(nc, threads_, [&](std::ptrdiff_t i) {
    const ContactConstraint& c = contacts[island_contacts[i]];
    group[i] = dissection_group(local_index(c.body_a, body_position), local_index(c.body_b, body_position));
  });
  std::array<int, kGroups + 1> start;
  resize_growing(contacts_, nc);
  counting_sort(nc, kGroups, start.data(), [&](int i) { return group[i]; },
                [&](int i, int position) { contacts_[position] = island_contacts[i]; });
}

void IslandBlockSolver::dissect_blocks(const std::vector<RigidBodySim>& bodies) {
  constexpr int kParts = 1 << kDissectionLevels;
  const int nb = static_cast<int>(bodies_.size());
  const int n = static_cast<int>(blocks_.size());
  Dissection& d = dissection_;
  if (!parts_known_) bisect_island(bodies);
  parts_known_ = false;
  // Groups of level L: kParts >> L of them, numbered after those of the levels below.
  resize_growing(d.group, n);
  for (int k = 0; k < n; ++k) d.group[k] = dissection_group(slots_[k][0], slots_[k][1]);
  constexpr int kGroups = 2 * kParts - 1;
  group_start_.resize(kGroups + 1);
  resize_growing(group_blocks_, n);
  counting_sort(n, kGroups, group_start_.data(), [&](int k) { return d.group[k]; },
                [&](int k, int position) { group_blocks_[position] = k; });
  // Bodies stored part by part, in island order within a part (sweep_slot_).
  std::array<int, kParts + 1> part_start;
  resize_growing(sweep_slot_, nb);
  counting_sort(nb, kParts, part_start.data(), [&](int l) { return d.part[l]; },
                [&](int l, int position) { sweep_slot_[l] = position; });
}

namespace {

// Velocity of b's contact point relative to a's (world), from the island bodies' (v, ω) in `u`.
[[gnu::always_inline]] inline Vec3 relative_point_velocity(const std::array<int, 2>& slot,
                                                           const std::array<Vec3, 2>& lever,
                                                           const std::vector<Vec3>& u) {
  Vec3 relative = Vec3::Zero();
  if (slot[1] >= 0) relative += u[2 * slot[1]] + u[2 * slot[1] + 1].cross(lever[1]);
  if (slot[0] >= 0) relative -= u[2 * slot[0]] + u[2 * slot[0] + 1].cross(lever[0]);
  return relative;
}

}  // namespace

[[gnu::always_inline]] inline Vec3 IslandBlockSolver::contact_velocity(const ContactSweep& c, const std::vector<Vec3>& u) const {
  return c.basis * relative_point_velocity(c.slot, c.lever, u);
}

[[gnu::always_inline]] inline double IslandBlockSolver::contact_normal_velocity(const ContactSweep& c, const std::vector<Vec3>& u) const {
  return c.basis.row(0).dot(relative_point_velocity(c.slot, c.lever, u));
}

[[gnu::always_inline]] inline void IslandBlockSolver::apply_contact_impulse(const ContactSweep& c, const Vec3& impulse_world,
                                              std::vector<Vec3>& u) const {
  // b receives +P at its point, a receives −P.
  if (c.slot[1] >= 0) {
    const int l = c.slot[1];
    u[2 * l] += local_inverse_[l].mass * impulse_world;
    u[2 * l + 1] += local_inverse_[l].inertia * c.lever[1].cross(impulse_world);
  }
  if (c.slot[0] >= 0) {
    const int l = c.slot[0];
    u[2 * l] -= local_inverse_[l].mass * impulse_world;
    u[2 * l + 1] -= local_inverse_[l].inertia * c.lever[0].cross(impulse_world);
  }
}

void IslandBlockSolver::iterate_contact(int k, const std::vector<Vec3>& target,
                                        std::vector<Vec3>& lambda, std::vector<Vec3>& u,
                                        bool position_level) const {
  const ContactSweep& c = contact_sweep_[k - first_contact_block_];
  if (position_level) {
    // Friction rows hold no correction (their impulses stay 0): a scalar update of the normal
    // row, λₙ ≥ 0 — the position-level block inverse reduces to 1 / (JM⁻¹Jᵀ + reg)ₙₙ.
    const double residual = target[k][0] - contact_normal_velocity(c, u) - c.regularisation * lambda[k][0];
    const double next = std::max(lambda[k][0] + residual * c.inverse_normal, 0.0);
    const double delta = next - lambda[k][0];
    lambda[k][0] = next;
    apply_contact_impulse(c, c.basis.row(0).transpose() * delta, u);
    return;
  }
  const Vec3 residual = target[k] - c.known_velocity - contact_velocity(c, u) - c.regularisation * lambda[k];
  const Vec3 trial = lambda[k] + c.inverse_diagonal * residual;
  const Vec3 next = contact_block_impulse(c.friction, lambda[k], trial, residual, c.row_diagonal);
  const Vec3 delta = next - lambda[k];
  lambda[k] = next;
  apply_contact_impulse(c, c.basis.transpose() * delta, u);
}

void IslandBlockSolver::iterate_block(int k, const std::vector<Vec3>& target,
                                      std::vector<Vec3>& lambda, std::vector<Vec3>& u,
                                      bool position_level) const {
  // Contact blocks follow the joint blocks: told apart by index, the sweep of a contact reads
  // only its compact ContactSweep, not the ~490-byte ConstraintBlock (its `contact` field sat
  // on a cache line of its own, loaded for every contact in every sweep).
  if (k >= first_contact_block_) {
    iterate_contact(k, target, lambda, u, position_level);
    return;
  }
  // With the articulated super-block, a joint's equality rows are the super-block's: only limit rows are
  // updated here, from the block's compact JointSweep. A block of equality rows only is left
  // wholly to the super-block (ragdolls_20: the linear blocks of all 10 joints, every sweep),
  // told from a compact flag rather than from the record.
  if (joint_subsystem_ready_) {
    if (!joint_left_to_super_block_[k]) iterate_joint_limits(k, target, lambda, u, position_level);
    return;
  }
  const ConstraintBlock& b = blocks_[k];
  const IterBlock& it = iter_[k];
  Vec3 vel = position_level ? Vec3::Zero() : it.known_velocity;
  for (int s = 0; s < 2; ++s) {
    const int l = it.slot[s];
    if (l >= 0) vel += b.jv[s] * u[2 * l] + b.jw[s] * u[2 * l + 1];
  }
  const Vec3 residual = target[k] - vel - regularisation_[k] * lambda[k];
  const Mat3& inverse_diagonal = position_level ? it.inverse_diagonal_position : it.inverse_diagonal;
  const Vec3 trial = lambda[k] + inverse_diagonal * residual;
  const Vec3 next = position_level ? project_position_impulse(b, trial) : project_block_impulse(b, trial);
  const Vec3 delta = next - lambda[k];
  lambda[k] = next;
  for (int s = 0; s < 2; ++s) {
    const int l = it.slot[s];
    if (l < 0) continue;
    u[2 * l] += it.mv[s] * delta;
    u[2 * l + 1] += it.mw[s] * delta;
  }
}

int IslandBlockSolver::sweep_threads(int threads) const {
  return group_start_.empty() ? 1 : usable_threads(threads);
}

template <class Team, class Visit>
void IslandBlockSolver::visit_in_sweep_order(Team& team, Visit&& visit) {
  if (group_start_.empty()) {
    const int n = static_cast<int>(blocks_.size());  // (visit's stores may alias blocks_' size)
    team.single([&] {
      for (int k = 0; k < n; ++k) visit(k);
    });
    return;
  }
  constexpr int kParts = 1 << kDissectionLevels;
  auto visit_group = [&](int g) {
    for (int i = group_start_[g]; i < group_start_[g + 1]; ++i) visit(group_blocks_[i]);
  };
  auto level_offset = [](int level) {
    int first = 0;
    for (int l = 0; l < level; ++l) first += kParts >> l;
    return first;
  };
  // A group only has to follow the groups below it in its own subtree. With t threads, each of
  // the 2^d ≥ t subtrees under depth d is swept by one thread from its parts up to its own
  // separators without waiting for the others; the separators above depth d follow level by
  // level. The order within each subtree, and so the result, is the same for any t (t = 1:
  // one subtree, every group level by level).
  int depth = 0;
  while ((1 << depth) < team.size() && depth < kDissectionLevels) ++depth;
  const int subtrees = 1 << depth;
  const int local_levels = kDissectionLevels - depth;  // levels inside one subtree: 0..this
  team.for_cyclic(subtrees, [&](std::ptrdiff_t tree) {
    for (int level = 0; level <= local_levels; ++level) {
      const int per_tree = 1 << (local_levels - level);  // groups of this level in one subtree
      for (int g = 0; g < per_tree; ++g) visit_group(level_offset(level) + static_cast<int>(tree) * per_tree + g);
    }
  });
  for (int level = local_levels + 1; level <= kDissectionLevels; ++level)
    team.for_cyclic(kParts >> level, [&](std::ptrdiff_t g) { visit_group(level_offset(level) + static_cast<int>(g)); });
}

template <class Team>
void IslandBlockSolver::sweep(Team& team, const std::vector<Vec3>& target, std::vector<Vec3>& lambda,
                              std::vector<Vec3>& u, bool position_level) {
  visit_in_sweep_order(team, [&](int k) { iterate_block(k, target, lambda, u, position_level); });
  if (joint_subsystem_ready_) team.single([&] { solve_joint_subsystem(target, lambda, u, position_level); });
}

[[gnu::always_inline]] inline double IslandBlockSolver::contact_residual(std::ptrdiff_t k, const std::vector<Vec3>& target,
                                           const std::vector<Vec3>& lambda,
                                           const std::vector<Vec3>& u) const {
  const ContactSweep& c = contact_sweep_[k - first_contact_block_];
  const double vel = c.known_velocity[0] + contact_normal_velocity(c, u);
  const double e = target[k][0] - vel - c.regularisation * lambda[k][0];
  return lambda[k][0] > 0 ? std::abs(e) : e;
}

template <class Team>
void IslandBlockSolver::sweep_until_settled(Team& team, const BlockSolverSettings& settings) {
  const int most = std::max(settings.max_joint_iterations, settings.max_contact_iterations);
  const std::ptrdiff_t first = first_contact_block_, end = static_cast<std::ptrdiff_t>(blocks_.size());
  for (int iter = settings.iterative_iterations; iter < most; ++iter) {
    const bool joints_due = iter < settings.max_joint_iterations;
    const bool contacts_due = iter < settings.max_contact_iterations;
    // Every thread reaches the same verdict from the same shared figures, so all sweep on or
    // all stop. Thread 0 measures the joints while every thread measures its share of the
    // contacts (a largest value: the same whoever finds it), behind one barrier: three per
    // check cost pile_spheres_1k's 30-odd checks a step about 0.03 ms at 2 threads.
    const int me = team.thread();
    if (me == 0)
      joints_open_ = joints_due && joint_residual_max(target_, lambda_, u_) > settings.joint_velocity_tolerance;
    double worst = 0;
    // One thread measures only what the verdict needs: no contacts when the joints are open,
    // none past the first one found open (pile_spheres_1k: 3% of its step's instructions).
    const bool alone = team.size() == 1;
    if (contacts_due && !(alone && joints_open_)) {
      const std::ptrdiff_t n = end - first, size = team.size();
      for (std::ptrdiff_t k = first + n * me / size; k < first + n * (me + 1) / size; ++k) {
        worst = std::max(worst, contact_residual(k, target_, lambda_, u_));
        if (alone && worst > contact_tolerance_) break;
      }
    }
    residual_part_[me] = worst;
    team.barrier();
    bool open = joints_open_;
    for (int j = 0; j < team.size(); ++j) open = open || residual_part_[j] > contact_tolerance_;
    if (!open) return;
    sweep(team, target_, lambda_, u_, false);
  }
}

template <class Team>
void IslandBlockSolver::hold_off_statics(Team& team, const std::vector<RigidBodySim>& bodies,
                                         const std::vector<ContactConstraint>& contacts) {
  // A static block moves one island body, so blocks of different bodies commute; a body's
  // blocks all lie in its part and keep their order there: the same result as block order.
  auto part = [&](std::ptrdiff_t p) {
    for (int i = static_part_start_[p]; i < static_part_start_[p + 1]; ++i)
      hold_off_static(static_blocks_[i], bodies, contacts, lambda_, displacement_);
  };
  if (static_part_start_.empty()) {
    team.single([&] {
      for (int k : static_blocks_) hold_off_static(k, bodies, contacts, lambda_, displacement_);
    });
    return;
  }
  team.for_cyclic(static_cast<std::ptrdiff_t>(static_part_start_.size()) - 1, part);
}

double IslandBlockSolver::joint_residual_max(const std::vector<Vec3>& target,
                                             const std::vector<Vec3>& lambda,
                                             const std::vector<Vec3>& u) const {
  double worst = 0;
  for (int k = 0; k < first_contact_block_; ++k) {
    // The super-block's equality rows were solved exactly at the end of the sweep just made.
    if (joint_subsystem_ready_) {
      if (joint_left_to_super_block_[k]) continue;
      const JointSweep& js = joint_sweep_[k];
      const Vec3 residual = joint_limit_residual(k, target, lambda, u.data(), false);
      for (int r = 0; r < 3; ++r)
        if (js.limit[r] != 0) worst = std::max(worst, std::abs(limit_row_residual(js.limit[r], lambda[k][r], residual[r])));
      continue;
    }
    const ConstraintBlock& b = blocks_[k];
    const IterBlock& it = iter_[k];
    Vec3 vel = it.known_velocity;
    for (int s = 0; s < 2; ++s) {
      const int l = it.slot[s];
      if (l >= 0) vel += b.jv[s] * u[2 * l] + b.jw[s] * u[2 * l + 1];
    }
    const Vec3 residual = target[k] - vel - regularisation_[k] * lambda[k];
    for (int r = 0; r < 3; ++r) {
      double e = residual[r];
      if (b.kind[r] == RowKind::Unused || b.kind[r] == RowKind::Friction) continue;
      if (b.kind[r] == RowKind::LimitLower) e = limit_row_residual(1, lambda[k][r], e);
      if (b.kind[r] == RowKind::LimitUpper) e = limit_row_residual(-1, lambda[k][r], e);
      worst = std::max(worst, std::abs(e));
    }
  }
  return worst;
}

void IslandBlockSolver::solve_iterative(std::vector<RigidBodySim>& bodies,
                                        const BlockSolverSettings& settings) {
  // Starts from the bodies' current velocities and the step's start impulses (warm_lambda_:
  // last step's, projected onto their laws), which are applied first (warm start). Not from
  // the blocks' impulses: an abandoned elimination leaves its own there (its callers had each
  // copied warm_lambda_ back into every block first, a serial pass over the ~500-byte blocks).
  prepare_iterative(bodies, settings);
  const int nb = static_cast<int>(bodies_.size());
  const int n = static_cast<int>(blocks_.size());
  resize_growing(u_, 2 * nb);
  for (int l = 0; l < nb; ++l) {
    u_[2 * sweep_slot(l)] = bodies[bodies_[l]].v;
    u_[2 * sweep_slot(l) + 1] = bodies[bodies_[l]].w;
  }
  resize_growing(lambda_, n);
  resize_growing(target_, n);
  // One parallel region for the warm start and every sweep: a region per sweep cost about
  // 1 µs more than the barriers that separate them, and big islands sweep 15 to 60 times a
  // step (the work-sharing loops end in the same barriers).
  const int t = sweep_threads(settings.threads);
  residual_part_.assign(t, 0.0);
  run_team(t, [&](auto& team) {
    // Warm start in sweep order (big islands: groups in parallel, each block touching its own
    // bodies only).
    visit_in_sweep_order(team, [&](int k) {
      const ConstraintBlock& b = blocks_[k];
      lambda_[k] = project_block_impulse(b, warm_lambda_[k]);
      target_[k] = b.rhs;
      if (b.contact >= 0) {
        const ContactSweep& c = contact_sweep_[k - first_contact_block_];
        apply_contact_impulse(c, c.basis.transpose() * lambda_[k], u_);
        return;
      }
      for (int s = 0; s < 2; ++s) {
        const int l = iter_[k].slot[s];
        if (l < 0) continue;
        u_[2 * l] += iter_[k].mv[s] * lambda_[k];
        u_[2 * l + 1] += iter_[k].mw[s] * lambda_[k];
      }
    });
    for (int iter = 0; iter < settings.iterative_iterations; ++iter) sweep(team, target_, lambda_, u_, false);
    sweep_until_settled(team, settings);
  });
  for (int l = 0; l < nb; ++l) {
    bodies[bodies_[l]].v = u_[2 * sweep_slot(l)];
    bodies[bodies_[l]].w = u_[2 * sweep_slot(l) + 1];
  }
  // Impulses, and modes for the next step's warm start, from the final impulses.
  parallel_for_static(n, threads_, [&](std::ptrdiff_t k) {
    ConstraintBlock& b = blocks_[k];
    b.lambda = lambda_[k];
    if (b.contact < 0) return;
    const double lt = std::sqrt(b.lambda[1] * b.lambda[1] + b.lambda[2] * b.lambda[2]);
    if (b.lambda[0] <= kImpulseTolerance) b.mode = ContactMode::Inactive;
    else if (lt >= b.friction * b.lambda[0] * (1.0 - 1e-6)) b.mode = ContactMode::Sliding;
    else b.mode = ContactMode::Sticking;
    if (b.mode == ContactMode::Sliding && lt > 0)
      b.slide_direction = Vec3(0, b.lambda[1] / lt, b.lambda[2] / lt);
  });
}

void IslandBlockSolver::stabilize_iterative(std::vector<RigidBodySim>& bodies,
                                            const std::vector<ContactConstraint>& contacts,
                                            const std::vector<JointSim>& joints,
                                            const BlockSolverSettings& settings) {
  // Projected block Gauss–Seidel on the linearised position problem (split impulses): the same
  // blocks, unilateral rows only push, friction rows hold no correction. Re-linearised once per
  // pass at the corrected poses (targets only: the blocks are the step's).
  const int passes = settings.iterative_stabilization_passes;
  for (int pass = 0; pass < passes; ++pass) {
    if (!position_targets(bodies, contacts, joints, settings, target_)) return;
    if (!iter_prepared_) prepare_iterative(bodies, settings);
    const int nb = static_cast<int>(bodies_.size());
    assign_growing(displacement_, 2 * nb, Vec3::Zero());
    assign_growing(lambda_, blocks_.size(), Vec3::Zero());
    run_team(sweep_threads(settings.threads), [&](auto& team) {
      for (int iter = 0; iter < settings.position_iterations; ++iter)
        sweep(team, target_, lambda_, displacement_, true);
      hold_off_statics(team, bodies, contacts);
    });
    apply_displacements(bodies, settings, true);
  }
}

}  // namespace impetus
