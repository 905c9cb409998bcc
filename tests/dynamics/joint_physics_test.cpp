// Articulated bodies with the block solver: closed-form pendulum period, Newton's cradle,
// a long chain that must not gain energy or drift apart, limits, friction on a slope, stacks.
#include <gtest/gtest.h>

#include <cmath>

#include "collision/shape/mass_properties.h"
#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

WorldDef block_world(double dt) {
  WorldDef wd;
  wd.dt = dt;
  wd.threads = 1;
  wd.solver = SolverType::Block;
  return wd;
}

// Bodies by creation index (these worlds never destroy, so the index is the slot and the
// generation 1); b = -1: the world.
JointDef ball_joint(int a, int b, const Vec3& anchor) {
  JointDef j;
  j.type = JointType::Ball;
  j.body_a = BodyId{static_cast<std::uint32_t>(a), 1};
  j.body_b = b < 0 ? BodyId{} : BodyId{static_cast<std::uint32_t>(b), 1};
  j.anchor = anchor;
  return j;
}

TEST(Pendulum, PeriodMatchesPhysicalPendulumClosedForm) {
  const double length = 1.0, radius = 0.05, theta0 = 0.1, g = 9.81;
  World world(block_world(1.0 / 1000.0));
  BodyDef bob = test::make_body(
      "bob", Shape::sphere(radius), Vec3(length * std::sin(theta0), 0, -length * std::cos(theta0)));
  BodyId id = world.create_body(bob);
  world.create_joint(ball_joint(0, -1, Vec3::Zero()));
  // Physical pendulum: T0 = 2π √(I_pivot / (m g L)), I_pivot = (2/5) m r² + m L², with the
  // finite-amplitude correction 1 + θ0²/16.
  const double t0 = 2 * kPi * std::sqrt((0.4 * radius * radius + length * length) / (g * length));
  const double expected = t0 * (1 + theta0 * theta0 / 16);
  // Time successive upward zero crossings of x (linear interpolation).
  std::vector<double> crossings;
  double prev_x = world.body_state(id).position.x();
  for (int i = 0; i < 9000 && crossings.size() < 4; ++i) {
    world.step();
    double x = world.body_state(id).position.x();
    if (prev_x < 0 && x >= 0) crossings.push_back(world.time() - 1e-3 * x / (x - prev_x));
    prev_x = x;
  }
  ASSERT_EQ(crossings.size(), 4u);
  const double period = (crossings[3] - crossings[0]) / 3.0;
  EXPECT_NEAR(period, expected, 0.002 * expected);
  EXPECT_LT(world.stats().joint_error_max, 1e-4);
}

TEST(NewtonsCradle, MomentumPassesThroughTheRow) {
  const double r = 0.1, length = 1.0;
  WorldDef wd = block_world(1.0 / 1000.0);
  wd.materials[0].restitution = 1.0;
  wd.materials[0].friction = 0.0;
  World world(wd);
  const int n = 5;
  for (int i = 0; i < n; ++i) {
    Vec3 pivot(2 * r * i, 0, length);
    Vec3 p = pivot - Vec3(0, 0, length);
    if (i == 0) p = pivot + length * Vec3(-std::sin(0.4), 0, -std::cos(0.4));
    world.create_body(test::make_body("ball" + std::to_string(i), Shape::sphere(r), p));
    world.create_joint(ball_joint(i, -1, pivot));
  }
  const double v_impact = std::sqrt(2 * 9.81 * length * (1 - std::cos(0.4)));
  // Run until just after the first impact settles, then look at the speeds.
  double first_speed_after = 1e9, last_speed_after = 0;
  bool impacted = false;
  for (int i = 0; i < 1500; ++i) {
    world.step();
    double v_last = world.body_state(world.body_id(n - 1)).linear_velocity.x();
    if (!impacted && v_last > 0.5 * v_impact) impacted = true;
    if (impacted) {
      first_speed_after = std::abs(world.body_state(world.body_id(0)).linear_velocity.x());
      last_speed_after = v_last;
      break;
    }
  }
  ASSERT_TRUE(impacted);
  EXPECT_GT(last_speed_after, 0.95 * v_impact);
  EXPECT_LT(first_speed_after, 0.05 * v_impact);
  for (int i = 1; i < n - 1; ++i)
    EXPECT_LT(std::abs(world.body_state(world.body_id(i)).linear_velocity.x()), 0.05 * v_impact);
}

TEST(Chain, FiftyLinksNeverGainEnergyAndKeepJointErrorTiny) {
  World world(block_world(0.002));
  const int n = 50;
  const double half = 0.07, radius = 0.03, link = 0.2;
  for (int i = 0; i < n; ++i) {
    BodyDef def = test::make_body("link" + std::to_string(i), Shape::capsule(radius, half),
                                  Vec3(link * (i + 0.5), 0, 12));
    def.orientation = Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitY()));
    world.create_body(def);
    world.create_joint(ball_joint(i, i == 0 ? -1 : i - 1, Vec3(link * i, 0, 12)));
  }
  const double e0 = world.total_energy();
  double e_max = e0;
  for (int i = 0; i < 1000; ++i) {
    world.step();
    e_max = std::max(e_max, world.total_energy());
  }
  EXPECT_LE(e_max, e0 + 1e-6 * std::abs(e0) + 1e-6);
  EXPECT_LT(world.stats().joint_error_max, 1e-4 * n * link);
  EXPECT_EQ(world.status(), WorldStatus::Ok);
}

