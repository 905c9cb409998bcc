// Driving bodies between steps (issue 15): velocities set directly, forces and torques
// accumulated over the next step, kinematic bodies sent to a target pose. The step's side is
// apply_external_forces (in the forces phase) and finish_driving (after the last sub-step).
#include <algorithm>

#include "engine/world_impl.h"
#include "engine/world_validate.h"

namespace impetus {

int World::Impl::check_velocity_change(BodyId id, const Vec3& velocity, const char* function) {
  const int i = check_body(id, function);
  if (!bodies[i].moving) throw_world_misuse(function, "body '" + names[i] + "' is static");
  if (!velocity.allFinite()) throw_world_misuse(function, "velocity must be finite");
  cancel_target(i);
  return i;
}

void World::set_linear_velocity(BodyId id, const Vec3& velocity) {
  const int i = impl_->check_velocity_change(id, velocity, "set_linear_velocity");
  wake_body(id);
  impl_->bodies[i].v = velocity;
}

void World::set_angular_velocity(BodyId id, const Vec3& velocity) {
  const int i = impl_->check_velocity_change(id, velocity, "set_angular_velocity");
  wake_body(id);
  impl_->bodies[i].w = velocity;
}

void World::apply_force(BodyId id, const Vec3& force, const Vec3& point) {
  Impl& w = *impl_;
  const int i = w.check_body(id, "apply_force");
  if (!force.allFinite() || !point.allFinite())
    throw_world_misuse("apply_force", "force and point must be finite");
  if (!w.bodies[i].dynamic) return;  // as apply_impulse: static and kinematic bodies ignore it
  wake_body(id);
  // The lever arm is taken now: the torque about the COM is constant over the step.
  w.forces[i] += force;
  w.torques[i] += (point - w.bodies[i].x).cross(force);
  w.has_forces = true;
}

void World::apply_torque(BodyId id, const Vec3& torque) {
  Impl& w = *impl_;
  const int i = w.check_body(id, "apply_torque");
  if (!torque.allFinite()) throw_world_misuse("apply_torque", "torque must be finite");
  if (!w.bodies[i].dynamic) return;
  wake_body(id);
  w.torques[i] += torque;
  w.has_forces = true;
}

void World::set_kinematic_target(BodyId id, const Vec3& position, const Quat& orientation) {
  Impl& w = *impl_;
  const int i = w.check_body(id, "set_kinematic_target");
  if (w.motions[i] != MotionType::Kinematic)
    throw_world_misuse("set_kinematic_target", "body '" + w.names[i] + "' is not kinematic");
  if (!position.allFinite() || !orientation.coeffs().allFinite() || !(orientation.norm() > 0))
    throw_world_misuse("set_kinematic_target",
                       "position must be finite and the orientation a finite, non-zero quaternion");
  RigidBodySim& b = w.bodies[i];
  const Quat q = orientation.normalized();
  const Vec3 x = position + q * b.com_local;  // the COM at the target
  // The integrator moves x by v·h and turns q by exp(ω h) in each sub-step (integrate_position):
  // over dt they compose to x + v·dt and exp(ω dt)·q, the target when ω dt is the rotation
  // vector of q_target·q⁻¹. finish_driving snaps away the rounding of the sub-steps.
  b.v = (x - b.x) / w.def.dt;
  b.w = rotation_vector_from_quat(q * b.q.conjugate()) / w.def.dt;
  w.kinematic_targets[i] = Pose{x, q};
  if (!w.has_target[i]) ++w.target_count;
  w.has_target[i] = 1;
}

void World::Impl::cancel_target(int body) {
  if (!has_target[body]) return;
  has_target[body] = 0;
  --target_count;
}

void World::Impl::apply_external_forces(double h) {
  // Only bodies with a non-zero force or torque are touched: without any, the step's arithmetic
  // is exactly what it was before forces existed.
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    RigidBodySim& b = bodies[i];
    if (!b.dynamic || b.asleep) continue;
    if (forces[i].squaredNorm() > 0) b.v += (h * b.inv_mass) * forces[i];
    if (torques[i].squaredNorm() > 0) b.w += b.inv_inertia_world * (h * torques[i]);
  }
}

void World::Impl::finish_driving() {
  if (has_forces) {
    std::fill(forces.begin(), forces.end(), Vec3::Zero());
    std::fill(torques.begin(), torques.end(), Vec3::Zero());
    has_forces = false;
  }
  if (target_count == 0) return;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (!has_target[i]) continue;
    RigidBodySim& b = bodies[i];
    b.x = kinematic_targets[i].position;
    b.q = kinematic_targets[i].orientation;
    b.refresh_world_inertia();
    has_target[i] = 0;
  }
  target_count = 0;
}

}  // namespace impetus
