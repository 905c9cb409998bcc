#pragma once
// impetus-scene/1 loader (../shared/spec/scene-format.md → docs/scene-format.md): JSON → SceneDef.
// Validation is strict and complete here, so the World can assume valid defs. Errors name the
// file, the JSON path and the problem:
//   "scenes/x.json: bodies[3].shape.radius: must be a positive number, got -1"
// A public header (installed): no JSON library types here; the entry points that take an
// already-parsed document are in engine/scene_loader_json.h, inside the project.
#include <optional>
#include <string>

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

}  // namespace impetus
