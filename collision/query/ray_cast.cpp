// Ray casts per shape type, each in the shape's local frame by a closed form (sphere, capsule,
// box slabs, ellipsoid as a scaled sphere, hull by clipping against its face planes, plane) or
// by a BVH walk with the Möller–Trumbore test (meshes).
#include "collision/query/ray_cast.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace impetus {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct LocalHit {
  double fraction = kInf;
  Vec3 normal = Vec3::UnitZ();
};

// The ray o + f·d (local frame) with the hit kept when it is the nearest in [0, 1] so far.
struct Ray {
  Vec3 o, d;
  LocalHit best;
  void offer(double f, const Vec3& normal) {
    if (f >= 0 && f <= 1 && f < best.fraction) best = {f, normal};
  }
};

// Smaller root of a·f² + 2b·f + c = 0 (a > 0), or +inf when there is none.
double first_root(double a, double b, double c) {
  const double disc = b * b - a * c;
  if (disc < 0) return kInf;
  const double s = std::sqrt(disc);
  // −b − s without cancellation: c/(−b + s) when b < 0.
  return b > 0 ? (-b - s) / a : c / (-b + s);
}

void sphere_at(Ray& ray, const Vec3& centre, double radius) {
  const Vec3 m = ray.o - centre;
  const double a = ray.d.squaredNorm();
  if (!(a > 0)) return;
  const double f = first_root(a, m.dot(ray.d), m.squaredNorm() - radius * radius);
  if (f != kInf) ray.offer(f, (m + f * ray.d) / radius);
}

double segment_distance_squared(const Vec3& p, double h) {
  const double z = std::clamp(p.z(), -h, h);
  return Vec3(p.x(), p.y(), p.z() - z).squaredNorm();
}

void capsule(Ray& ray, double r, double h) {
  // The side: the infinite cylinder x² + y² = r², kept where |z| <= h.
  const double a = ray.d.x() * ray.d.x() + ray.d.y() * ray.d.y();
  if (a > 0) {
    const double b = ray.o.x() * ray.d.x() + ray.o.y() * ray.d.y();
    const double c = ray.o.x() * ray.o.x() + ray.o.y() * ray.o.y() - r * r;
    const double f = first_root(a, b, c);
    if (f != kInf) {
      const Vec3 p = ray.o + f * ray.d;
      if (std::abs(p.z()) <= h) ray.offer(f, Vec3(p.x(), p.y(), 0) / r);
    }
  }
  // The caps: the end spheres (their hits inside the cylinder's span are behind the side's).
  sphere_at(ray, Vec3(0, 0, -h), r);
  sphere_at(ray, Vec3(0, 0, h), r);
}

void box(Ray& ray, const Vec3& half) {
  double enter = -kInf, exit = kInf;
  int axis = -1;
  for (int i = 0; i < 3; ++i) {
    if (ray.d[i] == 0) {
      if (std::abs(ray.o[i]) > half[i]) return;
      continue;
    }
    double t0 = (-half[i] - ray.o[i]) / ray.d[i], t1 = (half[i] - ray.o[i]) / ray.d[i];
    if (t0 > t1) std::swap(t0, t1);
    if (t0 > enter) {
      enter = t0;
      axis = i;
    }
    exit = std::min(exit, t1);
  }
  if (axis < 0 || enter > exit) return;
  Vec3 n = Vec3::Zero();
  n[axis] = ray.d[axis] > 0 ? -1.0 : 1.0;
  ray.offer(enter, n);
}

void ellipsoid(Ray& ray, const Vec3& radii) {
  // x = radii ∘ u maps the unit sphere onto the ellipsoid; fractions are unchanged.
  Ray unit{ray.o.cwiseQuotient(radii), ray.d.cwiseQuotient(radii), {}};
  sphere_at(unit, Vec3::Zero(), 1.0);
  if (unit.best.fraction == kInf) return;
  // Outward normal: the gradient of Σ x_i²/r_i², i.e. u/r componentwise.
  ray.offer(unit.best.fraction, unit.best.normal.cwiseQuotient(radii).normalized());
}

void hull(Ray& ray, const ConvexHull& h) {
  double enter = -kInf, exit = kInf;
  Vec3 normal = Vec3::UnitZ();
  for (const HullFace& face : h.faces) {
    const double denom = face.normal.dot(ray.d);
    const double gap = face.offset - face.normal.dot(ray.o);  // >= 0 on the inner side
    if (denom == 0) {
      if (gap < 0) return;
      continue;
    }
    const double t = gap / denom;
    if (denom < 0) {
      if (t > enter) {
        enter = t;
        normal = face.normal;
      }
    } else {
      exit = std::min(exit, t);
    }
  }
  if (enter > exit || enter == -kInf) return;
  ray.offer(enter, normal);
}

bool slab_overlap(const Aabb& box, const Vec3& o, const Vec3& inv_d, double max_fraction) {
  double enter = 0, exit = max_fraction;
  for (int i = 0; i < 3; ++i) {
    double t0 = (box.min[i] - o[i]) * inv_d[i], t1 = (box.max[i] - o[i]) * inv_d[i];
    if (t0 > t1) std::swap(t0, t1);
    // A zero direction gives ±inf (or NaN at the slab's face): NaN must not shrink the range.
    if (t0 > enter) enter = t0;
    if (t1 < exit) exit = t1;
    if (enter > exit) return false;
  }
  return true;
}

