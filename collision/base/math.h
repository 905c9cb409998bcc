#pragma once
// Math aliases and the rigid pose used everywhere in impetus. Doubles throughout, fixed-size
// Eigen types. Never hold an Eigen expression in `auto` (it keeps references to temporaries).
#include <cmath>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace impetus {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;  // Quat(w, x, y, z); coeffs() is (x, y, z, w)

/// q·v·q⁻¹ for a unit quaternion: the same operations in the same order as Eigen's q * v
/// (u×v doubled, then v + w·uv + u×uv), so results are bit-identical, but in scalars: GCC's
/// vectoriser built Eigen's cross product through two 8-byte stores and a 16-byte load, a
/// store-forwarding stall in every rotation (perf, joint poses: 11% of capsule_chain_50).
inline Vec3 quat_rotate(const Quat& q, const Vec3& v) {
  const double x = q.x(), y = q.y(), z = q.z(), w = q.w();
  double ux = y * v.z() - z * v.y(), uy = z * v.x() - x * v.z(), uz = x * v.y() - y * v.x();
  ux += ux;
  uy += uy;
  uz += uz;
  return Vec3(v.x() + w * ux + (y * uz - z * uy), v.y() + w * uy + (z * ux - x * uz),
              v.z() + w * uz + (x * uy - y * ux));
}

/// Rigid transform: x_world = orientation * x_local + position.
struct Pose {
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();

  Vec3 apply(const Vec3& local) const { return quat_rotate(orientation, local) + position; }
  Vec3 rotate(const Vec3& local) const { return quat_rotate(orientation, local); }
  Vec3 inverse_apply(const Vec3& world) const {
    return quat_rotate(orientation.conjugate(), world - position);
  }
  Vec3 inverse_rotate(const Vec3& world) const { return quat_rotate(orientation.conjugate(), world); }
  /// this ∘ other: first other, then this.
  Pose operator*(const Pose& other) const {
    return Pose{apply(other.position), orientation * other.orientation};
  }
  Pose inverse() const {
    Quat qi = orientation.conjugate();
    return Pose{-quat_rotate(qi, position), qi};
  }
};

/// Skew-symmetric cross-product matrix: skew(a) * b == a.cross(b).
inline Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

/// exp([w]x * t) as a quaternion: rotation by angle |w| t about w. Exact for any |w| t.
inline Quat quat_from_rotation_vector(const Vec3& rv) {
  double angle = rv.norm();
  if (angle < 1e-12) {
    // Second-order series keeps the map smooth at zero.
    Quat q(1.0, 0.5 * rv.x(), 0.5 * rv.y(), 0.5 * rv.z());
    return q.normalized();
  }
  return Quat(Eigen::AngleAxisd(angle, rv / angle));
}

/// Inverse of quat_from_rotation_vector: the rotation vector (axis · angle, angle in [0, π]) of
/// the shorter of the two rotations q and −q describe.
inline Vec3 rotation_vector_from_quat(Quat q) {
  if (q.w() < 0) q.coeffs() = -q.coeffs();  // shortest rotation
  Vec3 v = q.vec();
  double s = v.norm();
  if (s < 1e-12) return 2.0 * v;
  return v * (2.0 * std::atan2(s, q.w()) / s);
}

/// A unit vector orthogonal to n (n need not be unit).
inline Vec3 any_orthogonal(const Vec3& n) {
  Vec3 t = std::abs(n.x()) < 0.57735 ? Vec3(1, 0, 0).cross(n) : Vec3(0, 1, 0).cross(n);
  return t.normalized();
}

inline constexpr double kPi = 3.14159265358979323846;

}  // namespace impetus
