#pragma once
// Random vectors and quaternions for tests, one draw per statement, x (or w) first. The order
// in which a call's arguments or an operator's operands are evaluated is unspecified, and GCC
// and clang differ: several draws inside one expression give each compiler other test cases.
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

}  // namespace impetus::test
