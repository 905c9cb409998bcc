#pragma once
// Reading one query of `impetus query` (../shared/spec/query-format.md): objects, numbers and
// enumerations, each checked and, when wrong, reported as a QueryError naming the JSON path.
// Shared by the per-type answer functions (query_types.h).
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collision/base/math.h"
#include "collision/continuous/rigid_motion.h"
#include "collision/shape/shape.h"

namespace impetus::cli {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// A failed query: "JSON.PATH: problem", e.g. "queries[2].a.position: must be an array of 3
/// finite numbers". Thrown inside the CLI's query code only, caught per result slot.
struct QueryError {
  std::string message;
};

/// An object of query-format.md. `motion` holds the pose at t = 0 and the velocities (zero when
/// absent); static queries use motion.pose0 only.
struct QueryObject {
  Shape shape;
  RigidMotion motion;
  const Pose& pose() const { return motion.pose0; }
};

/// Throws unless every key of `object` is in `allowed`.
void check_keys(const Json& object, const std::string& path, const std::set<std::string>& allowed);

/// The value at `key` (which must be present) of the JSON object `query`.
const Json& require_key(const Json& query, const std::string& path, const char* key);

/// A finite number.
double read_finite(const Json& value, const std::string& path);
/// A finite number > 0.
double read_positive(const Json& value, const std::string& path);
/// An integer in [min, max].
long long read_integer(const Json& value, const std::string& path, long long min, long long max);
/// An array of 3 finite numbers.
Vec3 read_vec3(const Json& value, const std::string& path);
/// [w, x, y, z], non-zero, normalised.
Quat read_quaternion(const Json& value, const std::string& path);
/// `interval` [t0, t1]: finite, t0 <= t1.
void read_interval(const Json& value, const std::string& path, double* t0, double* t1);
/// A string that is one of `names` (listed in the message otherwise).
std::string read_choice(const Json& value, const std::string& path,
                        const std::vector<std::string>& names);

/// Object `key` of `query`: shape, position, orientation, linear_velocity, angular_velocity.
/// Static queries accept (and ignore) the velocities too.
QueryObject read_object(const Json& query, const std::string& query_path, const char* key,
                        const std::string& base_dir);

/// Throws "PATH.shape.type: ..." unless the object's shape type is one of `types`.
void require_shape_type(const QueryObject& object, const std::string& object_path,
                        const std::vector<ShapeType>& types);

/// [x, y, z] for the result document.
OrderedJson vec3_json(const Vec3& v);

}  // namespace impetus::cli
