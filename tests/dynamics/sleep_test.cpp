// Sleeping islands (engine/world_sleep.cpp): resting islands fall asleep and stop changing bit
// for bit; contacts with awake bodies, moving kinematic bodies and the public API wake them;
// moving bodies never sleep; the switch turns it off; results do not depend on thread count.
// References are closed forms (rest heights, uniform sliding, pendulum energy) and the exact
// bits of the state before and after.
#include <gtest/gtest.h>

#include <cstdlib>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

constexpr double kDt = 1.0 / 240.0;
constexpr double kG = 9.81;

// "prefix" + number, appended (GCC 12 warns falsely on `"literal" + std::string`, PR 105329).
std::string numbered(const char* prefix, int i) {
  std::string name(prefix);
  name += std::to_string(i);
  return name;
}

bool same_bits(const BodyState& a, const BodyState& b) {
  return std::memcmp(a.position.data(), b.position.data(), 3 * sizeof(double)) == 0 &&
         std::memcmp(a.orientation.coeffs().data(), b.orientation.coeffs().data(),
                     4 * sizeof(double)) == 0 &&
         std::memcmp(a.linear_velocity.data(), b.linear_velocity.data(), 3 * sizeof(double)) == 0 &&
         std::memcmp(a.angular_velocity.data(), b.angular_velocity.data(), 3 * sizeof(double)) == 0;
}

class Sleep : public ::testing::TestWithParam<SolverType> {
 protected:
  WorldDef world_def(int threads = 1) const {
    WorldDef wd;
    wd.dt = kDt;
    wd.threads = threads;
    wd.solver = GetParam();
    return wd;
  }
};

// Steps until `body` is asleep or `seconds` have passed; returns the steps taken, -1 if never.
int steps_until_asleep(World& world, BodyId body, double seconds) {
  const int n = static_cast<int>(std::lround(seconds / kDt));
  for (int i = 1; i <= n; ++i) {
    world.step();
    if (world.is_asleep(body)) return i;
  }
  return -1;
}

std::vector<BodyId> make_stack(World& world, int count, double half) {
  std::vector<BodyId> boxes;
  for (int i = 0; i < count; ++i) {
    boxes.push_back(world.create_body(test::make_body(
        numbered("box", i), Shape::box(Vec3(half, half, half)), Vec3(0, 0, half + 2 * half * i))));
  }
  return boxes;
}

TEST_P(Sleep, BoxOnPlaneFallsAsleepAndStopsChangingBitForBit) {
  World world(world_def());
  world.create_body(test::ground_plane());
  BodyId box = world.create_body(
      test::make_body("box", Shape::box(Vec3(0.2, 0.3, 0.1)), Vec3(0, 0, 0.1 + 0.01)));
  const int steps = steps_until_asleep(world, box, 1.25);
  ASSERT_GT(steps, 0) << "the box never fell asleep";
  // Not before it has rested for sleep_delay (0.5 s) after landing (a 1 cm drop takes 45 ms).
  EXPECT_GE(steps * kDt, world.def().sleep_delay);
  const BodyState rest = world.body_state(box);
  EXPECT_NEAR(rest.position.z(), 0.1, 1e-3);  // rests on its half height
  EXPECT_EQ(rest.linear_velocity, Vec3::Zero());
  EXPECT_EQ(rest.angular_velocity, Vec3::Zero());
  EXPECT_EQ(world.stats().bodies_asleep, 1);
  const long long slept_before = world.stats().sleeping_body_steps;
  for (int i = 0; i < 240; ++i) {
    world.step();
    ASSERT_TRUE(world.is_asleep(box)) << "woke up by itself at step " << i;
    ASSERT_TRUE(same_bits(world.body_state(box), rest)) << "pose changed at step " << i;
  }
  EXPECT_EQ(world.stats().sleeping_body_steps, slept_before + 240);
  EXPECT_EQ(world.contact_count(), 0);  // no narrowphase and no solver rows while asleep
}

