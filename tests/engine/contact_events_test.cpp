// Contact events (World::contact_events, engine/world_events.cpp) against independent
// references computed from the body states after every step:
//   - balls bouncing on a plane, each on its own: touching = the closed-form gap n·c − offset − r
//     is at most 1 µm, or the plane pushed the ball (its vertical velocity gained more than
//     free fall's −g·dt: a bounce, which speculative contacts make at a distance). The events
//     must be exactly the differences between consecutive sets;
//   - sensors among spheres thrown about a box: a sensor has no solver, so its pairs touch
//     exactly when the closed-form gap (sphere–sphere |c_a − c_b| − r_a − r_b, sphere–plane) is
//     at most 1 µm; events again the differences of consecutive sets. The spheres' own contacts
//     must include every pair within 1 µm and nothing further apart than the contact margin and
//     a step's motion allow;
//   - the same events, bit for bit, with 1 and 2 threads.
// Begin data are checked against the closed forms: normal, deepest point, approach speed from
// the previous states plus one step of gravity (one substep; spheres keep ω).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "tests/dynamics/world_test_util.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

constexpr double kDt = 1.0 / 240.0;
constexpr double kG = 9.81;
// Touching: a gap of at most 1 µm (World::contact_events). Gaps closer to that than kAmbiguous
// are not held against the engine: its narrowphase and the closed form may round them to
// different sides.
constexpr double kTouching = 1e-6;
constexpr double kAmbiguous = 1e-9;

using Pair = std::pair<int, int>;

// Order: Ends, then Begins, each by (a.index, b.index); a.index < b.index.
void expect_documented_order(std::span<const ContactEvent> events, int step) {
  for (std::size_t e = 0; e < events.size(); ++e) {
    EXPECT_LT(events[e].a.index, events[e].b.index);
    if (e == 0) continue;
    const ContactEvent& p = events[e - 1];
    const ContactEvent& q = events[e];
    if (p.type == q.type) {
      EXPECT_LT(Pair(p.a.index, p.b.index), Pair(q.a.index, q.b.index)) << "step " << step;
    } else {
      EXPECT_EQ(p.type, ContactEventType::End) << "Ends come first, step " << step;
    }
  }
}

// Applies one step's events to `touching`: an End must remove a touching pair, a Begin add one.
void apply_events(std::span<const ContactEvent> events, std::set<Pair>& touching, int step) {
  for (const ContactEvent& e : events) {
    const Pair pair(static_cast<int>(e.a.index), static_cast<int>(e.b.index));
    if (e.type == ContactEventType::End) {
      EXPECT_EQ(touching.erase(pair), 1u) << "End of a pair that was not touching, step " << step;
    } else {
      EXPECT_TRUE(touching.insert(pair).second) << "Begin of a touching pair, step " << step;
    }
  }
}

// Velocity of body state `b` (spheres: COM = frame origin) at world point p, before the step's
// solver: one step of gravity on a dynamic body's linear part.
Vec3 pre_solve_velocity(const BodyState& b, bool dynamic, const Vec3& p) {
  const Vec3 gravity = dynamic ? Vec3(kDt * Vec3(0, 0, -kG)) : Vec3(Vec3::Zero());
  return b.linear_velocity + gravity + b.angular_velocity.cross(p - b.position);
}

