// `cloths` entries of impetus-scene/1: a grid {size, resolution, center, orientation} or an OBJ
// mesh, material parameters, pinned and attached vertices, self-collision.
#include <limits>

#include "engine/input_limits.h"
#include "engine/json_reader.h"
#include "engine/scene_json.h"
#include "engine/shape_json.h"

namespace impetus {

using nlohmann::json;

namespace {

void read_grid(const json& v, const std::string& path, ClothCommonDef& cloth) {
  JsonObject grid(v, path, {"size", "resolution", "center", "orientation"});
  const std::string size_path = grid.key_path("size");
  const json& size = grid.require("size");
  check_array(size, size_path, 2);
  for (int i = 0; i < 2; ++i) cloth.grid_size[i] = read_positive(size[i], json_index_path(size_path, i));
  const std::string res_path = grid.key_path("resolution");
  const json& res = grid.require("resolution");
  check_array(res, res_path, 2);
  for (int i = 0; i < 2; ++i) {
    cloth.grid_resolution[i] =
        static_cast<int>(read_integer(res[i], json_index_path(res_path, i), 1,
                                      limits::kMaxClothGridResolution));
  }
  if (const json* c = grid.find("center")) cloth.grid_center = read_vec3(*c, grid.key_path("center"));
  if (const json* q = grid.find("orientation")) {
    cloth.grid_orientation = read_quaternion(*q, grid.key_path("orientation"));
  }
}

void read_mesh(const json& v, const std::string& path, const std::string& base_dir,
               ClothCommonDef& cloth) {
  std::string resolved;
  ObjMesh mesh = read_obj_reference(v, path, base_dir, &resolved);
  if (mesh.triangles.empty()) throw JsonError{path, resolved + ": has no faces ('f' statements)"};
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const std::array<int, 3>& tri = mesh.triangles[t];
    Vec3 n = (mesh.vertices[tri[1]] - mesh.vertices[tri[0]])
                 .cross(mesh.vertices[tri[2]] - mesh.vertices[tri[0]]);
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] || !(n.norm() > 0)) {
      throw JsonError{path, resolved + ":" + std::to_string(mesh.triangle_lines[t]) +
                                ": degenerate face (zero area or repeated vertex)"};
    }
  }
  cloth.mesh_vertices = std::move(mesh.vertices);
  cloth.mesh_triangles = std::move(mesh.triangles);
}

int read_vertex_index(const json& v, const std::string& path, long long vertex_count) {
  long long i = read_integer(v, path, 0, std::numeric_limits<long long>::max());
  if (i >= vertex_count) {
    throw JsonError{path, "vertex index " + std::to_string(i) + " out of range (the cloth has " +
                              std::to_string(vertex_count) + " vertices)"};
  }
  return static_cast<int>(i);
}

}  // namespace

SceneClothDef read_cloth(const json& v, const std::string& path, const SceneBodies& bodies,
                    const std::string& base_dir, long long* vertex_room) {
  JsonObject obj(v, path,
                 {"name", "grid", "mesh", "areal_density", "stretch_stiffness", "shear_stiffness",
                  "bend_stiffness", "damping", "thickness", "friction", "strain_limit", "pin",
                  "attach", "self_collision"});
  SceneClothDef cloth;
  cloth.name = read_name(obj.require("name"), obj.key_path("name"));

  const json* grid = obj.find("grid");
  const json* mesh = obj.find("mesh");
  if ((grid != nullptr) == (mesh != nullptr)) {
    throw JsonError{path, "a cloth needs exactly one of \"grid\" or \"mesh\""};
  }
  long long vertex_count = 0;
  if (grid != nullptr) {
    cloth.is_grid = true;
    read_grid(*grid, obj.key_path("grid"), cloth);
    vertex_count = static_cast<long long>(cloth.grid_resolution[0] + 1) *
                   static_cast<long long>(cloth.grid_resolution[1] + 1);
  } else {
    cloth.is_grid = false;
    read_mesh(*mesh, obj.key_path("mesh"), base_dir, cloth);
    vertex_count = static_cast<long long>(cloth.mesh_vertices.size());
  }
  if (vertex_count > *vertex_room) {
    throw JsonError{path, "the scene's cloths would have more than " +
                              std::to_string(limits::kMaxClothVertices) +
                              " vertices in all (the limit)"};
  }
  *vertex_room -= vertex_count;

  auto positive = [&](const char* key, double& field) {
    if (const json* x = obj.find(key)) field = read_positive(*x, obj.key_path(key));
  };
  auto non_negative = [&](const char* key, double& field) {
    if (const json* x = obj.find(key)) field = read_non_negative(*x, obj.key_path(key));
  };
  positive("areal_density", cloth.areal_density);
  positive("stretch_stiffness", cloth.stretch_stiffness);
  non_negative("shear_stiffness", cloth.shear_stiffness);
  non_negative("bend_stiffness", cloth.bend_stiffness);
  non_negative("damping", cloth.damping);
  positive("thickness", cloth.thickness);
  non_negative("friction", cloth.friction);
  non_negative("strain_limit", cloth.strain_limit);
  if (const json* sc = obj.find("self_collision")) {
    cloth.self_collision = read_bool(*sc, obj.key_path("self_collision"));
  }

  if (const json* pin = obj.find("pin")) {
    const std::string pin_path = obj.key_path("pin");
    check_array(*pin, pin_path, -1);
    for (std::size_t i = 0; i < pin->size(); ++i) {
      cloth.pin.push_back(read_vertex_index((*pin)[i], json_index_path(pin_path, i), vertex_count));
    }
  }
  if (const json* attach = obj.find("attach")) {
    const std::string attach_path = obj.key_path("attach");
    check_array(*attach, attach_path, -1);
    for (std::size_t i = 0; i < attach->size(); ++i) {
      JsonObject entry((*attach)[i], json_index_path(attach_path, i), {"vertex", "body"});
      SceneClothAttachDef a;
      a.vertex = read_vertex_index(entry.require("vertex"), entry.key_path("vertex"), vertex_count);
      a.body = bodies.lookup(entry.require("body"), entry.key_path("body"), false);
      cloth.attach.push_back(a);
    }
  }
  return cloth;
}

}  // namespace impetus
