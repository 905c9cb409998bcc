// World::destroy_body under a running pile: five separate stacks of six boxes on a plane, one
// box destroyed at step K. What is truly comparable:
//   - the other stacks are separate islands that never touch the destroyed box, so they must be
//     bit for bit those of the same world never destroyed (any leftover reference to the slot
//     in a shared structure — broadphase, pairs, warm-start cache, joints, islands — would
//     show there);
//   - the destroyed box's own stack loses its warm-start impulses with it, so it is compared
//     with a world built without that body from the states at step K, to a tolerance; the
//     contact points of the first step after are the same set (the narrowphase sees the same
//     states), so their count is equal;
//   - the End events of the destroyed box's pairs come with the next step, and no event, contact
//     or joint refers to its slot afterwards.
// With sleeping on, destroying a middle box of a sleeping stack wakes it and the boxes above
// fall onto the ones below, while the other stacks sleep on untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

constexpr int kStacks = 5, kLevels = 6;
constexpr double kHalf = 0.1;       // box half extent [m]
constexpr double kSpacing = 2.0;    // between stacks [m]
constexpr double kDt = 1.0 / 240.0;

bool same_bits(const BodyState& a, const BodyState& b) {
  return std::memcmp(a.position.data(), b.position.data(), 3 * sizeof(double)) == 0 &&
         std::memcmp(a.orientation.coeffs().data(), b.orientation.coeffs().data(), 4 * sizeof(double)) == 0 &&
         std::memcmp(a.linear_velocity.data(), b.linear_velocity.data(), 3 * sizeof(double)) == 0 &&
         std::memcmp(a.angular_velocity.data(), b.angular_velocity.data(), 3 * sizeof(double)) == 0;
}

std::string box_name(int stack, int level) {
  std::string name("box_");
  name += std::to_string(stack);
  name += '_';
  name += std::to_string(level);
  return name;
}

struct Pile {
  std::unique_ptr<World> world;
  BodyId ground;
  std::vector<std::vector<BodyId>> boxes;  // [stack][level]
  BodyId tag;                              // a small ball inside box (0, top), jointed to it
};

WorldDef pile_def(SolverType solver, bool sleep) {
  WorldDef def;
  def.dt = kDt;
  def.threads = 1;
  def.solver = solver;
  def.sleep = sleep;
  return def;
}

// The boxes sit exactly on each other; the top box of stack 0 carries a small ball at its
// centre on a ball joint (inside it, so the ball touches nothing).
Pile make_pile(const WorldDef& def) {
  Pile p;
  p.world = std::make_unique<World>(def);
  World& w = *p.world;
  p.ground = w.create_body(test::ground_plane());
  p.boxes.assign(kStacks, {});
  for (int s = 0; s < kStacks; ++s) {
    for (int l = 0; l < kLevels; ++l) {
      p.boxes[s].push_back(w.create_body(test::make_body(
          box_name(s, l), Shape::box(Vec3(kHalf, kHalf, kHalf)), Vec3(kSpacing * s, 0, kHalf * (2 * l + 1)))));
    }
  }
  const Vec3 top = w.body_state(p.boxes[0][kLevels - 1]).position;
  p.tag = w.create_body(test::make_body("tag", Shape::sphere(0.03), top));
  JointDef joint;
  joint.body_a = p.tag;
  joint.body_b = p.boxes[0][kLevels - 1];
  joint.anchor = top;
  w.create_joint(joint);
  return p;
}

class DestroyUnderPile : public ::testing::TestWithParam<SolverType> {};

