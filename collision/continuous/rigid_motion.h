#pragma once
// Uniform rigid motion of a body over a time interval (../shared/spec/query-format.md):
// x(t) = x0 + v·t, R(t) = exp([ω]× t)·R0, with t ABSOLUTE (pose0 is the pose at t = 0, even for a
// query over [0.5, 1.5]). Velocities are world-frame and constant; the body rotates about its own
// origin (pose.position). Used by continuous distance (paper 2) and plane TOI (paper 3).
#include "collision/base/math.h"

namespace impetus {

struct RigidMotion {
  Pose pose0;                              // pose at t = 0
  Vec3 linear_velocity = Vec3::Zero();     // v [m/s], world frame
  Vec3 angular_velocity = Vec3::Zero();    // ω [rad/s], world frame

  /// Pose at absolute time t (exact for any |ω| t: the rotation is the exponential map).
  Pose at(double t) const {
    Pose p;
    p.position = pose0.position + linear_velocity * t;
    p.orientation = quat_from_rotation_vector(Vec3(angular_velocity * t)) * pose0.orientation;
    return p;
  }

  /// World velocity of the material point whose world position is `x` at the time of `pose`.
  Vec3 point_velocity(const Pose& pose, const Vec3& x) const {
    return linear_velocity + angular_velocity.cross(Vec3(x - pose.position));
  }
};

}  // namespace impetus
