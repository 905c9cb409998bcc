// Newton's cradle with touching balls against its ideal: five equal balls on equal pendulums,
// touching at rest, e = 1, the first released from θ0. The ideal (elastic impacts passed along
// the row one after another, momentum and energy conserved at each) leaves the first four at
// rest and sends the last one out to θ0, and back, period after period. Energy can only fall.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

struct CradleRun {
  double last_swing = 0;      // the last ball's first apex [rad]
  double first_after = 0;     // largest |angle| of the first ball from impact to that apex
  double middle_swing = 0;    // largest |angle| of the middle balls over the whole run
  double energy_rise = 0;     // largest rise of the total energy above the start [J]
  double release_energy = 0;  // m g L (1 − cos θ0) [J]
};

// `overlap`: the balls' pivots are 2r − overlap apart, so neighbours start touching (0) or
// slightly pressed together.
CradleRun run_cradle(SolverType solver, double dt, double theta0, double friction,
                     double overlap = 0) {
  const double r = 0.1, length = 1.0, g = 9.81;
  const double spacing = 2 * r - overlap;
  WorldDef wd;
  wd.dt = dt;
  wd.threads = 1;
  wd.solver = solver;
  wd.sleep = false;
  wd.materials[0].restitution = 1.0;
  wd.materials[0].friction = friction;
  World world(wd);
  const int n = 5;
  for (int i = 0; i < n; ++i) {
    const Vec3 pivot(spacing * i, 0, length);
    Vec3 p = pivot - Vec3(0, 0, length);
    if (i == 0) p = pivot + length * Vec3(-std::sin(theta0), 0, -std::cos(theta0));
    const BodyId ball = world.create_body(test::make_body("ball" + std::to_string(i), Shape::sphere(r), p));
    JointDef j;
    j.type = JointType::Ball;
    j.body_a = ball;
    j.anchor = pivot;
    world.create_joint(j);
  }
  auto angle = [&](int i) {
    const Vec3 x = world.body_state(world.body_id(i)).position - Vec3(spacing * i, 0, length);
    return std::atan2(x.x(), -x.z());
  };
  CradleRun run;
  const double energy_start = world.total_energy();
  run.release_energy = world.body_mass(world.body_id(0)) * g * length * (1 - std::cos(theta0));
  // Three periods (small-angle period 2π√(L/g)): the last ball swings out and back, the first
  // one out and back, and so on.
  const double period = 2 * kPi * std::sqrt(length / g);
  enum { Falling, LastOut, Returned } phase = Falling;
  const int steps = static_cast<int>(std::ceil(3 * period / dt));
  for (int s = 0; s < steps; ++s) {
    world.step();
    run.energy_rise = std::max(run.energy_rise, world.total_energy() - energy_start);
    if (phase == Falling && angle(n - 1) > 0.02) phase = LastOut;
    // The last ball's apex ends its first swing out.
    if (phase == LastOut && world.body_state(world.body_id(n - 1)).linear_velocity.x() < 0) phase = Returned;
    if (phase == LastOut) {
      run.last_swing = std::max(run.last_swing, angle(n - 1));
      run.first_after = std::max(run.first_after, std::abs(angle(0)));
    }
    for (int i = 1; i < n - 1; ++i) run.middle_swing = std::max(run.middle_swing, std::abs(angle(i)));
  }
  return run;
}

// Energy: the symplectic step makes a swinging pendulum's energy oscillate about its true
// value by O(ω h) of it (ω = √(g/L)); that much of the release energy is allowed, while an
// impact that creates energy shows at once (the sequential-impulse test, before its fix: 9×
// the release energy).
double energy_tolerance(const CradleRun& run, double dt) {
  return run.release_energy * std::sqrt(9.81 / 1.0) * dt;
}

TEST(TouchingCradle, BlockSolverSendsTheLastBallToTheReleaseAngleAndStopsTheOthers) {
  const double theta0 = 0.5;
  for (double dt : {1.0 / 1000.0, 1.0 / 240.0, 1.0 / 120.0}) {
    for (double friction : {0.0, 0.1}) {
      const double overlap = friction > 0 ? 5e-4 : 0.0;
      SCOPED_TRACE("dt " + std::to_string(dt) + " mu " + std::to_string(friction));
      CradleRun run = run_cradle(SolverType::Block, dt, theta0, friction, overlap);
      EXPECT_NEAR(run.last_swing, theta0, 0.1 * theta0);
      EXPECT_LT(run.first_after, 0.05);
      EXPECT_LT(run.middle_swing, 0.05);
      EXPECT_LE(run.energy_rise, energy_tolerance(run, dt));
    }
  }
}

TEST(TouchingCradle, SequentialImpulsesNeverCreateEnergy) {
  const double theta0 = 0.5;
  for (double dt : {1.0 / 1000.0, 1.0 / 240.0}) {
    SCOPED_TRACE("dt " + std::to_string(dt));
    CradleRun run = run_cradle(SolverType::SequentialImpulse, dt, theta0, 0.1);
    EXPECT_LE(run.energy_rise, energy_tolerance(run, dt));
    EXPECT_LE(run.last_swing, theta0 * 1.01);
  }
}

}  // namespace
}  // namespace impetus
