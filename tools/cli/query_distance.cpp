// `distance` query: static signed distance with witness points (collision/distance/distance.h).
#include <optional>
#include <string>

#include "collision/distance/distance.h"
#include "tools/cli/query_types.h"

namespace impetus::cli {

OrderedJson answer_distance(const Json& query, const std::string& path,
                            const std::string& base_dir) {
  check_keys(query, path, {"id", "type", "a", "b"});
  QueryObject a = read_object(query, path, "a", base_dir);
  QueryObject b = read_object(query, path, "b", base_dir);
  std::string error;
  std::optional<DistanceResult> d = signed_distance(a.shape, a.pose(), b.shape, b.pose(), &error);
  if (!d) throw QueryError{path + ": " + (error.empty() ? "no distance for these shapes" : error)};
  OrderedJson result = OrderedJson::object();
  result["distance"] = d->distance;
  result["point_a"] = vec3_json(d->point_a);
  result["point_b"] = vec3_json(d->point_b);
  result["normal"] = vec3_json(d->normal);
  return result;
}

}  // namespace impetus::cli