TEST_P(DestroyUnderPile, OtherStacksBitIdenticalAndTheStackMatchesAWorldBuiltWithoutTheBody) {
  const WorldDef def = pile_def(GetParam(), false);
  constexpr int kBefore = 240, kAfter = 480;
  Pile a = make_pile(def);  // destroys
  Pile b = make_pile(def);  // never destroys
  for (int k = 0; k < kBefore; ++k) {
    a.world->step();
    b.world->step();
  }
  // Step K: destroy the top box of stack 0 (the tag inside it falls free onto the box below).
  const BodyId gone = a.boxes[0][kLevels - 1];
  World& wa = *a.world;
  ASSERT_EQ(wa.joint_count(), 1);
  // The world without it, from the same states.
  World wc(def);
  std::vector<BodyId> c_ids(wa.body_count());  // by a's slot
  for (int i = 0; i < wa.body_count(); ++i) {
    const BodyId id = wa.body_id(i);
    if (id == gone) continue;
    const BodyState s = wa.body_state(id);
    BodyDef body = id == a.ground ? test::ground_plane()
                   : id == a.tag  ? test::make_body("tag", Shape::sphere(0.03), s.position)
                                  : test::make_body(wa.body_name(id), Shape::box(Vec3(kHalf, kHalf, kHalf)), s.position);
    body.orientation = s.orientation;
    body.linear_velocity = s.linear_velocity;
    body.angular_velocity = s.angular_velocity;
    c_ids[i] = wc.create_body(body);
  }
  wa.destroy_body(gone);
  EXPECT_FALSE(wa.is_valid(gone));
  EXPECT_EQ(wa.joint_count(), 0);  // the tag's joint went with the box

  // The first step after: the destroyed box's pairs end (the box below and the tag's pair never
  // touched: jointed), and the contact points are those of the world built without it.
  wa.step();
  b.world->step();
  wc.step();
  int ends = 0;
  for (const ContactEvent& e : wa.contact_events()) {
    if (e.a == gone || e.b == gone) {
      EXPECT_EQ(e.type, ContactEventType::End);
      EXPECT_EQ(e.a, a.boxes[0][kLevels - 2]);
      ++ends;
    }
  }
  EXPECT_EQ(ends, 1);
  EXPECT_EQ(wa.contact_count(), wc.contact_count());

  for (int k = 1; k < kAfter; ++k) {
    wa.step();
    b.world->step();
    wc.step();
    ASSERT_EQ(wa.status(), WorldStatus::Ok);
    for (const ContactEvent& e : wa.contact_events()) {
      EXPECT_NE(e.a.index, gone.index) << "step " << k;
      EXPECT_NE(e.b.index, gone.index) << "step " << k;
    }
    for (int s = 1; s < kStacks; ++s) {
      for (int l = 0; l < kLevels; ++l) {
        ASSERT_TRUE(same_bits(wa.body_state(a.boxes[s][l]), b.world->body_state(b.boxes[s][l])))
            << box_name(s, l) << " differs " << k << " steps after the destroy";
      }
    }
  }
  // Stack 0 and the tag against the world built without the box: the same within warm-start
  // noise; the tag fell onto the box below and rests on it.
  for (int l = 0; l < kLevels - 1; ++l) {
    const BodyId id = a.boxes[0][l];
    const Vec3 pa = wa.body_state(id).position;
    const Vec3 pc = wc.body_state(c_ids[id.index]).position;
    EXPECT_LT((pa - pc).norm(), 1e-3) << box_name(0, l);
    EXPECT_NEAR(pa.z(), kHalf * (2 * l + 1), 2e-3) << box_name(0, l);
  }
  // The tag rests on the top box left: at the same height in both worlds, not necessarily at
  // the same spot (a ball on a flat top rolls where any difference pushes it).
  const Vec3 tag_a = wa.body_state(a.tag).position;
  const Vec3 tag_c = wc.body_state(c_ids[a.tag.index]).position;
  EXPECT_NEAR(tag_a.z(), tag_c.z(), 1e-3);
  EXPECT_NEAR(tag_a.z(), 2 * kHalf * (kLevels - 1) + 0.03, 2e-3);
  EXPECT_LT(Vec3(tag_a - wa.body_state(a.boxes[0][kLevels - 2]).position).head<2>().norm(), kHalf);
  EXPECT_EQ(wa.status(), WorldStatus::Ok);
  EXPECT_TRUE(std::isfinite(wa.total_energy()));
}

INSTANTIATE_TEST_SUITE_P(Solvers, DestroyUnderPile,
                         ::testing::Values(SolverType::Block, SolverType::SequentialImpulse),
                         [](const ::testing::TestParamInfo<SolverType>& info) {
                           return info.param == SolverType::Block ? "block" : "sequential_impulse";
                         });

TEST(DestroyUnderPile, DestroyingAMiddleBoxWakesItsSleepingStackAndTheBoxesAboveFall) {
  Pile p = make_pile(pile_def(SolverType::Block, true));
  World& w = *p.world;
  int steps = 0;
  auto all_asleep = [&] {
    for (const auto& stack : p.boxes)
      for (BodyId id : stack)
        if (!w.is_asleep(id)) return false;
    return true;
  };
  while (!all_asleep() && steps < 3000) {
    w.step();
    ++steps;
  }
  ASSERT_TRUE(all_asleep()) << "the pile never fell asleep";
  std::vector<BodyState> rest;
  for (int s = 0; s < kStacks; ++s)
    for (int l = 0; l < kLevels; ++l) rest.push_back(w.body_state(p.boxes[s][l]));

  const BodyId gone = p.boxes[1][2];
  w.destroy_body(gone);
  for (int l = 0; l < kLevels; ++l) {
    if (l != 2) EXPECT_FALSE(w.is_asleep(p.boxes[1][l])) << box_name(1, l);
  }
  // The first step: the destroyed box's two touching pairs end.
  w.step();
  int ends = 0;
  for (const ContactEvent& e : w.contact_events()) {
    EXPECT_EQ(e.type, ContactEventType::End);
    EXPECT_TRUE(e.a == gone || e.b == gone);
    ++ends;
  }
  EXPECT_EQ(ends, 2);
  bool landed = false;
  for (int k = 1; k < 480; ++k) {
    w.step();
    ASSERT_EQ(w.status(), WorldStatus::Ok);
    for (const ContactEvent& e : w.contact_events()) {
      // Box 3 lands on box 1.
      if (e.type == ContactEventType::Begin && e.a == p.boxes[1][1] && e.b == p.boxes[1][3]) landed = true;
    }
    // The other stacks sleep on, bit for bit.
    for (int s = 0; s < kStacks; ++s) {
      if (s == 1) continue;
      for (int l = 0; l < kLevels; ++l) {
        ASSERT_TRUE(w.is_asleep(p.boxes[s][l]));
        ASSERT_TRUE(same_bits(w.body_state(p.boxes[s][l]), rest[s * kLevels + l]));
      }
    }
  }
  EXPECT_TRUE(landed);
  // Boxes 3–5 fell one box onto box 1 and stand upright.
  for (int l = 0; l < kLevels; ++l) {
    if (l == 2) continue;
    const Vec3 pos = w.body_state(p.boxes[1][l]).position;
    const int below = l < 2 ? l : l - 1;  // boxes under it
    EXPECT_NEAR(pos.z(), kHalf * (2 * below + 1), 3e-3) << box_name(1, l);
    EXPECT_NEAR(pos.x(), kSpacing, 5e-3) << box_name(1, l);
    EXPECT_NEAR(pos.y(), 0, 5e-3) << box_name(1, l);
  }
}

}  // namespace
}  // namespace impetus
