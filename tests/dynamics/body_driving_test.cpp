// Driving bodies between steps (engine/world_drive.cpp): forces and torques over one step
// against the closed forms of a free body, kinematic targets reached exactly at the end of the
// step, a box carried by a platform driven by targets, and the velocity setters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "collision/shape/mass_properties.h"
#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

struct StepConfig {
  double dt;
  int substeps;  // exact (auto_substeps off)
};
const StepConfig kConfigs[] = {{1.0 / 240, 1}, {1.0 / 60, 4}, {1.0 / 100, 3}};

WorldDef free_space(const StepConfig& c) {
  WorldDef def;
  def.gravity = Vec3::Zero();
  def.dt = c.dt;
  def.substeps = c.substeps;
  def.auto_substeps = false;
  def.threads = 1;
  return def;
}

// Symplectic Euler under a constant acceleration a, K sub-steps of h from rest:
// v = a K h, x = h² a K(K+1)/2 = ½ a t² + ½ a h t (t = K h): the closed form ½ a t² plus the
// scheme's O(h) lag.
TEST(BodyDriving, ConstantForceAtTheCentreMatchesTheClosedForm) {
  for (const StepConfig& c : kConfigs) {
    World world(free_space(c));
    const BodyId ball = world.create_body(
        test::make_body("ball", Shape::sphere(0.3), Vec3(1, 2, 3)));
    const Vec3 force(3, -2, 5);
    const double m = world.body_mass(ball);
    const int steps = 60;
    for (int k = 0; k < steps; ++k) {
      world.apply_force(ball, force, world.body_state(ball).position);
      world.step();
    }
    const double t = steps * c.dt, h = c.dt / c.substeps;
    const Vec3 a = force / m;
    const BodyState s = world.body_state(ball);
    EXPECT_LT((s.linear_velocity - a * t).norm(), 1e-12 * (a * t).norm()) << "dt " << c.dt;
    const Vec3 closed = Vec3(1, 2, 3) + 0.5 * a * t * t;
    EXPECT_LT((s.position - closed - 0.5 * a * h * t).norm(), 1e-12) << "dt " << c.dt;
    EXPECT_LE((s.position - closed).norm(), (a * h * t).norm()) << "dt " << c.dt;
    EXPECT_LT(s.angular_velocity.norm(), 1e-15);
  }
}

// A cube's inertia is isotropic (I = m s²/6 for side s), so its angular momentum is I ω and the
// gyroscopic term vanishes: L = τ t exactly.
TEST(BodyDriving, ConstantTorqueGivesAngularMomentumTorqueTimesTime) {
  for (const StepConfig& c : kConfigs) {
    World world(free_space(c));
    const double half = 0.25;
    const BodyId cube = world.create_body(
        test::make_body("cube", Shape::box(Vec3::Constant(half)), Vec3::Zero()));
    const double inertia = world.body_mass(cube) * (2 * half) * (2 * half) / 6.0;
    const Vec3 torque(0.3, -0.1, 0.2);
    const int steps = 90;
    for (int k = 0; k < steps; ++k) {
      world.apply_torque(cube, torque);
      world.step();
    }
    const BodyState s = world.body_state(cube);
    const Vec3 momentum = inertia * s.angular_velocity;
    EXPECT_LT((momentum - torque * (steps * c.dt)).norm(), 1e-12 * torque.norm() * steps * c.dt)
        << "dt " << c.dt;
    EXPECT_LT(s.linear_velocity.norm(), 1e-15);
  }
}

TEST(BodyDriving, ForceOffTheCentreAlsoTurnsTheBodyAndIsClearedAfterOneStep) {
  for (const StepConfig& c : kConfigs) {
    World world(free_space(c));
    const double r = 0.3;
    const BodyId ball = world.create_body(test::make_body("ball", Shape::sphere(r), Vec3::Zero()));
    const double m = world.body_mass(ball), inertia = 0.4 * m * r * r;
    const Vec3 force(2, 0, 1), arm(0, 0.3, -0.1);
    // Two calls add up: 2F at the same point.
    world.apply_force(ball, force, arm);
    world.apply_force(ball, force, arm);
    world.step();
    const BodyState one = world.body_state(ball);
    EXPECT_LT((one.linear_velocity - 2 * force * c.dt / m).norm(), 1e-13);
    EXPECT_LT((one.angular_velocity - arm.cross(2 * force) * c.dt / inertia).norm(), 1e-12);
    world.step();
    const BodyState two = world.body_state(ball);
    EXPECT_EQ(two.linear_velocity, one.linear_velocity) << "the force outlived its step";
    EXPECT_EQ(two.angular_velocity, one.angular_velocity);
  }
}