TEST(ContactEvents, BouncingBallsBeginAtEveryBounceAndEndWhenTheyLeave) {
  WorldDef def;
  def.dt = kDt;
  def.threads = 1;
  def.materials.push_back(MaterialDef{"bouncy", 1000, 0.5, 0.8});
  def.materials.push_back(MaterialDef{"dull", 1000, 0.5, 0.3});
  World w(def);
  const BodyId ground = w.create_body(test::ground_plane());
  std::vector<BodyId> balls;
  std::vector<double> radii;
  for (int i = 0; i < 4; ++i) {
    radii.push_back(0.05 + 0.05 * i);
    BodyDef ball = test::make_body("ball" + std::to_string(i), Shape::sphere(radii.back()),
                                   Vec3(1.0 * i, 0, 0.5 + 0.4 * i));
    ball.material = i % 2 == 0 ? 1 : 2;
    balls.push_back(w.create_body(ball));
  }
  std::set<Pair> engine, reference;
  int begins = 0, ambiguous = 0;
  for (int k = 0; k < 1920; ++k) {
    std::vector<BodyState> before;
    for (BodyId b : balls) before.push_back(w.body_state(b));
    w.step();
    ASSERT_EQ(w.status(), WorldStatus::Ok);
    const auto events = w.contact_events();
    expect_documented_order(events, k);
    apply_events(events, engine, k);
    std::set<Pair> now;
    for (std::size_t i = 0; i < balls.size(); ++i) {
      const BodyState s = w.body_state(balls[i]);
      const double gap = s.position.z() - radii[i];
      const double gained = s.linear_velocity.z() - (before[i].linear_velocity.z() - kG * kDt);
      // Free fall gains nothing but round-off; a push gains at least m·g·dt's worth in practice.
      const bool pushed = gained > kAmbiguous;
      if (std::abs(gap - kTouching) < kAmbiguous && !pushed) {
        ++ambiguous;
        if (engine.count(Pair(0, balls[i].index))) now.insert(Pair(0, balls[i].index));
        continue;
      }
      if (gap <= kTouching || pushed) now.insert(Pair(0, balls[i].index));
    }
    // The events are the differences between the reference's consecutive sets.
    for (const ContactEvent& e : events) {
      const Pair pair(static_cast<int>(e.a.index), static_cast<int>(e.b.index));
      EXPECT_EQ(e.a, ground);
      EXPECT_EQ(e.type == ContactEventType::Begin, now.count(pair) == 1) << "step " << k;
      EXPECT_EQ(e.type == ContactEventType::End, reference.count(pair) == 1) << "step " << k;
      if (e.type != ContactEventType::Begin) continue;
      ++begins;
      const std::size_t i = e.b.index - 1;
      EXPECT_NEAR((e.normal - Vec3::UnitZ()).norm(), 0, 1e-12);
      EXPECT_NEAR(e.point.x(), 1.0 * i, 1e-9);
      // Approach speed: the ball's fall speed after one more step of gravity.
      EXPECT_NEAR(e.approach_speed, -(before[i].linear_velocity.z() - kG * kDt), 1e-9) << "step " << k;
      EXPECT_GT(e.approach_speed, 0);
    }
    EXPECT_EQ(engine, now) << "step " << k;
    reference = now;
  }
  // Several bounces each (restitution 0.8 and 0.3), then rest: every ball touches at the end.
  EXPECT_GT(begins, 12);
  EXPECT_EQ(engine.size(), balls.size());
  EXPECT_LT(ambiguous, 3);
}

struct Box {
  std::unique_ptr<World> world;
  struct Plane {
    Vec3 normal;
    double offset;  // solid: normal·x <= offset
  };
  std::vector<Plane> planes;   // bodies 0..planes.size()−1
  std::vector<double> radii;   // by body index (0 for planes)
  std::vector<char> sensor;    // by body index
  std::vector<char> dynamic;   // by body index
  std::vector<char> moving;    // by body index: dynamic or kinematic
};

