// scenes/showcase.json (the scene of tools/run.sh) shows what it claims: the run stays ok, the
// deepest rigid overlap stays within 5 mm, the cloth never intersects itself, the 150 m/s cube
// never gets past the 2 cm plate (checked from its positions after every step, independently of
// the CCD code), and nothing leaves the terrain for the catch plane 0.4 m below it.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/scene_loader.h"
#include "engine/world.h"
#include "engine/world_builder.h"

namespace impetus {
namespace {

TEST(ShowcaseScene, EveryPartBehaves) {
  SceneLoadResult loaded = load_scene_file(std::string(IMPETUS_SOURCE_DIR) + "/scenes/showcase.json");
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  const SceneDef& scene = *loaded.scene;
  const std::unique_ptr<World> owned = build_world(scene);
  World& world = *owned;
  int bullet = -1, plate = -1;
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    if (scene.bodies[i].name == "bullet") bullet = static_cast<int>(i);
    if (scene.bodies[i].name == "ccd_plate") plate = static_cast<int>(i);
  }
  ASSERT_GE(bullet, 0);
  ASSERT_GE(plate, 0);
  ASSERT_EQ(world.cloth_count(), 1);
  // The plate's face towards the cube, and the cube's half size: its centre must stay behind.
  const double plate_face = scene.bodies[static_cast<std::size_t>(plate)].position.x() -
                            scene.bodies[static_cast<std::size_t>(plate)].shape.half_extents.x();
  const double cube_half = scene.bodies[static_cast<std::size_t>(bullet)].shape.half_extents.x();
  const double speed = scene.bodies[static_cast<std::size_t>(bullet)].linear_velocity.x();
  ASSERT_GT(speed * scene.world.dt, 0.1);  // a step is far longer than plate and cube together

  double bullet_x_max = -1e300;
  for (long long s = 0; s < scene.steps; ++s) {
    world.step();
    ASSERT_EQ(world.status(), WorldStatus::Ok) << world.divergence_message();
    bullet_x_max = std::max(bullet_x_max, world.body_state(world.body_id(bullet)).position.x());
  }
  EXPECT_LE(world.stats().max_penetration, 0.005);
  EXPECT_EQ(world.stats().cloth_self_intersections_max, 0);
  EXPECT_EQ(world.cloth_self_intersections(0), 0);
  // Resting against the plate at most (a sliver of contact tolerance).
  EXPECT_LE(bullet_x_max, plate_face - cube_half + 1e-3);
  EXPECT_GT(bullet_x_max, plate_face - 0.2);  // and it did reach the plate
  for (int i = 0; i < world.body_count(); ++i) {
    const BodyId id = world.body_id(i);
    if (world.body_motion(id) == MotionType::Static) continue;
    EXPECT_GT(world.body_state(id).position.z(), -0.3) << world.body_name(id);
  }
}

}  // namespace
}  // namespace impetus
