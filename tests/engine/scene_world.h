#pragma once
// A World built from a loaded scene, with the solver a test asks for and one thread.
#include <memory>

#include "engine/world.h"

namespace impetus::test {

inline std::unique_ptr<World> world_from_scene(const SceneDef& scene, SolverType solver) {
  WorldDef def = scene.world;
  def.solver = solver;
  def.threads = 1;
  auto world = std::make_unique<World>(def);
  for (const BodyDef& b : scene.bodies) world->create_body(b);
  for (const JointDef& j : scene.joints) world->create_joint(j);
  return world;
}

}  // namespace impetus::test
