#include "engine/shape_json.h"

#include <filesystem>
#include <limits>

#include "engine/json_reader.h"
#include "engine/scene_loader.h"
#include "engine/scene_loader_json.h"

namespace impetus {

using nlohmann::json;

namespace {

constexpr const char* kShapeTypes = "sphere, capsule, box, ellipsoid, convex, mesh or plane";

// A triangle is degenerate when its area is negligible against the mesh's size: such triangles
// have no normal, which the narrowphase and the closedness test both need.
constexpr double kDegenerateRelativeArea = 1e-12;

// Index of the first degenerate triangle, or -1.
long long first_degenerate_triangle(const std::vector<Vec3>& vertices,
                                    const std::vector<std::array<int, 3>>& triangles) {
  Aabb box;
  for (const Vec3& p : vertices) box.grow(p);
  const double scale = box.empty() ? 0.0 : box.extent().norm();
  const double min_double_area = kDegenerateRelativeArea * scale * scale;
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    const std::array<int, 3>& tri = triangles[t];
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) return static_cast<long long>(t);
    Vec3 e1 = vertices[tri[1]] - vertices[tri[0]];
    Vec3 e2 = vertices[tri[2]] - vertices[tri[0]];
    if (!(e1.cross(e2).norm() > min_double_area)) return static_cast<long long>(t);
  }
  return -1;
}

// Inline `triangles`: [[i, j, k], ...] with indices into `vertex_count` vertices.
std::vector<std::array<int, 3>> read_triangles(const json& v, const std::string& path,
                                               std::size_t vertex_count) {
  check_array(v, path, -1);
  if (v.empty()) throw JsonError{path, "must hold at least one triangle"};
  const long long max_index = static_cast<long long>(vertex_count) - 1;
  std::vector<std::array<int, 3>> triangles;
  triangles.reserve(v.size());
  for (std::size_t t = 0; t < v.size(); ++t) {
    const std::string tri_path = json_index_path(path, t);
    check_array(v[t], tri_path, 3);
    std::array<int, 3> tri{};
    for (int c = 0; c < 3; ++c) {
      const std::string corner_path = json_index_path(tri_path, c);
      // Range-checked here rather than by read_integer, to name the vertex count.
      long long index = read_integer(v[t][c], corner_path, std::numeric_limits<long long>::min(),
                                     std::numeric_limits<long long>::max());
      if (index < 0 || index > max_index) {
        throw JsonError{corner_path, "vertex index " + std::to_string(index) +
                                         " out of range (there are " +
                                         std::to_string(vertex_count) + " vertices)"};
      }
      tri[c] = static_cast<int>(index);
    }
    triangles.push_back(tri);
  }
  return triangles;
}

std::shared_ptr<const ConvexHull> make_hull(const std::vector<Vec3>& points,
                                            const std::string& path) {
  std::string error;
  std::optional<ConvexHull> hull = build_convex_hull(points, &error);
  if (!hull) {
    throw JsonError{path, "cannot build a convex hull from these points: " +
                              (error.empty() ? std::string("no volume") : error)};
  }
  return std::make_shared<const ConvexHull>(std::move(*hull));
}

Shape read_convex(const JsonObject& obj, const std::string& base_dir, ShapeFileCache* cache) {
  const json* vertices = obj.find("vertices");
  const json* mesh = obj.find("mesh");
  if ((vertices != nullptr) == (mesh != nullptr)) {
    throw JsonError{obj.path(), "a convex shape needs exactly one of \"vertices\" or \"mesh\""};
  }
  if (mesh != nullptr) {
    if (obj.has("triangles")) {
      throw JsonError{obj.key_path("triangles"), "only allowed with inline \"vertices\""};
    }
    std::string resolved;
    const std::string mesh_path = obj.key_path("mesh");
    if (cache != nullptr) {
      // The cache key needs the resolved path before loading.
      resolved = resolve_scene_path(base_dir, read_string(*mesh, mesh_path));
      auto it = cache->hulls.find(resolved);
      if (it != cache->hulls.end()) return Shape::convex(it->second);
    }
    ObjMesh obj_mesh = read_obj_reference(*mesh, mesh_path, base_dir, &resolved);
    std::shared_ptr<const ConvexHull> hull = make_hull(obj_mesh.vertices, mesh_path);
    if (cache != nullptr) cache->hulls[resolved] = hull;
    return Shape::convex(hull);
  }
  const std::string vertices_path = obj.key_path("vertices");
  std::vector<Vec3> points = read_points(*vertices, vertices_path, 4);
  // query-format.md lets a convex carry its triangles too; the hull ignores them, but they are
  // still checked so that a bad index does not pass unnoticed.
  if (const json* triangles = obj.find("triangles")) {
    read_triangles(*triangles, obj.key_path("triangles"), points.size());
  }
  return Shape::convex(make_hull(points, vertices_path));
}

