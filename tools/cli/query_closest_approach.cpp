// `closest_approach` query: closest approach distance of two ellipsoids along the line of their
// centres (paper 1, collision/distance/ellipsoid_closest_approach.h).
#include <string>

#include "collision/distance/ellipsoid_closest_approach.h"
#include "tools/cli/query_types.h"

namespace impetus::cli {

namespace {

// query-format.md: the default stopping tolerance is 1e-10 on u (paper 1, eq. 12).
constexpr double kDefaultTolerance = 1e-10;

ClosestApproachMethod read_method(const Json& query, const std::string& path) {
  auto it = query.find("method");
  if (it == query.end()) return ClosestApproachMethod::NewtonBisection;
  const std::string name =
      read_choice(*it, path + ".method", {"newton_bisection", "fixed_point", "steffensen"});
  if (name == "fixed_point") return ClosestApproachMethod::FixedPoint;
  if (name == "steffensen") return ClosestApproachMethod::Steffensen;
  return ClosestApproachMethod::NewtonBisection;
}

}  // namespace

OrderedJson answer_closest_approach(const Json& query, const std::string& path,
                                    const std::string& base_dir) {
  check_keys(query, path, {"id", "type", "a", "b", "tolerance", "method"});
  QueryObject a = read_object(query, path, "a", base_dir);
  require_shape_type(a, path + ".a", {ShapeType::Ellipsoid});
  QueryObject b = read_object(query, path, "b", base_dir);
  require_shape_type(b, path + ".b", {ShapeType::Ellipsoid});
  ClosestApproachOptions options;
  options.method = read_method(query, path);
  options.stop = ClosestApproachStop::StepSize;
  options.tolerance = kDefaultTolerance;
  if (auto it = query.find("tolerance"); it != query.end()) {
    options.tolerance = read_positive(*it, path + ".tolerance");
  }
  const ClosestApproachResult r =
      ellipsoid_closest_approach(a.shape.radii, a.pose(), b.shape.radii, b.pose(), options);
  OrderedJson result = OrderedJson::object();
  result["distance"] = r.distance;
  result["overlap"] = r.overlap;
  result["contact_point"] = vec3_json(r.contact_point);
  result["normal"] = vec3_json(r.normal);
  result["iterations"] = r.iterations;
  // Additions: whether the stopping rule was met, and the certified bracket on d.
  result["converged"] = r.converged;
  result["distance_lower"] = r.distance_lower;
  result["distance_upper"] = r.distance_upper;
  result["direction"] = vec3_json(r.direction);
  return result;
}

}  // namespace impetus::cli
