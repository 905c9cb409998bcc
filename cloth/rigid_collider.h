#pragma once
// What a cloth needs to know about a rigid body to collide with it, and the reaction it hands
// back. The caller (the World) fills colliders with each body's pose at the end of the step
// (after the rigid integration) and its velocities, and applies the returned impulses to the
// bodies (Newton's third law: the cloth's momentum change, negated, at the contact point).
#include "collision/shape/shape.h"

namespace impetus {

struct RigidCollider {
  int body = -1;                          // the caller's id, echoed in RigidImpulse::body
  Shape shape;                            // in the body frame
  Pose pose;                              // world pose at the end of the step
  Vec3 linear_velocity = Vec3::Zero();    // of the centre of mass [m/s]
  Vec3 angular_velocity = Vec3::Zero();   // world frame [rad/s]
  Vec3 center_of_mass = Vec3::Zero();     // world, end of the step [m]
  double friction = 0.5;                  // the body material's μ (combined as √(μ_cloth·μ))
  // Dynamic bodies: inverse mass [1/kg] and world inverse inertia (zero for static and
  // kinematic bodies, which the cloth cannot push).
  double inv_mass = 0;
  Mat3 inv_inertia_world = Mat3::Zero();

  /// Velocity of the body's material point at world position p.
  Vec3 point_velocity(const Vec3& p) const {
    return linear_velocity + angular_velocity.cross(p - center_of_mass);
  }

  /// Velocity change of the point p per unit impulse along unit d: dᵀ K d.
  double inverse_mass_along(const Vec3& p, const Vec3& d) const {
    const Vec3 rxd = (p - center_of_mass).cross(d);
    return inv_mass + rxd.dot(inv_inertia_world * rxd);
  }

  /// The pose the body had h seconds earlier, at the start of the step, had it moved with its
  /// end-of-step velocities (what the rigid integration did): the continuous cloth–rigid tests
  /// sweep the body from there to `pose`.
  Pose pose_at_step_start(double h) const {
    const Quat back = quat_from_rotation_vector(Vec3(-h * angular_velocity));
    Pose p;
    p.orientation = (back * pose.orientation).normalized();
    p.position = center_of_mass - h * linear_velocity + back * (pose.position - center_of_mass);
    return p;
  }
};

/// An impulse [N·s] the cloth applied to a rigid body, at a world point.
struct RigidImpulse {
  int body = -1;
  Vec3 point = Vec3::Zero();
  Vec3 impulse = Vec3::Zero();
};

}  // namespace impetus