TEST(BodyDriving, ForcesOnStaticAndKinematicBodiesDoNothing) {
  World world(free_space(kConfigs[0]));
  const BodyId wall = world.create_body(
      test::make_body("wall", Shape::box(Vec3::Constant(1)), Vec3::Zero(), MotionType::Static));
  const BodyId lift = world.create_body(
      test::make_body("lift", Shape::box(Vec3::Constant(1)), Vec3(5, 0, 0), MotionType::Kinematic));
  world.apply_force(wall, Vec3(1, 0, 0), Vec3::Zero());
  world.apply_force(lift, Vec3(1, 0, 0), Vec3(5, 1, 0));
  world.apply_torque(lift, Vec3(0, 0, 1));
  world.step();
  EXPECT_EQ(world.body_state(wall).linear_velocity, Vec3::Zero());
  EXPECT_EQ(world.body_state(lift).linear_velocity, Vec3::Zero());
  EXPECT_EQ(world.body_state(lift).angular_velocity, Vec3::Zero());
  EXPECT_EQ(world.body_state(lift).position, Vec3(5, 0, 0));
}

// A ground plane and a box resting on it, stepped until the box sleeps (at most 2.5 s).
BodyId sleeping_box(World& world) {
  world.create_body(test::ground_plane());
  const BodyId box = world.create_body(
      test::make_body("box", Shape::box(Vec3::Constant(0.2)), Vec3(0, 0, 0.2)));
  for (int k = 0; k < 600 && !world.is_asleep(box); ++k) world.step();
  EXPECT_TRUE(world.is_asleep(box));
  return box;
}

TEST(BodyDriving, ForceWakesASleepingBody) {
  WorldDef def;
  def.threads = 1;
  World world(def);
  const BodyId box = sleeping_box(world);
  ASSERT_TRUE(world.is_asleep(box));
  const double m = world.body_mass(box);
  // Four times the friction limit: it slides.
  world.apply_force(box, Vec3(4 * 0.5 * m * 9.81, 0, 0), world.body_state(box).position);
  EXPECT_FALSE(world.is_asleep(box));
  world.step();
  EXPECT_GT(world.body_state(box).linear_velocity.x(), 0.0);
}

// A convex hull whose centre of mass is off its frame origin, so the target of the body frame
// and the velocity of the centre of mass differ.
Shape offset_hull() {
  std::vector<Vec3> points;
  for (int k = 0; k < 8; ++k)
    points.push_back(Vec3(0.3, -0.2, 0.1) + Vec3(k & 1 ? 0.4 : -0.3, k & 2 ? 0.2 : -0.25,
                                                  k & 4 ? 0.15 : -0.1));
  points.push_back(Vec3(0.9, 0.1, 0.0));
  return Shape::convex(std::make_shared<const ConvexHull>(*build_convex_hull(points, nullptr)));
}

// Angle of the shorter rotation from a to b (atan2: accurate near 0 and π alike).
double rotation_angle(const Quat& a, const Quat& b) {
  const Quat r = a.conjugate() * b;
  return 2 * std::atan2(r.vec().norm(), std::abs(r.w()));
}

TEST(BodyDriving, KinematicTargetIsReachedExactlyAtTheEndOfTheStep) {
  const Shape shape = offset_hull();
  const Vec3 com = compute_mass_properties(shape, 1000).center_of_mass;
  ASSERT_GT(com.norm(), 0.1);
  for (const StepConfig& c : kConfigs) {
    WorldDef def = free_space(c);
    def.gravity = Vec3(0, 0, -9.81);
    World world(def);
    const BodyId body = world.create_body(
        test::make_body("lift", shape, Vec3(0, 0, 1), MotionType::Kinematic));
    std::mt19937_64 rng(8);
    std::uniform_real_distribution<double> u(-1, 1);
    std::normal_distribution<double> normal;
    for (int k = 0; k < 30; ++k) {
      const BodyState before = world.body_state(body);
      Vec3 position = before.position;
      for (int i = 0; i < 3; ++i) position[i] += u(rng);
      Quat orientation;
      orientation.w() = normal(rng);
      orientation.x() = normal(rng);
      orientation.y() = normal(rng);
      orientation.z() = normal(rng);
      orientation.normalize();
      world.set_kinematic_target(body, position, orientation);
      // The velocities: the centre of mass's displacement and the shorter rotation, over dt.
      const BodyState set = world.body_state(body);
      const Vec3 com_move = (position + orientation * com) - (before.position + before.orientation * com);
      EXPECT_LT((set.linear_velocity * c.dt - com_move).norm(), 1e-12);
      EXPECT_NEAR(set.angular_velocity.norm() * c.dt, rotation_angle(before.orientation, orientation), 1e-9);
      world.step();
      const BodyState after = world.body_state(body);
      EXPECT_LT((after.position - position).norm(), 1e-12) << "dt " << c.dt << " target " << k;
      EXPECT_LT(std::min((after.orientation.coeffs() - orientation.coeffs()).norm(),
                         (after.orientation.coeffs() + orientation.coeffs()).norm()),
                1e-12)
          << "dt " << c.dt << " target " << k;
    }
  }
}

