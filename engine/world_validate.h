#pragma once
// The checks behind World's contract for misuse (engine/world.h): every public function that
// takes a def, an id or a value checks it before changing anything, and throws
// std::invalid_argument("World::FUNCTION: problem"). These are the def checks; id checks are
// World::Impl::check_body / check_cloth.
#include <string>

#include "engine/world_def.h"

namespace impetus {

/// Throws std::invalid_argument("World::" + function + ": " + problem).
[[noreturn]] void throw_world_misuse(const char* function, const std::string& problem);

/// "" when the shape is valid (positive finite sizes, a hull or mesh with finite vertices and
/// valid indices, a unit plane normal), else the problem. Also for the shapes queries take.
std::string shape_problem(const Shape& shape);
/// World::World: dt, substeps, threads, iterations, sleep settings, gravity, materials.
void validate_world_def(const WorldDef& def);
/// World::create_body: shape, pose, velocities, material index (< material_count), mass.
void validate_body_def(const BodyDef& def, int material_count);
/// World::create_cloth, except the attachments' bodies (the World checks those).
void validate_cloth_def(const ClothDef& def);

}  // namespace impetus
