// Collision filtering (engine/filter.h): should_collide against the rule as Box2D's manual
// states it, checked bit by bit on random filters; in a world, bodies whose filters refuse
// each other pass through each other (no contacts, no events), the others do not.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "tests/dynamics/world_test_util.h"

namespace impetus {
namespace {

// The prose rule, written independently of filter.h: "if both bodies have the same non-zero
// group index, they collide when it is positive and never when it is negative; otherwise they
// collide when A's category is one of the bits in B's mask and B's category one of A's."
bool reference_collides(const Filter& a, const Filter& b) {
  if (a.group != 0 && a.group == b.group) return a.group > 0;
  bool a_in_b = false, b_in_a = false;
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t m = std::uint64_t{1} << bit;
    a_in_b = a_in_b || ((a.category & m) && (b.mask & m));
    b_in_a = b_in_a || ((b.category & m) && (a.mask & m));
  }
  return a_in_b && b_in_a;
}

TEST(CollisionFilter, ShouldCollideMatchesTheRuleOnRandomFilters) {
  std::mt19937_64 rng(15);
  // Few bits and few groups, so that every branch of the rule is met often.
  auto random_filter = [&rng] {
    Filter f;
    // One draw per statement: operands of one expression are evaluated in no fixed order.
    f.category = std::uint64_t{1} << (rng() % 4);
    if (rng() % 8 == 0) f.category |= std::uint64_t{1} << 63;
    f.mask = rng() % 16;
    if (rng() % 2) f.mask |= std::uint64_t{1} << 63;
    if (rng() % 10 == 0) f.mask = ~std::uint64_t{0};
    f.group = static_cast<int>(rng() % 5) - 2;
    return f;
  };
  int collide = 0, same_group = 0, same_positive = 0, same_negative = 0;
  constexpr int kCases = 20000;
  for (int i = 0; i < kCases; ++i) {
    const Filter a = random_filter(), b = random_filter();
    const bool expected = reference_collides(a, b);
    ASSERT_EQ(should_collide(a, b), expected) << "case " << i;
    ASSERT_EQ(should_collide(b, a), expected) << "symmetric, case " << i;
    collide += expected;
    if (a.group != 0 && a.group == b.group) {
      ++same_group;
      if (a.group > 0) {
        ++same_positive;
        EXPECT_TRUE(expected);
      } else {
        ++same_negative;
        EXPECT_FALSE(expected);
      }
    }
  }
  // Both outcomes, and both group overrides, occur often.
  EXPECT_GT(collide, kCases * 3 / 10);
  EXPECT_LT(collide, kCases * 7 / 10);
  EXPECT_GT(same_positive, kCases / 20);
  EXPECT_GT(same_negative, kCases / 20);
  EXPECT_GT(same_group, 0);
  // The defaults collide with everything; category 0 or mask 0 with nothing (no group).
  EXPECT_TRUE(should_collide(Filter{}, Filter{}));
  EXPECT_FALSE(should_collide(Filter{0, ~std::uint64_t{0}, 0}, Filter{}));
  EXPECT_FALSE(should_collide(Filter{1, 0, 0}, Filter{}));
}

// A ball dropped on a static slab (a box) with the given filters: its height after 1 s, the
// contact points and the events seen on the way.
struct Drop {
  double z = 0;
  int max_contacts = 0;
  int events = 0;
};

Drop drop_ball(const Filter& slab_filter, const Filter& ball_filter) {
  WorldDef def;
  def.threads = 1;
  World w(def);
  BodyDef slab = test::make_body("slab", Shape::box(Vec3(1, 1, 0.1)), Vec3(0, 0, -0.1),
                                 MotionType::Static);
  slab.filter = slab_filter;
  w.create_body(slab);
  BodyDef ball = test::make_body("ball", Shape::sphere(0.1), Vec3(0, 0, 0.5));
  ball.filter = ball_filter;
  const BodyId id = w.create_body(ball);
  Drop d;
  for (int i = 0; i < 240; ++i) {
    w.step();
    d.max_contacts = std::max(d.max_contacts, w.contact_count());
    d.events += static_cast<int>(w.contact_events().size());
  }
  d.z = w.body_state(id).position.z();
  return d;
}

TEST(CollisionFilter, FilteredPairsFallThroughOthersRest) {
  // Free fall for 1 s from 0.5 m ends 4.4 m lower; resting ends at the radius.
  auto falls_through = [](const Drop& d) {
    EXPECT_LT(d.z, -4.0);
    EXPECT_EQ(d.max_contacts, 0);
    EXPECT_EQ(d.events, 0);
  };
  auto rests = [](const Drop& d) {
    EXPECT_NEAR(d.z, 0.1, 1e-3);
    EXPECT_GT(d.max_contacts, 0);
    EXPECT_EQ(d.events, 1);  // one Begin
  };
  rests(drop_ball(Filter{}, Filter{}));
  // Category not in the other's mask, either way round.
  falls_through(drop_ball(Filter{0x2, ~std::uint64_t{0x4}, 0}, Filter{0x4, ~std::uint64_t{0}, 0}));
  falls_through(drop_ball(Filter{0x2, ~std::uint64_t{0}, 0}, Filter{0x4, 0x1, 0}));
  rests(drop_ball(Filter{0x2, 0x4, 0}, Filter{0x4, 0x2, 0}));
  // The same negative group never collides, even though the masks would let it.
  falls_through(drop_ball(Filter{0x1, ~std::uint64_t{0}, -7}, Filter{0x1, ~std::uint64_t{0}, -7}));
  // The same positive group always collides, even though the masks refuse it.
  rests(drop_ball(Filter{0x2, 0x0, 7}, Filter{0x4, 0x0, 7}));
  // Different groups: the masks decide.
  rests(drop_ball(Filter{0x1, ~std::uint64_t{0}, -7}, Filter{0x1, ~std::uint64_t{0}, -8}));
  falls_through(drop_ball(Filter{0x2, 0x0, 7}, Filter{0x4, 0x0, 8}));
}

TEST(CollisionFilter, OverlappingBodiesThatDoNotCollideStayOverlapping) {
  // Two dynamic spheres created half inside each other, no gravity: colliding ones are pushed
  // apart (before the first step and by the solver), filtered ones are left alone.
  for (const bool filtered : {false, true}) {
    WorldDef def;
    def.threads = 1;
    def.gravity = Vec3::Zero();
    World w(def);
    BodyDef a = test::make_body("a", Shape::sphere(0.5), Vec3(0, 0, 0));
    BodyDef b = test::make_body("b", Shape::sphere(0.5), Vec3(0.5, 0, 0));
    if (filtered) a.filter.group = b.filter.group = -1;
    const BodyId ia = w.create_body(a), ib = w.create_body(b);
    for (int i = 0; i < 60; ++i) w.step();
    const double gap = (w.body_state(ib).position - w.body_state(ia).position).norm();
    if (filtered) {
      EXPECT_EQ(gap, 0.5);
      EXPECT_EQ(w.body_state(ia).linear_velocity, Vec3::Zero());
      EXPECT_EQ(w.contact_count(), 0);
    } else {
      EXPECT_GT(gap, 0.99);
    }
  }
}

}  // namespace
}  // namespace impetus
