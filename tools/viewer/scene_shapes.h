#pragma once
// DIR/shapes.json: what a results folder needs beside summary.json and trajectory.jsonl to be
// drawn without the scene file: the surface of every body's shape (tessellated once per distinct
// shape), each body's motion type, colour and initial pose, the joints' anchors in their bodies'
// frames and the cloths' triangles. Format in tools/docs/output-format.md ("shapes.json").
#include <string>

#include <nlohmann/json.hpp>

#include "engine/world_def.h"

namespace impetus::viewer {

/// The shapes.json document of `scene`.
nlohmann::ordered_json scene_shapes_json(const SceneDef& scene);

/// Writes scene_shapes_json(scene) to DIR/shapes.json; false with `error` on an I/O failure.
bool write_scene_shapes(const SceneDef& scene, const std::string& dir, std::string* error);

}  // namespace impetus::viewer