TEST_P(Sleep, SleepingStackKeepsItsEnergyAndPenetrationStats) {
  World world(world_def());
  world.create_body(test::ground_plane());
  std::vector<BodyId> boxes = make_stack(world, 4, 0.25);
  ASSERT_GT(steps_until_asleep(world, boxes.back(), 2.0), 0);
  for (BodyId b : boxes) EXPECT_TRUE(world.is_asleep(b));
  // Asleep, the energy is the potential energy alone: Σ m g z with m = 1000 kg/m³ · 0.125 m³.
  double potential = 0;
  for (BodyId b : boxes) potential += 125.0 * kG * world.body_state(b).position.z();
  EXPECT_NEAR(world.total_energy(), potential, 1e-9 * potential);
  // ... and the rest heights are the stacked half extents.
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(world.body_state(boxes[i]).position.z(), 0.25 + 0.5 * i, 2e-3) << i;
  const double energy = world.total_energy();
  const double penetration = world.stats().max_penetration;
  for (int i = 0; i < 120; ++i) world.step();
  EXPECT_EQ(world.total_energy(), energy);
  EXPECT_EQ(world.stats().max_penetration, penetration);
  EXPECT_LT(penetration, 0.005);
}

TEST_P(Sleep, BallThrownAtSleepingStackWakesItAndMovesTheTopBox) {
  World world(world_def());
  world.create_body(test::ground_plane());
  std::vector<BodyId> boxes = make_stack(world, 3, 0.25);
  ASSERT_GT(steps_until_asleep(world, boxes.back(), 2.0), 0);
  for (BodyId b : boxes) ASSERT_TRUE(world.is_asleep(b));
  const BodyState top_rest = world.body_state(boxes.back());

  // A heavy ball (density 8000, like steel, 33.5 kg) thrown at the top box's side (the box is
  // 125 kg): after an inelastic hit the box starts at ≈ 4·33.5/158.5 ≈ 0.85 m/s and friction
  // (μg ≈ 4.9 m/s²) stops it after several centimetres.
  BodyDef ball_def = test::make_body("ball", Shape::sphere(0.1), Vec3(-0.5, 0, 1.35));
  ball_def.mass = 8000.0 * 4.0 / 3.0 * M_PI * 0.001;
  ball_def.linear_velocity = Vec3(4, 0, 0);
  BodyId ball = world.create_body(ball_def);
  EXPECT_FALSE(world.is_asleep(ball));
  bool woke = false;
  double moved = 0;
  for (int i = 0; i < 120; ++i) {
    world.step();
    woke = woke || !world.is_asleep(boxes.back());
    moved = std::max(moved, (world.body_state(boxes.back()).position - top_rest.position).norm());
  }
  EXPECT_TRUE(woke);
  for (BodyId b : boxes) EXPECT_FALSE(world.is_asleep(b)) << "the whole island wakes";
  EXPECT_GT(moved, 0.02) << "the top box did not move";
  EXPECT_GT(world.body_state(boxes.back()).position.x(), 0.02);  // pushed away from the ball
  EXPECT_LT(world.stats().max_penetration, 0.01);
}

TEST_P(Sleep, BallDroppedOnSleepingStackWakesItAndComesToRestOnTop) {
  World world(world_def());
  world.create_body(test::ground_plane());
  std::vector<BodyId> boxes = make_stack(world, 3, 0.25);
  ASSERT_GT(steps_until_asleep(world, boxes.back(), 2.0), 0);
  // Dropped from 0.3 m above the top face: the contact with the sleeping box must be found
  // and solved in the step the stack wakes, or the ball sinks into it.
  BodyId ball = world.create_body(test::make_body("ball", Shape::sphere(0.1), Vec3(0, 0, 1.5 + 0.1 + 0.3)));
  bool woke = false;
  for (int i = 0; i < 240; ++i) {
    world.step();
    woke = woke || !world.is_asleep(boxes.front());
  }
  EXPECT_TRUE(woke) << "the bottom box never woke: the island did not wake whole";
  EXPECT_NEAR(world.body_state(ball).position.z(), 1.6, 3e-3);  // resting on the top face
  EXPECT_LT(world.stats().max_penetration, 0.005);
  // ... and then the whole stack, ball included, falls asleep again.
  EXPECT_GT(steps_until_asleep(world, ball, 1.5), 0);
  for (BodyId b : boxes) EXPECT_TRUE(world.is_asleep(b));
}

