#include "collision/shape/shape.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/base/assert.h"

namespace impetus {

const char* shape_type_name(ShapeType type) {
  switch (type) {
    case ShapeType::Sphere: return "sphere";
    case ShapeType::Capsule: return "capsule";
    case ShapeType::Box: return "box";
    case ShapeType::Ellipsoid: return "ellipsoid";
    case ShapeType::Convex: return "convex";
    case ShapeType::Mesh: return "mesh";
    case ShapeType::Plane: return "plane";
  }
  return "unknown";
}

Shape Shape::sphere(double r) {
  Shape s;
  s.type = ShapeType::Sphere;
  s.radius = r;
  return s;
}
Shape Shape::capsule(double r, double half_length) {
  Shape s;
  s.type = ShapeType::Capsule;
  s.radius = r;
  s.half_length = half_length;
  return s;
}
Shape Shape::box(const Vec3& half_extents) {
  Shape s;
  s.type = ShapeType::Box;
  s.half_extents = half_extents;
  return s;
}
Shape Shape::ellipsoid(const Vec3& radii) {
  Shape s;
  s.type = ShapeType::Ellipsoid;
  s.radii = radii;
  return s;
}
Shape Shape::convex(std::shared_ptr<const ConvexHull> hull) {
  Shape s;
  s.type = ShapeType::Convex;
  s.hull = std::move(hull);
  return s;
}
Shape Shape::triangle_mesh(std::shared_ptr<const TriangleMesh> mesh) {
  Shape s;
  s.type = ShapeType::Mesh;
  s.mesh = std::move(mesh);
  return s;
}
Shape Shape::plane(const Vec3& normal, double offset) {
  Shape s;
  s.type = ShapeType::Plane;
  s.normal = normal.normalized();
  s.offset = offset;
  return s;
}

static double sign_or_plus(double x) { return x < 0 ? -1.0 : 1.0; }

Vec3 support_local(const Shape& shape, const Vec3& dir) {
  switch (shape.type) {
    case ShapeType::Sphere: {
      double n = dir.norm();
      return n > 0 ? Vec3(dir * (shape.radius / n)) : Vec3(shape.radius, 0, 0);
    }
    case ShapeType::Capsule: {
      double n = dir.norm();
      Vec3 tip(0, 0, sign_or_plus(dir.z()) * shape.half_length);
      return n > 0 ? Vec3(tip + dir * (shape.radius / n)) : Vec3(tip + Vec3(shape.radius, 0, 0));
    }
    case ShapeType::Box:
      return Vec3(sign_or_plus(dir.x()) * shape.half_extents.x(),
                  sign_or_plus(dir.y()) * shape.half_extents.y(),
                  sign_or_plus(dir.z()) * shape.half_extents.z());
    case ShapeType::Ellipsoid: {
      // argmax d·x on x = R u, |u| = 1 with R = diag(radii): x = R² d / |R d|.
      Vec3 rd = shape.radii.cwiseProduct(dir);
      double n = rd.norm();
      if (n == 0) return Vec3(shape.radii.x(), 0, 0);
      return Vec3(shape.radii.cwiseProduct(rd) / n);
    }
    case ShapeType::Convex:
      return shape.hull->support(dir);
    case ShapeType::Mesh:
    case ShapeType::Plane:
      break;
  }
  IMPETUS_ASSERT(false, "support_local needs a convex shape");
  return Vec3::Zero();
}

Vec3 support_world(const Shape& shape, const Pose& pose, const Vec3& dir_world) {
  return pose.apply(support_local(shape, pose.inverse_rotate(dir_world)));
}

Aabb compute_aabb(const Shape& shape, const Pose& pose) {
  Aabb box;
  const Mat3 r = pose.orientation.toRotationMatrix();
  switch (shape.type) {
    case ShapeType::Sphere:
      box.min = pose.position.array() - shape.radius;
      box.max = pose.position.array() + shape.radius;
      return box;
    case ShapeType::Capsule: {
      Vec3 axis = r.col(2) * shape.half_length;
      box.grow(pose.position + axis);
      box.grow(pose.position - axis);
      return box.inflated(shape.radius);
    }
    case ShapeType::Box: {
      Vec3 half = r.cwiseAbs() * shape.half_extents;
      box.min = pose.position - half;
      box.max = pose.position + half;
      return box;
    }
    case ShapeType::Ellipsoid: {
      // Extent along world axis k: sqrt(Σ_j (R_kj a_j)²).
      Mat3 m = r * shape.radii.asDiagonal();
      Vec3 half = m.rowwise().norm();
      box.min = pose.position - half;
      box.max = pose.position + half;
      return box;
    }
    case ShapeType::Convex:
      for (const Vec3& v : shape.hull->vertices) box.grow(pose.apply(v));
      return box;
    case ShapeType::Mesh:
      for (const Vec3& v : shape.mesh->vertices) box.grow(pose.apply(v));
      return box;
    case ShapeType::Plane: {
      constexpr double kHuge = 1e6;
      box.min = Vec3::Constant(-kHuge);
      box.max = Vec3::Constant(kHuge);
      // Clip the solid half-space's box where the normal is axis-aligned (the common ground).
      Vec3 n = pose.rotate(shape.normal);
      double offset = shape.offset + n.dot(pose.position);
      for (int k = 0; k < 3; ++k) {
        if (std::abs(std::abs(n[k]) - 1.0) < 1e-12) {
          if (n[k] > 0) box.max[k] = offset; else box.min[k] = -offset;
        }
      }
      return box;
    }
  }
  return box;
}

double bounding_radius(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::Sphere: return shape.radius;
    case ShapeType::Capsule: return shape.radius + shape.half_length;
    case ShapeType::Box: return shape.half_extents.norm();
    case ShapeType::Ellipsoid: return shape.radii.maxCoeff();
    case ShapeType::Convex: {
      double r = 0;
      for (const Vec3& v : shape.hull->vertices) r = std::max(r, v.norm());
      return r;
    }
    case ShapeType::Mesh: {
      double r = 0;
      for (const Vec3& v : shape.mesh->vertices) r = std::max(r, v.norm());
      return r;
    }
    case ShapeType::Plane: return std::numeric_limits<double>::infinity();
  }
  return 0;
}

double smallest_size(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::Sphere: return 2 * shape.radius;
    case ShapeType::Capsule: return 2 * shape.radius;
    case ShapeType::Box: return 2 * shape.half_extents.minCoeff();
    case ShapeType::Ellipsoid: return 2 * shape.radii.minCoeff();
    case ShapeType::Convex:
    case ShapeType::Mesh: {
      Aabb box = compute_aabb(shape, Pose{});
      return box.extent().minCoeff();
    }
    case ShapeType::Plane: return std::numeric_limits<double>::infinity();
  }
  return 0;
}

}  // namespace impetus
