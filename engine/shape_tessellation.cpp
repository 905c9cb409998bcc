#include "engine/shape_tessellation.h"

#include <cmath>

#include "collision/shape/procedural_mesh.h"

namespace impetus {

namespace {

// Subdivision level of spheres and ellipsoids: 320 triangles, within 1.3% of the radius.
constexpr int kIcosphereLevels = 2;
constexpr int kCapsuleSegments = 24;     // around the axis
constexpr int kCapsuleHemiRings = 6;     // latitude rings per hemisphere, equator included

ShapeSurface from_mesh(const std::vector<Vec3>& vertices,
                       const std::vector<std::array<int, 3>>& triangles, bool smooth) {
  ShapeSurface s;
  s.vertices = vertices;
  s.triangles = triangles;
  s.smooth = smooth;
  return s;
}

// Rings of latitude from the top pole to the bottom one; the upper hemisphere is lifted by
// +half_length and the lower one lowered by it, so the two equators bound the cylinder.
ShapeSurface capsule_surface(double r, double h) {
  ShapeSurface s;
  s.smooth = true;
  s.vertices.push_back(Vec3(0, 0, h + r));  // top pole
  const int rings = 2 * kCapsuleHemiRings;  // upper hemisphere rings 1..H, lower H+1..2H
  for (int ring = 1; ring <= rings; ++ring) {
    const bool upper = ring <= kCapsuleHemiRings;
    // Polar angle: 0 at the top pole, π/2 at both equators, π at the bottom pole.
    const int k = upper ? ring : ring - 1;
    const double theta = kPi * static_cast<double>(k) / static_cast<double>(rings);
    const double z = r * std::cos(theta) + (upper ? h : -h);
    const double rho = r * std::sin(theta);
    for (int j = 0; j < kCapsuleSegments; ++j) {
      const double phi = 2 * kPi * static_cast<double>(j) / kCapsuleSegments;
      s.vertices.push_back(Vec3(rho * std::cos(phi), rho * std::sin(phi), z));
    }
  }
  s.vertices.push_back(Vec3(0, 0, -h - r));  // bottom pole
  const int bottom = static_cast<int>(s.vertices.size()) - 1;
  auto at = [](int ring, int j) { return 1 + (ring - 1) * kCapsuleSegments + j % kCapsuleSegments; };
  for (int j = 0; j < kCapsuleSegments; ++j) {
    s.triangles.push_back({0, at(1, j), at(1, j + 1)});
    s.triangles.push_back({bottom, at(rings, j + 1), at(rings, j)});
    for (int ring = 1; ring < rings; ++ring) {
      s.triangles.push_back({at(ring, j), at(ring + 1, j), at(ring + 1, j + 1)});
      s.triangles.push_back({at(ring, j), at(ring + 1, j + 1), at(ring, j + 1)});
    }
  }
  return s;
}

ShapeSurface box_surface(const Vec3& e) {
  ShapeSurface s;
  for (int i = 0; i < 8; ++i) {
    s.vertices.push_back(Vec3((i & 1) ? e.x() : -e.x(), (i & 2) ? e.y() : -e.y(),
                              (i & 4) ? e.z() : -e.z()));
  }
  // Two CCW triangles per face (vertex bit 0 = +x, bit 1 = +y, bit 2 = +z).
  s.triangles = {{0, 2, 3}, {0, 3, 1},   // −z
                 {4, 5, 7}, {4, 7, 6},   // +z
                 {0, 1, 5}, {0, 5, 4},   // −y
                 {2, 6, 7}, {2, 7, 3},   // +y
                 {0, 4, 6}, {0, 6, 2},   // −x
                 {1, 3, 7}, {1, 7, 5}};  // +x
  return s;
}

ShapeSurface plane_surface(const Vec3& normal, double offset, double half_size) {
  const Vec3 n = normal.normalized();
  const Vec3 t = (std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).cross(n).normalized();
  const Vec3 b = n.cross(t);  // (t, b, n) right-handed: t × b = n, so t→b is CCW seen from +n
  const Vec3 c = n * offset;
  ShapeSurface s;
  s.vertices = {c - half_size * t - half_size * b, c + half_size * t - half_size * b,
                c + half_size * t + half_size * b, c - half_size * t + half_size * b};
  s.triangles = {{0, 1, 2}, {0, 2, 3}};
  return s;
}

}  // namespace

ShapeSurface tessellate_shape(const Shape& shape, double plane_half_size) {
  switch (shape.type) {
    case ShapeType::Sphere: {
      auto mesh = icosphere_mesh(kIcosphereLevels, Vec3::Constant(shape.radius));
      return from_mesh(mesh->vertices, mesh->triangles, true);
    }
    case ShapeType::Ellipsoid: {
      auto mesh = icosphere_mesh(kIcosphereLevels, shape.radii);
      return from_mesh(mesh->vertices, mesh->triangles, true);
    }
    case ShapeType::Capsule:
      return capsule_surface(shape.radius, shape.half_length);
    case ShapeType::Box:
      return box_surface(shape.half_extents);
    case ShapeType::Convex:
      return from_mesh(shape.hull->vertices, shape.hull->triangles, false);
    case ShapeType::Mesh:
      return from_mesh(shape.mesh->vertices, shape.mesh->triangles, false);
    case ShapeType::Plane:
      return plane_surface(shape.normal, shape.offset, plane_half_size);
  }
  return {};
}

}  // namespace impetus