// Möller–Trumbore: o + f d = a + u e1 + v e2, for any f (the caller keeps f in [0, 1]); the
// normal is the triangle's, turned against d. `point` is left for the caller.
std::optional<ShapeRayHit> triangle_hit(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& o,
                                        const Vec3& d) {
  const Vec3 e1 = b - a, e2 = c - a;
  const Vec3 p = d.cross(e2);
  const double det = e1.dot(p);
  if (det == 0) return std::nullopt;
  const Vec3 s = o - a;
  const double u = s.dot(p) / det;
  if (u < 0 || u > 1) return std::nullopt;
  const Vec3 q = s.cross(e1);
  const double v = d.dot(q) / det;
  if (v < 0 || u + v > 1) return std::nullopt;
  Vec3 n = e1.cross(e2).normalized();
  if (n.dot(d) > 0) n = -n;
  return ShapeRayHit{e2.dot(q) / det, Vec3::Zero(), n};
}

void mesh(Ray& ray, const TriangleMesh& m) {
  const Bvh& bvh = m.bvh;
  if (bvh.nodes.empty()) return;
  const Vec3 inv_d(1.0 / ray.d.x(), 1.0 / ray.d.y(), 1.0 / ray.d.z());
  int stack[128];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Bvh::Node& node = bvh.nodes[stack[--top]];
    if (!slab_overlap(node.box, ray.o, inv_d, std::min(1.0, ray.best.fraction))) continue;
    if (node.left < 0) {
      for (int k = node.first; k < node.first + node.count; ++k) {
        const std::array<int, 3>& t = m.triangles[bvh.primitives[k]];
        if (const std::optional<ShapeRayHit> hit =
                triangle_hit(m.vertices[t[0]], m.vertices[t[1]], m.vertices[t[2]], ray.o, ray.d))
          ray.offer(hit->fraction, hit->normal);
      }
    } else if (top + 2 <= static_cast<int>(sizeof(stack) / sizeof(stack[0]))) {
      stack[top++] = node.right;
      stack[top++] = node.left;
    }
  }
}

bool solid_contains(const Shape& s, const Vec3& p) {
  switch (s.type) {
    case ShapeType::Sphere: return p.squaredNorm() <= s.radius * s.radius;
    case ShapeType::Capsule: return segment_distance_squared(p, s.half_length) <= s.radius * s.radius;
    case ShapeType::Box: return (p.cwiseAbs().array() <= s.half_extents.array()).all();
    case ShapeType::Ellipsoid: return p.cwiseQuotient(s.radii).squaredNorm() <= 1.0;
    case ShapeType::Convex:
      for (const HullFace& f : s.hull->faces) {
        if (f.normal.dot(p) > f.offset) return false;
      }
      return true;
    case ShapeType::Plane: return s.normal.dot(p) <= s.offset;
    case ShapeType::Mesh: return false;  // a surface: no inside
  }
  return false;
}

}  // namespace

std::optional<ShapeRayHit> ray_cast(const Shape& shape, const Pose& pose, const Vec3& origin,
                                    const Vec3& translation) {
  Ray ray{pose.inverse_apply(origin), pose.inverse_rotate(translation), {}};
  if (solid_contains(shape, ray.o)) {
    const double len = translation.norm();
    ShapeRayHit hit;
    hit.fraction = 0;
    hit.point = origin;
    hit.normal = len > 0 ? Vec3(-translation / len) : Vec3(Vec3::UnitZ());
    return hit;
  }
  if (!(ray.d.squaredNorm() > 0)) return std::nullopt;
  switch (shape.type) {
    case ShapeType::Sphere: sphere_at(ray, Vec3::Zero(), shape.radius); break;
    case ShapeType::Capsule: capsule(ray, shape.radius, shape.half_length); break;
    case ShapeType::Box: box(ray, shape.half_extents); break;
    case ShapeType::Ellipsoid: ellipsoid(ray, shape.radii); break;
    case ShapeType::Convex: hull(ray, *shape.hull); break;
    case ShapeType::Mesh: mesh(ray, *shape.mesh); break;
    case ShapeType::Plane: {
      const double denom = shape.normal.dot(ray.d);
      if (denom < 0) ray.offer((shape.offset - shape.normal.dot(ray.o)) / denom, shape.normal);
      break;
    }
  }
  if (ray.best.fraction == kInf) return std::nullopt;
  ShapeRayHit hit;
  hit.fraction = ray.best.fraction;
  hit.point = origin + hit.fraction * translation;
  hit.normal = pose.rotate(ray.best.normal);
  return hit;
}

std::optional<ShapeRayHit> ray_cast_triangle(const Vec3& a, const Vec3& b, const Vec3& c,
                                             const Vec3& origin, const Vec3& translation) {
  std::optional<ShapeRayHit> hit = triangle_hit(a, b, c, origin, translation);
  if (!hit || !(hit->fraction >= 0 && hit->fraction <= 1)) return std::nullopt;
  hit->point = origin + hit->fraction * translation;
  return hit;
}

}  // namespace impetus
