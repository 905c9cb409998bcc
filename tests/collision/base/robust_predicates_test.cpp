#include "collision/base/robust_predicates.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

#include "tests/random_draws.h"

namespace impetus {
namespace {

__extension__ typedef __int128 Int128;

// Exact reference on integer coordinates (|x| < 2^30): differences < 2^31, the triple products
// < 2^93 and their sum fit comfortably in 128 bits.
int reference_sign(const std::array<long long, 3>& a, const std::array<long long, 3>& b,
                   const std::array<long long, 3>& c, const std::array<long long, 3>& p) {
  Int128 u[3], v[3], w[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = b[k] - a[k];
    v[k] = c[k] - a[k];
    w[k] = p[k] - a[k];
  }
  Int128 det = w[0] * (u[1] * v[2] - u[2] * v[1]) + w[1] * (u[2] * v[0] - u[0] * v[2]) +
               w[2] * (u[0] * v[1] - u[1] * v[0]);
  return det > 0 ? 1 : (det < 0 ? -1 : 0);
}

Vec3 to_vec(const std::array<long long, 3>& a) {
  return Vec3(static_cast<double>(a[0]), static_cast<double>(a[1]), static_cast<double>(a[2]));
}

int naive_sign(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& p) {
  double d = (b - a).cross(c - a).dot(p - a);
  return d > 0 ? 1 : (d < 0 ? -1 : 0);
}

TEST(RobustPredicates, MatchesIntegerReferenceOnNearlyCoplanarPoints) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<long long> big(-(1LL << 26), 1LL << 26);
  std::uniform_int_distribution<long long> small(-3, 3);
  int zero = 0, nonzero = 0, naive_wrong = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::array<long long, 3> a{big(rng), big(rng), big(rng)}, b{big(rng), big(rng), big(rng)},
        c{big(rng), big(rng), big(rng)}, p;
    // p on the plane through a, b, c (exactly, in integers), then maybe nudged off it.
    const long long s = small(rng), t = small(rng);
    const bool nudge = trial % 2 == 1;
    for (int k = 0; k < 3; ++k) {
      p[k] = a[k] + s * (b[k] - a[k]) + t * (c[k] - a[k]) + (nudge ? small(rng) : 0);
    }
    const int expected = reference_sign(a, b, c, p);
    const Vec3 va = to_vec(a), vb = to_vec(b), vc = to_vec(c), vp = to_vec(p);
    ASSERT_EQ(orient3d_sign(va, vb, vc, vp), expected) << "trial " << trial;
    // Scaling by a power of two is exact and cannot change the sign.
    const double scale = std::ldexp(1.0, -40);
    ASSERT_EQ(orient3d_sign(va * scale, vb * scale, vc * scale, vp * scale), expected);
    (expected == 0 ? zero : nonzero) += 1;
    if (naive_sign(va, vb, vc, vp) != expected) ++naive_wrong;
  }
  EXPECT_GT(zero, 1000);
  EXPECT_GT(nonzero, 1000);
  // The plain double formula gets a good share of these wrong, so the exact path is exercised.
  EXPECT_GT(naive_wrong, 100);
}

TEST(RobustPredicates, AntisymmetricUnderOddPermutations) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 5000; ++trial) {
    const Vec3 a = test::draw_vec3(u, rng), b = test::draw_vec3(u, rng), c = test::draw_vec3(u, rng);
    // A point computed on the plane in floating point: off it by rounding only.
    const double s_b = u(rng);
    const Vec3 p = a + s_b * (b - a) + u(rng) * (c - a);
    const int s = orient3d_sign(a, b, c, p);
    EXPECT_EQ(orient3d_sign(b, a, c, p), -s);
    EXPECT_EQ(orient3d_sign(a, c, b, p), -s);
    EXPECT_EQ(orient3d_sign(b, c, a, p), s);
    // orient(a,b,c,p) = −orient(a,b,p,c) up to the point roles: det[b−a, c−a, p−a].
    EXPECT_EQ(orient3d_sign(a, b, p, c), -s);
  }
}

TEST(RobustPredicates, ObviousCases) {
  const Vec3 o(0, 0, 0), x(1, 0, 0), y(0, 1, 0);
  EXPECT_EQ(orient3d_sign(o, x, y, Vec3(0, 0, 1)), 1);
  EXPECT_EQ(orient3d_sign(o, x, y, Vec3(0, 0, -1)), -1);
  EXPECT_EQ(orient3d_sign(o, x, y, Vec3(5, -7, 0)), 0);
  EXPECT_EQ(orient3d_sign(o, o, y, Vec3(0, 0, 1)), 0);
  // Tiny offsets far from the origin: 1e6 + 2^-33 is representable and just above the plane.
  const Vec3 big(1e6, 1e6, 1e6);
  EXPECT_EQ(orient3d_sign(big, big + x, big + y, big + Vec3(0.3, 0.3, std::ldexp(1.0, -33))), 1);
}

}  // namespace
}  // namespace impetus
