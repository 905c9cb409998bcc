// `phong_distance` query: signed distance of two polyhedra with a direction that is continuous
// in the poses (collision/phong/phong_distance.h).
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/cli/query_types.h"

// The Phong-distance API is written alongside this file; until its header is in the tree the
// query type answers with a per-slot error (after the usual input checks).
#if __has_include("collision/phong/phong_distance.h")
#include "collision/phong/phong_distance.h"
#define IMPETUS_QUERY_HAS_PHONG 1
#else
#define IMPETUS_QUERY_HAS_PHONG 0
#endif

namespace impetus::cli {

OrderedJson answer_phong_distance(const Json& query, const std::string& path,
                                  const std::string& base_dir) {
  check_keys(query, path, {"id", "type", "a", "b", "warm_start"});
  const std::vector<ShapeType> polyhedra = {ShapeType::Convex, ShapeType::Box, ShapeType::Mesh};
  QueryObject a = read_object(query, path, "a", base_dir);
  require_shape_type(a, path + ".a", polyhedra);
  QueryObject b = read_object(query, path, "b", base_dir);
  require_shape_type(b, path + ".b", polyhedra);
  Vec3 warm_start = Vec3::Zero();
  bool has_warm_start = false;
  if (auto it = query.find("warm_start"); it != query.end()) {
    warm_start = read_vec3(*it, path + ".warm_start");
    if (!(warm_start.norm() > 0)) throw QueryError{path + ".warm_start: must be non-zero"};
    warm_start.normalize();
    has_warm_start = true;
  }
#if IMPETUS_QUERY_HAS_PHONG
  PhongDistanceOptions options;
  options.warm_start = has_warm_start ? &warm_start : nullptr;
  PhongDistanceResult r;
  try {
    r = phong_distance(a.shape, a.pose(), b.shape, b.pose(), options);
  } catch (const std::invalid_argument& e) {
    // E.g. a mesh that is not closed: the shape checks above cannot see that.
    throw QueryError{path + ": " + e.what()};
  }
  OrderedJson result = OrderedJson::object();
  result["distance"] = r.distance;
  result["direction"] = vec3_json(r.direction);
  result["point"] = vec3_json(r.point);
  result["converged"] = r.converged;
  result["iterations"] = r.iterations;
  return result;
#else
  (void)has_warm_start;
  throw QueryError{path + ".type: query type 'phong_distance' is not available in this build "
                          "(collision/phong/phong_distance.h is missing)"};
#endif
}

}  // namespace impetus::cli
