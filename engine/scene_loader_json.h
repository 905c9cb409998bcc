#pragma once
// The scene loader's entry points for documents already parsed with nlohmann::json: for the
// CLI (query files embed shapes, batch overrides edit a document before loading it) and the
// tests. Not installed: the public engine/scene_loader.h keeps JSON types out of embedders'
// programs.
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "engine/scene_loader.h"

namespace impetus {

/// Same for an already-parsed document; `file` is used in messages and `base_dir` for OBJ paths.
SceneLoadResult load_scene_json(const nlohmann::json& doc, const std::string& file,
                                const std::string& base_dir);

/// Parses one shape object (as in scene-format.md, plus inline `vertices`/`triangles` for
/// convex and mesh as query-format.md allows). On failure returns nullopt and sets `error` to
/// "JSON.PATH: problem" (path = `json_path` + the offending key).
std::optional<Shape> parse_shape_json(const nlohmann::json& shape, const std::string& json_path,
                                      const std::string& base_dir, std::string* error);

}  // namespace impetus
