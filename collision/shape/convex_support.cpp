#include "collision/shape/convex_support.h"

#include <algorithm>

#include "collision/base/assert.h"

namespace impetus {

Vec3 ConvexSupport::support_core(const Vec3& dir) const {
  if (shape != nullptr) return support_world(*shape, pose, dir);
  // Ties break to the lowest index so that the result is a deterministic function of dir.
  int best = 0;
  double best_dot = points[0].dot(dir);
  for (int i = 1; i < point_count; ++i) {
    double d = points[i].dot(dir);
    if (d > best_dot) {
      best_dot = d;
      best = i;
    }
  }
  return points[best];
}

Vec3 ConvexSupport::support(const Vec3& dir, double inflate) const {
  Vec3 p = support_core(dir);
  double r = radius + inflate;
  if (r > 0) {
    double n = dir.norm();
    if (n > 0) p += dir * (r / n);
  }
  return p;
}

Vec3 ConvexSupport::center() const {
  if (shape != nullptr) {
    if (shape->type == ShapeType::Convex) {
      // The vertex centroid is inside the hull even when the hull's origin is not.
      Vec3 c = Vec3::Zero();
      for (const Vec3& v : shape->hull->vertices) c += v;
      return pose.apply(c / static_cast<double>(shape->hull->vertices.size()));
    }
    return pose.position;
  }
  Vec3 c = Vec3::Zero();
  for (int i = 0; i < point_count; ++i) c += points[i];
  return c / static_cast<double>(point_count);
}

double ConvexSupport::extent() const {
  if (shape != nullptr) {
    if (shape->type == ShapeType::Convex) {
      Vec3 c = pose.inverse_apply(center());
      double r = 0;
      for (const Vec3& v : shape->hull->vertices) r = std::max(r, (v - c).norm());
      return r + radius;
    }
    return bounding_radius(*shape) + radius;
  }
  Vec3 c = center();
  double r = 0;
  for (int i = 0; i < point_count; ++i) r = std::max(r, (points[i] - c).norm());
  return r + radius;
}

ConvexSupport make_convex_support(const Shape& shape, const Pose& pose) {
  ConvexSupport s;
  switch (shape.type) {
    case ShapeType::Sphere:
      s.points[0] = pose.position;
      s.point_count = 1;
      s.radius = shape.radius;
      return s;
    case ShapeType::Capsule: {
      Vec3 axis = pose.rotate(Vec3(0, 0, shape.half_length));
      s.points[0] = pose.position - axis;
      s.points[1] = pose.position + axis;
      s.point_count = 2;
      s.radius = shape.radius;
      return s;
    }
    case ShapeType::Box:
    case ShapeType::Ellipsoid:
    case ShapeType::Convex:
      s.shape = &shape;
      s.pose = pose;
      return s;
    case ShapeType::Mesh:
    case ShapeType::Plane:
      break;
  }
  IMPETUS_ASSERT(false, "make_convex_support needs a convex shape");
  return s;
}

ConvexSupport make_triangle_support(const Vec3& p0, const Vec3& p1, const Vec3& p2) {
  ConvexSupport s;
  s.points = {p0, p1, p2};
  s.point_count = 3;
  return s;
}

}  // namespace impetus
