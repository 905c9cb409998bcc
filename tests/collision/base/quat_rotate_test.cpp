// quat_rotate (collision/base/math.h) promises the very bits of Eigen's q * v, so that moving a
// caller onto it changes no result anywhere. References: Eigen's own rotation, compared
// bitwise, and the rotation matrix (to rounding), over random unit quaternions and vectors of
// very different sizes, plus the identity and half turns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "collision/base/math.h"

namespace impetus {
namespace {

bool same_bits(const Vec3& a, const Vec3& b) { return std::memcmp(a.data(), b.data(), sizeof(double) * 3) == 0; }

TEST(QuatRotate, SameBitsAsEigenAndCloseToTheRotationMatrix) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> exponent(-12.0, 12.0);
  for (int trial = 0; trial < 20000; ++trial) {
    Quat q(normal(rng), normal(rng), normal(rng), normal(rng));
    q.normalize();
    const double scale = std::pow(10.0, exponent(rng));
    const Vec3 v(scale * normal(rng), scale * normal(rng), scale * normal(rng));
    const Vec3 mine = quat_rotate(q, v);
    ASSERT_TRUE(same_bits(mine, q * v)) << "trial " << trial;
    ASSERT_TRUE(same_bits(quat_rotate(q.conjugate(), v), q.conjugate() * v)) << "trial " << trial;
    EXPECT_LE((mine - q.toRotationMatrix() * v).norm(), 1e-14 * v.norm()) << "trial " << trial;
  }
}

TEST(QuatRotate, IdentityAndHalfTurns) {
  const Vec3 v(0.3, -2.0, 5.5);
  EXPECT_TRUE(same_bits(quat_rotate(Quat::Identity(), v), v));
  // Half turn about z: (x, y, z) → (−x, −y, z).
  const Vec3 turned = quat_rotate(Quat(0, 0, 0, 1), v);
  EXPECT_EQ(turned, Vec3(-0.3, 2.0, 5.5));
  const Pose pose{Vec3(1, 2, 3), Quat(0, 1, 0, 0)};  // half turn about x, then a shift
  EXPECT_EQ(pose.apply(v), Vec3(1.3, 4.0, -2.5));
  EXPECT_LE((pose.inverse_apply(pose.apply(v)) - v).norm(), 1e-15 * v.norm());  // the shift rounds
}

}  // namespace
}  // namespace impetus
