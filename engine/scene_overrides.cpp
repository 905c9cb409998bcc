#include "engine/scene_overrides.h"

#include <filesystem>

#include "engine/json_reader.h"
#include "engine/json_text.h"
#include "engine/scene_loader_json.h"

namespace impetus {

using nlohmann::json;

namespace {

// The entry of the array `list` whose "name" is `name`, or nullptr.
json* find_named(json* list, const std::string& name) {
  if (list == nullptr || !list->is_array()) return nullptr;
  for (json& entry : *list) {
    if (entry.is_object()) {
      auto it = entry.find("name");
      if (it != entry.end() && it->is_string() && it->get<std::string>() == name) return &entry;
    }
  }
  return nullptr;
}

json* find_key(json* object, const char* key) {
  if (!object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() ? nullptr : &*it;
}

}  // namespace

bool check_scene_overrides(const json& overrides, const std::string& path, std::string* error) {
  try {
    JsonObject obj(overrides, path, {"settings", "materials", "bodies", "arrays"});
    if (const json* settings = obj.find("settings")) {
      if (!settings->is_object()) {
        throw JsonError{obj.key_path("settings"), "must be an object, got " + describe_json(*settings)};
      }
    }
    for (const char* group : {"materials", "bodies", "arrays"}) {
      const json* named = obj.find(group);
      if (named == nullptr) continue;
      const std::string group_path = obj.key_path(group);
      if (!named->is_object()) {
        throw JsonError{group_path, "must be an object (name → values), got " + describe_json(*named)};
      }
      for (auto it = named->begin(); it != named->end(); ++it) {
        if (!it->is_object()) {
          throw JsonError{json_key_path(group_path, it.key()),
                          "must be an object of values to override, got " + describe_json(*it)};
        }
      }
    }
  } catch (const JsonError& e) {
    *error = e.message();
    return false;
  }
  return true;
}

bool apply_scene_overrides(json* scene, const json& overrides, const std::string& path,
                           std::string* error) {
  if (!overrides.is_object() || overrides.empty()) return true;
  if (!scene->is_object()) {
    *error = path + ": the scene is not a JSON object";
    return false;
  }
  if (auto it = overrides.find("settings"); it != overrides.end()) {
    json& settings = (*scene)["settings"];
    if (settings.is_null()) settings = json::object();
    // The format wants exactly one of steps and duration: the override's choice wins.
    if (it->contains("steps") && !(*it)["steps"].is_null()) settings.erase("duration");
    if (it->contains("duration") && !(*it)["duration"].is_null()) settings.erase("steps");
    settings.merge_patch(*it);
  }
  if (auto it = overrides.find("materials"); it != overrides.end()) {
    for (auto m = it->begin(); m != it->end(); ++m) {
      json* materials = find_key(scene, "materials");
      json* target = materials != nullptr ? find_key(materials, m.key().c_str()) : nullptr;
      if (target == nullptr) {
        if (m.key() != "default") {
          *error = json_key_path(json_key_path(path, "materials"), m.key()) +
                   ": no material named \"" + m.key() + "\" in the scene";
          return false;
        }
        // The engine's default material exists without being written; create its entry.
        json& created = (*scene)["materials"]["default"];
        created = json::object();
        target = &created;
      }
      target->merge_patch(*m);
    }
  }
  for (const char* group : {"bodies", "arrays"}) {
    auto it = overrides.find(group);
    if (it == overrides.end()) continue;
    for (auto b = it->begin(); b != it->end(); ++b) {
      json* target = find_named(find_key(scene, group), b.key());
      if (target == nullptr) {
        *error = json_key_path(json_key_path(path, group), b.key()) + ": no " +
                 (group[0] == 'b' ? "body" : "array") + " named \"" + b.key() +
                 "\" in the scene's \"" + group + "\"";
        return false;
      }
      target->merge_patch(*b);
    }
  }
  return true;
}

SceneLoadResult load_scene_file(const std::string& file, const json& overrides,
                                const std::string& path) {
  if (!overrides.is_object() || overrides.empty()) return load_scene_file(file);
  SceneLoadResult result;
  std::optional<json> doc = read_json_file(file, "scene file", &result.error);
  if (!doc) return result;
  std::string error;
  if (!check_scene_overrides(overrides, path, &error) ||
      !apply_scene_overrides(&*doc, overrides, path, &error)) {
    result.error = file + ": " + error;
    return result;
  }
  return load_scene_json(*doc, file, std::filesystem::path(file).parent_path().string());
}

}  // namespace impetus