TEST_P(Sleep, SlowSteadySlidingNeverSleeps) {
  // Frictionless floor: the box slides at a constant 0.06 m/s, twice the sleep speed.
  WorldDef wd = world_def();
  wd.materials[0].friction = 0;
  World world(wd);
  world.create_body(test::ground_plane());
  BodyDef def = test::make_body("box", Shape::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0, 0.1));
  def.linear_velocity = Vec3(0.06, 0, 0);
  BodyId box = world.create_body(def);
  const int steps = 3 * 240;
  for (int i = 0; i < steps; ++i) {
    world.step();
    ASSERT_FALSE(world.is_asleep(box)) << "fell asleep at step " << i;
  }
  EXPECT_NEAR(world.body_state(box).position.x(), 0.06 * steps * kDt, 2e-3);
  EXPECT_EQ(world.stats().sleeping_body_steps, 0);
}

TEST_P(Sleep, PendulumAtItsTurningPointNeverSleeps) {
  // A 1 m pendulum (ball joint to the world) released at 60°: its speed is ~0 at each turning
  // point for only a few milliseconds, far below the 0.5 s the island must rest.
  World world(world_def());
  const double length = 1.0, angle = M_PI / 3;
  const Vec3 pivot(0, 0, 2);
  BodyId bob = world.create_body(test::make_body(
      "bob", Shape::sphere(0.05), pivot + length * Vec3(std::sin(angle), 0, -std::cos(angle))));
  JointDef joint;
  joint.type = JointType::Ball;
  joint.body_a = bob;
  joint.anchor = pivot;
  world.create_joint(joint);
  double min_height_of_top = 1e9, top = -1e9, previous_vx = 0;
  int turning_points = 0;
  for (int i = 0; i < 4 * 240; ++i) {
    world.step();
    ASSERT_FALSE(world.is_asleep(bob)) << "fell asleep at step " << i;
    BodyState s = world.body_state(bob);
    top = std::max(top, s.position.z());
    if (i > 0 && (s.linear_velocity.x() > 0) != (previous_vx > 0)) {
      ++turning_points;
      min_height_of_top = std::min(min_height_of_top, top);
      top = -1e9;
    }
    previous_vx = s.linear_velocity.x();
  }
  EXPECT_GE(turning_points, 3);  // period 2π√(L/g) ≈ 2 s: several turns in 4 s
  // Closed form: it keeps swinging up to (nearly) its release height 2 − cos 60° = 1.5 m.
  EXPECT_GT(min_height_of_top, pivot.z() - length * std::cos(angle) - 0.05);
}

TEST_P(Sleep, SetVelocityApplyImpulseAndWakeBodyWakeASleepingBody) {
  WorldDef wd = world_def();
  World world(wd);
  world.create_body(test::ground_plane());
  BodyId a = world.create_body(test::make_body("a", Shape::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0, 0.1)));
  BodyId b = world.create_body(test::make_body("b", Shape::box(Vec3(0.1, 0.1, 0.1)), Vec3(2, 0, 0.1)));
  BodyId c = world.create_body(test::make_body("c", Shape::box(Vec3(0.1, 0.1, 0.1)), Vec3(-2, 0, 0.1)));
  ASSERT_GT(steps_until_asleep(world, a, 1.25), 0);
  for (BodyId id : {a, b, c}) ASSERT_TRUE(world.is_asleep(id));
  const double xa = world.body_state(a).position.x();
  const double xb = world.body_state(b).position.x();

  BodyState s = world.body_state(a);
  s.linear_velocity = Vec3(1, 0, 0);
  world.set_body_state(a, s);
  EXPECT_FALSE(world.is_asleep(a));
  world.apply_impulse(b, Vec3(0, 0, 0.5 * 8.0), world.body_state(b).position);  // 8 kg, +0.5 m/s up
  EXPECT_FALSE(world.is_asleep(b));
  EXPECT_NEAR(world.body_state(b).linear_velocity.z(), 0.5, 1e-12);
  world.wake_body(c);
  EXPECT_FALSE(world.is_asleep(c));
  for (int i = 0; i < 24; ++i) world.step();
  EXPECT_GT(world.body_state(a).position.x() - xa, 0.02);  // 0.1 s at ≤ 1 m/s, less friction
  EXPECT_FALSE(world.is_asleep(a));
  EXPECT_NEAR(world.body_state(b).position.x(), xb, 1e-6);
  // c was only woken: no disturbance, so it falls asleep again after another rest period.
  EXPECT_FALSE(world.is_asleep(c));
  EXPECT_GT(steps_until_asleep(world, c, 1.0), 0);
}

