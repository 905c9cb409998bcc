#pragma once
// Collision shapes, defined in the body's local frame. A Shape is a small value; hulls and meshes
// are shared, immutable and may be referenced by many bodies.
#include <cstdint>
#include <memory>

#include "collision/base/aabb.h"
#include "collision/base/math.h"
#include "collision/shape/convex_hull.h"
#include "collision/shape/triangle_mesh.h"

namespace impetus {

enum class ShapeType : std::uint8_t { Sphere, Capsule, Box, Ellipsoid, Convex, Mesh, Plane };
inline constexpr int kShapeTypeCount = 7;

/// Lower-case name as in the scene format ("sphere", "capsule", ...).
const char* shape_type_name(ShapeType type);

struct Shape {
  ShapeType type = ShapeType::Sphere;
  double radius = 0;                  // sphere, capsule [m]
  double half_length = 0;             // capsule: segment (0,0,-h)..(0,0,+h) [m]
  Vec3 half_extents = Vec3::Zero();   // box [m]
  Vec3 radii = Vec3::Zero();          // ellipsoid semi-axes along local x, y, z [m]
  Vec3 normal = Vec3::UnitZ();        // plane: solid half-space normal·x <= offset (unit)
  double offset = 0;                  // plane [m]
  std::shared_ptr<const ConvexHull> hull;    // convex
  std::shared_ptr<const TriangleMesh> mesh;  // mesh

  static Shape sphere(double r);
  static Shape capsule(double r, double half_length);
  static Shape box(const Vec3& half_extents);
  static Shape ellipsoid(const Vec3& radii);
  static Shape convex(std::shared_ptr<const ConvexHull> hull);
  static Shape triangle_mesh(std::shared_ptr<const TriangleMesh> mesh);
  static Shape plane(const Vec3& normal, double offset);

  /// True for the shapes with a support mapping (all but mesh and plane).
  bool is_convex() const { return type != ShapeType::Mesh && type != ShapeType::Plane; }
  /// Finite shapes have a bounded AABB; a plane does not.
  bool is_bounded() const { return type != ShapeType::Plane; }
};

/// Support point of a convex shape in its local frame: argmax_{x in shape} dir·x.
/// `dir` need not be unit. Undefined for mesh and plane (asserts).
Vec3 support_local(const Shape& shape, const Vec3& dir);
/// Support point in world coordinates for a shape placed at `pose`.
Vec3 support_world(const Shape& shape, const Pose& pose, const Vec3& dir_world);

/// World AABB of a shape at `pose`. For a plane: a huge but finite box (±1e6 m) so that the
/// broadphase can hold it.
Aabb compute_aabb(const Shape& shape, const Pose& pose);

/// Radius of the smallest origin-centred sphere containing the shape (local frame); used for
/// motion bounds (max‖p‖ of paper 2, eq. 4.7) and swept AABBs. Infinite for a plane.
double bounding_radius(const Shape& shape);

/// Smallest characteristic size (for penetration tolerances, CCD thresholds).
double smallest_size(const Shape& shape);

}  // namespace impetus
