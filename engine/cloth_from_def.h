#pragma once
// A scene's cloth definition (engine/world_def.h) as the cloth solver's parameters: one mapping,
// used by World::create_cloth and by tests that step a cloth on its own.
#include "cloth/cloth_params.h"
#include "engine/world_def.h"

namespace impetus {

/// The material, self-collision switch and pinned vertices of `def` (pins are copied as they
/// are: World::create_cloth checks their range first); `threads` as WorldDef::threads.
ClothParams cloth_params_from_def(const ClothCommonDef& def, int threads);

}  // namespace impetus
