#pragma once
// Random numbers, vectors and rotations for tests, one draw per statement, x (or w) first. The
// order in which a call's arguments or an operator's operands are evaluated is unspecified, and
// GCC and clang differ: several draws inside one expression give each compiler other cases.
#include <random>

#include "collision/base/math.h"

namespace impetus::test {

/// (d(rng), d(rng), d(rng)), drawn in that order.
template <class Dist, class Rng>
Vec3 draw_vec3(Dist& d, Rng& rng) {
  const double x = d(rng);
  const double y = d(rng);
  const double z = d(rng);
  return Vec3(x, y, z);
}

/// Quat(w, x, y, z) of four draws in that order, not normalised.
template <class Dist, class Rng>
Quat draw_quat(Dist& d, Rng& rng) {
  const double w = d(rng);
  const double x = d(rng);
  const double y = d(rng);
  const double z = d(rng);
  return Quat(w, x, y, z);
}

/// Rotation by angle_scale·d(rng) about the direction of draw_vec3(d, rng) (x if that is
/// nearly zero): the angle is drawn first.
template <class Dist, class Rng>
Quat draw_angle_axis(Dist& d, Rng& rng, double angle_scale) {
  const double angle = angle_scale * d(rng);
  Vec3 axis = draw_vec3(d, rng);
  if (axis.norm() < 1e-3) axis = Vec3::UnitX();
  return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

/// Uniform in [lo, hi).
template <class Rng>
double uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

/// Coordinate k uniform in [lo[k], hi[k]) (exactly lo[k] where they are equal), x first.
template <class Rng>
Vec3 uniform_in_box(Rng& rng, const Vec3& lo, const Vec3& hi) {
  Vec3 v;
  for (int k = 0; k < 3; ++k) v[k] = lo[k] == hi[k] ? lo[k] : uniform(rng, lo[k], hi[k]);
  return v;
}

/// Each coordinate uniform in [lo, hi).
template <class Rng>
Vec3 random_vector(Rng& rng, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  return draw_vec3(d, rng);
}

/// A uniformly distributed unit vector (three normal draws, normalised).
template <class Rng>
Vec3 random_unit(Rng& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  return draw_vec3(g, rng).normalized();
}

/// A uniformly distributed rotation (four normal draws, normalised).
template <class Rng>
Quat random_rotation(Rng& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  return draw_quat(g, rng).normalized();
}

}  // namespace impetus::test
