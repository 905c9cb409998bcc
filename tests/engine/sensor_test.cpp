// Sensors (BodyDef::is_sensor): no contact response, overlaps reported as Begin/End events. A
// ball falling through a sensor falls freely (the closed form of semi-implicit Euler, and bit
// for bit the fall of the same ball in a world without the sensor) and gets one Begin and one
// End, at the steps where the closed-form gap crosses 1 µm. Sensors may be static, kinematic
// or dynamic; they wake nothing, ignore each other, obey filters, and cloth cannot follow them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

constexpr double kDt = 1.0 / 240.0;
constexpr double kG = 9.81;
constexpr double kTouching = 1e-6;  // World::contact_events

bool same_bits(const BodyState& a, const BodyState& b) {
  return std::memcmp(a.position.data(), b.position.data(), 3 * sizeof(double)) == 0 &&
         std::memcmp(a.orientation.coeffs().data(), b.orientation.coeffs().data(), 4 * sizeof(double)) == 0 &&
         std::memcmp(a.linear_velocity.data(), b.linear_velocity.data(), 3 * sizeof(double)) == 0 &&
         std::memcmp(a.angular_velocity.data(), b.angular_velocity.data(), 3 * sizeof(double)) == 0;
}

WorldDef world_def() {
  WorldDef def;
  def.dt = kDt;
  def.threads = 1;
  return def;
}

class SensorMotion : public ::testing::TestWithParam<MotionType> {};

TEST_P(SensorMotion, BallFallsThroughFreelyWithOneBeginAndOneEnd) {
  const Vec3 sensor_centre(0.2, 0, 2);
  const double sensor_radius = 0.5, ball_radius = 0.1;
  const Vec3 ball_start(0, 0, 3);
  World with(world_def()), without(world_def());
  BodyDef sensor = test::make_body("sensor", Shape::sphere(sensor_radius), sensor_centre, GetParam());
  sensor.is_sensor = true;
  // A dynamic sensor falls as the ball does: thrown up, it meets it.
  if (GetParam() == MotionType::Dynamic) sensor.linear_velocity = Vec3(0, 0, 6);
  const BodyId sensor_id = with.create_body(sensor);
  const BodyId ball = with.create_body(test::make_body("ball", Shape::sphere(ball_radius), ball_start));
  const BodyId twin = without.create_body(test::make_body("ball", Shape::sphere(ball_radius), ball_start));
  int begin_step = -1, end_step = -1, expected_begin = -1, expected_end = -1;
  for (int n = 1; n <= 240; ++n) {
    const BodyState before = with.body_state(ball);
    const BodyState sensor_before = with.body_state(sensor_id);
    with.step();
    without.step();
    const BodyState s = with.body_state(ball);
    ASSERT_TRUE(same_bits(s, without.body_state(twin))) << "step " << n;
    // Semi-implicit Euler's free fall: z_n = z_0 − g h² n(n+1)/2.
    ASSERT_NEAR(s.position.z(), ball_start.z() - 0.5 * kG * kDt * kDt * n * (n + 1), 1e-12);
    // A static or kinematic (at rest) sensor stays where it is.
    const Vec3 centre = with.body_state(sensor_id).position;
    if (GetParam() != MotionType::Dynamic) ASSERT_EQ(centre, sensor_centre);
    const double gap = (s.position - centre).norm() - sensor_radius - ball_radius;
    if (gap <= kTouching && expected_begin < 0) expected_begin = n;
    if (gap > kTouching && expected_begin > 0 && expected_end < 0) expected_end = n;
    for (const ContactEvent& e : with.contact_events()) {
      EXPECT_EQ(e.a, sensor_id);
      EXPECT_EQ(e.b, ball);
      if (e.type == ContactEventType::Begin) {
        EXPECT_EQ(begin_step, -1);
        begin_step = n;
        const Vec3 normal = (s.position - centre).normalized();
        EXPECT_NEAR((e.normal - normal).norm(), 0, 1e-9);
        EXPECT_NEAR((e.point - (centre + (sensor_radius + 0.5 * gap) * normal)).norm(), 0, 1e-9);
        // Closing speed before the solver: the previous velocities plus one step of gravity.
        const Vec3 va = sensor_before.linear_velocity +
                        (GetParam() == MotionType::Dynamic ? Vec3(0, 0, -kG * kDt) : Vec3(Vec3::Zero()));
        const Vec3 vb = before.linear_velocity + Vec3(0, 0, -kG * kDt);
        EXPECT_NEAR(e.approach_speed, (va - vb).dot(e.normal), 1e-9);
      } else {
        EXPECT_EQ(end_step, -1);
        end_step = n;
      }
    }
  }
  EXPECT_GT(expected_begin, 0);
  EXPECT_GT(expected_end, expected_begin);
  EXPECT_EQ(begin_step, expected_begin);
  EXPECT_EQ(end_step, expected_end);
  EXPECT_EQ(with.contact_count(), 0);
}

INSTANTIATE_TEST_SUITE_P(Static, SensorMotion, ::testing::Values(MotionType::Static));
INSTANTIATE_TEST_SUITE_P(Kinematic, SensorMotion, ::testing::Values(MotionType::Kinematic));
INSTANTIATE_TEST_SUITE_P(Dynamic, SensorMotion, ::testing::Values(MotionType::Dynamic));