// A floor and four walls around [−1, 1]², `count` spheres of random sizes thrown about in it,
// three static sensor spheres among them and a kinematic sensor sphere that crosses the box and
// a wall.
Box make_box(int threads, int count) {
  WorldDef def;
  def.dt = kDt;
  def.threads = threads;
  def.materials[0].restitution = 0.6;
  def.materials[0].friction = 0.3;
  Box s;
  s.world = std::make_unique<World>(def);
  World& w = *s.world;
  s.planes = {{Vec3::UnitZ(), 0}, {Vec3::UnitX(), -1}, {-Vec3::UnitX(), -1},
              {Vec3::UnitY(), -1}, {-Vec3::UnitY(), -1}};
  for (std::size_t i = 0; i < s.planes.size(); ++i) {
    w.create_body(test::make_body("plane" + std::to_string(i),
                                  Shape::plane(s.planes[i].normal, s.planes[i].offset),
                                  Vec3::Zero(), MotionType::Static));
    s.radii.push_back(0);
    s.sensor.push_back(0);
    s.dynamic.push_back(0);
    s.moving.push_back(0);
  }
  auto add_sensor = [&](const Vec3& c, double r, MotionType motion, const Vec3& v) {
    BodyDef sensor = test::make_body("sensor" + std::to_string(s.radii.size()), Shape::sphere(r), c, motion);
    sensor.is_sensor = true;
    sensor.linear_velocity = v;
    w.create_body(sensor);
    s.radii.push_back(r);
    s.sensor.push_back(1);
    s.dynamic.push_back(0);
    s.moving.push_back(motion == MotionType::Kinematic ? 1 : 0);
  };
  add_sensor(Vec3(-0.5, -0.5, 0.3), 0.3, MotionType::Static, Vec3::Zero());
  add_sensor(Vec3(0.5, 0.4, 0.2), 0.25, MotionType::Static, Vec3::Zero());
  add_sensor(Vec3(0.0, 0.0, 1.0), 0.35, MotionType::Static, Vec3::Zero());  // overlaps the next
  add_sensor(Vec3(-0.6, 0.3, 0.8), 0.25, MotionType::Kinematic, Vec3(0.7, 0, 0));
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<Vec3> centres;
  while (static_cast<int>(centres.size()) < count) {
    const double r = 0.06 + 0.06 * unit(rng);
    const Vec3 d = test::draw_vec3(unit, rng);  // one draw per statement
    const Vec3 c(-0.85 + 1.7 * d.x(), -0.85 + 1.7 * d.y(), 0.2 + 0.2 * count * d.z() / 3);
    bool free = true;
    for (std::size_t k = 0; k < centres.size(); ++k)
      free = free && (c - centres[k]).norm() > r + s.radii[s.radii.size() - centres.size() + k] + 0.01;
    if (!free) continue;
    BodyDef ball = test::make_body("ball" + std::to_string(centres.size()), Shape::sphere(r), c);
    const Vec3 v = test::draw_vec3(unit, rng);
    ball.linear_velocity = Vec3(6 * v.x() - 3, 6 * v.y() - 3, 2 * v.z() - 1);
    ball.angular_velocity = test::draw_vec3(unit, rng);
    w.create_body(ball);
    centres.push_back(c);
    s.radii.push_back(r);
    s.sensor.push_back(0);
    s.dynamic.push_back(1);
    s.moving.push_back(1);
  }
  return s;
}

// Closed-form gap of bodies (i, j), i < j; j is a sphere.
double gap(const Box& s, int i, int j) {
  const World& w = *s.world;
  const int planes = static_cast<int>(s.planes.size());
  const Vec3 cj = w.body_state(w.body_id(j)).position;
  if (i < planes) return s.planes[i].normal.dot(cj) - s.planes[i].offset - s.radii[j];
  const Vec3 ci = w.body_state(w.body_id(i)).position;
  return (cj - ci).norm() - s.radii[i] - s.radii[j];
}

