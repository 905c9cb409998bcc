// Normal cones (papers/4): containment of merges and continuous cones by sampled directions,
// the tight merge never wider than Provot's, the 5-point cone never wider than Tang's 3-point
// one, and the minimum cone against a brute-force search over axes.
#include <gtest/gtest.h>

#include <array>

#include "cloth/normal_cone.h"
#include "cloth_test_util.h"

namespace impetus {
namespace {

using cloth_test::random_unit;
using cloth_test::random_vec;
using cloth_test::uniform;

// A random direction within `angle` of `axis`.
Vec3 sample_in_cone(std::mt19937_64& rng, const Vec3& axis, double angle) {
  const double c = uniform(rng, std::cos(angle), 1.0);
  const double phi = uniform(rng, 0.0, 2 * kPi);
  const Vec3 e1 = any_orthogonal(axis), e2 = axis.cross(e1);
  const double s = std::sqrt(std::max(0.0, 1 - c * c));
  return c * axis + s * (std::cos(phi) * e1 + std::sin(phi) * e2);
}

// The normal path n_t = n0 + (n1 − n0 − δ) t + δ t² (paper 4, eq. 5) the continuous cones bound.
Vec3 normal_path(const Vec3& n0, const Vec3& n1, const Vec3& delta, double t) {
  return n0 + (n1 - n0 - delta) * t + delta * (t * t);
}

bool contains(const NormalCone& cone, const Vec3& d) {
  return cone.full() || angle_between(cone.axis, d) <= cone.angle + 1e-12;
}

TEST(NormalCone, MergesContainBothChildren) {
  std::mt19937_64 rng(7);
  int strictly_tighter = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    NormalCone c1{random_unit(rng), uniform(rng, 0.0, 1.0)};
    NormalCone c2{random_unit(rng), uniform(rng, 0.0, 1.0)};
    if (trial % 7 == 0) c2.axis = c1.axis;                 // nested or equal axes
    if (trial % 11 == 0) c2.axis = -c1.axis;               // antipodal axes
    if (trial % 13 == 0) c2 = NormalCone{sample_in_cone(rng, c1.axis, 0.1), 0.05};  // inside
    const NormalCone provot = merge_provot(c1, c2);
    const NormalCone tight = merge_tight(c1, c2);
    for (int k = 0; k < 40; ++k) {
      const Vec3 d1 = sample_in_cone(rng, c1.axis, c1.angle);
      const Vec3 d2 = sample_in_cone(rng, c2.axis, c2.angle);
      ASSERT_TRUE(contains(provot, d1) && contains(provot, d2)) << "trial " << trial;
      ASSERT_TRUE(contains(tight, d1) && contains(tight, d2)) << "trial " << trial;
    }
    // The boundary direction of each child farthest from the merged axis.
    for (const NormalCone* merged : {&provot, &tight}) {
      if (merged->full()) continue;
      for (const NormalCone* c : {&c1, &c2}) {
        const Vec3& m = merged->axis;
        Vec3 e = c->axis - c->axis.dot(m) * m;
        if (e.norm() < 1e-9) continue;
        e.normalize();
        const double theta = angle_between(m, c->axis) + c->angle;
        if (theta > kPi) continue;
        const Vec3 far = std::cos(theta) * m + std::sin(theta) * e;
        ASSERT_TRUE(contains(*merged, far)) << "trial " << trial;
      }
    }
    EXPECT_LE(tight.angle, provot.angle + 1e-12) << "trial " << trial;
    if (tight.angle < provot.angle - 1e-6) ++strictly_tighter;
  }
  EXPECT_GT(strictly_tighter, 500);  // the tight merge is usually strictly better
}

TEST(NormalCone, TightMergeKeepsAContainingCone) {
  const NormalCone big{Vec3::UnitZ(), 0.8};
  const NormalCone small{Vec3(0.1, 0, 1).normalized(), 0.2};
  const NormalCone m = merge_tight(big, small);
  EXPECT_EQ(m.angle, big.angle);
  EXPECT_EQ(m.axis, big.axis);
  const NormalCone m2 = merge_tight(small, big);
  EXPECT_EQ(m2.angle, big.angle);
}

TEST(NormalCone, MinimumConeIsMinimalAndContaining) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 center = random_unit(rng);
    const double spread = uniform(rng, 0.05, 1.2);
    std::array<Vec3, 5> pts;
    for (Vec3& p : pts) {
      p = sample_in_cone(rng, center, spread);  // one draw per statement: direction, then length
      p *= uniform(rng, 0.1, 3.0);
    }
    const NormalCone c = minimum_cone(pts);
    ASSERT_FALSE(c.full());
    for (const Vec3& p : pts) EXPECT_LE(angle_between(c.axis, p), c.angle + 1e-12);
    // No sampled axis does better (reference: random axes around the centre, refined).
    double best = kPi;
    Vec3 axis = center;
    for (int k = 0; k < 4000; ++k) {
      const Vec3 a = k < 2000 ? sample_in_cone(rng, center, spread) : sample_in_cone(rng, axis, 0.02);
      double r = 0;
      for (const Vec3& p : pts) r = std::max(r, angle_between(a, p));
      if (r < best) {
        best = r;
        axis = a;
      }
    }
    EXPECT_LE(c.angle, best + 1e-9) << "trial " << trial;
    EXPECT_GE(c.angle, best - 0.02) << "trial " << trial;  // and the reference is close
  }
}

