#pragma once
// Overrides of a scene's values, applied to its parsed impetus-scene/1 document before the
// loader validates it, so that an overridden value is checked exactly like one written in the
// file. Used by `impetus batch` (manifest `overrides`, tools/docs/batch-format.md) and by the
// `--solver` option of `impetus run` / `impetus check`.
//
// An overrides object has up to four keys, each applied as a JSON merge patch (RFC 7386: an
// object merges key by key, any other value replaces, null removes the key):
//   "settings":  merged into the scene's settings; giving `steps` removes `duration` and the
//                other way round (the format allows only one of them);
//   "materials": NAME → object merged into materials.NAME (`default` may be absent from the file;
//                any other name must exist);
//   "bodies":    NAME → object merged into the entry of `bodies` with that name;
//   "arrays":    NAME → object merged into the entry of `arrays` with that name.
#include <string>

#include <nlohmann/json.hpp>

#include "engine/scene_loader.h"

namespace impetus {

/// Checks the shape of an overrides object (an object with only the four keys above, each an
/// object of objects where names are expected). On failure returns false and sets `error` to
/// "JSON.PATH: problem", the path starting at `path` (e.g. "runs[2].overrides").
bool check_scene_overrides(const nlohmann::json& overrides, const std::string& path,
                           std::string* error);

/// Applies checked `overrides` to the scene document `scene`. On failure (a body, array or
/// material the scene does not have, a scene that is not an object) returns false and sets
/// `error` to "JSON.PATH: problem" with the path starting at `path`.
bool apply_scene_overrides(nlohmann::json* scene, const nlohmann::json& overrides,
                           const std::string& path, std::string* error);

/// load_scene_file with `overrides` applied to the document first (see above). Errors read
/// "FILE: JSON.PATH: problem"; an override naming something the scene lacks reads
/// "FILE: <path>.bodies.NAME: no body named ..." with `path` as given.
SceneLoadResult load_scene_file(const std::string& file, const nlohmann::json& overrides,
                                const std::string& path = "overrides");

}  // namespace impetus
