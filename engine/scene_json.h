#pragma once
// Scene-loader internals shared by its translation units (scene_loader.cpp, joint_json.cpp,
// cloth_json.cpp). Every function throws JsonError (engine/json_reader.h) on invalid input.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/world_def.h"

namespace impetus {

/// Bodies read so far and their names (ordered map: lookups only, never iterated for results).
struct SceneBodies {
  const std::vector<BodyDef>* bodies = nullptr;
  std::map<std::string, int> index_by_name;

  /// Index of the body named by the string `v` at `path`; "world" gives -1 when `allow_world`.
  int lookup(const nlohmann::json& v, const std::string& path, bool allow_world) const;
};

/// One entry of `joints` at `path` (e.g. "joints[2]").
SceneJointDef read_joint(const nlohmann::json& v, const std::string& path, const SceneBodies& bodies);

/// One entry of `cloths` at `path`; OBJ paths resolve against `base_dir`. `vertex_room` is how
/// many cloth vertices the scene may still have (limits::kMaxClothVertices in all); the
/// cloth's count is checked against it before its vertices exist, and subtracted.
SceneClothDef read_cloth(const nlohmann::json& v, const std::string& path, const SceneBodies& bodies,
                    const std::string& base_dir, long long* vertex_room);

/// The reserved body name that stands for the fixed world frame in joints.
inline constexpr const char* kWorldBodyName = "world";

}  // namespace impetus
