// Contact dynamics with the sequential-impulse baseline: resting, stacking, piles, restitution,
// and bit-identical results across thread counts.
#include <gtest/gtest.h>

#include <cstdlib>

#include <cmath>
#include <cstring>

#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

// Every contact test runs with both solvers: the block solver (default) and the
// sequential-impulse baseline.
class Contact : public ::testing::TestWithParam<SolverType> {
 protected:
  WorldDef default_world(double dt = 1.0 / 240.0) const {
    WorldDef wd;
    wd.dt = dt;
    wd.threads = 1;
    wd.solver = GetParam();
    return wd;
  }
};

double max_speed(const World& world) {
  double v = 0;
  for (int i = 0; i < world.body_count(); ++i) {
    BodyState s = world.body_state(world.body_id(i));
    if (world.body_motion(world.body_id(i)) == MotionType::Dynamic)
      v = std::max(v, s.linear_velocity.norm());
  }
  return v;
}

TEST_P(Contact, SphereRestsOnPlaneAtItsRadius) {
  World world(default_world());
  world.create_body(test::ground_plane());
  BodyId ball = world.create_body(test::make_body("ball", Shape::sphere(0.25), Vec3(0, 0, 1)));
  for (int i = 0; i < 480; ++i) world.step();
  BodyState s = world.body_state(ball);
  EXPECT_NEAR(s.position.z(), 0.25, 0.0025);  // within 1% of the radius
  EXPECT_LT(s.linear_velocity.norm(), 1e-3);
}

TEST_P(Contact, FiveBoxStackDriftsLessThanOneMillimetreInFiveSeconds) {
  World world(default_world());
  world.create_body(test::ground_plane());
  std::vector<BodyId> boxes;
  for (int i = 0; i < 5; ++i) {
    boxes.push_back(world.create_body(
        test::make_body("box" + std::to_string(i), Shape::box(Vec3(0.25, 0.25, 0.25)),
                        Vec3(0, 0, 0.25 + 0.5 * i))));
  }
  const Vec3 top_start = world.body_state(boxes.back()).position;
  double drift = 0;
  for (int i = 0; i < 5 * 240; ++i) {
    world.step();
    drift = std::max(drift, (world.body_state(boxes.back()).position - top_start).norm());
  }
  EXPECT_LT(drift, 1e-3) << "top box drifted " << drift << " m";
  EXPECT_LT(world.stats().max_penetration, 0.005);  // 1% of the 0.5 m box
}

// A small bin of static boxes with a lattice of bodies dropped in; returns the world after
// `seconds`.
void fill_bin(World& world, const Shape& shape, int n, double spacing) {
  const double half = 0.5 * n * spacing + 0.1;
  test::static_bin(world, half, 0.1, 1.0);
  int count = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        // Deterministic small offsets so the pile is not a perfect lattice.
        double jx = 0.01 * std::sin(1.7 * count), jy = 0.01 * std::cos(2.3 * count);
        Vec3 p(-0.5 * (n - 1) * spacing + i * spacing + jx,
               -0.5 * (n - 1) * spacing + j * spacing + jy, 0.3 + k * spacing);
        BodyDef def = test::make_body("b" + std::to_string(count++), shape, p);
        def.orientation = Quat(Eigen::AngleAxisd(0.3 * k + 0.1 * i, Vec3(1, 1, 0).normalized()));
        world.create_body(def);
      }
}

TEST_P(Contact, SpherePileSettlesWithPenetrationBelowOnePercent) {
  World world(default_world());
  fill_bin(world, Shape::sphere(0.1), 5, 0.22);
  for (int i = 0; i < 4 * 240; ++i) world.step();
  EXPECT_LT(world.stats().max_penetration, 0.01 * 0.2);
  EXPECT_LT(max_speed(world), 0.05);
}

TEST_P(Contact, BoxPileSettlesWithPenetrationBelowOnePercent) {
  World world(default_world());
  fill_bin(world, Shape::box(Vec3(0.1, 0.1, 0.1)), 4, 0.36);  // rotated boxes never start overlapping
  for (int i = 0; i < 4 * 240; ++i) world.step();
  EXPECT_LT(world.stats().max_penetration, 0.01 * 0.2);
  EXPECT_LT(max_speed(world), 0.05);
}

TEST_P(Contact, BounceHeightIsRestitutionSquaredTimesDropHeight) {
  for (double e : {0.5, 0.8}) {
    WorldDef wd = default_world(1.0 / 1000.0);
    wd.materials[0].restitution = e;
    World world(wd);
    world.create_body(test::ground_plane());
    const double r = 0.1, drop = 1.0;
    BodyId ball = world.create_body(test::make_body("ball", Shape::sphere(r), Vec3(0, 0, r + drop)));
    // Fall, bounce, and record the apex after the first bounce.
    bool bounced = false;
    double apex = 0;
    for (int i = 0; i < 2000; ++i) {
      world.step();
      BodyState s = world.body_state(ball);
      if (!bounced && s.linear_velocity.z() > 0) bounced = true;
      if (bounced) {
        apex = std::max(apex, s.position.z() - r);
        if (s.linear_velocity.z() < 0) break;
      }
    }
    EXPECT_NEAR(apex, e * e * drop, 0.03 * drop) << "e = " << e;
  }
}

INSTANTIATE_TEST_SUITE_P(Solvers, Contact,
                         ::testing::Values(SolverType::Block, SolverType::SequentialImpulse),
                         [](const ::testing::TestParamInfo<SolverType>& info) {
                           return info.param == SolverType::Block ? "block" : "sequential_impulse";
                         });

std::vector<double> final_state_bits(int threads) {
  WorldDef wd;
  wd.dt = 1.0 / 240.0;
  wd.threads = threads;
  World world(wd);
  fill_bin(world, Shape::box(Vec3(0.1, 0.1, 0.1)), 3, 0.27);
  for (int i = 0; i < 300; ++i) world.step();
  std::vector<double> state;
  for (int i = 0; i < world.body_count(); ++i) {
    BodyState s = world.body_state(world.body_id(i));
    for (double x : {s.position.x(), s.position.y(), s.position.z(), s.orientation.w(),
                     s.orientation.x(), s.orientation.y(), s.orientation.z(),
                     s.linear_velocity.x(), s.linear_velocity.y(), s.linear_velocity.z(),
                     s.angular_velocity.x(), s.angular_velocity.y(), s.angular_velocity.z()})
      state.push_back(x);
  }
  return state;
}

TEST(Determinism, SameBitsForOneToSevenThreadsAndRepeatedRuns) {
  setenv("IMPETUS_IGNORE_LOAD", "1", 1);  // run the parallel path even on a busy machine
  std::vector<double> one = final_state_bits(1);
  for (int threads : {1, 2, 3, 4, 7}) {
    std::vector<double> other = final_state_bits(threads);
    ASSERT_EQ(one.size(), other.size());
    EXPECT_EQ(0, std::memcmp(one.data(), other.data(), one.size() * sizeof(double)))
        << "threads = " << threads;
  }
}

}  // namespace
}  // namespace impetus