TEST_P(Sleep, MovingKinematicBodyWakesASleepingBody) {
  World world(world_def());
  world.create_body(test::ground_plane());
  BodyId box = world.create_body(test::make_body("box", Shape::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0, 0.1)));
  BodyDef pusher = test::make_body("pusher", Shape::box(Vec3(0.1, 0.1, 0.1)), Vec3(-0.5, 0, 0.15),
                                   MotionType::Kinematic);
  BodyId kin = world.create_body(pusher);
  ASSERT_GT(steps_until_asleep(world, box, 1.25), 0);
  // A resting kinematic body does not keep it awake; once it moves into the box, it wakes it.
  for (int i = 0; i < 24; ++i) world.step();
  EXPECT_TRUE(world.is_asleep(box));
  BodyState s = world.body_state(kin);
  s.linear_velocity = Vec3(0.5, 0, 0);
  world.set_body_state(kin, s);
  EXPECT_TRUE(world.is_asleep(box)) << "setting another body's state must not wake it";
  for (int i = 0; i < 240; ++i) world.step();
  EXPECT_FALSE(world.is_asleep(box));
  // The pusher's face started 0.3 m from the box and moved 0.5 m: the box was pushed ~0.2 m.
  EXPECT_GT(world.body_state(box).position.x(), 0.15);
}

TEST_P(Sleep, BoxPushedSlowerThanTheSleepSpeedByAKinematicBodyNeverSleeps) {
  // A kinematic pusher in contact moves the box at a third of the sleep speed for 3 s, six
  // times the sleep delay: the box is slow enough to sleep by its own speed, but a body pushed
  // by a moving kinematic body is not at rest. It stays awake and keeps pace with the pusher.
  World world(world_def());
  world.create_body(test::ground_plane());
  const double half = 0.1;
  BodyId box = world.create_body(test::make_body("box", Shape::box(Vec3(half, half, half)), Vec3(0, 0, half)));
  const double speed = WorldDef().sleep_speed / 3;
  BodyDef pusher = test::make_body("pusher", Shape::box(Vec3(half, half, half)), Vec3(-2 * half, 0, half + 0.02),
                                   MotionType::Kinematic);
  pusher.linear_velocity = Vec3(speed, 0, 0);
  BodyId kin = world.create_body(pusher);
  const double seconds = 3.0;
  EXPECT_EQ(steps_until_asleep(world, box, seconds), -1);
  // The pusher's face started touching the box's: the box has moved with it.
  const double pusher_moved = world.body_state(kin).position.x() + 2 * half;
  EXPECT_NEAR(pusher_moved, speed * seconds, 1e-9);
  EXPECT_NEAR(world.body_state(box).position.x(), pusher_moved, 0.2 * pusher_moved);
}

TEST_P(Sleep, SleepingJointedChainStaysPutWhileAnotherIslandSwings) {
  // A 3-capsule chain (hinges) lies on the floor and falls asleep; a separate pendulum keeps
  // swinging. Exercises the solvers' skipping of sleeping joints next to awake ones.
  World world(world_def());
  world.create_body(test::ground_plane());
  const Quat along_x(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));
  std::vector<BodyId> links;
  for (int i = 0; i < 3; ++i) {
    BodyDef d = test::make_body(numbered("link", i), Shape::capsule(0.05, 0.1),
                                Vec3(0.3 * i, 0, 0.05));
    d.orientation = along_x;
    links.push_back(world.create_body(d));
  }
  for (int i = 0; i < 2; ++i) {
    JointDef j;
    j.type = JointType::Hinge;
    j.body_a = links[i + 1];
    j.body_b = links[i];
    j.anchor = Vec3(0.3 * i + 0.15, 0, 0.05);
    j.axis = Vec3::UnitY();
    world.create_joint(j);
  }
  BodyId bob = world.create_body(test::make_body("bob", Shape::sphere(0.05), Vec3(3.5, 0, 2)));
  JointDef pivot;
  pivot.body_a = bob;
  pivot.anchor = Vec3(3, 0, 2);
  world.create_joint(pivot);
  ASSERT_GT(steps_until_asleep(world, links[1], 1.5), 0);
  for (BodyId l : links) ASSERT_TRUE(world.is_asleep(l));
  std::vector<BodyState> rest;
  for (BodyId l : links) rest.push_back(world.body_state(l));
  for (int i = 0; i < 240; ++i) {
    world.step();
    ASSERT_FALSE(world.is_asleep(bob));
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(same_bits(world.body_state(links[k]), rest[k])) << k;
  }
  // The pendulum still obeys its joint: 0.5 m from the pivot.
  EXPECT_NEAR((world.body_state(bob).position - pivot.anchor).norm(), 0.5, 5e-3);
  EXPECT_LT(world.stats().joint_error_max, 5e-3);
}

