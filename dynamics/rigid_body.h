#pragma once
// Hot rigid-body state used by the integrator and the solvers. Positions are of the centre of
// mass; the user-facing body frame is recovered with `com_local` (see engine/world.h).
#include <limits>

#include "collision/base/math.h"

namespace impetus {

struct RigidBodySim {
  // Pose of the centre of mass, world frame.
  Vec3 x = Vec3::Zero();               // [m]
  Quat q = Quat::Identity();           // body axes → world
  // Velocities, world frame.
  Vec3 v = Vec3::Zero();               // [m/s]
  Vec3 w = Vec3::Zero();               // [rad/s]
  // Mass properties (zero inverse mass and inertia for static and kinematic bodies).
  double inv_mass = 0;                 // [1/kg]
  Mat3 inertia_local = Mat3::Zero();   // about the COM, body axes [kg m²]
  Mat3 inv_inertia_local = Mat3::Zero();
  Mat3 inv_inertia_world = Mat3::Zero();  // R I⁻¹ Rᵀ, refreshed after every orientation change
  Vec3 com_local = Vec3::Zero();       // centre of mass in the body frame [m]
  bool dynamic = false;                // false: static or kinematic (infinite mass)
  bool moving = false;                 // kinematic or dynamic: its pose changes over time
  double max_step_correction = std::numeric_limits<double>::infinity();  // post-stabilisation
                                       // moves the body at most this far per step [m]
  bool asleep = false;                 // dynamic body of a sleeping island: zero velocity, not
                                       // forced, integrated or solved until its island wakes

  /// Pose of the user's body frame (in which the shape is defined).
  Pose frame_pose() const { return Pose{x - quat_rotate(q, com_local), q}; }
  void refresh_world_inertia() {
    Mat3 r = q.toRotationMatrix();
    inv_inertia_world = r * inv_inertia_local * r.transpose();
  }
  /// Velocity of the material point at world position p.
  Vec3 point_velocity(const Vec3& p) const { return v + w.cross(p - x); }
};

}  // namespace impetus
