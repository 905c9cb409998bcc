// impetus-batch/1 → BatchManifest. Validation follows the scene loader's style (JsonObject and
// the strict readers of engine/json_reader.h), so errors read "FILE: JSON.PATH: problem".
#include "tools/cli/batch_manifest.h"

#include <cmath>
#include <filesystem>
#include <map>

#include "engine/json_reader.h"
#include "engine/json_text.h"
#include "engine/scene_overrides.h"

namespace impetus::cli {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kFormat = "impetus-batch/1";
constexpr std::size_t kMaxRuns = 100'000;
constexpr std::size_t kMaxIdLength = 200;

std::string resolve(const std::string& base_dir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute() || base_dir.empty()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

// A number, or an array of numbers and nulls (null = that component is unbounded).
void check_bound_value(const json& v, const std::string& path) {
  if (v.is_number()) {
    read_number(v, path);
    return;
  }
  if (!v.is_array() || v.empty()) {
    throw JsonError{path, "must be a number or an array of numbers (null = unbounded), got " +
                              describe_json(v)};
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_null()) read_number(v[i], json_index_path(path, i));
  }
}

Bound read_bound(const json& v, const std::string& path) {
  JsonObject obj(v, path, {"min", "max"});
  if (!obj.has("min") && !obj.has("max")) throw JsonError{path, "give \"min\", \"max\" or both"};
  Bound bound;
  if (const json* min = obj.find("min")) {
    check_bound_value(*min, obj.key_path("min"));
    bound.min = *min;
  }
  if (const json* max = obj.find("max")) {
    check_bound_value(*max, obj.key_path("max"));
    bound.max = *max;
  }
  if (bound.min.is_array() && bound.max.is_array() && bound.min.size() != bound.max.size()) {
    throw JsonError{path, "\"min\" and \"max\" must have the same number of components"};
  }
  return bound;
}

// name → {quantity → bound}, for bodies or cloths.
std::vector<NamedBound> read_named_bounds(const json& v, const std::string& path,
                                          std::initializer_list<std::string_view> quantities) {
  if (!v.is_object()) throw JsonError{path, "must be an object (name → bounds), got " + describe_json(v)};
  std::vector<NamedBound> out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string name_path = json_key_path(path, it.key());
    if (it.key().empty()) throw JsonError{path, "a name must not be empty"};
    JsonObject obj(*it, name_path, quantities);
    for (auto q = it->begin(); q != it->end(); ++q) {
      out.push_back({it.key(), q.key(), read_bound(*q, obj.key_path(q.key()))});
    }
  }
  return out;
}

RunChecks read_checks(const json& v, const std::string& path, const std::string& base_dir) {
  JsonObject obj(v, path, {"status", "golden", "stats", "bodies", "cloths"});
  RunChecks checks;
  if (const json* s = obj.find("status")) {
    checks.status = read_string(*s, obj.key_path("status"));
    if (checks.status != "ok" && checks.status != "diverged" && checks.status != "any") {
      throw JsonError{obj.key_path("status"),
                      "must be \"ok\", \"diverged\" or \"any\", got " + describe_json(*s)};
    }
  }
  if (const json* g = obj.find("golden")) {
    GoldenCheck golden;
    const std::string golden_path = obj.key_path("golden");
    if (g->is_string()) {
      golden.file = read_name(*g, golden_path);
    } else {
      JsonObject gobj(*g, golden_path, {"file", "tol", "exact"});
      golden.file = read_name(gobj.require("file"), gobj.key_path("file"));
      if (const json* t = gobj.find("tol")) golden.tolerance = read_non_negative(*t, gobj.key_path("tol"));
      if (const json* e = gobj.find("exact")) golden.exact = read_bool(*e, gobj.key_path("exact"));
      if (golden.exact && gobj.has("tol")) {
        throw JsonError{golden_path, "\"tol\" and \"exact\": true exclude each other"};
      }
    }
    golden.path = resolve(base_dir, golden.file);
    checks.golden = golden;
  }
  if (const json* s = obj.find("stats")) {
    const std::string stats_path = obj.key_path("stats");
    if (!s->is_object()) throw JsonError{stats_path, "must be an object (stats key → bound), got " + describe_json(*s)};
    for (auto it = s->begin(); it != s->end(); ++it) {
      checks.stats.emplace_back(it.key(), read_bound(*it, json_key_path(stats_path, it.key())));
    }
  }
  if (const json* b = obj.find("bodies")) {
    checks.bodies = read_named_bounds(*b, obj.key_path("bodies"),
                                      {"position", "linear_velocity", "angular_velocity", "speed",
                                       "angular_speed"});
  }
  if (const json* c = obj.find("cloths")) {
    checks.cloths = read_named_bounds(*c, obj.key_path("cloths"),
                                      {"self_intersections", "vertices", "bbox_min", "bbox_max"});
  }
  return checks;
}

// The text of a parameter value inside a run id or a string: numbers in shortest round-trip
// form, strings as they are, booleans as true/false.
std::optional<std::string> value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) return format_number(v.get<double>());
  return std::nullopt;
}