Shape read_mesh(const JsonObject& obj, const std::string& base_dir, ShapeFileCache* cache) {
  const json* mesh = obj.find("mesh");
  const json* vertices = obj.find("vertices");
  const json* triangles = obj.find("triangles");
  if (mesh != nullptr) {
    if (vertices != nullptr || triangles != nullptr) {
      throw JsonError{obj.path(), "a mesh needs either \"mesh\" (an OBJ file) or \"vertices\" + "
                                  "\"triangles\", not both"};
    }
    const std::string mesh_path = obj.key_path("mesh");
    std::string resolved;
    if (cache != nullptr) {
      resolved = resolve_scene_path(base_dir, read_string(*mesh, mesh_path));
      auto it = cache->meshes.find(resolved);
      if (it != cache->meshes.end()) return Shape::triangle_mesh(it->second);
    }
    ObjMesh obj_mesh = read_obj_reference(*mesh, mesh_path, base_dir, &resolved);
    if (obj_mesh.triangles.empty()) {
      throw JsonError{mesh_path, resolved + ": has no faces ('f' statements)"};
    }
    long long bad = first_degenerate_triangle(obj_mesh.vertices, obj_mesh.triangles);
    if (bad >= 0) {
      throw JsonError{mesh_path, resolved + ":" + std::to_string(obj_mesh.triangle_lines[bad]) +
                                     ": degenerate face (zero area or repeated vertex)"};
    }
    auto built = std::make_shared<TriangleMesh>();
    built->vertices = std::move(obj_mesh.vertices);
    built->triangles = std::move(obj_mesh.triangles);
    built->build_bvh();
    std::shared_ptr<const TriangleMesh> shared = built;
    if (cache != nullptr) cache->meshes[resolved] = shared;
    return Shape::triangle_mesh(shared);
  }
  if (vertices == nullptr || triangles == nullptr) {
    throw JsonError{obj.path(), "a mesh needs \"mesh\" (an OBJ file) or both \"vertices\" and "
                                "\"triangles\""};
  }
  auto built = std::make_shared<TriangleMesh>();
  built->vertices = read_points(*vertices, obj.key_path("vertices"), 3);
  built->triangles = read_triangles(*triangles, obj.key_path("triangles"), built->vertices.size());
  long long bad = first_degenerate_triangle(built->vertices, built->triangles);
  if (bad >= 0) {
    throw JsonError{json_index_path(obj.key_path("triangles"), static_cast<std::size_t>(bad)),
                    "degenerate triangle (zero area or repeated vertex)"};
  }
  built->build_bvh();
  return Shape::triangle_mesh(std::move(built));
}

}  // namespace

std::string resolve_scene_path(const std::string& base_dir, const std::string& file) {
  std::filesystem::path p(file);
  if (p.is_absolute() || base_dir.empty()) return p.lexically_normal().string();
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

ObjMesh read_obj_reference(const json& v, const std::string& path, const std::string& base_dir,
                           std::string* resolved) {
  std::string file = read_string(v, path);
  if (file.empty()) throw JsonError{path, "must name an OBJ file, got \"\""};
  std::string full = resolve_scene_path(base_dir, file);
  if (resolved != nullptr) *resolved = full;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(full, ec)) {
    throw JsonError{path, "OBJ file \"" + file + "\" not found (looked for " + full + ")"};
  }
  ObjLoadResult loaded = load_obj_file(full);
  if (!loaded.ok()) throw JsonError{path, loaded.error};
  return std::move(*loaded.mesh);
}

Shape read_shape(const json& v, const std::string& path, const std::string& base_dir,
                 ShapeFileCache* cache) {
  if (!v.is_object()) throw JsonError{path, "must be a shape object, got " + describe_json(v)};
  const std::string type_path = json_key_path(path, "type");
  auto type_it = v.find("type");
  if (type_it == v.end()) {
    throw JsonError{type_path, std::string("missing required key (one of ") + kShapeTypes + ")"};
  }
  const std::string type = read_string(*type_it, type_path);

  if (type == "sphere") {
    JsonObject obj(v, path, {"type", "radius"});
    return Shape::sphere(read_positive(obj.require("radius"), obj.key_path("radius")));
  }
  if (type == "capsule") {
    JsonObject obj(v, path, {"type", "radius", "half_length"});
    double r = read_positive(obj.require("radius"), obj.key_path("radius"));
    double h = read_positive(obj.require("half_length"), obj.key_path("half_length"));
    return Shape::capsule(r, h);
  }
  if (type == "box") {
    JsonObject obj(v, path, {"type", "half_extents"});
    return Shape::box(read_positive_vec3(obj.require("half_extents"), obj.key_path("half_extents")));
  }
  if (type == "ellipsoid") {
    JsonObject obj(v, path, {"type", "radii"});
    return Shape::ellipsoid(read_positive_vec3(obj.require("radii"), obj.key_path("radii")));
  }
  if (type == "convex") {
    JsonObject obj(v, path, {"type", "vertices", "mesh", "triangles"});
    return read_convex(obj, base_dir, cache);
  }
  if (type == "mesh") {
    JsonObject obj(v, path, {"type", "mesh", "vertices", "triangles"});
    return read_mesh(obj, base_dir, cache);
  }
  if (type == "plane") {
    JsonObject obj(v, path, {"type", "normal", "offset"});
    Vec3 n = read_direction(obj.require("normal"), obj.key_path("normal"));
    double offset = 0;
    if (const json* o = obj.find("offset")) offset = read_number(*o, obj.key_path("offset"));
    return Shape::plane(n, offset);
  }
  throw JsonError{type_path, "unknown shape type \"" + type + "\" (expected " + kShapeTypes + ")"};
}

std::optional<Shape> parse_shape_json(const json& shape, const std::string& json_path,
                                      const std::string& base_dir, std::string* error) {
  try {
    return read_shape(shape, json_path, base_dir, nullptr);
  } catch (const JsonError& e) {
    if (error != nullptr) *error = e.message();
  } catch (const std::exception& e) {
    // nlohmann or allocation failures: still one message, never an escaping exception.
    if (error != nullptr) *error = (json_path.empty() ? "" : json_path + ": ") + e.what();
  }
  return std::nullopt;
}

}  // namespace impetus