TEST(NormalCone, NormalPathMatchesMovingTriangle) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 100; ++trial) {
    const Vec3 a = random_vec(rng), b = random_vec(rng), c = random_vec(rng);
    const Vec3 va = random_vec(rng), vb = random_vec(rng), vc = random_vec(rng);
    const Vec3 n0 = (b - a).cross(c - a);
    const Vec3 n1 = (b + vb - a - va).cross(c + vc - a - va);
    const Vec3 delta = (vb - va).cross(vc - va);
    for (double t : {0.0, 0.3, 0.5, 0.9, 1.0}) {
      const Vec3 at = a + t * va, bt = b + t * vb, ct = c + t * vc;
      const Vec3 exact = (bt - at).cross(ct - at);
      EXPECT_LT((normal_path(n0, n1, delta, t) - exact).norm(), 1e-12);
    }
  }
}

TEST(NormalCone, ContinuousConesContainThePathAndFivePointIsTighter) {
  std::mt19937_64 rng(5);
  int tighter = 0, usable = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Vec3 a = random_vec(rng), b = random_vec(rng), c = random_vec(rng);
    const double speed = uniform(rng, 0.0, 1.5);
    const Vec3 va = speed * random_vec(rng), vb = speed * random_vec(rng), vc = speed * random_vec(rng);
    const Vec3 n0 = (b - a).cross(c - a);
    const Vec3 n1 = (b + vb - a - va).cross(c + vc - a - va);
    const Vec3 delta = (vb - va).cross(vc - va);
    const NormalCone c3 = continuous_cone_tang3(n0, n1, delta);
    const NormalCone c5 = continuous_cone_5pt(n0, n1, delta);
    for (int k = 0; k <= 1000; ++k) {
      const Vec3 n = normal_path(n0, n1, delta, k / 1000.0);
      if (n.norm() < 1e-12) continue;
      ASSERT_TRUE(contains(c3, n)) << "trial " << trial << " t " << k / 1000.0;
      ASSERT_TRUE(contains(c5, n)) << "trial " << trial << " t " << k / 1000.0;
    }
    if (c3.angle < 0.5 * kPi) {
      ++usable;
      EXPECT_LE(c5.angle, c3.angle + 1e-12) << "trial " << trial;
      if (c5.angle < c3.angle - 1e-6) ++tighter;
    }
  }
  EXPECT_GT(usable, 200);
  EXPECT_GT(tighter, usable / 2);
}

TEST(NormalCone, DegenerateInputsGiveTheFullCone) {
  EXPECT_TRUE(cone_of_direction(Vec3::Zero()).full());
  const std::array<Vec3, 2> with_zero = {Vec3::UnitX(), Vec3::Zero()};
  EXPECT_TRUE(minimum_cone(with_zero).full());
  EXPECT_TRUE(merge_tight(NormalCone{Vec3::UnitX(), kPi}, NormalCone{Vec3::UnitX(), 0}).full());
  // Opposite directions need a half-space (π/2), which cannot cull.
  const NormalCone opp = merge_tight(cone_of_direction(Vec3::UnitX()), cone_of_direction(-Vec3::UnitX()));
  EXPECT_GE(opp.angle, 0.5 * kPi);
}

}  // namespace
}  // namespace impetus