TEST(Sensor, DynamicSensorFallsThroughTheGroundAndStaysInside) {
  World w(world_def());
  const BodyId ground = w.create_body(test::ground_plane());
  BodyDef sensor = test::make_body("probe", Shape::box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0, 0.5));
  sensor.is_sensor = true;
  const BodyId probe = w.create_body(sensor);
  std::vector<ContactEvent> seen;
  for (int n = 1; n <= 120; ++n) {
    w.step();
    ASSERT_NEAR(w.body_state(probe).position.z(), 0.5 - 0.5 * kG * kDt * kDt * n * (n + 1), 1e-12);
    for (const ContactEvent& e : w.contact_events()) seen.push_back(e);
  }
  // In the half-space for good: one Begin, no End.
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].type, ContactEventType::Begin);
  EXPECT_EQ(seen[0].a, ground);
  EXPECT_EQ(seen[0].b, probe);
  EXPECT_LT(w.body_state(probe).position.z(), -0.5);
}

TEST(Sensor, KinematicSensorSweepsThroughASleepingBallWithoutWakingIt) {
  World w(world_def());
  w.create_body(test::ground_plane());
  const BodyId ball = w.create_body(test::make_body("ball", Shape::sphere(0.1), Vec3(0, 0, 0.1)));
  int steps = 0;
  while (!w.is_asleep(ball) && steps < 2000) {
    w.step();
    ++steps;
  }
  ASSERT_TRUE(w.is_asleep(ball));
  const BodyState rest = w.body_state(ball);
  // Across the ball at 1 m/s, from x = −1 to x = 1.
  BodyDef sweep = test::make_body("sweep", Shape::box(Vec3(0.2, 0.2, 0.2)), Vec3(-1, 0, 0.25),
                                  MotionType::Kinematic);
  sweep.is_sensor = true;
  sweep.linear_velocity = Vec3(1, 0, 0);
  const BodyId sweeper = w.create_body(sweep);
  int begins = 0, ends = 0;
  for (int n = 0; n < 480; ++n) {
    w.step();
    EXPECT_TRUE(w.is_asleep(ball));
    EXPECT_TRUE(same_bits(w.body_state(ball), rest));
    for (const ContactEvent& e : w.contact_events()) {
      EXPECT_EQ(e.b, sweeper);  // the ball (index 1) and the plane (index 0) come first
      if (e.a == ball) (e.type == ContactEventType::Begin ? begins : ends) += 1;
    }
  }
  EXPECT_EQ(begins, 1);
  EXPECT_EQ(ends, 1);
}

TEST(Sensor, SensorsIgnoreEachOtherAndObeyFilters) {
  // Two overlapping sensors, one kinematic and moving, one static, whose masks leave out
  // category 2; a ball of category 2 and a default ball fall through both.
  World w(world_def());
  BodyDef a = test::make_body("a", Shape::sphere(0.5), Vec3(0, 0, 1), MotionType::Kinematic);
  a.is_sensor = true;
  a.linear_velocity = Vec3(0.2, 0, 0);
  a.filter.mask = ~std::uint64_t{0x2};
  BodyDef b = test::make_body("b", Shape::sphere(0.5), Vec3(0.3, 0, 1), MotionType::Static);
  b.is_sensor = true;
  b.filter.mask = ~std::uint64_t{0x2};
  const BodyId ia = w.create_body(a), ib = w.create_body(b);
  BodyDef hidden = test::make_body("hidden", Shape::sphere(0.1), Vec3(0.1, 0, 2.5));
  hidden.filter.category = 0x2;
  w.create_body(hidden);
  const BodyId seen = w.create_body(test::make_body("seen", Shape::sphere(0.1), Vec3(0.2, 0, 2.5)));
  int begins_a = 0, begins_b = 0, ends = 0;
  for (int n = 0; n < 240; ++n) {
    w.step();
    for (const ContactEvent& e : w.contact_events()) {
      EXPECT_EQ(e.b, seen);  // never a–b, never the hidden ball
      if (e.type == ContactEventType::End) ++ends;
      else if (e.a == ia) ++begins_a;
      else if (e.a == ib) ++begins_b;
    }
  }
  EXPECT_EQ(begins_a, 1);
  EXPECT_EQ(begins_b, 1);
  EXPECT_EQ(ends, 2);
}

TEST(Sensor, ClothCannotBeAttachedToASensor) {
  World w(world_def());
  BodyDef sensor = test::make_body("zone", Shape::sphere(0.5), Vec3(0, 0, 1), MotionType::Static);
  sensor.is_sensor = true;
  const BodyId zone = w.create_body(sensor);
  ClothDef cloth;
  cloth.name = "sheet";
  cloth.grid_resolution = {2, 2};
  cloth.attach = {{0, zone}};
  try {
    w.create_cloth(cloth);
    ADD_FAILURE() << "attached a cloth to a sensor";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("World::create_cloth: cloth 'sheet': attachment body 'zone' is a sensor"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(w.cloth_count(), 0);
}

}  // namespace
}  // namespace impetus