TEST(HingeLimit, StopsAtItsLimit) {
  World world(block_world(1.0 / 240.0));
  BodyDef bar = test::make_body("bar", Shape::box(Vec3(0.5, 0.05, 0.05)), Vec3(0.5, 0, 0));
  const BodyId bar_id = world.create_body(bar);
  JointDef hinge;
  hinge.type = JointType::Hinge;
  hinge.body_a = bar_id;
  hinge.anchor = Vec3::Zero();
  hinge.axis = Vec3::UnitY();
  hinge.limits = std::array<double, 2>{-0.5, 0.5};
  world.create_joint(hinge);
  // Gravity swings the bar down: rotation about +y by a positive angle takes +x to −z.
  double max_angle = 0;
  for (int i = 0; i < 480; ++i) {
    world.step();
    BodyState s = world.body_state(world.body_id(0));
    Vec3 dir = s.orientation * Vec3::UnitX();
    max_angle = std::max(max_angle, std::atan2(-dir.z(), dir.x()));
  }
  EXPECT_NEAR(max_angle, 0.5, 0.01);
  EXPECT_LT(world.stats().joint_error_max, 1e-3);
}

struct SlopeSlide {
  double acceleration = 0;  // down the slope, over the last second [m/s²]
  double yaw = 0;           // largest turn about the slope normal [rad]
  double sideways = 0;      // largest excursion across the slope [m]
};

// A box turned 30° about the slope normal (so its corners are not symmetric about the
// direction of motion) on a slope given as tilted gravity.
SlopeSlide slide_on_slope(double slope, double mu, SolverType solver) {
  WorldDef wd = block_world(1.0 / 240.0);
  wd.solver = solver;
  wd.materials[0].friction = mu;
  wd.gravity = 9.81 * Vec3(std::sin(slope), 0, -std::cos(slope));  // the slope as a tilted g
  World world(wd);
  world.create_body(test::ground_plane());
  BodyDef def = test::make_body("box", Shape::box(Vec3(0.3, 0.2, 0.1)), Vec3(0, 0, 0.1));
  def.orientation = Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ()));
  BodyId box = world.create_body(def);
  SlopeSlide result;
  auto track = [&] {
    world.step();
    const BodyState s = world.body_state(box);
    const Vec3 x = (s.orientation * def.orientation.conjugate()) * Vec3::UnitX();
    result.yaw = std::max(result.yaw, std::abs(std::atan2(x.y(), x.x())));
    result.sideways = std::max(result.sideways, std::abs(s.position.y()));
  };
  for (int i = 0; i < 120; ++i) track();
  double v0 = world.body_state(box).linear_velocity.x();
  for (int i = 0; i < 240; ++i) track();
  result.acceleration = (world.body_state(box).linear_velocity.x() - v0) / 1.0;
  return result;
}

TEST(Friction, BoxOnSlopeSticksBelowTanThetaAndSlidesAboveWithClosedFormAccelerationWithoutTurning) {
  const double mu = 0.5;
  for (SolverType solver : {SolverType::Block, SolverType::SequentialImpulse}) {
    SCOPED_TRACE(solver == SolverType::Block ? "block" : "sequential_impulse");
    SlopeSlide stick = slide_on_slope(std::atan(mu) - 0.1, mu, solver);
    EXPECT_NEAR(stick.acceleration, 0.0, 1e-3);
    const double slope = std::atan(mu) + 0.15;
    double expected = 9.81 * (std::sin(slope) - mu * std::cos(slope));
    SlopeSlide slide = slide_on_slope(slope, mu, solver);
    EXPECT_NEAR(slide.acceleration, expected, 0.02 * expected);
    // Friction opposes the velocity at every corner: the box slides straight down, unturned.
    for (const SlopeSlide& s : {stick, slide}) {
      EXPECT_LT(s.yaw, 0.5 * kPi / 180);
      EXPECT_LT(s.sideways, 1e-3);
    }
  }
}

TEST(Stack, TenBoxesDriftLessThanOneMillimetreInTenSeconds) {
  World world(block_world(1.0 / 240.0));
  world.create_body(test::ground_plane());
  for (int i = 0; i < 10; ++i)
    world.create_body(test::make_body("box" + std::to_string(i), Shape::box(Vec3(0.25, 0.25, 0.25)),
                                      Vec3(0, 0, 0.25 + 0.5 * i)));
  const Vec3 top = world.body_state(world.body_id(10)).position;
  double drift = 0;
  for (int i = 0; i < 2400; ++i) {
    world.step();
    drift = std::max(drift, (world.body_state(world.body_id(10)).position - top).norm());
  }
  EXPECT_LT(drift, 1e-3);
}

TEST(Restitution, BlockSolverBounceHeightIsESquaredH) {
  for (double e : {0.5, 0.8}) {
    WorldDef wd = block_world(1.0 / 1000.0);
    wd.materials[0].restitution = e;
    World world(wd);
    world.create_body(test::ground_plane());
    BodyId ball = world.create_body(test::make_body("ball", Shape::sphere(0.1), Vec3(0, 0, 1.1)));
    bool bounced = false;
    double apex = 0;
    for (int i = 0; i < 2000; ++i) {
      world.step();
      BodyState s = world.body_state(ball);
      if (!bounced && s.linear_velocity.z() > 0) bounced = true;
      if (bounced) {
        apex = std::max(apex, s.position.z() - 0.1);
        if (s.linear_velocity.z() < 0) break;
      }
    }
    EXPECT_NEAR(apex, e * e * 1.0, 0.03) << "e = " << e;
  }
}

}  // namespace
}  // namespace impetus
