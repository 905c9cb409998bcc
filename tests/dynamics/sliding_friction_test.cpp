// Coulomb sliding against its closed form: a flat body launched along a horizontal plane with
// speed v0 decelerates at μg, so it travels s(t) = v0 t − μ g t²/2 and stops at v0²/(2 μ g),
// in a straight line and without turning (the net friction opposes the velocity and acts
// symmetrically about the centre of mass). Checked for boxes, a convex hull (hexagonal prism)
// and capsules lying on their side, with both solvers, at several μ, speeds and directions.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "collision/shape/convex_hull.h"
#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

constexpr double kG = 9.81;
constexpr double kDt = 1.0 / 1000.0;

enum class Body { Box, Hull, Capsule };

struct SlideCase {
  Body body;
  double mu;
  double v0;
  double heading;  // launch direction, angle from +x about +z [rad]
  SolverType solver;
};

std::string case_name(const testing::TestParamInfo<SlideCase>& info) {
  const SlideCase& c = info.param;
  const char* body = c.body == Body::Box ? "Box" : c.body == Body::Hull ? "Hull" : "Capsule";
  return std::string(body) + "_mu" + std::to_string(static_cast<int>(std::lround(c.mu * 100))) +
         "_v" + std::to_string(static_cast<int>(c.v0)) + "_deg" +
         std::to_string(static_cast<int>(std::lround(c.heading * 180 / kPi))) +
         (c.solver == SolverType::Block ? "_block" : "_si");
}

// The body, resting on z = 0, its long axis along the launch direction.
BodyDef sliding_body(const SlideCase& c) {
  const Quat heading(Eigen::AngleAxisd(c.heading, Vec3::UnitZ()));
  BodyDef def;
  def.name = "slider";
  switch (c.body) {
    case Body::Box:
      def.shape = Shape::box(Vec3(0.3, 0.2, 0.1));
      def.position = Vec3(0, 0, 0.1);
      def.orientation = heading;
      break;
    case Body::Hull: {
      // Hexagonal prism, 0.25 m circumradius, 0.16 m tall: six bottom corners on the plane.
      std::vector<Vec3> points;
      for (int i = 0; i < 6; ++i) {
        const double a = kPi / 3 * i + 0.2;
        points.emplace_back(0.25 * std::cos(a), 0.25 * std::sin(a), -0.08);
        points.emplace_back(0.25 * std::cos(a), 0.25 * std::sin(a), 0.08);
      }
      auto hull = std::make_shared<const ConvexHull>(*build_convex_hull(points, nullptr));
      def.shape = Shape::convex(hull);
      def.position = Vec3(0, 0, 0.08);
      def.orientation = heading;
      break;
    }
    case Body::Capsule:
      // On its side, axis along the launch direction (across it, a capsule rolls).
      def.shape = Shape::capsule(0.1, 0.3);
      def.position = Vec3(0, 0, 0.1);
      def.orientation = heading * Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitY()));
      break;
  }
  def.linear_velocity = c.v0 * Vec3(std::cos(c.heading), std::sin(c.heading), 0);
  return def;
}

class SlidingFriction : public testing::TestWithParam<SlideCase> {};

TEST_P(SlidingFriction, StopsAtClosedFormDistanceInAStraightLineWithoutTurning) {
  const SlideCase& c = GetParam();
  WorldDef wd;
  wd.dt = kDt;
  wd.threads = 1;
  wd.solver = c.solver;
  wd.materials[0].friction = c.mu;
  wd.materials[0].restitution = 0;
  World world(wd);
  world.create_body(test::ground_plane());
  const BodyDef def = sliding_body(c);
  const BodyId id = world.create_body(def);
  const Vec3 dir(std::cos(c.heading), std::sin(c.heading), 0);
  const Vec3 side(-dir.y(), dir.x(), 0);
  const Vec3 start = def.position;
  const Quat q0 = def.orientation;

  const double a = c.mu * kG;
  const double t_stop = c.v0 / a;
  const double s_stop = c.v0 * c.v0 / (2 * a);
  double worst_track = 0, worst_side = 0, worst_yaw = 0;
  const int steps = static_cast<int>(std::ceil((t_stop + 0.3) / kDt));
  for (int i = 1; i <= steps; ++i) {
    world.step();
    const BodyState s = world.body_state(id);
    const Vec3 d = s.position - start;
    const double t = std::min(i * kDt, t_stop);
    const double expected = c.v0 * t - 0.5 * a * t * t;
    worst_track = std::max(worst_track, std::abs(d.dot(dir) - expected));
    worst_side = std::max(worst_side, std::abs(d.dot(side)));
    // Yaw: rotation about the vertical of the body relative to its start orientation.
    const Quat rel = s.orientation * q0.conjugate();
    const Vec3 x = rel * dir;
    worst_yaw = std::max(worst_yaw, std::abs(std::atan2(x.dot(side), x.dot(dir))));
  }
  const BodyState end = world.body_state(id);
  const double stop = (end.position - start).dot(dir);
  EXPECT_NEAR(stop, s_stop, 0.01 * s_stop) << "stop distance";
  EXPECT_LT(end.linear_velocity.norm(), 1e-3);
  // s(t) along the track; one step of motion (v0·h) is the time discretisation's own lag.
  EXPECT_LT(worst_track, 0.01 * s_stop + c.v0 * kDt) << "s(t) = v0 t − μ g t²/2";
  EXPECT_LT(worst_side, 1e-3) << "sideways drift [m]";
  EXPECT_LT(worst_yaw, 0.5 * kPi / 180) << "yaw [rad]";
}

std::vector<SlideCase> slide_cases() {
  std::vector<SlideCase> cases;
  for (SolverType solver : {SolverType::Block, SolverType::SequentialImpulse}) {
    for (Body body : {Body::Box, Body::Hull, Body::Capsule}) {
      cases.push_back({body, 0.1, 2.0, 0.0, solver});
      cases.push_back({body, 0.5, 6.0, 0.6, solver});
      cases.push_back({body, 1.0, 4.0, 2.3, solver});
    }
    cases.push_back({Body::Box, 0.2, 6.0, 0.0, solver});
    cases.push_back({Body::Box, 0.8, 2.0, 0.4, solver});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shapes, SlidingFriction, testing::ValuesIn(slide_cases()), case_name);

}  // namespace
}  // namespace impetus
