// The World's ids (engine/world_ids.h) and destroy calls: a destroyed body, joint or cloth leaves
// a stale id that is_valid rejects and every other function refuses with its own name; the next
// create reuses the slot with the generation one higher; what named the body (its joints, its
// cloth attachments) goes with it. References: the ids themselves, and free fall (a released
// cloth vertex).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

// Expects `call` to throw std::invalid_argument starting "World::<function>: " and containing
// `problem`.
void expect_misuse(const std::function<void()>& call, const std::string& function,
                   const std::string& problem) {
  try {
    call();
    ADD_FAILURE() << "World::" << function << " accepted a stale id";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("World::" + function + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what << " (expected: " << problem << ")";
  }
}

struct Scene {
  std::unique_ptr<World> world;
  BodyId ground, a, b, c;
  JointId rope;   // a hangs from the world
  JointId link;   // b to c
  ClothId sheet;  // vertex 0 attached to c
};

// A ground plane and three spheres: a on a ball joint to the world, b and c joined; a small
// cloth whose first vertex follows c.
Scene make_scene() {
  WorldDef def;
  def.threads = 1;
  Scene s;
  s.world = std::make_unique<World>(def);
  World& w = *s.world;
  s.ground = w.create_body(test::ground_plane());
  s.a = w.create_body(test::make_body("a", Shape::sphere(0.1), Vec3(0, 0, 2)));
  s.b = w.create_body(test::make_body("b", Shape::sphere(0.1), Vec3(1, 0, 2)));
  s.c = w.create_body(test::make_body("c", Shape::sphere(0.1), Vec3(1.3, 0, 2)));
  JointDef rope;
  rope.body_a = s.a;
  rope.anchor = Vec3(0, 0, 3);
  s.rope = w.create_joint(rope);
  JointDef link;
  link.body_a = s.b;
  link.body_b = s.c;
  link.anchor = Vec3(1.15, 0, 2);
  s.link = w.create_joint(link);
  ClothDef cloth;
  cloth.name = "sheet";
  cloth.grid_size = {0.5, 0.5};
  cloth.grid_resolution = {2, 2};
  cloth.grid_center = Vec3(1.55, 0, 2.25);
  cloth.attach = {{0, s.c}};
  s.sheet = w.create_cloth(cloth);
  return s;
}

TEST(WorldIds, CreatedIdsAreSlotsWithGenerationOne) {
  Scene s = make_scene();
  EXPECT_EQ(s.ground, (BodyId{0, 1}));
  EXPECT_EQ(s.c, (BodyId{3, 1}));
  EXPECT_EQ(s.rope, (JointId{0, 1}));
  EXPECT_EQ(s.link, (JointId{1, 1}));
  EXPECT_EQ(s.sheet, (ClothId{0, 1}));
  World& w = *s.world;
  EXPECT_TRUE(w.is_valid(s.a) && w.is_valid(s.rope) && w.is_valid(s.sheet));
  EXPECT_FALSE(w.is_valid(BodyId{}) || w.is_valid(JointId{}) || w.is_valid(ClothId{}));
  EXPECT_FALSE(w.is_valid(BodyId{1, 2}) || w.is_valid(JointId{0, 2}) || w.is_valid(ClothId{1, 1}));
  EXPECT_EQ(w.body_id(2), s.b);
  EXPECT_EQ(w.cloth_id(0), s.sheet);
  EXPECT_EQ(w.cloth_name(s.sheet), "sheet");
  EXPECT_EQ(&w.cloth_positions(s.sheet), &w.cloth_positions(0));
}

TEST(WorldIds, StaleBodyIdIsRejectedByEveryFunction) {
  Scene s = make_scene();
  World& w = *s.world;
  for (int i = 0; i < 3; ++i) w.step();
  w.destroy_body(s.b);
  EXPECT_FALSE(w.is_valid(s.b));
  EXPECT_EQ(w.body_count(), 4);           // slots, the free one included
  EXPECT_EQ(w.body_id(2), BodyId{});      // a free slot has the null id
  const BodyId stale = s.b;
  const std::string problem = "invalid body id {index 2, generation 1}: destroyed";
  expect_misuse([&] { w.body_name(stale); }, "body_name", problem);
  expect_misuse([&] { w.body_motion(stale); }, "body_motion", problem);
  expect_misuse([&] { w.body_mass(stale); }, "body_mass", problem);
  expect_misuse([&] { w.body_state(stale); }, "body_state", problem);
  expect_misuse([&] { w.set_body_state(stale, BodyState{}); }, "set_body_state", problem);
  expect_misuse([&] { w.apply_impulse(stale, Vec3::UnitX(), Vec3::Zero()); }, "apply_impulse", problem);
  expect_misuse([&] { w.is_asleep(stale); }, "is_asleep", problem);
  expect_misuse([&] { w.wake_body(stale); }, "wake_body", problem);
  expect_misuse([&] { w.destroy_body(stale); }, "destroy_body", problem);
  JointDef joint;
  joint.body_a = s.a;
  joint.body_b = stale;
  expect_misuse([&] { w.create_joint(joint); }, "create_joint", "two different existing bodies");
  joint.body_a = stale;
  joint.body_b = BodyId{};
  expect_misuse([&] { w.create_joint(joint); }, "create_joint", "two different existing bodies");
  ClothDef cloth;
  cloth.name = "late";
  cloth.grid_resolution = {1, 1};
  cloth.attach = {{0, stale}};
  expect_misuse([&] { w.create_cloth(cloth); }, "create_cloth",
                "attachment body {index 2, generation 1} is not a live body");
  // The world goes on.
  for (int i = 0; i < 10; ++i) w.step();
  EXPECT_EQ(w.status(), WorldStatus::Ok);
}

TEST(WorldIds, SlotsAreReusedMostRecentlyFreedFirstWithTheNextGeneration) {
  Scene s = make_scene();
  World& w = *s.world;
  w.destroy_body(s.a);
  w.destroy_body(s.c);
  const BodyId d = w.create_body(test::make_body("d", Shape::sphere(0.1), Vec3(3, 0, 1)));
  const BodyId e = w.create_body(test::make_body("e", Shape::box(Vec3(0.1, 0.1, 0.1)), Vec3(4, 0, 1)));
  const BodyId f = w.create_body(test::make_body("f", Shape::sphere(0.1), Vec3(5, 0, 1)));
  EXPECT_EQ(d, (BodyId{3, 2}));  // c's slot, freed last
  EXPECT_EQ(e, (BodyId{1, 2}));  // a's slot
  EXPECT_EQ(f, (BodyId{4, 1}));  // a new slot
  EXPECT_FALSE(w.is_valid(s.a));
  EXPECT_FALSE(w.is_valid(s.c));
  EXPECT_TRUE(w.is_valid(d) && w.is_valid(e) && w.is_valid(f));
  EXPECT_EQ(w.body_name(e), "e");
  EXPECT_EQ(w.body_id(1), e);
  EXPECT_EQ(w.body_count(), 5);
  // The stale id names the destroyed body, not the newcomer in its slot.
  expect_misuse([&] { w.body_state(s.a); }, "body_state", "{index 1, generation 1}: destroyed");
  // Destroy the newcomer too: generation 3 next.
  w.destroy_body(e);
  const BodyId g = w.create_body(test::make_body("g", Shape::sphere(0.1), Vec3(6, 0, 1)));
  EXPECT_EQ(g, (BodyId{1, 3}));
  // A body in a reused slot starts clean: it falls freely from rest (no warm start, joint or
  // sleeping state of its predecessor).
  // Semi-implicit Euler's free fall: z_n = z_0 − g h² n(n+1)/2.
  const Vec3 start = w.body_state(g).position;
  const int n = 24;
  for (int i = 0; i < n; ++i) w.step();
  const double h = w.def().dt;
  EXPECT_NEAR(w.body_state(g).position.z(), start.z() - 0.5 * 9.81 * h * h * n * (n + 1), 1e-12);
  EXPECT_NEAR((w.body_state(g).linear_velocity - Vec3(0, 0, -9.81 * h * n)).norm(), 0, 1e-12);
  EXPECT_EQ(w.status(), WorldStatus::Ok);
}

TEST(WorldIds, JointsAreDestroyedAloneOrWithTheirBody) {
  Scene s = make_scene();
  World& w = *s.world;
  EXPECT_EQ(w.joint_count(), 2);
  w.destroy_joint(s.rope);
  EXPECT_FALSE(w.is_valid(s.rope));
  EXPECT_TRUE(w.is_valid(s.link));
  EXPECT_EQ(w.joint_count(), 1);
  expect_misuse([&] { w.destroy_joint(s.rope); }, "destroy_joint",
                "invalid joint id {index 0, generation 1}");
  expect_misuse([&] { w.destroy_joint(JointId{}); }, "destroy_joint", "invalid joint id");
  // The slot comes back with generation 2.
  JointDef rope;
  rope.body_a = s.a;
  rope.anchor = Vec3(0, 0, 3);
  const JointId again = w.create_joint(rope);
  EXPECT_EQ(again, (JointId{0, 2}));
  EXPECT_EQ(w.joint_count(), 2);
  // Destroying c takes the b–c link with it; a's rope stays.
  w.destroy_body(s.c);
  EXPECT_FALSE(w.is_valid(s.link));
  EXPECT_TRUE(w.is_valid(again));
  EXPECT_EQ(w.joint_count(), 1);
  // a still hangs from its new rope (the joint error stays small).
  for (int i = 0; i < 60; ++i) w.step();
  EXPECT_LT(w.current_joint_error(), 1e-3);
  EXPECT_NEAR(w.body_state(s.a).position.z(), 2.0, 1e-3);
  EXPECT_EQ(w.status(), WorldStatus::Ok);
}

TEST(WorldIds, DestroyingAnAttachedBodyFreesTheClothVertex) {
  Scene s = make_scene();
  World& w = *s.world;
  // Hold c still: its attached vertex stays with it.
  w.destroy_joint(s.link);
  BodyState hold = w.body_state(s.c);
  for (int i = 0; i < 30; ++i) {
    w.set_body_state(s.c, hold);
    w.step();
  }
  const Vec3 held = w.cloth_positions(s.sheet)[0];
  EXPECT_NEAR(held.z(), 2.25, 1e-3);  // where it was attached, as c was held
  w.destroy_body(s.c);
  for (int i = 0; i < 48; ++i) w.step();
  // Free now: it falls (pulled up a little by the rest of the cloth, which falls too).
  EXPECT_LT(w.cloth_positions(s.sheet)[0].z(), held.z() - 0.1);
  EXPECT_EQ(w.status(), WorldStatus::Ok);
}

TEST(WorldIds, ClothsAreDestroyedAndTheirIdsGoStale) {
  Scene s = make_scene();
  World& w = *s.world;
  ClothDef second;
  second.name = "second";
  second.grid_resolution = {1, 1};
  second.grid_center = Vec3(5, 0, 1);
  const ClothId other = w.create_cloth(second);
  EXPECT_EQ(other, (ClothId{1, 1}));
  w.step();
  w.destroy_cloth(s.sheet);
  EXPECT_FALSE(w.is_valid(s.sheet));
  EXPECT_EQ(w.cloth_count(), 1);
  // Live cloths keep creation order without gaps: "second" is index 0 now.
  EXPECT_EQ(w.cloth_id(0), other);
  EXPECT_EQ(w.cloth_name(0), "second");
  const std::string problem = "invalid cloth id {index 0, generation 1}";
  expect_misuse([&] { w.cloth_name(s.sheet); }, "cloth_name", problem);
  expect_misuse([&] { w.cloth_positions(s.sheet); }, "cloth_positions", problem);
  expect_misuse([&] { w.cloth_triangles(s.sheet); }, "cloth_triangles", problem);
  expect_misuse([&] { w.cloth_self_intersections(s.sheet); }, "cloth_self_intersections", problem);
  expect_misuse([&] { w.cloth_max_strain(s.sheet); }, "cloth_max_strain", problem);
  expect_misuse([&] { w.cloth_max_strain_seen(s.sheet); }, "cloth_max_strain_seen", problem);
  expect_misuse([&] { w.cloth_max_compression(s.sheet); }, "cloth_max_compression", problem);
  expect_misuse([&] { w.destroy_cloth(s.sheet); }, "destroy_cloth", problem);
  expect_misuse([&] { w.cloth_id(1); }, "cloth_id", "cloth index 1 out of range");
  ClothDef again;
  again.name = "again";
  again.grid_resolution = {1, 1};
  again.grid_center = Vec3(-5, 0, 1);
  EXPECT_EQ(w.create_cloth(again), (ClothId{0, 2}));
  EXPECT_EQ(w.cloth_name(1), "again");
  for (int i = 0; i < 10; ++i) w.step();
  EXPECT_EQ(w.status(), WorldStatus::Ok);
}

TEST(WorldIds, DestroyingTheGroundWakesWhatSleptOnIt) {
  WorldDef def;
  def.threads = 1;
  World w(def);
  const BodyId ground = w.create_body(test::ground_plane());
  const BodyId ball = w.create_body(test::make_body("ball", Shape::sphere(0.1), Vec3(0, 0, 0.1)));
  int steps = 0;
  while (!w.is_asleep(ball) && steps < 2000) {
    w.step();
    ++steps;
  }
  ASSERT_TRUE(w.is_asleep(ball));
  const double z = w.body_state(ball).position.z();
  w.destroy_body(ground);
  EXPECT_FALSE(w.is_asleep(ball));
  // The pair's End event comes with the next step, naming the destroyed ground's id.
  w.step();
  ASSERT_EQ(w.contact_events().size(), 1u);
  const ContactEvent& end = w.contact_events()[0];
  EXPECT_EQ(end.type, ContactEventType::End);
  EXPECT_EQ(end.a, ground);
  EXPECT_EQ(end.b, ball);
  EXPECT_FALSE(w.is_valid(end.a));
  for (int i = 0; i < 23; ++i) {
    w.step();
    EXPECT_TRUE(w.contact_events().empty());
    EXPECT_EQ(w.contact_count(), 0);
  }
  EXPECT_LT(w.body_state(ball).position.z(), z - 0.5 * 9.81 * 0.09 * 0.09);
}

}  // namespace
}  // namespace impetus
