// The steady-state step allocates nothing (issue 10): this binary replaces the global
// allocation functions with counting ones (tools/bench/allocation_counter.cpp; malloc, calloc
// and realloc too where glibc allows, operator new alone under a sanitizer) and counts the heap
// allocations of 100 steps of example scenes once they have settled. A count, not a time.
//
// Growth may allocate (a new body, a contact pair or an island shape the solver has not held
// before: scratch storage grows and is then kept), so each scene first runs until it has
// settled: at least its warm-up, then until its contact count has not changed for 200 steps
// (a physics change that makes a pile settle later moves the count window with it). Sleeping
// is off, so every body is still solved, collided and integrated in the counted steps.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/scene_loader.h"
#include "engine/world.h"
#include "engine/world_builder.h"
#include "tools/bench/allocation_counter.h"

namespace impetus {
namespace {

struct SteadyScene {
  const char* file;
  int warm_up_steps;
};

class StepAllocations : public testing::TestWithParam<SteadyScene> {};

TEST_P(StepAllocations, HundredSettledStepsAllocateNothing) {
  const SteadyScene& s = GetParam();
  SceneLoadResult r = load_scene_file(std::string(IMPETUS_SOURCE_DIR) + "/scenes/" + s.file);
  ASSERT_TRUE(r.ok()) << r.error;
  WorldDef def = r.scene->world;
  def.threads = 1;
  def.sleep = false;
  const std::unique_ptr<World> owned = build_world(*r.scene, def);
  World& world = *owned;
  constexpr int kSteadyContacts = 200, kMaxSteps = 5000;
  int steps = 0, contacts = -1, unchanged = 0;
  while (steps < kMaxSteps && (steps < s.warm_up_steps || unchanged < kSteadyContacts)) {
    world.step();
    ++steps;
    unchanged = world.stats().contacts_last == contacts ? unchanged + 1 : 0;
    contacts = world.stats().contacts_last;
  }
  ASSERT_EQ(world.status(), WorldStatus::Ok);
  ASSERT_LT(steps, kMaxSteps) << s.file << ": the contact count never settled";
  const long long before = bench::allocation_count();
  for (int i = 0; i < 100; ++i) world.step();
  const long long allocations = bench::allocation_count() - before;
  EXPECT_EQ(allocations, 0) << s.file << ": steps " << steps << "–" << steps + 100
                            << " (contacts now " << world.stats().contacts_last << ")";
  // The counter itself works in this binary: a vector allocates.
  const long long probe = bench::allocation_count();
  auto* v = new std::vector<int>(100);
  delete v;
  EXPECT_GE(bench::allocation_count() - probe, 2);
}

// Destruction is a shrink event: it may allocate, the settled steps after it may not (contact
// events included: when no pair starts or stops touching, they allocate nothing either).
TEST(StepAllocationsAfterDestroy, HundredSettledStepsAllocateNothing) {
  SceneLoadResult r = load_scene_file(std::string(IMPETUS_SOURCE_DIR) + "/scenes/box_pile.json");
  ASSERT_TRUE(r.ok()) << r.error;
  WorldDef def = r.scene->world;
  def.threads = 1;
  def.sleep = false;
  std::vector<BodyId> ids;
  const std::unique_ptr<World> owned = build_world(*r.scene, def, &ids);
  World& world = *owned;
  for (int i = 0; i < 300; ++i) world.step();
  // Three dynamic bodies out of the pile, and one new body in a freed slot.
  int destroyed = 0;
  for (auto it = ids.rbegin(); it != ids.rend() && destroyed < 3; ++it) {
    if (world.body_motion(*it) != MotionType::Dynamic) continue;
    world.destroy_body(*it);
    ++destroyed;
  }
  BodyDef extra;
  extra.name = "extra";
  extra.shape = Shape::sphere(0.05);
  extra.position = Vec3(0, 0, 3);
  world.create_body(extra);
  constexpr int kSteadyContacts = 200, kMaxSteps = 5000;
  int steps = 0, contacts = -1, unchanged = 0;
  while (steps < kMaxSteps && unchanged < kSteadyContacts) {
    world.step();
    ++steps;
    unchanged = world.stats().contacts_last == contacts ? unchanged + 1 : 0;
    contacts = world.stats().contacts_last;
  }
  ASSERT_EQ(world.status(), WorldStatus::Ok);
  ASSERT_LT(steps, kMaxSteps) << "the contact count never settled";
  const long long before = bench::allocation_count();
  for (int i = 0; i < 100; ++i) world.step();
  EXPECT_EQ(bench::allocation_count() - before, 0);
}

INSTANTIATE_TEST_SUITE_P(Scenes, StepAllocations,
                         testing::Values(SteadyScene{"box_pile.json", 600},
                                         SteadyScene{"ragdolls.json", 1100},
                                         SteadyScene{"chain.json", 600},
                                         SteadyScene{"cloth_box_stack.json", 500},
                                         // 4,225 vertices: the factorisation split in halves
                                         // (cloth/block_ichol.h) and the large cloth's paths.
                                         SteadyScene{"bench/cloth_hang_64.json", 60}),
                         [](const testing::TestParamInfo<SteadyScene>& info) {
                           std::string name = info.param.file;
                           name = name.substr(name.rfind('/') + 1);
                           return name.substr(0, name.find('.'));
                         });

}  // namespace
}  // namespace impetus
