#pragma once
// impetus-scene/1 loader (../shared/spec/scene-format.md → docs/scene-format.md): JSON → SceneDef.
// Validation is strict and complete here, so the World can assume valid defs. Errors name the
// file, the JSON path and the problem:
//   "scenes/x.json: bodies[3].shape.radius: must be a positive number, got -1"
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "engine/world_def.h"

namespace impetus {

struct SceneLoadResult {
  std::optional<SceneDef> scene;  // set on success
  std::string error;              // "FILE: JSON.PATH: problem" on failure
  bool ok() const { return scene.has_value(); }
};

/// Loads and validates a scene file. Relative OBJ paths resolve against the file's folder.
SceneLoadResult load_scene_file(const std::string& path);

/// Same for the file's text (JSON is parsed under the limits of engine/input_limits.h); `file`
/// is used in messages and `base_dir` for OBJ paths.
SceneLoadResult load_scene_text(const std::string& text, const std::string& file,
                                const std::string& base_dir);

/// Same for an already-parsed document; `file` is used in messages and `base_dir` for OBJ paths.
SceneLoadResult load_scene_json(const nlohmann::json& doc, const std::string& file,
                                const std::string& base_dir);

/// Parses one shape object (as in scene-format.md, plus inline `vertices`/`triangles` for
/// convex and mesh as query-format.md allows). On failure returns nullopt and sets `error` to
/// "JSON.PATH: problem" (path = `json_path` + the offending key).
std::optional<Shape> parse_shape_json(const nlohmann::json& shape, const std::string& json_path,
                                      const std::string& base_dir, std::string* error);

}  // namespace impetus