TEST(ContactEvents, SensorPairsAreExactlyTheOverlapsAndContactsBracketed) {
  Box s = make_box(1, 24);
  World& w = *s.world;
  const int n = w.body_count();
  const int planes = static_cast<int>(s.planes.size());
  std::set<Pair> engine, sensors_before;
  std::vector<BodyState> before(n);
  int sensor_begins = 0, sensor_ends = 0, contact_begins = 0, sphere_pair_begins = 0, ambiguous = 0;
  for (int k = 0; k < 720; ++k) {
    for (int i = 0; i < n; ++i) before[i] = w.body_state(w.body_id(i));
    w.step();
    ASSERT_EQ(w.status(), WorldStatus::Ok);
    const auto events = w.contact_events();
    expect_documented_order(events, k);
    apply_events(events, engine, k);
    std::set<Pair> sensors_now;
    for (int i = 0; i < n; ++i) {
      for (int j = std::max(i + 1, planes); j < n; ++j) {
        const Pair pair(i, j);
        const bool with_sensor = s.sensor[i] || s.sensor[j];
        // Rules: two sensors never; two non-dynamic bodies only when one is a sensor and one
        // of them moves.
        const bool possible = !(s.sensor[i] && s.sensor[j]) &&
                              (s.dynamic[i] || s.dynamic[j] || (with_sensor && (s.moving[i] || s.moving[j])));
        const double d = gap(s, i, j);
        if (!possible) {
          EXPECT_EQ(engine.count(pair), 0u) << "pair (" << i << ", " << j << ")";
          continue;
        }
        if (std::abs(d - kTouching) < kAmbiguous) {
          ++ambiguous;
          if (with_sensor && engine.count(pair)) sensors_now.insert(pair);
          continue;
        }
        if (with_sensor) {
          if (d <= kTouching) sensors_now.insert(pair);
          EXPECT_EQ(engine.count(pair) == 1, d <= kTouching)
              << "sensor pair (" << i << ", " << j << ") at gap " << d << " after step " << k + 1;
          continue;
        }
        // Contacts: every pair within 1 µm touches; a touching pair further apart was pushed
        // by the solver this step, so it was within the contact margin (5 mm) plus the step's
        // relative motion when the step began.
        if (d <= kTouching) {
          EXPECT_EQ(engine.count(pair), 1u) << "pair (" << i << ", " << j << ") at gap " << d;
        } else if (engine.count(pair)) {
          const double reach = 0.005 + 2 * kDt * (before[i].linear_velocity.norm() +
                                                  before[j].linear_velocity.norm() + kG * kDt);
          EXPECT_LT(d, reach) << "pair (" << i << ", " << j << ") after step " << k + 1;
        }
      }
    }
    // Sensor events: exactly the differences of the closed form's consecutive sets.
    for (const ContactEvent& e : events) {
      const int i = static_cast<int>(e.a.index), j = static_cast<int>(e.b.index);
      const Pair pair(i, j);
      if (s.sensor[i] || s.sensor[j]) {
        EXPECT_EQ(e.type == ContactEventType::Begin, sensors_now.count(pair) == 1 && !sensors_before.count(pair));
        EXPECT_EQ(e.type == ContactEventType::End, sensors_before.count(pair) == 1 && !sensors_now.count(pair));
        (e.type == ContactEventType::Begin ? sensor_begins : sensor_ends) += 1;
      } else if (e.type == ContactEventType::Begin) {
        ++contact_begins;
      }
      if (e.type != ContactEventType::Begin) continue;
      // Begin data: the normal points from a to b along the centres (a plane: its normal).
      const Vec3 cj = w.body_state(e.b).position;
      const Vec3 normal = i < planes ? s.planes[i].normal
                                     : Vec3((cj - w.body_state(e.a).position).normalized());
      if (i >= planes) ++sphere_pair_begins;
      EXPECT_NEAR((e.normal - normal).norm(), 0, 0.05) << "step " << k;
      if (s.sensor[i] || s.sensor[j]) {
        // Collided at the end of the step: midway between the surfaces, on the line of centres.
        EXPECT_NEAR((e.normal - normal).norm(), 0, 1e-9);
        const double d = gap(s, i, j);
        if (i < planes) {
          EXPECT_NEAR(normal.dot(e.point) - s.planes[i].offset, 0.5 * d, 1e-9);
        } else {
          EXPECT_NEAR((e.point - (w.body_state(e.a).position + (s.radii[i] + 0.5 * d) * normal)).norm(), 0, 1e-9);
        }
      }
      const double approach = (pre_solve_velocity(before[i], s.dynamic[i], e.point) -
                               pre_solve_velocity(before[j], s.dynamic[j], e.point))
                                  .dot(e.normal);
      EXPECT_NEAR(e.approach_speed, approach, 1e-9 * (1 + std::abs(approach))) << "step " << k;
    }
    sensors_before = sensors_now;
  }
  // Plenty of each kind.
  EXPECT_GT(sensor_begins, 20);
  EXPECT_GT(sensor_ends, 15);
  EXPECT_GT(contact_begins, 40);
  EXPECT_GT(sphere_pair_begins, 10);
  EXPECT_LT(ambiguous, 5);
}