TEST_P(Sleep, WithSleepOffNothingSleeps) {
  WorldDef wd = world_def();
  wd.sleep = false;
  World world(wd);
  world.create_body(test::ground_plane());
  std::vector<BodyId> boxes = make_stack(world, 3, 0.25);
  for (int i = 0; i < 2 * 240; ++i) {
    world.step();
    for (BodyId b : boxes) ASSERT_FALSE(world.is_asleep(b));
  }
  EXPECT_EQ(world.stats().bodies_asleep, 0);
  EXPECT_EQ(world.stats().sleeping_body_steps, 0);
  EXPECT_NEAR(world.body_state(boxes.back()).position.z(), 1.25, 2e-3);
}

// A small pile (27 boxes into a bin) plus a late ball that wakes part of it: the final states,
// and when each body slept, are bit-identical for 1, 2, 3, 4 and 7 threads.
std::vector<BodyState> run_pile(SolverType solver, int threads, long long* slept) {
  WorldDef wd;
  wd.dt = kDt;
  wd.threads = threads;
  wd.solver = solver;
  World world(wd);
  world.create_body(test::make_body("floor", Shape::box(Vec3(1, 1, 0.1)), Vec3(0, 0, -0.1),
                                    MotionType::Static));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        const Vec3 p(0.23 * i - 0.23 + 0.01 * k, 0.23 * j - 0.23 - 0.007 * k, 0.1 + 0.25 * k);
        world.create_body(test::make_body(numbered("b", i * 9 + j * 3 + k),
                                          Shape::box(Vec3(0.1, 0.1, 0.1)), p));
      }
  for (int s = 0; s < 360; ++s) world.step();
  BodyDef ball = test::make_body("ball", Shape::sphere(0.08), Vec3(0.05, 0.02, 1.2));
  ball.linear_velocity = Vec3(0, 0, -2);
  world.create_body(ball);
  for (int s = 0; s < 240; ++s) world.step();
  *slept = world.stats().sleeping_body_steps;
  std::vector<BodyState> out;
  for (int i = 0; i < world.body_count(); ++i) out.push_back(world.body_state(world.body_id(i)));
  return out;
}

TEST_P(Sleep, PileIsBitIdenticalForAnyThreadCount) {
  setenv("IMPETUS_IGNORE_LOAD", "1", 1);  // run the parallel path even on a busy machine
  long long slept1 = 0;
  std::vector<BodyState> one = run_pile(GetParam(), 1, &slept1);
  EXPECT_GT(slept1, 0) << "nothing slept: the test would not exercise sleeping";
  for (int threads : {2, 3, 4, 7}) {
    long long slept = 0;
    std::vector<BodyState> other = run_pile(GetParam(), threads, &slept);
    EXPECT_EQ(slept1, slept) << threads << " threads";
    ASSERT_EQ(one.size(), other.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
      EXPECT_TRUE(same_bits(one[i], other[i])) << "body " << i << ", " << threads << " threads";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothSolvers, Sleep,
                         ::testing::Values(SolverType::Block, SolverType::SequentialImpulse),
                         [](const ::testing::TestParamInfo<SolverType>& info) {
                           return info.param == SolverType::Block ? "Block" : "SequentialImpulse";
                         });

}  // namespace
}  // namespace impetus
