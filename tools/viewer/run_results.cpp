#include "tools/viewer/run_results.h"

#include <cctype>
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

// shapes.json is checked completely here, so that the writers can read it without checks:
// a hand-edited or truncated file gives one error naming the entry, never a crash.
bool is_numbers(const json& v, std::size_t count) {
  if (!v.is_array() || (count > 0 && v.size() != count)) return false;
  for (const json& x : v) {
    if (!x.is_number()) return false;
  }
  return true;
}

// A flat x, y, z list and a flat triangle list indexing it.
bool is_triangle_surface(const json& v) {
  if (!v.is_object() || !v.contains("vertices") || !v.contains("triangles")) return false;
  const json& vertices = v["vertices"];
  const json& triangles = v["triangles"];
  if (!is_numbers(vertices, 0) || vertices.size() % 3 != 0 || !triangles.is_array() ||
      triangles.size() % 3 != 0)
    return false;
  for (const json& i : triangles) {
    if (!i.is_number_unsigned() || i.get<std::size_t>() >= vertices.size() / 3) return false;
  }
  return true;
}

bool is_colour(const json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() != 7 || s[0] != '#') return false;
  for (std::size_t i = 1; i < 7; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

bool check_shapes(const fs::path& path, const json& shapes, std::string* error) {
  auto fail = [&](const std::string& where, const std::string& problem) {
    *error = path.string() + ": " + where + ": " + problem;
    return false;
  };
  if (shapes.value("format", "") != "impetus-shapes/1" || !shapes.contains("bodies") ||
      !shapes["bodies"].is_array() || !shapes.contains("surfaces") ||
      !shapes["surfaces"].is_array() || !shapes.contains("cloths") || !shapes["cloths"].is_array() ||
      !shapes.contains("joints") || !shapes["joints"].is_array()) {
    *error = path.string() + ": not an impetus-shapes/1 document";
    return false;
  }
  const json& surfaces = shapes["surfaces"];
  for (std::size_t i = 0; i < surfaces.size(); ++i) {
    if (!is_triangle_surface(surfaces[i]))
      return fail("surfaces[" + std::to_string(i) + "]", "needs vertices (x, y, z ...) and triangles indexing them");
  }
  const json& bodies = shapes["bodies"];
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const json& b = bodies[i];
    const std::string where = "bodies[" + std::to_string(i) + "]";
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string() || !b.contains("motion") ||
        !b["motion"].is_string() || !b.contains("shape") || !b["shape"].is_string())
      return fail(where, "needs name, motion and shape strings");
    if (!b.contains("surface") || !b["surface"].is_number_unsigned() ||
        b["surface"].get<std::size_t>() >= surfaces.size())
      return fail(where, "surface must index surfaces");
    if (!b.contains("color") || !is_colour(b["color"])) return fail(where, "color must be #rrggbb");
    if (!b.contains("position") || !is_numbers(b["position"], 3) || !b.contains("orientation") ||
        !is_numbers(b["orientation"], 4))
      return fail(where, "needs position [x, y, z] and orientation [w, x, y, z]");
  }
  const json& joints = shapes["joints"];
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const json& j = joints[i];
    if (!j.is_object() || !j.contains("body_a") || !j["body_a"].is_string() ||
        !j.contains("anchor_a") || !is_numbers(j["anchor_a"], 3))
      return fail("joints[" + std::to_string(i) + "]", "needs body_a and anchor_a [x, y, z]");
  }
  const json& cloths = shapes["cloths"];
  for (std::size_t i = 0; i < cloths.size(); ++i) {
    const json& c = cloths[i];
    const std::string where = "cloths[" + std::to_string(i) + "]";
    if (!is_triangle_surface(c) || !c.contains("name") || !c["name"].is_string())
      return fail(where, "needs a name, vertices and triangles indexing them");
    if (!c.contains("color") || !is_colour(c["color"])) return fail(where, "color must be #rrggbb");
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