TEST(ContactEvents, AreIdenticalWithOneAndTwoThreads) {
  std::vector<std::vector<ContactEvent>> runs[2];
  for (int t = 0; t < 2; ++t) {
    // Enough spheres for the parallel loops to run in parallel (32 items or more).
    Box s = make_box(t + 1, 150);
    for (int k = 0; k < 720; ++k) {
      s.world->step();
      const auto events = s.world->contact_events();
      runs[t].emplace_back(events.begin(), events.end());
    }
  }
  std::size_t total = 0;
  for (std::size_t k = 0; k < runs[0].size(); ++k) {
    ASSERT_EQ(runs[0][k].size(), runs[1][k].size()) << "step " << k;
    for (std::size_t e = 0; e < runs[0][k].size(); ++e) {
      const ContactEvent& x = runs[0][k][e];
      const ContactEvent& y = runs[1][k][e];
      EXPECT_TRUE(x.a == y.a && x.b == y.b && x.type == y.type) << "step " << k;
      EXPECT_EQ(std::memcmp(x.point.data(), y.point.data(), sizeof(double) * 3), 0);
      EXPECT_EQ(std::memcmp(x.normal.data(), y.normal.data(), sizeof(double) * 3), 0);
      EXPECT_EQ(std::memcmp(&x.approach_speed, &y.approach_speed, sizeof(double)), 0);
    }
    total += runs[0][k].size();
  }
  EXPECT_GT(total, 100u);
}

TEST(ContactEvents, NoneForFilteredOrJointedPairsAndNoneBeforeTheFirstStep) {
  WorldDef def;
  def.threads = 1;
  World w(def);
  const BodyId ground = w.create_body(test::ground_plane());
  BodyDef a = test::make_body("a", Shape::sphere(0.1), Vec3(0, 0, 0.05));  // in the ground
  a.filter.mask = 0;
  w.create_body(a);
  const BodyId b = w.create_body(test::make_body("b", Shape::sphere(0.1), Vec3(1, 0, 0.5)));
  const BodyId c = w.create_body(test::make_body("c", Shape::sphere(0.1), Vec3(1, 0, 0.6)));
  JointDef joint;
  joint.type = JointType::Fixed;  // c stays on top of b
  joint.body_a = b;
  joint.body_b = c;
  joint.anchor = Vec3(1, 0, 0.55);
  w.create_joint(joint);
  EXPECT_TRUE(w.contact_events().empty());
  std::vector<ContactEvent> seen;
  for (int i = 0; i < 240; ++i) {
    w.step();
    for (const ContactEvent& e : w.contact_events()) seen.push_back(e);
  }
  // Only b reaching the ground begins anything: a is filtered out, b–c overlap but are jointed.
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].type, ContactEventType::Begin);
  EXPECT_EQ(seen[0].a, ground);
  EXPECT_EQ(seen[0].b, b);
  EXPECT_GT(seen[0].approach_speed, 2.0);  // dropped from 0.4 m: ≈ 2.8 m/s
}

}  // namespace
}  // namespace impetus
