// Free motion against closed forms: projectile motion and torque-free rotation of an asymmetric
// rigid body (energy and |L| are invariants of Euler's equations).
#include <gtest/gtest.h>

#include <cmath>

#include "collision/shape/mass_properties.h"
#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

TEST(FreeFall, MatchesClosedFormAtSeveralStepSizes) {
  for (double dt : {1.0 / 60.0, 1.0 / 240.0, 1.0 / 1000.0}) {
    WorldDef wd;
    wd.dt = dt;
    wd.auto_substeps = false;  // the closed form is that of steps of exactly dt
    World world(wd);
    BodyDef ball = test::make_body("ball", Shape::sphere(0.1), Vec3(0, 0, 10));
    ball.linear_velocity = Vec3(1.0, 0.0, 3.0);
    BodyId id = world.create_body(ball);
    const int steps = static_cast<int>(std::lround(2.0 / dt));
    for (int i = 0; i < steps; ++i) world.step();
    const double t = steps * dt, g = 9.81;
    BodyState s = world.body_state(id);
    // Symplectic Euler: v_n = v0 − n h g, z_n = z0 + n h v0 − g h² n(n+1)/2 exactly, which is
    // the continuous parabola shifted by −g h t / 2.
    const double n = steps;
    EXPECT_NEAR(s.position.z(), 10 + 3.0 * t - g * dt * dt * n * (n + 1) / 2, 1e-9);
    EXPECT_NEAR(s.position.z(), 10 + 3.0 * t - 0.5 * g * t * t, 0.5 * g * dt * t + 1e-9);
    EXPECT_NEAR(s.position.x(), 1.0 * t, 1e-9);
    EXPECT_NEAR(s.linear_velocity.z(), 3.0 - g * t, 1e-9);
    EXPECT_NEAR(s.angular_velocity.norm(), 0.0, 1e-12);
  }
}

struct SpinResult {
  double energy_rel_error = 0;
  double momentum_norm_rel_error = 0;
  double momentum_direction_error = 0;  // radians
  double min_cos_to_start_axis = 1;     // of the body's intermediate axis (flip detection)
};

SpinResult spin_box(double dt, double seconds) {
  WorldDef wd;
  wd.dt = dt;
  wd.gravity = Vec3::Zero();
  World world(wd);
  BodyDef box = test::make_body("box", Shape::box(Vec3(0.1, 0.2, 0.4)), Vec3::Zero());
  // Spin mostly about the intermediate axis (local y) with a small perturbation: the
  // Dzhanibekov flip, which only happens when the gyroscopic term is integrated.
  box.angular_velocity = Vec3(0.01, 6.0, 0.01);
  BodyId id = world.create_body(box);
  MassProperties mp = compute_mass_properties(box.shape, 1000.0);

  auto invariants = [&](const BodyState& s, double* energy, Vec3* momentum) {
    Mat3 r = s.orientation.toRotationMatrix();
    Mat3 inertia_world = r * mp.inertia * r.transpose();
    *momentum = inertia_world * s.angular_velocity;
    *energy = 0.5 * s.angular_velocity.dot(inertia_world * s.angular_velocity);
  };
  double e0;
  Vec3 l0;
  invariants(world.body_state(id), &e0, &l0);
  SpinResult result;
  const int steps = static_cast<int>(std::lround(seconds / dt));
  for (int i = 0; i < steps; ++i) {
    world.step();
    double e;
    Vec3 l;
    BodyState s = world.body_state(id);
    invariants(s, &e, &l);
    result.energy_rel_error = std::max(result.energy_rel_error, std::abs(e - e0) / e0);
    result.momentum_norm_rel_error =
        std::max(result.momentum_norm_rel_error, std::abs(l.norm() - l0.norm()) / l0.norm());
    double c = std::clamp(l.normalized().dot(l0.normalized()), -1.0, 1.0);
    result.momentum_direction_error = std::max(result.momentum_direction_error, std::acos(c));
    Vec3 axis = s.orientation * Vec3::UnitY();
    result.min_cos_to_start_axis = std::min(result.min_cos_to_start_axis, axis.dot(Vec3::UnitY()));
  }
  return result;
}

TEST(FreeRotation, AsymmetricBoxConservesEnergyAndAngularMomentumOverTenSeconds) {
  SpinResult r = spin_box(1.0 / 240.0, 10.0);
  EXPECT_LT(r.energy_rel_error, 1e-9);
  EXPECT_LT(r.momentum_norm_rel_error, 1e-9);
  // The direction of L is only conserved to the integrator's order; it must stay close.
  EXPECT_LT(r.momentum_direction_error, 0.02);
  // The intermediate axis is unstable: it must flip over (cos < 0) within 10 s.
  EXPECT_LT(r.min_cos_to_start_axis, -0.5);
}

TEST(FreeRotation, AngularMomentumDirectionErrorShrinksWithStepSize) {
  double coarse = spin_box(1.0 / 60.0, 3.0).momentum_direction_error;
  double fine = spin_box(1.0 / 480.0, 3.0).momentum_direction_error;
  EXPECT_LT(fine, coarse);
}

}  // namespace
}  // namespace impetus
