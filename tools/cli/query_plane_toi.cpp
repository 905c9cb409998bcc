// `plane_toi` query: first time a moving convex polyhedron touches a fixed plane (paper 3,
// collision/continuous/plane_toi.h), by the extreme-vertex method or the discrete baseline.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "collision/continuous/plane_toi.h"
#include "engine/obj_loader.h"
#include "engine/shape_json.h"
#include "tools/cli/query_types.h"

namespace impetus::cli {

namespace {

// A discrete run of more steps than this is refused (it would take minutes).
constexpr double kMaxDiscreteSteps = 1e8;

// The shape's vertex list as the user gave it (inline `vertices` or the OBJ file's `v` lines);
// empty for a box, whose vertices are numbered as in box_hull (bit j of the index set = +h_j).
std::vector<Vec3> source_vertices(const Json& shape_json, const std::string& base_dir) {
  std::vector<Vec3> points;
  if (auto it = shape_json.find("vertices"); it != shape_json.end()) {
    for (const Json& p : *it) points.emplace_back(p[0].get<double>(), p[1].get<double>(),
                                                  p[2].get<double>());
  } else if (auto mesh = shape_json.find("mesh"); mesh != shape_json.end() && mesh->is_string()) {
    ObjLoadResult obj = load_obj_file(resolve_scene_path(base_dir, mesh->get<std::string>()));
    if (obj.ok()) points = obj.mesh->vertices;
  }
  return points;
}

// Index in `points` of the hull vertex (the hull keeps its input points' coordinates; the
// nearest point is taken so that this holds even if it did not). -1 if `points` is empty.
int source_index(const std::vector<Vec3>& points, const Vec3& vertex) {
  int best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  for (int i = 0; i < static_cast<int>(points.size()); ++i) {
    const double d = (points[i] - vertex).squaredNorm();
    if (d < best_distance) {
      best_distance = d;
      best = i;
    }
  }
  return best;
}

}  // namespace

OrderedJson answer_plane_toi(const Json& query, const std::string& path,
                             const std::string& base_dir) {
  check_keys(query, path, {"id", "type", "a", "plane", "interval", "method", "dt"});
  QueryObject a = read_object(query, path, "a", base_dir);
  require_shape_type(a, path + ".a", {ShapeType::Box, ShapeType::Convex});

  const std::string plane_path = path + ".plane";
  const Json& plane = require_key(query, path, "plane");
  if (!plane.is_object()) throw QueryError{plane_path + ": must be an object {normal, offset}"};
  check_keys(plane, plane_path, {"normal", "offset"});
  const Vec3 normal = read_vec3(require_key(plane, plane_path, "normal"), plane_path + ".normal");
  if (!(normal.norm() > 0)) throw QueryError{plane_path + ".normal: must be non-zero"};
  const double offset = read_finite(require_key(plane, plane_path, "offset"),
                                    plane_path + ".offset");

  double t0 = 0;
  double t1 = 0;
  read_interval(require_key(query, path, "interval"), path + ".interval", &t0, &t1);

  std::string method = "extreme_vertex";
  if (auto it = query.find("method"); it != query.end()) {
    method = read_choice(*it, path + ".method", {"extreme_vertex", "discrete"});
  }
  double dt = 0;
  auto dt_json = query.find("dt");
  if (method == "discrete") {
    if (dt_json == query.end()) {
      throw QueryError{path + ": missing key 'dt' (required by \"method\": \"discrete\")"};
    }
    dt = read_positive(*dt_json, path + ".dt");
    if ((t1 - t0) / dt > kMaxDiscreteSteps) {
      throw QueryError{path + ".dt: more than 1e8 steps over the interval"};
    }
  } else if (dt_json != query.end()) {
    throw QueryError{path + ".dt: only allowed with \"method\": \"discrete\""};
  }

  std::string error;
  std::optional<PlaneToiResult> r =
      plane_toi_for_shape(a.shape, a.motion, normal, offset, t0, t1, dt, &error);
  if (!r) throw QueryError{path + ": " + (error.empty() ? "no TOI for this object" : error)};

  OrderedJson result = OrderedJson::object();
  result["toi"] = r->toi ? OrderedJson(*r->toi) : OrderedJson(nullptr);
  if (r->toi && r->vertex >= 0) {
    const ConvexHull box = a.shape.type == ShapeType::Box ? box_hull(a.shape.half_extents)
                                                          : ConvexHull{};
    const ConvexHull& hull = a.shape.type == ShapeType::Box ? box : *a.shape.hull;
    const Vec3& local = hull.vertices[r->vertex];
    int vertex = r->vertex;
    if (a.shape.type == ShapeType::Convex) {
      const Json& shape_json = query.at("a").at("shape");
      const int index = source_index(source_vertices(shape_json, base_dir), local);
      if (index >= 0) vertex = index;
    }
    result["vertex"] = vertex;
    result["iterations"] = r->iterations;
    // Addition: where the touching vertex is at toi (world).
    result["point"] = vec3_json(a.motion.at(*r->toi).apply(local));
  } else {
    result["vertex"] = nullptr;
    result["iterations"] = r->iterations;
  }
  return result;
}

}  // namespace impetus::cli
