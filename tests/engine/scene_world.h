#pragma once
// A World built from a loaded scene, with the solver a test asks for and one thread.
#include <memory>

#include "engine/world.h"
#include "engine/world_builder.h"

namespace impetus::test {

inline std::unique_ptr<World> world_from_scene(const SceneDef& scene, SolverType solver) {
  WorldDef def = scene.world;
  def.solver = solver;
  def.threads = 1;
  return build_world(scene, def);
}

}  // namespace impetus::test