// Replaces "${name}" placeholders in every string of `v`: a string that is exactly one
// placeholder becomes the value itself (any JSON type), others get the value's text.
json substitute(const json& v, const json& values, const std::string& path) {
  if (v.is_object()) {
    json out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it) {
      out[it.key()] = substitute(*it, values, json_key_path(path, it.key()));
    }
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.push_back(substitute(v[i], values, json_index_path(path, i)));
    }
    return out;
  }
  if (!v.is_string()) return v;
  const std::string text = v.get<std::string>();
  std::string result;
  std::size_t pos = 0;
  while (true) {
    std::size_t open = text.find("${", pos);
    if (open == std::string::npos) break;
    std::size_t close = text.find('}', open);
    if (close == std::string::npos) throw JsonError{path, "unterminated \"${\" in " + describe_json(v)};
    const std::string name = text.substr(open + 2, close - open - 2);
    auto it = values.find(name);
    if (it == values.end()) {
      throw JsonError{path, "\"${" + name + "}\" names no parameter of the sweep"};
    }
    if (open == 0 && close + 1 == text.size()) return *it;  // the whole string: keep the type
    std::optional<std::string> piece = value_text(*it);
    if (!piece) {
      throw JsonError{path, "parameter \"" + name + "\" has a non-scalar value and can only "
                            "stand alone in a string"};
    }
    result += text.substr(pos, open - pos) + *piece;
    pos = close + 1;
  }
  return result + text.substr(pos);
}

struct RunTemplate {
  std::string id;
  json scene;
  json overrides = json::object();
  json checks = json::object();
  std::optional<double> cost;
};

BatchRun make_run(const RunTemplate& t, const std::string& path, const std::string& base_dir,
                  const json& parameters) {
  BatchRun run;
  run.id = t.id;
  run.scene = read_name(t.scene, json_key_path(path, "scene"));
  run.scene_path = resolve(base_dir, run.scene);
  run.overrides = t.overrides;
  run.overrides_path = json_key_path(path, "overrides");
  std::string error;
  if (!check_scene_overrides(run.overrides, run.overrides_path, &error)) {
    // check_scene_overrides reports "PATH: problem"; split it back for the JsonError.
    std::size_t colon = error.find(": ");
    throw JsonError{error.substr(0, colon), colon == std::string::npos ? "invalid" : error.substr(colon + 2)};
  }
  run.checks = read_checks(t.checks, json_key_path(path, "checks"), base_dir);
  run.cost = t.cost;
  run.parameters = parameters;
  return run;
}

RunTemplate read_template(const JsonObject& obj) {
  RunTemplate t;
  t.id = read_name(obj.require("id"), obj.key_path("id"));
  t.scene = obj.require("scene");
  read_name(t.scene, obj.key_path("scene"));
  if (const json* o = obj.find("overrides")) t.overrides = *o;
  if (const json* c = obj.find("checks")) t.checks = *c;
  if (const json* c = obj.find("cost")) t.cost = read_non_negative(*c, obj.key_path("cost"));
  return t;
}

void expand_sweep(const json& v, const std::string& path, const std::string& base_dir,
                  std::vector<BatchRun>* runs, std::vector<std::string>* origins) {
  JsonObject obj(v, path, {"id", "scene", "parameters", "overrides", "checks", "cost"});
  RunTemplate t = read_template(obj);
  const std::string params_path = obj.key_path("parameters");
  const json& params = obj.require("parameters");
  if (!params.is_object() || params.empty()) {
    throw JsonError{params_path, "must be a non-empty object (name → array of values), got " +
                                     describe_json(params)};
  }
  std::vector<std::string> names;
  std::vector<const json*> lists;
  std::size_t combinations = 1;
  for (auto it = params.begin(); it != params.end(); ++it) {
    const std::string p_path = json_key_path(params_path, it.key());
    if (!valid_run_id(it.key())) {
      throw JsonError{p_path, "a parameter name may only use letters, digits and . _ = + -"};
    }
    if (!it->is_array() || it->empty()) {
      throw JsonError{p_path, "must be a non-empty array of values, got " + describe_json(*it)};
    }
    names.push_back(it.key());
    lists.push_back(&*it);
    combinations *= it->size();
    if (combinations > kMaxRuns) throw JsonError{params_path, "more than 100000 combinations"};
  }
  const bool id_template = t.id.find("${") != std::string::npos;
  std::vector<std::size_t> index(names.size(), 0);
  for (std::size_t n = 0; n < combinations; ++n) {
    json values = json::object();
    std::string id = t.id;
    for (std::size_t p = 0; p < names.size(); ++p) {
      const json& value = (*lists[p])[index[p]];
      values[names[p]] = value;
      if (!id_template) {
        std::optional<std::string> text = value_text(value);
        // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on the chain.
        id += '-';
        id += names[p];
        id += '=';
        if (text) {
          id += *text;
        } else {
          id += 'v';
          id += std::to_string(index[p] + 1);
        }
      }
    }
    const std::string origin = path + " (" + [&] {
      std::string list;
      for (std::size_t p = 0; p < names.size(); ++p) {
        list += (p ? ", " : "") + names[p] + "=" + values[names[p]].dump();
      }
      return list;
    }() + ")";
    RunTemplate concrete = t;
    if (id_template) {
      json id_json = substitute(json(t.id), values, obj.key_path("id"));
      std::optional<std::string> text = value_text(id_json);
      if (!text) throw JsonError{obj.key_path("id"), "must expand to a string"};
      id = *text;
    }
    concrete.id = id;
    concrete.scene = substitute(t.scene, values, obj.key_path("scene"));
    concrete.overrides = substitute(t.overrides, values, obj.key_path("overrides"));
    concrete.checks = substitute(t.checks, values, obj.key_path("checks"));
    if (!valid_run_id(concrete.id)) {
      throw JsonError{obj.key_path("id"), "expands to \"" + concrete.id +
                                              "\", not a valid run id (letters, digits and "
                                              ". _ = + -, at most 200 characters)"};
    }
    runs->push_back(make_run(concrete, path, base_dir, values));
    origins->push_back(origin);
    // Odometer: the last parameter varies fastest.
    for (std::size_t p = names.size(); p-- > 0;) {
      if (++index[p] < lists[p]->size()) break;
      index[p] = 0;
    }
  }
}

