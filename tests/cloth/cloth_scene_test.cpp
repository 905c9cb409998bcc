// The repository's cloth example scenes run in the World with their physical checks: the flag's
// attached vertices follow the kinematic pole exactly, the cloth falling on a box stack pushes
// the boxes (two-way coupling), and neither cloth ever ends a step self-intersecting.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engine/scene_loader.h"
#include "engine/world_builder.h"
#include "engine/world.h"

namespace impetus {
namespace {

SceneDef load(const std::string& name) {
  SceneLoadResult r = load_scene_file(std::string(IMPETUS_SOURCE_DIR) + "/scenes/" + name + ".json");
  EXPECT_TRUE(r.ok()) << r.error;
  return *r.scene;
}

std::unique_ptr<World> make_world(SceneDef scene, bool with_cloths = true) {
  scene.world.threads = 1;
  if (!with_cloths) scene.cloths.clear();
  return build_world(scene);
}

TEST(ClothScenes, FlagFollowsTheMovingPole) {
  const SceneDef scene = load("cloth_flag");
  ASSERT_EQ(scene.cloths.size(), 1u);
  ASSERT_FALSE(scene.cloths[0].attach.empty());
  std::unique_ptr<World> w = make_world(scene);
  const Vec3 pole_velocity(0.4, 0, 0);  // the scene file's kinematic velocity
  std::vector<Vec3> start;
  for (const SceneClothAttachDef& a : scene.cloths[0].attach) start.push_back(w->cloth_positions(0)[a.vertex]);
  // Edge lengths at rest (the grid is built flat and unstretched), measured from positions.
  const std::vector<Vec3> rest = w->cloth_positions(0);
  const std::vector<std::array<int, 3>>& triangles = w->cloth_triangles(0);
  auto max_stretch = [&](const std::vector<Vec3>& x) {
    double worst = 0;
    for (const auto& t : triangles) {
      for (int e = 0; e < 3; ++e) {
        const int a = t[e], b = t[(e + 1) % 3];
        worst = std::max(worst, (x[a] - x[b]).norm() / (rest[a] - rest[b]).norm() - 1);
      }
    }
    return worst;
  };
  double stretch_seen = 0;
  for (long long k = 0; k < scene.steps; ++k) {
    w->step();
    ASSERT_EQ(w->status(), WorldStatus::Ok) << w->divergence_message();
    ASSERT_EQ(w->cloth_self_intersections(0), 0) << "step " << k;
    // The sheet next to the pole it is attached to must not tear open (it reached 5,000% when
    // its edge and face contacts with the pole fought the attachment).
    stretch_seen = std::max(stretch_seen, max_stretch(w->cloth_positions(0)));
    ASSERT_LT(stretch_seen, 0.10) << "step " << k;
    const double t = static_cast<double>(k + 1) * scene.world.dt;
    for (size_t i = 0; i < start.size(); ++i) {
      const Vec3 expected = start[i] + t * pole_velocity;
      ASSERT_LT((w->cloth_positions(0)[scene.cloths[0].attach[i].vertex] - expected).norm(), 1e-9)
          << "attached vertex " << scene.cloths[0].attach[i].vertex << " step " << k;
    }
  }
  // The free edge trails behind the pole and hangs below the attached edge's top.
  const std::vector<Vec3>& x = w->cloth_positions(0);
  const Vec3 pole_now = start[0] + static_cast<double>(scene.steps) * scene.world.dt * pole_velocity;
  EXPECT_LT(x[20].x(), pole_now.x() + 1.0);
}

TEST(ClothScenes, ClothOnABoxStackPushesTheBoxes) {
  const SceneDef scene = load("cloth_box_stack");
  std::unique_ptr<World> with = make_world(scene, true);
  std::unique_ptr<World> without = make_world(scene, false);
  const BodyId top = with->body_id(3);
  double lowest_top = 1e9;
  for (long long k = 0; k < scene.steps; ++k) {
    with->step();
    without->step();
    ASSERT_EQ(with->status(), WorldStatus::Ok) << with->divergence_message();
    ASSERT_EQ(with->cloth_self_intersections(0), 0) << "step " << k;
    lowest_top = std::min(lowest_top, with->body_state(top).position.z());
  }
  // The stack still stands, and the cloth's weight and impacts moved the boxes.
  EXPECT_GT(lowest_top, 0.95);
  const Vec3 d = with->body_state(top).position - without->body_state(without->body_id(3)).position;
  EXPECT_GT(d.norm(), 1e-6);
  // The cloth rests on the stack: its highest point is near the top face (z = 1.2).
  double highest = -1e9;
  for (const Vec3& p : with->cloth_positions(0)) highest = std::max(highest, p.z());
  EXPECT_GT(highest, 1.15);
  EXPECT_LT(highest, 1.3);
}

}  // namespace
}  // namespace impetus
