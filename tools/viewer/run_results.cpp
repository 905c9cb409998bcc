#include "tools/viewer/run_results.h"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "engine/obj_loader.h"
#include "tools/viewer/file_output.h"

namespace impetus::viewer {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool read_json_file(const fs::path& path, json* doc, std::string* error) {
  std::string text;
  if (!read_text_file(path, &text, error)) return false;
  *doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc->is_discarded() || !doc->is_object()) {
    *error = path.string() + ": not a JSON object";
    return false;
  }
  return true;
}

bool read_frames(const fs::path& path, std::vector<json>* frames, std::string* error) {
  std::string text;
  if (!read_text_file(path, &text, error)) return false;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.empty()) continue;
    json frame = json::parse(line, nullptr, false);
    if (frame.is_discarded() || !frame.is_object() || !frame.contains("step") ||
        !frame["step"].is_number_integer() || !frame.contains("time") ||
        !frame["time"].is_number() || !frame.contains("bodies") || !frame["bodies"].is_object()) {
      *error = path.string() + ":" + std::to_string(number) +
               ": not a frame record (an object with step, time and bodies)";
      return false;
    }
    if (!frames->empty() && frame["step"].get<long long>() <= frames->back()["step"].get<long long>()) {
      *error = path.string() + ":" + std::to_string(number) + ": steps must increase";
      return false;
    }
    frames->push_back(std::move(frame));
  }
  if (frames->empty()) {
    *error = path.string() + ": no frames";
    return false;
  }
  return true;
}

bool check_shapes(const fs::path& path, const json& shapes, std::string* error) {
  if (shapes.value("format", "") != "impetus-shapes/1" || !shapes.contains("bodies") ||
      !shapes["bodies"].is_array() || !shapes.contains("surfaces") ||
      !shapes["surfaces"].is_array() || !shapes.contains("cloths") || !shapes["cloths"].is_array()) {
    *error = path.string() + ": not an impetus-shapes/1 document";
    return false;
  }
  const std::size_t surfaces = shapes["surfaces"].size();
  for (const json& body : shapes["bodies"]) {
    if (!body.contains("surface") || !body["surface"].is_number_unsigned() ||
        body["surface"].get<std::size_t>() >= surfaces) {
      *error = path.string() + ": body '" + body.value("name", "?") + "': bad surface index";
      return false;
    }
  }
  return true;
}

// One cloth's OBJ frames; a missing file leaves that frame empty, a malformed one is an error.
bool read_cloth_frames(const fs::path& dir, const json& cloth, const std::vector<json>& frames,
                       std::vector<std::vector<float>>* out, std::string* error) {
  const std::string name = cloth.value("name", "");
  const std::size_t vertex_count = cloth["vertices"].size() / 3;
  for (const json& frame : frames) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, "_%06lld.obj", frame["step"].get<long long>());
    const fs::path path = dir / "cloth" / (name + suffix);
    std::vector<float>& positions = out->emplace_back();
    if (!fs::exists(path)) continue;
    ObjLoadResult obj = load_obj_file(path.string());
    if (!obj.ok()) {
      *error = obj.error;
      return false;
    }
    if (obj.mesh->vertices.size() != vertex_count) {
      *error = path.string() + ": " + std::to_string(obj.mesh->vertices.size()) +
               " vertices, but cloth '" + name + "' has " + std::to_string(vertex_count);
      return false;
    }
    for (const Vec3& v : obj.mesh->vertices) {
      for (int k = 0; k < 3; ++k) positions.push_back(static_cast<float>(v[k]));
    }
  }
  return true;
}

}  // namespace

bool read_run_results(const std::string& dir_name, RunResults* results, std::string* error) {
  const fs::path dir(dir_name);
  if (!fs::is_directory(dir)) {
    *error = dir_name + ": not a folder";
    return false;
  }
  if (!read_json_file(dir / "summary.json", &results->summary, error)) return false;
  if (!read_json_file(dir / "shapes.json", &results->shapes, error)) {
    if (!fs::exists(dir / "shapes.json"))
      *error += " (impetus run writes it; for older results pass --scene SCENE.json)";
    return false;
  }
  if (!check_shapes(dir / "shapes.json", results->shapes, error)) return false;
  if (!read_frames(dir / "trajectory.jsonl", &results->frames, error)) return false;
  for (const json& cloth : results->shapes["cloths"]) {
    if (!read_cloth_frames(dir, cloth, results->frames, &results->cloth_frames.emplace_back(),
                           error))
      return false;
  }
  return true;
}

}  // namespace impetus::viewer