BatchManifest read_manifest(const json& doc, const std::string& file) {
  require_format(doc, kFormat, "manifest");
  JsonObject root(doc, "", {"$schema", "format", "name", "description", "runs", "sweeps"});
  BatchManifest manifest;
  manifest.file = file;
  if (const json* n = root.find("name")) {
    manifest.name = read_name(*n, "name");
  } else {
    std::string stem = fs::path(file).filename().string();
    for (const char* suffix : {".batch.json", ".json"}) {
      const std::string s = suffix;
      if (stem.size() > s.size() && stem.compare(stem.size() - s.size(), s.size(), s) == 0) {
        stem.resize(stem.size() - s.size());
        break;
      }
    }
    manifest.name = stem;
  }
  if (const json* d = root.find("description")) read_string(*d, "description");
  if (const json* s = root.find("$schema")) read_string(*s, "$schema");
  const std::string base_dir = fs::path(file).parent_path().string();

  std::vector<std::string> origins;
  if (const json* runs = root.find("runs")) {
    check_array(*runs, "runs", -1);
    for (std::size_t i = 0; i < runs->size(); ++i) {
      const std::string path = json_index_path("runs", i);
      JsonObject obj((*runs)[i], path, {"id", "scene", "overrides", "checks", "cost"});
      RunTemplate t = read_template(obj);
      if (!valid_run_id(t.id)) {
        throw JsonError{obj.key_path("id"), "\"" + t.id + "\" is not a valid run id (letters, "
                                            "digits and . _ = + -, at most 200 characters)"};
      }
      manifest.runs.push_back(make_run(t, path, base_dir, json()));
      origins.push_back(path);
    }
  }
  if (const json* sweeps = root.find("sweeps")) {
    check_array(*sweeps, "sweeps", -1);
    for (std::size_t i = 0; i < sweeps->size(); ++i) {
      expand_sweep((*sweeps)[i], json_index_path("sweeps", i), base_dir, &manifest.runs, &origins);
      if (manifest.runs.size() > kMaxRuns) throw JsonError{"sweeps", "more than 100000 runs"};
    }
  }
  if (manifest.runs.empty()) throw JsonError{"", "no runs: give \"runs\" or \"sweeps\""};
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < manifest.runs.size(); ++i) {
    auto [it, inserted] = seen.emplace(manifest.runs[i].id, i);
    if (!inserted) {
      throw JsonError{origins[i], "duplicate run id \"" + manifest.runs[i].id + "\" (also " +
                                      origins[it->second] + ")"};
    }
  }
  return manifest;
}

}  // namespace

bool valid_run_id(const std::string& id) {
  if (id.empty() || id.size() > kMaxIdLength || id[0] == '.' || id[0] == '-') return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '=' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

namespace {

std::optional<BatchManifest> manifest_from_document(const json& doc, const std::string& file,
                                                    std::string* error) {
  try {
    return read_manifest(doc, file);
  } catch (const JsonError& e) {
    *error = file + ": " + e.message();
  } catch (const std::exception& e) {
    *error = file + ": " + e.what();
  }
  return std::nullopt;
}

}  // namespace

std::optional<BatchManifest> load_batch_manifest(const std::string& file, std::string* error) {
  std::optional<json> doc = read_json_file(file, "manifest", error);
  if (!doc) return std::nullopt;
  return manifest_from_document(*doc, file, error);
}

std::optional<BatchManifest> parse_batch_manifest(const std::string& text, const std::string& file,
                                                  std::string* error) {
  std::optional<json> doc = parse_json_text(text, error);
  if (!doc) {
    *error = file + ": " + *error;
    return std::nullopt;
  }
  return manifest_from_document(*doc, file, error);
}

}  // namespace impetus::cli