// A box resting on a kinematic platform that slides and turns (peak accelerations well within
// static friction) rides along: its pose in the platform's frame hardly changes.
TEST(BodyDriving, BoxRidesAKinematicPlatformDrivenByTargets) {
  WorldDef def;
  def.threads = 1;
  World world(def);
  const BodyId platform = world.create_body(
      test::make_body("platform", Shape::box(Vec3(1.5, 1.5, 0.1)), Vec3::Zero(), MotionType::Kinematic));
  const BodyId box = world.create_body(
      test::make_body("box", Shape::box(Vec3::Constant(0.2)), Vec3(0.3, 0.2, 0.3)));
  for (int k = 0; k < 120; ++k) world.step();
  auto relative = [&](const BodyState& p, const BodyState& b) {
    return Pose{p.position, p.orientation}.inverse() * Pose{b.position, b.orientation};
  };
  const Pose rest = relative(world.body_state(platform), world.body_state(box));
  double drift = 0, turn = 0, platform_error = 0, travel = 0, yaw_max = 0;
  for (int k = 1; k <= 480; ++k) {
    const double t = k * def.dt;
    // Starting from rest: a jump in velocity would be an impulse friction cannot pass on.
    const Vec3 position(0.25 * (1 - std::cos(kPi * t)), 0.1 * (1 - std::cos(kPi * t)), 0);
    const double yaw = 0.5 * (1 - std::cos(0.5 * kPi * t));
    const Quat orientation(Eigen::AngleAxisd(yaw, Vec3::UnitZ()));
    world.set_kinematic_target(platform, position, orientation);
    world.step();
    const BodyState p = world.body_state(platform);
    platform_error = std::max(platform_error, (p.position - position).norm());
    travel = std::max(travel, p.position.norm());
    yaw_max = std::max(yaw_max, std::abs(yaw));
    const Pose now = relative(p, world.body_state(box));
    drift = std::max(drift, (now.position - rest.position).norm());
    turn = std::max(turn, rotation_angle(now.orientation, rest.orientation));
  }
  EXPECT_LT(platform_error, 1e-12);
  EXPECT_GT(travel, 0.5);     // the platform went somewhere ...
  EXPECT_GT(yaw_max, 0.9);
  EXPECT_LT(drift, 0.003);     // ... and the box with it (0.5 mm seen)
  EXPECT_LT(turn, 0.005);
}

TEST(BodyDriving, VelocitySettersMoveBodiesWakeThemAndDropTargets) {
  WorldDef def;
  def.threads = 1;
  World world(def);
  const BodyId box = sleeping_box(world);
  ASSERT_TRUE(world.is_asleep(box));
  const BodyId lift = world.create_body(
      test::make_body("lift", Shape::sphere(0.3), Vec3(3, 0, 2), MotionType::Kinematic));
  world.set_linear_velocity(box, Vec3(1, 0, 0));
  EXPECT_FALSE(world.is_asleep(box));
  EXPECT_EQ(world.body_state(box).linear_velocity, Vec3(1, 0, 0));
  world.set_angular_velocity(box, Vec3(0, 0, 3));
  EXPECT_EQ(world.body_state(box).angular_velocity, Vec3(0, 0, 3));
  const double x0 = world.body_state(box).position.x();
  world.step();
  EXPECT_GT(world.body_state(box).position.x(), x0 + 0.5 * def.dt);

  // A kinematic body keeps the velocities it is given; a velocity set after a target wins.
  world.set_kinematic_target(lift, Vec3(10, 10, 10), Quat::Identity());
  world.set_linear_velocity(lift, Vec3(0, 0.5, 0));
  world.set_angular_velocity(lift, Vec3(0, 0, 2));
  const int steps = 48;
  for (int k = 0; k < steps; ++k) world.step();
  const BodyState s = world.body_state(lift);
  EXPECT_LT((s.position - Vec3(3, 0.5 * steps * def.dt, 2)).norm(), 1e-12);
  EXPECT_NEAR(rotation_angle(s.orientation, Quat::Identity()), 2 * steps * def.dt, 1e-9);
}

}  // namespace
}  // namespace impetus
