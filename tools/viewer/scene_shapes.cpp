#include "tools/viewer/scene_shapes.h"

#include <array>
#include <map>
#include <vector>

#include "cloth/cloth_mesh.h"
#include "engine/shape_tessellation.h"
#include "tools/viewer/file_output.h"

namespace impetus::viewer {

namespace {

using Json = nlohmann::ordered_json;

Json vec3_json(const Vec3& v) { return Json::array({v.x(), v.y(), v.z()}); }
Json quat_json(const Quat& q) { return Json::array({q.w(), q.x(), q.y(), q.z()}); }

// Colours by what a body is, so a pile reads at a glance: static scenery grey, kinematic bodies
// yellow, and each dynamic shape type its own hue.
const char* body_colour(const BodyDef& body) {
  if (body.motion == MotionType::Static)
    return body.shape.type == ShapeType::Plane ? "#59626b" : "#a3a8ae";
  if (body.motion == MotionType::Kinematic) return "#e8c547";
  switch (body.shape.type) {
    case ShapeType::Sphere: return "#e4572e";
    case ShapeType::Capsule: return "#2e86c1";
    case ShapeType::Box: return "#c89f65";
    case ShapeType::Ellipsoid: return "#76b041";
    case ShapeType::Convex: return "#8e6fc4";
    case ShapeType::Mesh: return "#d08c3a";
    case ShapeType::Plane: return "#59626b";
  }
  return "#888888";
}

// Sets j["vertices"] (flat x, y, z) and j["triangles"] (flat, 0-based). Single precision is
// what every renderer uses; it also keeps the file small.
void put_triangles(const std::vector<Vec3>& vertices,
                   const std::vector<std::array<int, 3>>& triangles, Json* j) {
  Json flat_vertices = Json::array();
  for (const Vec3& v : vertices) {
    for (int k = 0; k < 3; ++k) flat_vertices.push_back(static_cast<float>(v[k]));
  }
  Json flat_triangles = Json::array();
  for (const auto& t : triangles) {
    for (int k = 0; k < 3; ++k) flat_triangles.push_back(t[k]);
  }
  (*j)["vertices"] = std::move(flat_vertices);
  (*j)["triangles"] = std::move(flat_triangles);
}

Json surface_json(const ShapeSurface& surface, const Shape& shape) {
  Json j = Json::object();
  j["type"] = shape_type_name(shape.type);
  j["smooth"] = surface.smooth;
  put_triangles(surface.vertices, surface.triangles, &j);
  return j;
}

Json joint_json(const SceneJointDef& joint, const std::vector<BodyDef>& bodies) {
  static const char* const kTypes[] = {"ball", "hinge", "fixed", "slider"};
  auto local_anchor = [&](int body) {
    if (body < 0) return vec3_json(joint.anchor);  // the world frame
    const BodyDef& b = bodies[static_cast<std::size_t>(body)];
    return vec3_json(b.orientation.conjugate() * (joint.anchor - b.position));
  };
  Json j = Json::object();
  j["type"] = kTypes[static_cast<int>(joint.type)];
  j["body_a"] = bodies[static_cast<std::size_t>(joint.body_a)].name;
  j["body_b"] = joint.body_b < 0 ? Json("world")
                                 : Json(bodies[static_cast<std::size_t>(joint.body_b)].name);
  j["anchor_a"] = local_anchor(joint.body_a);
  j["anchor_b"] = local_anchor(joint.body_b);
  return j;
}

Json cloth_json(const SceneClothDef& cloth) {
  ClothMesh mesh;
  if (cloth.is_grid) {
    mesh = make_grid_cloth(cloth.grid_size, cloth.grid_resolution, cloth.grid_center,
                           cloth.grid_orientation);
  } else {
    mesh.vertices = cloth.mesh_vertices;
    mesh.triangles = cloth.mesh_triangles;
  }
  Json j = Json::object();
  j["name"] = cloth.name;
  j["color"] = "#d64f7a";
  put_triangles(mesh.vertices, mesh.triangles, &j);
  return j;
}

}  // namespace

Json scene_shapes_json(const SceneDef& scene) {
  Json doc = Json::object();
  doc["format"] = "impetus-shapes/1";
  doc["scene"] = scene.name;
  const WorldDef& world = scene.world;
  doc["settings"] = {{"gravity", vec3_json(world.gravity)},
                     {"dt", world.dt},
                     {"substeps", world.substeps},
                     {"solver", world.solver == SolverType::Block ? "block" : "sequential_impulse"},
                     {"ccd", world.ccd},
                     {"sleep", world.sleep}};
  Json surfaces = Json::array();
  Json bodies = Json::array();
  // Bodies made by `arrays` share their shape: one surface per distinct text.
  std::map<std::string, int> surface_index;
  static const char* const kMotions[] = {"static", "kinematic", "dynamic"};
  for (const BodyDef& body : scene.bodies) {
    Json surface = surface_json(tessellate_shape(body.shape), body.shape);
    const std::string key = surface.dump();
    auto [it, added] = surface_index.emplace(key, static_cast<int>(surfaces.size()));
    if (added) surfaces.push_back(std::move(surface));
    Json b = Json::object();
    b["name"] = body.name;
    b["motion"] = kMotions[static_cast<int>(body.motion)];
    b["shape"] = shape_type_name(body.shape.type);
    b["surface"] = it->second;
    b["color"] = body_colour(body);
    b["position"] = vec3_json(body.position);
    b["orientation"] = quat_json(body.orientation);
    bodies.push_back(std::move(b));
  }
  doc["surfaces"] = std::move(surfaces);
  doc["bodies"] = std::move(bodies);
  Json joints = Json::array();
  for (const SceneJointDef& joint : scene.joints) joints.push_back(joint_json(joint, scene.bodies));
  doc["joints"] = std::move(joints);
  Json cloths = Json::array();
  for (const SceneClothDef& cloth : scene.cloths) cloths.push_back(cloth_json(cloth));
  doc["cloths"] = std::move(cloths);
  return doc;
}

bool write_scene_shapes(const SceneDef& scene, const std::string& dir, std::string* error) {
  return write_text_file(std::filesystem::path(dir) / "shapes.json",
                         scene_shapes_json(scene).dump() + "\n", error);
}

}  // namespace impetus::viewer
