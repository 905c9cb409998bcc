#pragma once
// Strict reading of JSON values for the scene loader: every accessor checks the JSON type,
// finiteness and range, and reports failures as a JsonError carrying the JSON path of the
// offending value ("bodies[3].shape.radius") and the problem ("must be a positive number, got
// -1"). Objects are opened through JsonObject, which rejects unknown keys up front so that a
// typo ("desnity") is never silently ignored.
//
// JsonError is an exception on purpose: the loader is a deep recursive descent and unwinding to
// one catch site keeps every parse function short. It never leaves the loader (scene_loader.cpp
// converts it to SceneLoadResult::error).
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "collision/base/math.h"

namespace impetus {

struct JsonError {
  std::string path;     // JSON path of the offending value; empty for the document itself
  std::string problem;  // what is wrong, e.g. "must be a positive number, got -1"
  /// "PATH: problem" (or just the problem when the path is empty).
  std::string message() const;
};

/// `parent.key`, or `key` at the root.
std::string json_key_path(const std::string& parent, std::string_view key);
/// `parent[index]`.
std::string json_index_path(const std::string& parent, std::size_t index);

/// A short description of a JSON value for messages: `-1`, `"abc"`, `an object`, `null`, ...
std::string describe_json(const nlohmann::json& value);
/// Shortest round-trip text of a double ("-1", "0.25", "inf").
std::string format_number(double value);

/// Checks the document kind first, so that a file of another kind says so instead of listing
/// its unknown keys: `doc` must be an object (else "a <what> must be a JSON object") whose
/// "format" is the string `format`.
void require_format(const nlohmann::json& doc, const std::string& format, const std::string& what);

/// An object whose keys have been checked against an allowed list.
class JsonObject {
 public:
  /// Throws JsonError at `path` if `value` is not an object, or at `path.key` for the first
  /// (in key order) key not in `allowed`.
  JsonObject(const nlohmann::json& value, std::string path,
             std::initializer_list<std::string_view> allowed);

  const std::string& path() const { return path_; }
  /// Path of one key of this object.
  std::string key_path(std::string_view key) const { return json_key_path(path_, key); }
  bool has(std::string_view key) const;
  /// The value of `key`, or nullptr when absent. A JSON null counts as present.
  const nlohmann::json* find(std::string_view key) const;
  /// The value of `key`; throws "missing required key" when absent.
  const nlohmann::json& require(std::string_view key) const;
  const nlohmann::json& value() const { return *value_; }

 private:
  const nlohmann::json* value_;
  std::string path_;
};

// Scalar readers: throw JsonError{path, ...} on a wrong type or an out-of-range value.
double read_number(const nlohmann::json& v, const std::string& path);        // finite
double read_positive(const nlohmann::json& v, const std::string& path);      // finite, > 0
double read_non_negative(const nlohmann::json& v, const std::string& path);  // finite, >= 0
/// An integer in [min_value, max_value]; a float with an exact integral value is accepted.
long long read_integer(const nlohmann::json& v, const std::string& path, long long min_value,
                       long long max_value);
std::uint64_t read_uint64(const nlohmann::json& v, const std::string& path);
bool read_bool(const nlohmann::json& v, const std::string& path);
std::string read_string(const nlohmann::json& v, const std::string& path);
/// A non-empty string of at most limits::kMaxNameBytes bytes.
std::string read_name(const nlohmann::json& v, const std::string& path);
/// Throws unless `v` is an array of exactly `size` elements (size < 0: any size).
void check_array(const nlohmann::json& v, const std::string& path, int size);

Vec3 read_vec3(const nlohmann::json& v, const std::string& path);           // 3 finite
Vec3 read_positive_vec3(const nlohmann::json& v, const std::string& path);  // 3 finite > 0
/// A non-zero vector, returned normalised.
Vec3 read_direction(const nlohmann::json& v, const std::string& path);
/// [w, x, y, z], non-zero, returned normalised.
Quat read_quaternion(const nlohmann::json& v, const std::string& path);
/// [[x, y, z], ...] (at least `min_count` points).
std::vector<Vec3> read_points(const nlohmann::json& v, const std::string& path,
                              std::size_t min_count);

}  // namespace impetus
