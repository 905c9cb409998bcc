// closest_segment_segment and closest_point_on_segment against brute-force dense sampling: the
// minimum over an (n+1)² grid of parameter pairs is an upper bound of the true distance, and
// exceeds it by at most the grid spacing (|p(s) − q(t)| is Lipschitz in s and t with constants
// |d1| and |d2|). Random, parallel (same and opposite directions, overlapping or not),
// collinear, nearly parallel, crossing and degenerate (point) segments.
#include "collision/distance/segment_closest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/collision/narrowphase/narrowphase_reference.h"

namespace impetus {
namespace {

using testref::random_vector;
using testref::uniform;

constexpr int kGrid = 400;

double sampled_distance(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  double best = 1e300;
  for (int i = 0; i <= kGrid; ++i) {
    const Vec3 p = p0 + (static_cast<double>(i) / kGrid) * (p1 - p0);
    for (int j = 0; j <= kGrid; ++j) {
      best = std::min(best, (p - (q0 + (static_cast<double>(j) / kGrid) * (q1 - q0))).norm());
    }
  }
  return best;
}

// The result is consistent (parameters in [0, 1], points on their segments, distance = |p − q|)
// and within [sampled − spacing, sampled + slack].
void check(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1, const char* what,
           int trial, double slack = 1e-12) {
  const SegmentClosest c = closest_segment_segment(p0, p1, q0, q1);
  ASSERT_GE(c.s, 0.0) << what << " " << trial;
  ASSERT_LE(c.s, 1.0) << what << " " << trial;
  ASSERT_GE(c.t, 0.0) << what << " " << trial;
  ASSERT_LE(c.t, 1.0) << what << " " << trial;
  EXPECT_LT((p0 + c.s * (p1 - p0) - c.p).norm(), 1e-12) << what << " " << trial;
  EXPECT_LT((q0 + c.t * (q1 - q0) - c.q).norm(), 1e-12) << what << " " << trial;
  EXPECT_NEAR(c.distance, (c.p - c.q).norm(), 1e-15) << what << " " << trial;
  const double sampled = sampled_distance(p0, p1, q0, q1);
  const double spacing = ((p1 - p0).norm() + (q1 - q0).norm()) / kGrid;
  EXPECT_LE(c.distance, sampled + slack) << what << " " << trial;
  EXPECT_GE(c.distance, sampled - spacing) << what << " " << trial;
  // Symmetric: swapping the segments gives the same distance.
  EXPECT_NEAR(closest_segment_segment(q0, q1, p0, p1).distance, c.distance, 1e-12)
      << what << " " << trial;
}

TEST(SegmentClosest, RandomPairsMatchSampling) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 200; ++trial) {
    // One draw per statement: argument evaluation order is unspecified.
    const Vec3 p0 = random_vector(rng, -1, 1);
    const Vec3 p1 = random_vector(rng, -1, 1);
    const Vec3 q0 = random_vector(rng, -1, 1);
    const Vec3 q1 = random_vector(rng, -1, 1);
    check(p0, p1, q0, q1, "random", trial);
  }
}

TEST(SegmentClosest, ParallelAndCollinearMatchSampling) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 p0 = random_vector(rng, -1, 1), p1 = random_vector(rng, -1, 1);
    const Vec3 d = p1 - p0;
    // Same or opposite direction, shifted along the line by up to twice the length (so the
    // projections overlap, nest or are disjoint) and sideways (0: collinear).
    const double scale = uniform(rng, -1.5, 1.5);
    const double along = uniform(rng, -2.0, 2.0);
    const Vec3 side = trial % 4 == 0 ? Vec3::Zero() : Vec3(random_vector(rng, -1, 1).cross(d));
    const Vec3 q0 = p0 + along * d + side;
    check(p0, p1, q0, q0 + scale * d, "parallel", trial);
  }
}

