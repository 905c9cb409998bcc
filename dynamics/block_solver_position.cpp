// Post-stabilisation of the block solver: after integration, a mass-weighted position
// correction removes joint drift and overlap beyond the slop without touching velocities, so no
// kinetic energy is added (unlike Baumgarte terms in the velocity rows).
//
// Exact path: the velocity solve's factorisation solves [M −Jᵀ; J S][Δq; μ] = [0; −βC] with
// the same active set, re-linearised once per pass. Treating active contacts as equalities is
// only safe when the contact rows are well separated: near-redundant rows (two corners of an
// edge resting on a face, almost parallel normals) with inconsistent targets make the
// equality solution move bodies far along weakly constrained directions. So every exact pass is
// checked: if the island's largest error grew, the pass is undone and the projected iterative
// correction (split impulses, unilateral contact rows) does the job instead.
#include <algorithm>
#include <atomic>

#include "collision/base/parallel.h"
#include "collision/base/vector_growth.h"
#include "dynamics/block_solver.h"
#include "dynamics/constraint_rows.h"
#include "dynamics/contact_prefetch.h"

namespace impetus {

Vec3 IslandBlockSolver::block_position_error(std::size_t k, const std::vector<RigidBodySim>& bodies,
                                             const std::vector<ContactConstraint>& contacts,
                                             const std::vector<JointSim>& joints) const {
  if (static_cast<int>(k) < first_contact_block_) {
    const ConstraintBlock& b = blocks_[k];
    return joint_block_position_error(joints[b.joint], b, bodies);
  }
  const ContactConstraint& c = contacts[contacts_[k - first_contact_block_]];
  const double separation = contact_separation(c, bodies[c.body_a], bodies[c.body_b]);
  // Only overlap beyond the slop is removed; other rows keep their positions.
  return Vec3(separation < -c.slop ? separation + c.slop : 0.0, 0, 0);
}

void IslandBlockSolver::prefetch_position_error(std::size_t k, const std::vector<RigidBodySim>& bodies,
                                                const std::vector<ContactConstraint>& contacts) const {
  const std::size_t first = static_cast<std::size_t>(first_contact_block_);
  if (k < first) return;  // joints come first and are few
  prefetch_contact_ahead(contacts, bodies, contacts_.data(), contacts_.size(), k - first);
}

double IslandBlockSolver::position_error(const std::vector<RigidBodySim>& bodies,
                                         const std::vector<ContactConstraint>& contacts,
                                         const std::vector<JointSim>& joints) {
  resize_growing(block_error_, blocks_.size());
  double worst = 0;
  for (std::size_t k = 0; k < blocks_.size(); ++k) {
    prefetch_position_error(k, bodies, contacts);
    block_error_[k] = block_position_error(k, bodies, contacts, joints);
    worst = std::max(worst, block_error_[k].cwiseAbs().maxCoeff());
  }
  block_error_current_ = true;
  return worst;
}

double IslandBlockSolver::worsening_tolerance(const std::vector<ContactConstraint>& contacts) const {
  // 0.1 mm is 5% of a 1 mm sphere's diameter: let such an island's error grow that much per
  // pass and a pile of them sinks into itself (issue 16).
  double tolerance = 1e-4;
  for (const ConstraintBlock& b : blocks_) {
    if (b.contact >= 0) tolerance = std::min(tolerance, 2.0 * contacts[b.contact].slop);
  }
  return tolerance;
}

bool IslandBlockSolver::position_targets(const std::vector<RigidBodySim>& bodies,
                                         const std::vector<ContactConstraint>& contacts,
                                         const std::vector<JointSim>& joints,
                                         const BlockSolverSettings& settings,
                                         std::vector<Vec3>& target) const {
  // Position errors per row, same directions as the velocity rows; target ΔC = −β C.
  resize_growing(target, blocks_.size());
  std::atomic<bool> any{false};
  parallel_for_static(static_cast<std::ptrdiff_t>(blocks_.size()), threads_, [&](std::ptrdiff_t k) {
    if (!block_error_current_) prefetch_position_error(static_cast<std::size_t>(k), bodies, contacts);
    const Vec3 c = block_error_current_ ? block_error_[k] : block_position_error(k, bodies, contacts, joints);
    target[k] = -settings.stabilization * c;
    // Written once: a store per block from every thread made the flag's cache line bounce
    // between cores.
    if (c.squaredNorm() > 0 && !any.load(std::memory_order_relaxed)) any.store(true, std::memory_order_relaxed);
  });
  return any.load();
}

void IslandBlockSolver::apply_displacements(std::vector<RigidBodySim>& bodies,
                                            const BlockSolverSettings& settings, bool sweep_slots) {
  block_error_current_ = false;
  parallel_for_static(static_cast<std::ptrdiff_t>(bodies_.size()), threads_, [&](std::ptrdiff_t l) {
    RigidBodySim& body = bodies[bodies_[l]];
    // A correction is a small fix of drift, never a teleport: clamp it per pass, and per step
    // to what is left of the body's max_step_correction (the world sets it to the body's
    // contact margin, so resolving deep initial overlaps cannot push a body through a static
    // floor: that floor's contact is in the solve). It bounds the push-out speed to
    // max_step_correction / h (5 mm at 240 Hz: 1.2 m/s).
    const int at = sweep_slots ? sweep_slot(static_cast<int>(l)) : static_cast<int>(l);
    Vec3 dx = displacement_[2 * at], dq = displacement_[2 * at + 1];
    const double limit = std::min(settings.max_linear_correction, body.max_step_correction - corrected_[l]);
    const double length = dx.norm();
    if (length > limit) dx *= std::max(limit, 0.0) / length;
    corrected_[l] += std::min(length, std::max(limit, 0.0));
    if (dq.norm() > settings.max_angular_correction) dq *= settings.max_angular_correction / dq.norm();
    body.x += dx;
    body.q = (quat_from_rotation_vector(dq) * body.q).normalized();
    body.refresh_world_inertia();
  });
}

bool IslandBlockSolver::stabilize_exact(std::vector<RigidBodySim>& bodies,
                                        const std::vector<ContactConstraint>& contacts,
                                        const std::vector<JointSim>& joints,
                                        const BlockSolverSettings& settings) {
  if (!position_targets(bodies, contacts, joints, settings, target_)) return false;
  const int nb = static_cast<int>(bodies_.size());
  std::vector<Vec3>& rhs = stabilize_rhs_;
  std::vector<Vec3>& x = stabilize_x_;
  assign_growing(rhs, unknown_count(), Vec3::Zero());
  Mat3 jv[2], jw[2], self;
  Vec3 unused_rhs;
  for (size_t k = 0; k < blocks_.size(); ++k) {
    effective_rows(blocks_[k], jv, jw, self, unused_rhs);
    Vec3 t = target_[k];
    // Rows the velocity solve held inactive stay free of corrections.
    for (int r = 0; r < 3; ++r) {
      if (jv[0].row(r).isZero() && jv[1].row(r).isZero() && jw[0].row(r).isZero() &&
          jw[1].row(r).isZero())
        t[r] = 0;
    }
    rhs[2 * nb + k] = t;
  }
  lu_.solve(rhs, x);
  copy_growing(displacement_, x.begin(), x.begin() + 2 * nb);
  apply_displacements(bodies, settings, false);
  return true;
}

void IslandBlockSolver::stabilize_positions(std::vector<RigidBodySim>& bodies,
                                            const std::vector<ContactConstraint>& contacts,
                                            const std::vector<JointSim>& joints,
                                            const BlockSolverSettings& settings) {
  if (blocks_.empty()) return;
  threads_ = settings.threads;
  assign_growing(corrected_, bodies_.size(), 0.0);
  block_error_current_ = false;  // the bodies moved since the last measurement
  if (!exact_) {
    stabilize_iterative(bodies, contacts, joints, settings);
    return;
  }
  // The exact path re-linearises: each pass measures the errors again at the corrected poses
  // and solves with the same factorisation (a Newton-like iteration on the position error).
  std::vector<Vec3>& saved = saved_x_;
  std::vector<Quat>& saved_q = saved_q_;
  std::vector<double>& saved_corrected = saved_corrected_;
  resize_growing(saved, 2 * bodies_.size());
  resize_growing(saved_q, bodies_.size());
  // A pass's error before is the previous pass's error after: the poses have not changed.
  double before = position_error(bodies, contacts, joints);
  for (int pass = 0; pass < settings.stabilization_passes; ++pass) {
    // Newton-like: once a pass leaves less than the tolerance, another would move bodies by
    // less than a nanometre and still cost a solve with the factorisation.
    if (pass > 0 && before <= settings.position_tolerance) break;
    for (size_t l = 0; l < bodies_.size(); ++l) {
      saved[2 * l] = bodies[bodies_[l]].x;
      saved_q[l] = bodies[bodies_[l]].q;
    }
    saved_corrected = corrected_;
    if (!stabilize_exact(bodies, contacts, joints, settings)) return;
    const double after = position_error(bodies, contacts, joints);
    // Clearly worse (more than doubled, by over 0.1 mm or 1e-4 rad, or twice the smallest slop
    // of tiny bodies' contacts): the near-redundant case.
    if (after > 2.0 * before + worsening_tolerance(contacts)) {
      for (size_t l = 0; l < bodies_.size(); ++l) {
        RigidBodySim& body = bodies[bodies_[l]];
        body.x = saved[2 * l];
        body.q = saved_q[l];
        body.refresh_world_inertia();
      }
      block_error_current_ = false;
      corrected_ = saved_corrected;
      stabilize_iterative(bodies, contacts, joints, settings);
      return;
    }
    before = after;
  }
  // Contacts the velocity solve held inactive (not approaching: two bodies spawned one inside
  // the other and falling together) have no row in the factorisation, so the exact passes
  // leave their overlap as it is, step after step. The projected correction treats every
  // contact as a unilateral row and pushes them apart.
  if (inactive_contact_overlaps(bodies, contacts))
    stabilize_iterative(bodies, contacts, joints, settings);
}

bool IslandBlockSolver::inactive_contact_overlaps(const std::vector<RigidBodySim>& bodies,
                                                  const std::vector<ContactConstraint>& contacts) const {
  for (const ConstraintBlock& b : blocks_) {
    if (b.contact < 0 || b.mode != ContactMode::Inactive) continue;
    const ContactConstraint& c = contacts[b.contact];
    if (contact_separation(c, bodies[c.body_a], bodies[c.body_b]) < -c.slop) return true;
  }
  return false;
}

}  // namespace impetus
