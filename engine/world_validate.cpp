#include "engine/world_validate.h"

#include <cmath>
#include <stdexcept>

#include "engine/input_limits.h"

namespace impetus {

namespace {

bool positive(double x) { return std::isfinite(x) && x > 0; }
bool non_negative(double x) { return std::isfinite(x) && x >= 0; }
bool unit_quaternion(const Quat& q) {
  return q.coeffs().allFinite() && std::abs(q.norm() - 1.0) <= 1e-6;
}

}  // namespace

std::string shape_problem(const Shape& s) {
  switch (s.type) {
    case ShapeType::Sphere:
      if (!positive(s.radius)) return "sphere radius must be positive and finite";
      break;
    case ShapeType::Capsule:
      if (!positive(s.radius) || !positive(s.half_length))
        return "capsule radius and half_length must be positive and finite";
      break;
    case ShapeType::Box:
      if (!(positive(s.half_extents.x()) && positive(s.half_extents.y()) &&
            positive(s.half_extents.z())))
        return "box half_extents must be positive and finite";
      break;
    case ShapeType::Ellipsoid:
      if (!(positive(s.radii.x()) && positive(s.radii.y()) && positive(s.radii.z())))
        return "ellipsoid radii must be positive and finite";
      break;
    case ShapeType::Convex:
      if (!s.hull || s.hull->vertices.size() < 4)
        return "convex shape needs a hull with at least 4 vertices";
      for (const Vec3& v : s.hull->vertices) {
        if (!v.allFinite()) return "convex hull vertices must be finite";
      }
      break;
    case ShapeType::Mesh: {
      if (!s.mesh || s.mesh->triangles.empty()) return "mesh shape needs at least one triangle";
      const int n = static_cast<int>(s.mesh->vertices.size());
      for (const Vec3& v : s.mesh->vertices) {
        if (!v.allFinite()) return "mesh vertices must be finite";
      }
      for (const auto& t : s.mesh->triangles) {
        for (int v : t) {
          if (v < 0 || v >= n) return "mesh triangle index out of range";
        }
      }
      break;
    }
    case ShapeType::Plane:
      if (!s.normal.allFinite() || std::abs(s.normal.norm() - 1.0) > 1e-9 || !std::isfinite(s.offset))
        return "plane needs a unit normal and a finite offset";
      break;
  }
  return {};
}

void throw_world_misuse(const char* function, const std::string& problem) {
  throw std::invalid_argument(std::string("World::") + function + ": " + problem);
}

void validate_world_def(const WorldDef& def) {
  auto fail = [](const std::string& problem) { throw_world_misuse("World", problem); };
  if (!positive(def.dt)) fail("dt must be positive and finite");
  if (def.substeps < 1) fail("substeps must be at least 1");
  if (def.threads < 0 || def.threads > limits::kMaxThreads)
    fail("threads must be in [0, " + std::to_string(limits::kMaxThreads) + "] (0 = all cores)");
  if (def.solver_iterations < 1) fail("solver_iterations must be at least 1");
  if (!def.gravity.allFinite()) fail("gravity must be finite");
  if (!non_negative(def.sleep_speed) || !non_negative(def.sleep_delay))
    fail("sleep_speed and sleep_delay must be finite and >= 0");
  if (def.materials.empty()) fail("at least one material is needed");
  for (const MaterialDef& m : def.materials) {
    if (!positive(m.density) || !non_negative(m.friction) || !(m.restitution >= 0) ||
        !(m.restitution <= 1))
      fail("material '" + m.name +
           "': density must be positive, friction >= 0 and restitution in [0, 1] (all finite)");
  }
}

void validate_body_def(const BodyDef& def, int material_count) {
  auto fail = [&def](const std::string& problem) {
    throw_world_misuse("create_body", "body '" + def.name + "': " + problem);
  };
  if (std::string problem = shape_problem(def.shape); !problem.empty()) fail(problem);
  if (!def.position.allFinite() || !def.orientation.coeffs().allFinite() ||
      !def.linear_velocity.allFinite() || !def.angular_velocity.allFinite())
    fail("non-finite pose or velocity");
  if (!unit_quaternion(def.orientation)) fail("orientation must be a unit quaternion");
  if (def.shape.type == ShapeType::Plane && def.motion != MotionType::Static)
    fail("a plane may only be static");
  if (def.shape.type == ShapeType::Mesh && def.motion == MotionType::Dynamic)
    fail("dynamic triangle meshes are not supported yet; make it static or kinematic, or use a "
         "convex shape");
  if (def.material < 0 || def.material >= material_count) fail("material index out of range");
  if (def.mass && !positive(*def.mass)) fail("mass must be positive and finite");
}

void validate_cloth_def(const ClothDef& def) {
  auto fail = [&def](const std::string& problem) {
    throw_world_misuse("create_cloth", "cloth '" + def.name + "': " + problem);
  };
  int n = 0;
  if (def.is_grid) {
    if (def.grid_resolution[0] < 1 || def.grid_resolution[1] < 1 || !positive(def.grid_size[0]) ||
        !positive(def.grid_size[1]))
      fail("grid size and resolution must be positive (and finite)");
    const long long vertices = static_cast<long long>(def.grid_resolution[0] + 1LL) *
                               (def.grid_resolution[1] + 1LL);
    if (vertices > 100'000'000) fail("grid of more than 10^8 vertices");
    if (!def.grid_center.allFinite() || !unit_quaternion(def.grid_orientation))
      fail("grid center must be finite and its orientation a unit quaternion");
    n = static_cast<int>(vertices);
  } else {
    n = static_cast<int>(def.mesh_vertices.size());
    for (const Vec3& v : def.mesh_vertices) {
      if (!v.allFinite()) fail("mesh vertices must be finite");
    }
    for (const auto& t : def.mesh_triangles) {
      for (int v : t) {
        if (v < 0 || v >= n) fail("mesh triangle index out of range");
      }
    }
    if (n < 3 || def.mesh_triangles.empty()) fail("needs at least one triangle");
  }
  if (!positive(def.areal_density) || !positive(def.stretch_stiffness) ||
      !non_negative(def.shear_stiffness) || !non_negative(def.bend_stiffness) ||
      !non_negative(def.damping) || !positive(def.thickness) || !non_negative(def.friction))
    fail("areal_density, stretch_stiffness and thickness must be positive; shear_stiffness, "
         "bend_stiffness, damping and friction >= 0 (all finite)");
  for (int v : def.pin) {
    if (v < 0 || v >= n) fail("pin index out of range");
  }
  for (const ClothAttachDef& a : def.attach) {
    if (a.vertex < 0 || a.vertex >= n) fail("attachment vertex out of range");
  }
}

}  // namespace impetus
