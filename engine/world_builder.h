#pragma once
// SceneDef → World: the one place that turns a loaded scene into a world (the CLI's runs, the
// benchmarks, the peers' impetus side and the tests all build through it).
#include <memory>
#include <vector>

#include "engine/world.h"
#include "engine/world_def.h"

namespace impetus {

/// A World with the settings `def` (the scene's own, `scene.world`, or a copy the caller changed:
/// threads, solver, ...), then the scene's bodies in order (their ids appended to `ids` when
/// given), joints and cloths. A def the World refuses throws std::invalid_argument, with the
/// World's message prefixed by where the def is: a body's message names the body ("body 'NAME':
/// ..."); joints and cloths read "joints[I]: ..." and "cloths[I]: ...".
std::unique_ptr<World> build_world(const SceneDef& scene, const WorldDef& def,
                                   std::vector<BodyId>* ids = nullptr);

/// The same with the scene's own settings.
std::unique_ptr<World> build_world(const SceneDef& scene);

}  // namespace impetus
