#include "dynamics/block_solver.h"

#include <algorithm>
#include <cmath>

#include <Eigen/LU>

#include "collision/base/parallel.h"
#include "collision/base/vector_growth.h"
#include "dynamics/constraint_rows.h"

namespace impetus {

namespace {

constexpr double kImpulseTolerance = 1e-10;   // [N s] sign decisions of λ
constexpr double kVelocityTolerance = 1e-7;   // [m/s] activation and slip decisions


bool row_is_limit(RowKind k) { return k == RowKind::LimitLower || k == RowKind::LimitUpper; }

}  // namespace

void IslandBlockSolver::fit(const Island& island) {
  const int size = static_cast<int>(island.bodies.size() + island.contacts.size() + island.joints.size());
  if (largest_island_ > kKeptIslandSize && largest_island_ > 4 * size) release_memory();
  largest_island_ = std::max(largest_island_, size);
  idle_steps_ = 0;
}

void IslandBlockSolver::idle() {
  if (largest_island_ == 0) return;
  const int kept = largest_island_ > kKeptIslandSize ? kIdleStepsKept : kSmallIdleStepsKept;
  if (++idle_steps_ > kept) release_memory();
}

void IslandBlockSolver::release_memory() {
  // The caches dropped (structure, ordering, symbolic count, elimination program) are remade
  // from the island's structure on its next solve, with the same results (state hashes of the
  // bench scenes unchanged); fit() frees only when the island is not the last step's anyway.
  const MethodHistory kept = history_;
  const FailedEliminations failed = failed_;
  *this = IslandBlockSolver();
  history_ = kept;
  failed_ = failed;
}

Vec3 IslandBlockSolver::block_velocity(const ConstraintBlock& b,
                                       const std::vector<RigidBodySim>& bodies) const {
  Vec3 v = Vec3::Zero();
  for (int s = 0; s < 2; ++s) {
    if (b.body[s] < 0) continue;
    const RigidBodySim& body = bodies[b.body[s]];
    v += b.jv[s] * body.v + b.jw[s] * body.w;
  }
  return v;
}

// The rows as the current modes make them: an inactive row keeps λ = 0 (self = 1, no J);
// a sliding friction row ties its impulse to the normal one: λ_r − μ s_r λ_n = 0.
void IslandBlockSolver::effective_rows(const ConstraintBlock& b, Mat3 jv[2], Mat3 jw[2], Mat3& self,
                                       Vec3& rhs) const {
  jv[0] = b.jv[0];
  jv[1] = b.jv[1];
  jw[0] = b.jw[0];
  jw[1] = b.jw[1];
  self = b.self;
  rhs = b.rhs;
  for (int r = 0; r < 3; ++r) {
    bool unused = b.kind[r] == RowKind::Unused || (row_is_limit(b.kind[r]) && !b.limit_active[r]);
    bool sliding = false;
    if (b.contact >= 0) {
      if (b.mode == ContactMode::Inactive) unused = true;
      else if (r > 0 && b.mode == ContactMode::Sliding) sliding = true;
    }
    if (unused || sliding) {
      for (int s = 0; s < 2; ++s) {
        jv[s].row(r).setZero();
        jw[s].row(r).setZero();
      }
      self.row(r).setZero();
      self(r, r) = 1.0;
      rhs[r] = 0;
      if (sliding) self(r, 0) = -b.friction * b.slide_direction[r];
    }
  }
}

Mat3 IslandBlockSolver::island_diagonal(int k, const std::vector<RigidBodySim>& bodies) const {
  const ConstraintBlock& b = blocks_[k];
  Mat3 d = Mat3::Zero();
  for (int s = 0; s < 2; ++s) {
    if (slots_[k][s] < 0) continue;
    const RigidBodySim& body = bodies[b.body[s]];
    d += body.inv_mass * (b.jv[s] * b.jv[s].transpose()) +
         b.jw[s] * (body.inv_inertia_world * b.jw[s].transpose());
  }
  return d;
}

Mat3 IslandBlockSolver::block_diagonal(const ConstraintBlock& b,
                                       const std::vector<RigidBodySim>& bodies) const {
  return block_schur_diagonal(b, bodies);
}

void IslandBlockSolver::assemble(const std::vector<RigidBodySim>& bodies, BlockSparseLu& lu,
                                 std::vector<Vec3>& rhs) const {
  const int nb = static_cast<int>(bodies_.size());
  const int n = unknown_count();
  lu.reset(n);
  assign_growing(rhs, n, Vec3::Zero());
  for (int l = 0; l < nb; ++l) {
    const RigidBodySim& body = bodies[bodies_[l]];
    double mass = 1.0 / body.inv_mass;
    // The world inertia saved with the start velocities (the same product): the bodies do not
    // turn during the velocity solve, and every active-set pass assembled it afresh.
    const Mat3& inertia_world = start_inertia_[l];
    lu.add(2 * l, 2 * l, mass * Mat3::Identity());
    lu.add(2 * l + 1, 2 * l + 1, inertia_world);
    rhs[2 * l] = mass * u0_[2 * l];
    rhs[2 * l + 1] = inertia_world * u0_[2 * l + 1];
  }
  Mat3 jv[2], jw[2], self;
  Vec3 c;
  for (int k = 0; k < static_cast<int>(blocks_.size()); ++k) {
    const ConstraintBlock& b = blocks_[k];
    const int row = 2 * nb + k;
    effective_rows(b, jv, jw, self, c);
    // Compliance on the equality rows keeps JM⁻¹Jᵀ invertible when constraints are redundant
    // (four corners of a box on the ground, closed loops); it changes velocities by ~1e-9 λ.
    for (int r = 0; r < 3; ++r) {
      if (self(r, r) == 0.0) self(r, r) = regularisation_[k];
    }
    // The island bodies' blocks in column order, lower body slot first: the row's blocks are
    // then appended, not inserted (the other rows' blocks are distinct: the same values).
    const int first = slots_[k][1] >= 0 && (slots_[k][0] < 0 || slots_[k][1] < slots_[k][0]) ? 1 : 0;
    for (int s : {first, 1 - first}) {
      const int l = slots_[k][s];
      if (l < 0) continue;
      lu.add(row, 2 * l, jv[s]);
      lu.add(row, 2 * l + 1, jw[s]);
      // The impulse acts through the full rows (a sliding row's impulse, tied to λₙ, still
      // pushes the body); only the velocity equation of the row is replaced.
      lu.add(2 * l, row, -b.jv[s].transpose());
      lu.add(2 * l + 1, row, -b.jw[s].transpose());
    }
    for (int s = 0; s < 2; ++s) {
      if (slots_[k][s] >= 0 || b.body[s] < 0) continue;
      // Static or kinematic body: its velocity is known.
      const RigidBodySim& body = bodies[b.body[s]];
      c -= jv[s] * body.v + jw[s] * body.w;
    }
    lu.add(row, row, self);
    rhs[row] = c;
  }
}

void IslandBlockSolver::body_depths() const {
  // Each body's blocks as one flat list (CSR), in block order, and the breadth-first depths of
  // bodies from the bodies anchored to the world or to static bodies, into scratch_ (reused
  // between steps: no allocation in steady state). They depend on the blocks' bodies only, so
  // they are computed once per step (the method choice, the orderings and the articulated
  // super-block all need them).
  if (depths_current_) return;
  depths_current_ = true;
  const int nb = static_cast<int>(bodies_.size());
  const int nc = static_cast<int>(blocks_.size());
  OrderingScratch& w = scratch_;
  assign_growing(w.body_block_start, nb + 1, 0);
  w.roots.clear();
  for (int k = 0; k < nc; ++k) {
    bool anchored = false;
    for (int s = 0; s < 2; ++s) {
      const int l = slots_[k][s];
      if (l >= 0) ++w.body_block_start[l + 1]; else anchored = true;
    }
    if (anchored) {
      for (int s = 0; s < 2; ++s) {
        const int l = slots_[k][s];
        if (l >= 0) w.roots.push_back(l);
      }
    }
  }
  for (int l = 0; l < nb; ++l) w.body_block_start[l + 1] += w.body_block_start[l];
  resize_growing(w.body_block_list, w.body_block_start[nb]);
  copy_growing(w.fill, w.body_block_start.begin(), w.body_block_start.end() - 1);
  for (int k = 0; k < nc; ++k) {
    for (int s = 0; s < 2; ++s) {
      const int l = slots_[k][s];
      if (l >= 0) w.body_block_list[w.fill[l]++] = k;
    }
  }
  std::sort(w.roots.begin(), w.roots.end());
  // Breadth-first from the anchored bodies (then from any unvisited body).
  assign_growing(w.depth, nb, -1);
  w.bfs_order.clear();
  auto visit_from = [&](int root) {
    if (w.depth[root] >= 0) return;
    w.depth[root] = 0;
    std::size_t head = w.bfs_order.size();
    w.bfs_order.push_back(root);  // bfs_order doubles as the queue
    while (head < w.bfs_order.size()) {
      const int l = w.bfs_order[head++];
      for (int i = w.body_block_start[l]; i < w.body_block_start[l + 1]; ++i) {
        const int k = w.body_block_list[i];
        for (int s = 0; s < 2; ++s) {
          const int m = slots_[k][s];
          if (m >= 0 && w.depth[m] < 0) {
            w.depth[m] = w.depth[l] + 1;
            w.bfs_order.push_back(m);
          }
        }
      }
    }
  };
  for (int r : w.roots) visit_from(r);
  for (int l = 0; l < nb; ++l) visit_from(l);
}

int IslandBlockSolver::layer_count() const {
  if (bodies_.empty()) return 0;
  body_depths();
  return 1 + *std::max_element(scratch_.depth.begin(), scratch_.depth.end());
}

void IslandBlockSolver::ordering(BlockOrdering which, std::vector<int>& rows,
                                 std::vector<int>& pivots) const {
  const int nb = static_cast<int>(bodies_.size());
  const int nc = static_cast<int>(blocks_.size());
  rows.clear();
  pivots.clear();
  body_depths();
  OrderingScratch& w = scratch_;
  auto block_depth = [&](int k) {
    int d = 0;
    for (int s = 0; s < 2; ++s) {
      const int l = slots_[k][s];
      if (l >= 0) d = std::max(d, w.depth[l]);
    }
    return d;
  };

  switch (which) {
    case BlockOrdering::B: {
      for (int r = 0; r < 2 * nb; ++r) rows.push_back(r);
      // Leaves first: deeper constraints are eliminated before the ones nearer the root. A
      // counting sort on depth, deepest first, ties in block order (what a stable sort gives,
      // without its temporary buffer).
      assign_growing(w.fill, nb + 1, 0);
      for (int k = 0; k < nc; ++k) ++w.fill[nb - block_depth(k)];
      int at = 0;
      for (int d = 0; d <= nb; ++d) std::swap(at, w.fill[d]), at += w.fill[d];
      resize_growing(w.block_order, nc);
      for (int k = 0; k < nc; ++k) w.block_order[w.fill[nb - block_depth(k)]++] = k;
      for (int k : w.block_order) rows.push_back(2 * nb + k);
      return;  // diagonal pivots
    }
    case BlockOrdering::A: {
      // Moore: bodies in topological (breadth-first) order, each followed by the constraint
      // rows that connect it to bodies numbered before it (or to the world).
      resize_growing(w.position, nb);
      for (int i = 0; i < nb; ++i) w.position[w.bfs_order[i]] = i;
      resize_growing(w.block_order, nc);  // the owner of each block
      assign_growing(w.fill, nb + 1, 0);
      for (int k = 0; k < nc; ++k) {
        int owner = -1;
        for (int s = 0; s < 2; ++s) {
          const int l = slots_[k][s];
          if (l >= 0 && (owner < 0 || w.position[l] > w.position[owner])) owner = l;
        }
        w.block_order[k] = owner;
        ++w.fill[owner + 1];
      }
      for (int l = 0; l < nb; ++l) w.fill[l + 1] += w.fill[l];
      resize_growing(w.owned, nc);
      for (int k = 0; k < nc; ++k) w.owned[w.fill[w.block_order[k]]++] = k;
      // fill[l] now ends body l's range; it starts where body l − 1's ends.
      for (int l : w.bfs_order) {
        rows.push_back(2 * l);
        rows.push_back(2 * l + 1);
        for (int i = l == 0 ? 0 : w.fill[l - 1]; i < w.fill[l]; ++i) {
          rows.push_back(2 * nb + w.owned[i]);
        }
      }
      break;
    }
    case BlockOrdering::C: {
      for (int k = 0; k < nc; ++k) rows.push_back(2 * nb + k);
      for (int r = 0; r < 2 * nb; ++r) rows.push_back(r);
      break;
    }
  }
  assign_growing(pivots, rows.size(), -1);  // rows pick their best-conditioned remaining block
}

bool IslandBlockSolver::update_modes(const std::vector<RigidBodySim>& bodies) {
  bool changed = false;
  for (size_t k = 0; k < blocks_.size(); ++k) {
    ConstraintBlock& b = blocks_[k];
    // During an impact of the propagation pass the other contacts stay out of the solve.
    if (b.contact >= 0 && impact_block_ >= 0 && static_cast<int>(k) != impact_block_) continue;
    Vec3 vel = block_velocity(b, bodies);
    if (b.contact >= 0) {
      const double lambda_n = b.lambda[0];
      const double mu = b.friction;
      switch (b.mode) {
        case ContactMode::Inactive:
          if (vel[0] < b.rhs[0] - kVelocityTolerance) {
            // A contact that closes while its points slip comes back sliding, against the
            // slip; coming back sticking would stop the slip with an impulse far outside the
            // cone, and the next pass would drop it again (the two modes alternate forever).
            const double slip = std::hypot(vel[1], vel[2]);
            if (slip > kVelocityTolerance && mu > 0) {
              b.mode = ContactMode::Sliding;
              b.slide_direction = Vec3(0, -vel[1] / slip, -vel[2] / slip);
            } else {
              b.mode = ContactMode::Sticking;
            }
            changed = true;
          }
          break;
        case ContactMode::Sticking: {
          // Leave the cone first: a sticking impulse far outside it (a fast slide stopped in
          // one step) tips the body so that some normal impulses come out pulling. Sliding is
          // then the mode to try, not separation — unless the pull outweighs the friction.
          const double lt = std::hypot(b.lambda[1], b.lambda[2]);
          if (lt > mu * std::abs(lambda_n) * (1.0 + 1e-9) + kImpulseTolerance) {
            b.mode = ContactMode::Sliding;  // the impulse left the friction cone
            b.slide_direction = Vec3(0, b.lambda[1] / lt, b.lambda[2] / lt);
            changed = true;
          } else if (lambda_n < -kImpulseTolerance) {
            b.mode = ContactMode::Inactive;
            changed = true;
          }
          break;
        }
        case ContactMode::Sliding: {
          if (lambda_n < -kImpulseTolerance) {
            b.mode = ContactMode::Inactive;
            changed = true;
            break;
          }
          // The friction impulse must oppose the slip; if the slip runs along it, the contact
          // sticks after all; otherwise follow the slip direction.
          Vec3 slip(0, vel[1], vel[2]);
          double speed = slip.norm();
          if (slip.dot(b.slide_direction) > kVelocityTolerance) {
            b.mode = ContactMode::Sticking;
            changed = true;
          } else if (speed > kVelocityTolerance) {
            Vec3 dir = -slip / speed;
            if ((dir - b.slide_direction).norm() > 1e-6) {
              b.slide_direction = dir;
              changed = true;
            }
          }
          break;
        }
      }
      continue;
    }
    for (int r = 0; r < 3; ++r) {
      if (!row_is_limit(b.kind[r])) continue;
      const double sign = b.kind[r] == RowKind::LimitLower ? 1.0 : -1.0;
      if (b.limit_active[r]) {
        if (sign * b.lambda[r] < -kImpulseTolerance) {
          b.limit_active[r] = false;  // the limit would pull
          changed = true;
        }
      } else if (sign * (vel[r] - b.rhs[r]) < -kVelocityTolerance) {
        b.limit_active[r] = true;  // the joint would pass its limit this step
        changed = true;
      }
    }
  }
  return changed;
}

bool IslandBlockSolver::run_active_set(std::vector<RigidBodySim>& bodies,
                                       const BlockSolverSettings& settings,
                                       const std::vector<int>& rows, const std::vector<int>& pivots,
                                       long long budget, IslandSolveInfo& info) {
  const int nb = static_cast<int>(bodies_.size());
  std::vector<Vec3>& rhs = exact_rhs_;
  std::vector<Vec3>& x = exact_x_;
  for (int iter = 0; iter < settings.max_active_set_iterations; ++iter) {
    // The budget covers all factorisations of the step (impacts and active-set iterations).
    const long long remaining = budget > 0 ? std::max<long long>(1, budget - info.block_ops) : 0;
    assemble(bodies, lu_, rhs);
    const bool factored = lu_.factorize(rows, pivots, remaining);
    info.block_ops += lu_.factor_block_ops();
    if (!factored) {
      restore_start_velocities(bodies);
      return false;
    }
    lu_.solve(rhs, x);
    for (int l = 0; l < nb; ++l) {
      bodies[bodies_[l]].v = x[2 * l];
      bodies[bodies_[l]].w = x[2 * l + 1];
    }
    for (size_t k = 0; k < blocks_.size(); ++k) blocks_[k].lambda = x[2 * nb + k];
    info.active_set_iterations += 1;
    if (!update_modes(bodies)) return true;
  }
  // Fallback: the active set cycled (degenerate contact sets do that: four coplanar corners
  // admit many impulse distributions). The projected iterative method solves the step from the
  // start velocities and last step's impulses instead.
  info.fell_back = true;
  restore_start_velocities(bodies);
  solve_iterative(bodies, settings);  // from warm_lambda_, not the abandoned active set's impulses
  return true;
}

double IslandBlockSolver::kinetic_energy(const std::vector<RigidBodySim>& bodies) const {
  double e = 0;
  for (int i : bodies_) {
    const RigidBodySim& b = bodies[i];
    Vec3 wb = quat_rotate(b.q.conjugate(), b.w);
    e += 0.5 * b.v.squaredNorm() / b.inv_mass + 0.5 * wb.dot(b.inertia_local * wb);
  }
  return e;
}

double IslandBlockSolver::start_kinetic_energy() const {
  double e = 0;
  for (size_t l = 0; l < bodies_.size(); ++l) {
    e += 0.5 * u0_[2 * l].squaredNorm() / start_inv_mass_[l] +
         0.5 * u0_[2 * l + 1].dot(start_inertia_[l] * u0_[2 * l + 1]);
  }
  return e;
}

void IslandBlockSolver::save_start_velocities(const std::vector<RigidBodySim>& bodies,
                                              bool energy_reference) {
  resize_growing(u0_, 2 * bodies_.size());
  for (size_t l = 0; l < bodies_.size(); ++l) {
    u0_[2 * l] = bodies[bodies_[l]].v;
    u0_[2 * l + 1] = bodies[bodies_[l]].w;
  }
  if (!energy_reference) return;
  resize_growing(start_inv_mass_, bodies_.size());
  resize_growing(start_inertia_, bodies_.size());
  for (size_t l = 0; l < bodies_.size(); ++l) {
    const RigidBodySim& b = bodies[bodies_[l]];
    start_inv_mass_[l] = b.inv_mass;
    // Made as assemble() made it for every active-set pass (it reads this one now): built in a
    // local, Eigen's product rounds as it did there. With the rotation in a variable, or assigned
    // straight to the vector's element, it rounds otherwise (ragdolls_20's bits moved).
    const Mat3 inertia_world = b.q.toRotationMatrix() * b.inertia_local * b.q.toRotationMatrix().transpose();
    start_inertia_[l] = inertia_world;
  }
}

void IslandBlockSolver::restore_start_velocities(std::vector<RigidBodySim>& bodies) const {
  for (size_t l = 0; l < bodies_.size(); ++l) {
    bodies[bodies_[l]].v = u0_[2 * l];
    bodies[bodies_[l]].w = u0_[2 * l + 1];
  }
}

bool IslandBlockSolver::propagate_impacts(std::vector<RigidBodySim>& bodies,
                                          const std::vector<ContactConstraint>& contacts,
                                          const BlockSolverSettings& settings,
                                          const std::vector<int>& rows,
                                          const std::vector<int>& pivots, long long budget,
                                          IslandSolveInfo& info) {
  // Impacts one at a time, the fastest approach first, each solved with the whole island (its
  // joints and the articulated bodies' coupled inertia) but only that contact active — the
  // sequential collision processing that lets a Newton's cradle pass its momentum through,
  // which a single simultaneous solve cannot (it splits the momentum among touching balls).
  std::vector<ContactMode>& modes = impact_modes_;
  std::vector<Vec3>& total = impact_total_;
  assign_growing(modes, blocks_.size(), ContactMode{});
  assign_growing(total, blocks_.size(), Vec3::Zero());
  const int max_impacts = 4 * static_cast<int>(blocks_.size());
  bool any = false;
  for (int impact = 0; impact < max_impacts; ++impact) {
    int chosen = -1;
    double fastest = -settings.restitution_threshold;
    for (size_t k = 0; k < blocks_.size(); ++k) {
      const ConstraintBlock& b = blocks_[k];
      if (b.contact < 0) continue;
      const ContactConstraint& c = contacts[b.contact];
      if (c.restitution <= 0) continue;
      double vn = block_velocity(b, bodies)[0];
      if (c.separation > 0 && vn * h_ >= -c.separation) continue;  // will not touch this step
      if (vn < fastest) {
        fastest = vn;
        chosen = static_cast<int>(k);
      }
    }
    if (chosen < 0) break;
    for (size_t k = 0; k < blocks_.size(); ++k) {
      modes[k] = blocks_[k].mode;
      if (blocks_[k].contact >= 0) blocks_[k].mode = ContactMode::Inactive;
    }
    ConstraintBlock& hit = blocks_[chosen];
    hit.mode = ContactMode::Sticking;
    const double saved_target = hit.rhs[0];
    hit.rhs[0] = -contacts[hit.contact].restitution * fastest;  // paper 5, eq. 5
    save_start_velocities(bodies);
    impact_block_ = chosen;
    const bool solved = run_active_set(bodies, settings, rows, pivots, budget, info);
    impact_block_ = -1;
    hit.rhs[0] = saved_target;
    for (size_t k = 0; k < blocks_.size(); ++k) {
      if (solved) total[k] += blocks_[k].lambda;
      blocks_[k].mode = modes[k];
    }
    if (!solved) return any;
    any = true;
  }
  if (any) {
    // The bounces have happened: what remains is resting or inelastic contact.
    for (ConstraintBlock& b : blocks_) {
      if (b.contact < 0) continue;
      const double separation = contacts[b.contact].separation;
      b.rhs[0] = separation > 0 ? -separation / h_ : 0.0;
    }
    impact_impulses_.swap(total);  // both buffers kept: no allocation in the next step
  }
  return any;
}

IslandSolveInfo IslandBlockSolver::solve_velocities(const Island& island,
                                                    std::vector<RigidBodySim>& bodies,
                                                    std::vector<ContactConstraint>& contacts,
                                                    std::vector<JointSim>& joints, double h,
                                                    const BlockSolverSettings& settings,
                                                    const std::vector<int>* body_position) {
  IslandSolveInfo info;
  h_ = h;
  copy_growing(bodies_, island.bodies);
  copy_growing(contacts_, island.contacts);
  impact_impulses_.clear();
  threads_ = settings.threads;
  joint_block_scratch_.clear();
  for (int j : island.joints) append_joint_blocks(joints[j], j, bodies, h, joint_block_scratch_);
  const int joint_blocks = static_cast<int>(joint_block_scratch_.size());
  first_contact_block_ = joint_blocks;
  const int n = joint_blocks + static_cast<int>(island.contacts.size());
  // A big island, swept by dissection groups (the exact method aside), stores its contact
  // blocks group by group: contacts_ in that order (block_solver_iterative.cpp).
  parts_known_ = false;
  if (n >= settings.parallel_min_blocks && settings.method != BlockMethod::Exact) {
    order_contacts_by_group(island.contacts, bodies, contacts, body_position);
  }
  double smallest_slop = settings.linear_slop;
  bool impacts_possible = false;
  for (int c : island.contacts) {
    smallest_slop = std::min(smallest_slop, contacts[c].slop);
    impacts_possible = impacts_possible || contacts[c].restitution > 0;
  }
  const int island_key = island.bodies.empty() ? -1 : island.bodies.front();
  if (failed_.island_key != island_key) failed_ = FailedEliminations{island_key, {}};
  contact_tolerance_ = settings.contact_residual_slops * smallest_slop / h;
  // Every block's data below depends on that block alone: big islands fill them in parallel.
  // blocks_ is not cleared first: every block is assigned whole below, and value-initialising
  // them (504 bytes each) was a serial 1% of pile_spheres_1k's step at 2 threads.
  resize_growing(blocks_, n);
  std::copy(joint_block_scratch_.begin(), joint_block_scratch_.end(), blocks_.begin());
  resize_growing(levers_, n);
  resize_growing(slots_, n);
  resize_growing(regularisation_, n);
  resize_growing(warm_lambda_, n);
  resize_growing(diagonal_, n);
  diagonal_current_ = true;  // until the velocity solve returns (prepare_iterative reuses it)
  parallel_for_static(n, threads_, [&](std::ptrdiff_t index) {
    const int k = static_cast<int>(index);
    if (k >= joint_blocks) {
      const int c = contacts_[k - joint_blocks];
      ConstraintBlock block = make_contact_block(contacts[c], c);
      block.mode = static_cast<ContactMode>(contacts[c].mode);
      block.lambda = Vec3(contacts[c].normal_impulse, contacts[c].tangent_impulse[0],
                          contacts[c].tangent_impulse[1]);
      Vec3 vel = block_velocity(block, bodies);
      // New or previously inactive contacts start active only if they would close the gap.
      if (block.mode == ContactMode::Inactive && vel[0] < block.rhs[0]) block.mode = ContactMode::Sticking;
      if (block.mode == ContactMode::Sliding) {
        double lt = std::hypot(block.lambda[1], block.lambda[2]);
        if (lt > 0) block.slide_direction = Vec3(0, block.lambda[1] / lt, block.lambda[2] / lt);
        else block.mode = ContactMode::Sticking;
      }
      blocks_[k] = block;
      levers_[k] = {contacts[c].ra, contacts[c].rb};
    }
    for (int s = 0; s < 2; ++s) slots_[k][s] = local_index(blocks_[k].body[s], body_position);
    diagonal_[k] = island_diagonal(k, bodies);
    // A dynamic body outside the island (asleep) still weighs in the regularisation's scale.
    bool outside = false;
    for (int s = 0; s < 2; ++s) {
      const int i = blocks_[k].body[s];
      outside = outside || (slots_[k][s] < 0 && i >= 0 && bodies[i].dynamic);
    }
    double scale = (outside ? block_diagonal(blocks_[k], bodies) : diagonal_[k]).trace() / 3.0;
    double compliance = blocks_[k].contact >= 0 ? settings.contact_compliance : settings.compliance;
    regularisation_[k] = compliance * std::max(scale, 1e-12);
    warm_lambda_[k] = blocks_[k].lambda;
  });
  note_structure(settings);
  exact_ = false;
  iter_prepared_ = false;
  if (blocks_.empty()) {
    diagonal_current_ = false;
    return info;
  }

  // A big island swept in parallel needs its dissection when the iterative method is chosen,
  // which is nearly always (a pile's count refuses elimination). The dissection depends only
  // on the island (bodies' positions, block slots), so with two threads its groups are made
  // while the method is being chosen, on the other thread: the choice (the island's depth and
  // symbolic count) and the dissection were serial parts of every step (ellipsoids_500: 0.047
  // and 0.015 ms; pile_spheres_1k: 0.095 and 0.032 ms at 2 threads). (The bisection itself is
  // made before the blocks, which it orders: order_contacts_by_group.) With one thread, or when
  // the exact method is forced, the dissection waits for prepare_iterative: same results.
  long long budget = 0;
  bool exact_allowed = false;
  dissected_early_ = false;
  const bool speculate = static_cast<int>(blocks_.size()) >= settings.parallel_min_blocks &&
                         settings.method != BlockMethod::Exact;
  if (speculate && usable_threads(threads_) >= 2) {
    parallel_invoke(threads_, [&] { exact_allowed = choose_exact(settings, impacts_possible, info, budget); },
                    [&] { dissect_blocks(bodies); });
    dissected_early_ = true;
  } else {
    exact_allowed = choose_exact(settings, impacts_possible, info, budget);
  }
  info.exact_attempted = exact_allowed;
  if (exact_allowed) {
    if (!exact_order_known_) ordering(settings.ordering, exact_rows_, exact_pivots_);
    exact_order_known_ = true;
    propagate_impacts(bodies, contacts, settings, exact_rows_, exact_pivots_, budget, info);
    save_start_velocities(bodies);
    bool solved = run_active_set(bodies, settings, exact_rows_, exact_pivots_, budget, info);
    // Contacts and joints without restitution only take kinetic energy out. A solution that
    // adds energy comes from a near-singular active set (redundant contacts): reject it.
    if (solved && kinetic_energy(bodies) > start_kinetic_energy() * (1 + 1e-6) + 1e-9) {
      restore_start_velocities(bodies);
      solved = false;
      info.rejected = true;
    }
    // After a fallback the factorisation belongs to a rejected active set: the position
    // correction then uses the iterative method too.
    exact_ = solved && !info.fell_back;
    info.exact = solved;
    if (exact_) {
      history_.expected_passes = info.active_set_iterations;
      history_.backoff.succeeded();
      failed_.backoff.succeeded();
    } else {
      note_failed_elimination(settings);
      failed_.backoff.failed();
    }
  }
  if (!info.exact) {
    // An abandoned or rejected elimination leaves the impulses of an intermediate active set
    // (possibly huge, opposing impulses of a near-singular set) in the blocks: solve_iterative
    // starts from last step's, warm_lambda_.
    // The iterative method checks no energy: the start velocities only (assemble's momentum
    // rows), not each body's world inertia, 0.5% of the 10,000-box pile's step.
    save_start_velocities(bodies, false);
    solve_iterative(bodies, settings);
  }

  diagonal_current_ = false;  // the bodies move on: the position level recomputes it
  dissected_early_ = false;   // a later prepare_iterative (position level) sees moved bodies
  parts_known_ = false;
  // Impulses and modes go back for warm starting (each block to its own contact or joint).
  parallel_for_static(static_cast<std::ptrdiff_t>(blocks_.size()), threads_, [&](std::ptrdiff_t k) {
    const ConstraintBlock& b = blocks_[k];
    Vec3 lambda = b.lambda + (impact_impulses_.empty() ? Vec3::Zero() : impact_impulses_[k]);
    if (b.contact >= 0) {
      ContactConstraint& c = contacts[b.contact];
      c.normal_impulse = lambda[0];
      c.tangent_impulse[0] = lambda[1];
      c.tangent_impulse[1] = lambda[2];
      c.mode = static_cast<std::uint8_t>(b.mode);
    } else if (b.angular) {
      joints[b.joint].angular_impulse = joint_impulse_in_world(b, lambda);
    } else {
      joints[b.joint].linear_impulse = joint_impulse_in_world(b, lambda);
    }
  });
  return info;
}

void IslandBlockSolver::note_failed_elimination(const BlockSolverSettings& settings) {
  history_.backoff.failed();
  history_.expected_passes = std::max(2.0 * history_.expected_passes,
                                      static_cast<double>(settings.max_active_set_iterations));
}

bool IslandBlockSolver::choose_exact(const BlockSolverSettings& settings, bool impacts_possible,
                                     IslandSolveInfo& info, long long& budget) {
  // Exact block elimination or the projected iterative method, whichever costs less: one
  // factorisation's block operations (symbolic count, fill-in included) times the expected
  // active-set iterations against the iterative sweeps over the same blocks.
  // Contact blocks follow the joint blocks (a count, not a pass over the ~490-byte blocks);
  // contact rows are unilateral.
  const int contact_blocks = static_cast<int>(blocks_.size()) - first_contact_block_;
  bool unilateral = contact_blocks > 0;
  for (int k = 0; k < first_contact_block_ && !unilateral; ++k) {
    for (int r = 0; r < 3; ++r) unilateral = unilateral || blocks_[k].kind[r] != RowKind::Equality;
  }
  // Only islands past always_exact_contacts need their depth: smaller ones try exact anyway.
  const bool big = contact_blocks > settings.always_exact_contacts;
  // After a failed exact attempt (the active set cycled or overran its budget, which costs up
  // to exact_budget_factor × the iterative method on top of the iterative solve that follows)
  // the island waits before the next attempt, twice as long after every further failure:
  // resting piles whose small islands cycle between sticking and sliding stop paying for it
  // (pile_boxes_1k: about 2 ms of a 10 ms step), while stacks, which succeed, never wait.
  // While it waits nothing is chosen, so nothing is measured either: a big island's depth
  // (layer_count) only prices the choice. (The island's own wait, below, runs on as well.)
  if (settings.method == BlockMethod::Auto && history_.backoff.pass()) {
    if (big && !impacts_possible) failed_.backoff.pass();
    return false;
  }
  const bool deep_check = settings.method == BlockMethod::Auto && big;
  info.iterative_ops = iterative_cost(settings, deep_check ? layer_count() : 0);
  budget = settings.method == BlockMethod::Exact
               ? 0
               : static_cast<long long>(settings.exact_budget_factor * static_cast<double>(info.iterative_ops));
  bool exact_allowed = settings.method == BlockMethod::Exact;
  if (settings.method == BlockMethod::Auto &&
      (settings.max_exact_contacts < 0 || contact_blocks <= settings.max_exact_contacts)) {
    // Unilateral rows (contacts, limits) need several active-set passes, as many as this
    // island needed last time (islands keep their solver while their smallest body is the
    // same); an island that did not settle is retried only after the estimate has decayed.
    const double floor_passes = unilateral ? 2.0 : 1.0;
    history_.expected_passes = std::max(history_.expected_passes, floor_passes);
    const long long passes = static_cast<long long>(std::ceil(history_.expected_passes));
    // The symbolic elimination of a big loopy island (a pile) costs about a tenth of its step
    // (pile_spheres_1k: 0.6 of 5.2 ms) only to find again that elimination fills in. Its count
    // (a lower bound when it stopped at its cap) is reused for kCostlyVerdictSteps steps while
    // the contact count stays within 1/16 and the count still exceeds this step's cap, which
    // moves with the expected passes: then counting again would refuse elimination too.
    // 24 steps (0.1 s at 240 Hz): at 8, the recounts were still 1% of pile_spheres_1k's
    // instructions, a serial part of its step at 2 threads; no bench scene's or golden's bits
    // moved (a pile's count is far past its cap).
    constexpr int kCostlyVerdictSteps = 24;
    const long long cap = info.iterative_ops / passes + 1;
    const bool verdict_stands = big && history_.costly_verdict_steps > 0 &&
                                16 * std::abs(contact_blocks - history_.costly_contact_blocks) <= history_.costly_contact_blocks &&
                                history_.costly_estimate > cap;
    if (verdict_stands) {
      --history_.costly_verdict_steps;
      info.estimated_exact_ops = history_.costly_estimate;
      exact_allowed = false;
    } else {
      info.estimated_exact_ops = structure_estimate(cap);
      exact_allowed = info.estimated_exact_ops * passes <= info.iterative_ops ||
                      (!big && history_.expected_passes <= 0.5 * settings.max_active_set_iterations);
      history_.costly_verdict_steps = big && !exact_allowed ? kCostlyVerdictSteps : 0;
      history_.costly_contact_blocks = contact_blocks;
      history_.costly_estimate = info.estimated_exact_ops;
    }
    if (!exact_allowed) history_.expected_passes = std::max(floor_passes, 0.9 * history_.expected_passes);
  }
  // The method history stays with the place in the island list (engine/world_solve.cpp), so a
  // big island that failed meets the history of islands that succeeded and tries again at once.
  // Its own failures (failed_, kept with the island) hold it back, doubling the wait after each
  // one as the history does, but only where a failed attempt changes no result: with no
  // restitution, propagate_impacts has nothing to do, and a failed attempt restores the
  // velocities and solves iteratively from last step's impulses, as if it had not been made;
  // it only costs time, up to exact_budget_factor × the iterative solve. (The 10,000-box pile
  // at one thread, steps 1-360: 9,834 failed attempts took 6.2 of 33.5 s, 5.1 s of it the 2,689
  // on islands of 32 blocks or more, of which not one succeeded.) Big islands only: small ones
  // do succeed after failing, and holding them back as well moved ragdolls_20's and
  // pile_spheres_1k's results. The skipped attempt teaches the place's history what the
  // failure would have, so the history evolves as it did when every attempt was made: while
  // the skipped attempts would have failed, every result is the same (every bench scene's).
  if (settings.method == BlockMethod::Auto && big && !impacts_possible && failed_.backoff.pass()) {
    if (exact_allowed) {
      note_failed_elimination(settings);
      exact_allowed = false;
      info.exact_skipped = true;
    }
  }
  return exact_allowed;
}

void IslandBlockSolver::note_structure(const BlockSolverSettings& settings) {
  const int nb = static_cast<int>(bodies_.size());
  const bool repeats = nb == previous_body_count_ && first_contact_block_ == previous_joint_blocks_ &&
                       slots_ == previous_slots_ && settings.ordering == known_ordering_;
  if (!repeats) {
    previous_body_count_ = nb;
    previous_joint_blocks_ = first_contact_block_;
    copy_growing(previous_slots_, slots_.begin(), slots_.end());
    known_ordering_ = settings.ordering;
    known_estimate_ = -1;
    exact_order_known_ = false;
    depths_current_ = false;
    joint_order_known_ = false;
    s_assembly_known_ = false;
  }
}

long long IslandBlockSolver::structure_estimate(long long cap) {
  if (known_estimate_ >= 0 && (cap <= 0 || known_estimate_ <= cap)) return known_estimate_;
  const long long ops = estimate_exact_ops(cap);
  // Counting stops early only once past the cap: a count within it is complete.
  known_estimate_ = cap <= 0 || ops <= cap ? ops : -1;
  return ops;
}

long long IslandBlockSolver::estimate_exact_ops(long long cap) const {
  // Symbolic elimination in ordering B (paper 5: body momentum rows first). Eliminating body
  // l's two rows couples every pair of its d_l constraint rows (the Schur complement JM⁻¹Jᵀ):
  // 2·d_l·(d_l + 1) block operations. The constraint rows are then eliminated leaves-first; a
  // pivot with m remaining neighbours costs m·(m + 1) and joins its neighbours into a clique.
  const int nb = static_cast<int>(bodies_.size());
  const int nc = static_cast<int>(blocks_.size());
  OrderingScratch& w = scratch_;
  assign_growing(w.fill, nb, 0);
  for (int k = 0; k < nc; ++k) {
    for (int s = 0; s < 2; ++s) {
      const int l = slots_[k][s];
      if (l >= 0) ++w.fill[l];
    }
  }
  long long ops = 0;
  for (int l = 0; l < nb; ++l) {
    const long long d = w.fill[l];
    ops += 2 * d * (d + 1);
  }
  if (cap > 0 && ops > cap) return ops;
  ordering(BlockOrdering::B, w.rows, w.pivots);  // also fills the body → blocks lists
  // Position of each constraint in the elimination order.
  resize_growing(w.position, nc);
  for (int i = 0; i < nc; ++i) w.position[w.rows[2 * nb + i] - 2 * nb] = i;
  // Later neighbours (by elimination position) in the Schur complement graph: a pivot only
  // ever needs the neighbours still there when it is eliminated, so earlier ones are never
  // stored. The lists share one pool (dynamics/pooled_lists.h) that keeps its capacity between
  // steps: fill-in grows it in place. Repeats are removed with a mark per position rather than
  // by sorting (this count is a serial part of a pile's step, up to about 1 ms when it runs
  // near its cap).
  w.adjacent.reset(nc);
  for (int l = 0; l < nb; ++l) {
    for (int i = w.body_block_start[l]; i < w.body_block_start[l + 1]; ++i) {
      const int pi = w.position[w.body_block_list[i]];
      for (int j = w.body_block_start[l]; j < w.body_block_start[l + 1]; ++j) {
        const int pj = w.position[w.body_block_list[j]];
        if (pj > pi) w.adjacent.push(pi, pj);
      }
    }
  }
  assign_growing(w.mark, nc, -1);
  for (int p = 0; p < nc; ++p) {
    const long long m = w.adjacent.filter(p, [&](int q) {
      if (w.mark[q] == p) return false;
      w.mark[q] = p;
      return true;
    });
    ops += m * (m + 1);
    if (cap > 0 && ops > cap) return ops;
    // Fill-in: the remaining neighbours become each other's neighbours; each list only
    // receives the ones eliminated after its own pivot.
    w.adjacent.for_each(p, [&](int q) {
      w.adjacent.for_each(p, [&](int r) {
        if (r > q) w.adjacent.push(q, r);
      });
    });
  }
  return ops;
}

}  // namespace impetus

