#include "dynamics/sequential_impulse_solver.h"

#include <algorithm>
#include <cmath>

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
  for (ContactConstraint& c : contacts) {
    RigidBodySim& a = bodies[c.body_a];
    RigidBodySim& b = bodies[c.body_b];
    prepare_contact_geometry(c, a, b, h, settings.restitution_threshold);
    c.normal_mass = effective_mass(a, b, c.ra, c.rb, c.normal);
    c.tangent_mass[0] = effective_mass(a, b, c.ra, c.rb, c.tangent1);
    c.tangent_mass[1] = effective_mass(a, b, c.ra, c.rb, c.tangent2);

    // Warm start with last step's accumulated impulses.
    Vec3 impulse = c.normal_impulse * c.normal + c.tangent_impulse[0] * c.tangent1 +
                   c.tangent_impulse[1] * c.tangent2;
    apply_impulse(a, b, c.ra, c.rb, impulse);
  }
}

void SequentialImpulseSolver::solve_velocities(std::vector<RigidBodySim>& bodies,
                                               std::vector<ContactConstraint>& contacts,
                                               const SequentialImpulseSettings& settings) const {
  for (int iter = 0; iter < settings.velocity_iterations; ++iter) {
    for (ContactConstraint& c : contacts) {
      RigidBodySim& a = bodies[c.body_a];
      RigidBodySim& b = bodies[c.body_b];

      // Friction: clamp the accumulated tangent impulse to the Coulomb disc of radius μλₙ.
      Vec3 dv = relative_velocity(a, b, c.ra, c.rb);
      double t1 = c.tangent_impulse[0] - c.tangent_mass[0] * dv.dot(c.tangent1);
      double t2 = c.tangent_impulse[1] - c.tangent_mass[1] * dv.dot(c.tangent2);
      double limit = c.friction * c.normal_impulse;
      double magnitude = std::sqrt(t1 * t1 + t2 * t2);
      if (magnitude > limit) {
        double scale = magnitude > 0 ? limit / magnitude : 0.0;
        t1 *= scale;
        t2 *= scale;
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
      Vec3 ra = a.q * c.anchor_a;
      Vec3 rb = b.q * c.anchor_b;
      double separation = ((b.x + rb) - (a.x + ra)).dot(c.normal);
      if (separation >= -settings.linear_slop) continue;
      double correction = std::clamp(settings.baumgarte * (separation + settings.linear_slop),
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
    double separation = ((b.x + b.q * c.anchor_b) - (a.x + a.q * c.anchor_a)).dot(c.normal);
    deepest = std::max(deepest, -separation);
  }
  return deepest;
}

}  // namespace impetus