TEST(SegmentClosest, NearlyParallelMatchSampling) {
  // Directions within 1e-9..1e-6 rad: around the 1e-7 rad switch to the parallel branch.
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 p0 = random_vector(rng, -1, 1), p1 = random_vector(rng, -1, 1);
    const Vec3 d = p1 - p0;
    const double tilt_size = std::pow(10.0, uniform(rng, -9, -6));
    const Vec3 tilt_direction = random_vector(rng, -1, 1).cross(d).normalized();
    const Vec3 tilt = tilt_size * d.norm() * tilt_direction;
    const double along = uniform(rng, -2.0, 2.0);
    const Vec3 sideways = random_vector(rng, -1, 1).cross(d);
    const Vec3 q0 = p0 + along * d + 0.1 * sideways;
    const Vec3 q1 = q0 + uniform(rng, -1.5, 1.5) * d + tilt;
    check(p0, p1, q0, q1, "nearly parallel", trial);
  }
}

TEST(SegmentClosest, CrossingSegmentsAreAtZero) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 200; ++trial) {
    // Two segments through a common interior point x.
    const Vec3 x = random_vector(rng, -1, 1);
    const Vec3 u = random_vector(rng, -1, 1), v = random_vector(rng, -1, 1);
    const double a = uniform(rng, 0.05, 0.95), b = uniform(rng, 0.05, 0.95);
    const Vec3 p0 = x - a * u, p1 = x + (1 - a) * u, q0 = x - b * v, q1 = x + (1 - b) * v;
    const SegmentClosest c = closest_segment_segment(p0, p1, q0, q1);
    EXPECT_LT(c.distance, 1e-12) << trial;
    EXPECT_LT((c.p - x).norm(), 1e-9) << trial;
    check(p0, p1, q0, q1, "crossing", trial);
  }
  // Nearly parallel crossing segments: the one documented loss, ≤ ~1e-7 × the length.
  for (int trial = 0; trial < 50; ++trial) {
    const Vec3 x = random_vector(rng, -1, 1), u = random_vector(rng, -1, 1);
    const Vec3 v = u + 1e-8 * u.norm() * Vec3(random_vector(rng, -1, 1).cross(u).normalized());
    const Vec3 p0 = x - 0.4 * u, p1 = x + 0.6 * u, q0 = x - 0.7 * v, q1 = x + 0.3 * v;
    EXPECT_LT(closest_segment_segment(p0, p1, q0, q1).distance, 1e-7 * u.norm()) << trial;
  }
}

TEST(SegmentClosest, DegenerateSegmentsMatchSampling) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    const Vec3 a = random_vector(rng, -1, 1), b = random_vector(rng, -1, 1);
    const Vec3 c = random_vector(rng, -1, 1);
    check(a, a, b, c, "point-segment", trial);
    check(b, c, a, a, "segment-point", trial);
    check(a, a, b, b, "point-point", trial);
    const SegmentClosest pp = closest_segment_segment(a, a, b, b);
    EXPECT_EQ(pp.distance, (a - b).norm());
    // The point on a segment: distance 0.
    const Vec3 on = b + uniform(rng, 0, 1) * (c - b);
    EXPECT_LT(closest_segment_segment(on, on, b, c).distance, 1e-12) << trial;
  }
}

TEST(SegmentClosest, PointOnSegmentMatchesSampling) {
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 x = random_vector(rng, -2, 2), a = random_vector(rng, -1, 1);
    const Vec3 b = trial % 10 == 0 ? a : Vec3(random_vector(rng, -1, 1));
    double t = -1;
    const Vec3 p = closest_point_on_segment(x, a, b, &t);
    ASSERT_GE(t, 0.0);
    ASSERT_LE(t, 1.0);
    EXPECT_LT((a + t * (b - a) - p).norm(), 1e-12);
    double best = 1e300;
    for (int i = 0; i <= 10 * kGrid; ++i)
      best = std::min(best, (x - (a + (static_cast<double>(i) / (10 * kGrid)) * (b - a))).norm());
    EXPECT_LE((x - p).norm(), best + 1e-12) << trial;
    EXPECT_GE((x - p).norm(), best - (b - a).norm() / (10 * kGrid)) << trial;
  }
}

}  // namespace
}  // namespace impetus
