#include "dynamics/sequential_impulse_solver.h"

#include <algorithm>
#include <cmath>

#include <Eigen/LU>

#include "dynamics/constraint_rows.h"

namespace impetus {

namespace {

// 1 / (m_a⁻¹ + m_b⁻¹ + (r_a×d)ᵀ I_a⁻¹ (r_a×d) + (r_b×d)ᵀ I_b⁻¹ (r_b×d)) for direction d.
double effective_mass(const RigidBodySim& a, const RigidBodySim& b, const Vec3& ra, const Vec3& rb,
                      const Vec3& d) {
  Vec3 ca = ra.cross(d);
  Vec3 cb = rb.cross(d);
  double k = a.inv_mass + b.inv_mass + ca.dot(a.inv_inertia_world * ca) +
             cb.dot(b.inv_inertia_world * cb);
  return k > 0 ? 1.0 / k : 0.0;
}

void apply_impulse(RigidBodySim& a, RigidBodySim& b, const Vec3& ra, const Vec3& rb,
                   const Vec3& impulse) {
  a.v -= a.inv_mass * impulse;
  a.w -= a.inv_inertia_world * ra.cross(impulse);
  b.v += b.inv_mass * impulse;
  b.w += b.inv_inertia_world * rb.cross(impulse);
}

Vec3 relative_velocity(const RigidBodySim& a, const RigidBodySim& b, const Vec3& ra,
                       const Vec3& rb) {
  return (b.v + b.w.cross(rb)) - (a.v + a.w.cross(ra));
}

}  // namespace

void SequentialImpulseSolver::prepare(std::vector<RigidBodySim>& bodies,
                                      std::vector<ContactConstraint>& contacts, double h,
                                      const SequentialImpulseSettings& settings) const {
  // Every restitution target from the velocities before any impulse: a target measured after
  // other contacts' warm starts were applied would bounce off last step's impulses (in a
  // touching Newton's cradle the chain's stored impulses made the next contact "approach" and
  // bounce, adding kinetic energy).
  for (ContactConstraint& c : contacts) {
    RigidBodySim& a = bodies[c.body_a];
    RigidBodySim& b = bodies[c.body_b];
    prepare_contact_geometry(c, a, b, h, settings.restitution_threshold);
    c.normal_mass = effective_mass(a, b, c.ra, c.rb, c.normal);
    c.tangent_mass[0] = effective_mass(a, b, c.ra, c.rb, c.tangent1);
    c.tangent_mass[1] = effective_mass(a, b, c.ra, c.rb, c.tangent2);
  }
  for (ContactConstraint& c : contacts) {
    RigidBodySim& a = bodies[c.body_a];
    RigidBodySim& b = bodies[c.body_b];
    // Warm start with last step's accumulated impulses.
    Vec3 impulse = c.normal_impulse * c.normal + c.tangent_impulse[0] * c.tangent1 +
                   c.tangent_impulse[1] * c.tangent2;
    apply_impulse(a, b, c.ra, c.rb, impulse);
  }
}

void SequentialImpulseSolver::solve_velocities(std::vector<RigidBodySim>& bodies,
                                               std::vector<ContactConstraint>& contacts,
                                               const SequentialImpulseSettings& settings,
                                               std::vector<ConstraintBlock>* joint_blocks) const {
  for (int iter = 0; iter < settings.velocity_iterations; ++iter) {
    if (joint_blocks) solve_joint_sweep(bodies, *joint_blocks);
    for (ContactConstraint& c : contacts) {
      RigidBodySim& a = bodies[c.body_a];
      RigidBodySim& b = bodies[c.body_b];

      // Friction: sticking if the accumulated tangent impulse stays inside the Coulomb disc of
      // radius μλₙ; otherwise sliding, on the disc's edge and opposite the slip.
      Vec3 dv = relative_velocity(a, b, c.ra, c.rb);
      const double slip1 = dv.dot(c.tangent1), slip2 = dv.dot(c.tangent2);
      double t1 = c.tangent_impulse[0] - c.tangent_mass[0] * slip1;
      double t2 = c.tangent_impulse[1] - c.tangent_mass[1] * slip2;
      double limit = c.friction * c.normal_impulse;
      if (t1 * t1 + t2 * t2 > limit * limit) {
        t1 = c.tangent_impulse[0];
        t2 = c.tangent_impulse[1];
        sliding_friction_impulse(t1, t2, slip1, slip2,
                                 std::min(c.tangent_mass[0], c.tangent_mass[1]), limit);
      }
      Vec3 friction_impulse = (t1 - c.tangent_impulse[0]) * c.tangent1 +
                              (t2 - c.tangent_impulse[1]) * c.tangent2;
      c.tangent_impulse[0] = t1;
      c.tangent_impulse[1] = t2;
      apply_impulse(a, b, c.ra, c.rb, friction_impulse);

      // Normal: unilateral, accumulated impulse stays non-negative.
      double vn = relative_velocity(a, b, c.ra, c.rb).dot(c.normal);
      double lambda = c.normal_impulse + c.normal_mass * (c.velocity_target - vn);
      lambda = std::max(lambda, 0.0);
      double delta = lambda - c.normal_impulse;
      c.normal_impulse = lambda;
      apply_impulse(a, b, c.ra, c.rb, delta * c.normal);
    }
  }
}

double SequentialImpulseSolver::correct_positions(std::vector<RigidBodySim>& bodies,
                                                  const std::vector<ContactConstraint>& contacts,
                                                  const SequentialImpulseSettings& settings) const {
  for (int iter = 0; iter < settings.position_iterations; ++iter) {
    for (const ContactConstraint& c : contacts) {
      RigidBodySim& a = bodies[c.body_a];
      RigidBodySim& b = bodies[c.body_b];
      Vec3 ra = quat_rotate(a.q, c.anchor_a);
      Vec3 rb = quat_rotate(b.q, c.anchor_b);
      double separation = ((b.x + rb) - (a.x + ra)).dot(c.normal);
      if (separation >= -c.slop) continue;
      double correction = std::clamp(settings.baumgarte * (separation + c.slop),
                                     -settings.max_correction, 0.0);
      double mass = effective_mass(a, b, ra, rb, c.normal);
      Vec3 impulse = (-correction * mass) * c.normal;
      // Move positions directly (no velocity change: post-stabilisation adds no kinetic energy).
      if (a.dynamic) {
        a.x -= a.inv_mass * impulse;
        a.q = (quat_from_rotation_vector(-(a.inv_inertia_world * ra.cross(impulse))) * a.q)
                  .normalized();
        a.refresh_world_inertia();
      }
      if (b.dynamic) {
        b.x += b.inv_mass * impulse;
        b.q = (quat_from_rotation_vector(b.inv_inertia_world * rb.cross(impulse)) * b.q)
                  .normalized();
        b.refresh_world_inertia();
      }
    }
  }
  double deepest = 0;
  for (const ContactConstraint& c : contacts) {
    const RigidBodySim& a = bodies[c.body_a];
    const RigidBodySim& b = bodies[c.body_b];
    deepest = std::max(deepest, -contact_separation(c, a, b));
  }
  return deepest;
}

namespace {

Mat3 joint_block_inverse_diagonal(const ConstraintBlock& b, const std::vector<RigidBodySim>& bodies) {
  Mat3 d = block_schur_diagonal(b, bodies);
  for (int r = 0; r < 3; ++r) {
    bool unused = b.kind[r] == RowKind::Unused;
    if (unused || d(r, r) <= 0) {
      d.row(r).setZero();
      d.col(r).setZero();
      d(r, r) = 1.0;
    }
  }
  return d.inverse();
}

void apply_joint_impulse(std::vector<RigidBodySim>& bodies, const ConstraintBlock& b,
                         const Vec3& impulse) {
  for (int s = 0; s < 2; ++s) {
    if (b.body[s] < 0 || !bodies[b.body[s]].dynamic) continue;
    RigidBodySim& body = bodies[b.body[s]];
    body.v += body.inv_mass * (b.jv[s].transpose() * impulse);
    body.w += body.inv_inertia_world * (b.jw[s].transpose() * impulse);
  }
}

}  // namespace

void SequentialImpulseSolver::prepare_joints(std::vector<RigidBodySim>& bodies,
                                             std::vector<JointSim>& joints, double h,
                                             std::vector<ConstraintBlock>& blocks) const {
  blocks.clear();
  for (int j = 0; j < static_cast<int>(joints.size()); ++j)
    append_joint_blocks(joints[j], j, bodies, h, blocks);
  for (ConstraintBlock& b : blocks) {
    // Limit rows take part as unilateral rows in every sweep.
    b.self = joint_block_inverse_diagonal(b, bodies);  // cached inverse of JM⁻¹Jᵀ
    apply_joint_impulse(bodies, b, b.lambda);
  }
}

void SequentialImpulseSolver::solve_joint_sweep(std::vector<RigidBodySim>& bodies,
                                                std::vector<ConstraintBlock>& blocks) const {
  for (ConstraintBlock& b : blocks) {
    Vec3 vel = Vec3::Zero();
    for (int s = 0; s < 2; ++s) {
      if (b.body[s] < 0) continue;
      vel += b.jv[s] * bodies[b.body[s]].v + b.jw[s] * bodies[b.body[s]].w;
    }
    Vec3 lambda = project_block_impulse(b, b.lambda + b.self * (b.rhs - vel));
    apply_joint_impulse(bodies, b, lambda - b.lambda);
    b.lambda = lambda;
  }
}

void SequentialImpulseSolver::store_joint_impulses(const std::vector<ConstraintBlock>& blocks,
                                                   std::vector<JointSim>& joints) const {
  for (const ConstraintBlock& b : blocks) {
    if (b.angular) joints[b.joint].angular_impulse = joint_impulse_in_world(b, b.lambda);
    else joints[b.joint].linear_impulse = joint_impulse_in_world(b, b.lambda);
  }
}

void SequentialImpulseSolver::correct_joint_positions(std::vector<RigidBodySim>& bodies,
                                                      const std::vector<JointSim>& joints,
                                                      std::vector<ConstraintBlock>& blocks,
                                                      const SequentialImpulseSettings& settings) const {
  for (int iter = 0; iter < settings.position_iterations; ++iter) {
    for (ConstraintBlock& b : blocks) {
      Vec3 c = joint_block_position_error(joints[b.joint], b, bodies);
      if (c.squaredNorm() == 0) continue;
      Vec3 correction = -(b.self * (settings.baumgarte * c));
      for (int r = 0; r < 3; ++r) {
        if (b.kind[r] == RowKind::Unused) correction[r] = 0;
      }
      for (int s = 0; s < 2; ++s) {
        if (b.body[s] < 0 || !bodies[b.body[s]].dynamic) continue;
        RigidBodySim& body = bodies[b.body[s]];
        body.x += body.inv_mass * (b.jv[s].transpose() * correction);
        body.q = (quat_from_rotation_vector(body.inv_inertia_world * (b.jw[s].transpose() * correction)) *
                  body.q).normalized();
        body.refresh_world_inertia();
      }
    }
  }
}

}  // namespace impetus
