#include "tools/peers/fcl/peer_pairs.h"

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <utility>

#include "collision/shape/convex_hull.h"
#include "collision/shape/triangle_mesh.h"

namespace impetus::peers {

namespace {

using Rng = std::mt19937_64;

double uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

Quat random_orientation(Rng& rng) {
  std::normal_distribution<double> g(0, 1);
  Quat q(g(rng), g(rng), g(rng), g(rng));
  q.normalize();
  return q;
}

Vec3 random_direction(Rng& rng) {
  std::normal_distribution<double> g(0, 1);
  Vec3 d(g(rng), g(rng), g(rng));
  return d.normalized();
}

// The hull of 24 points inside an ellipsoid of random radii (a typical convex part).
Shape random_hull(Rng& rng) {
  const Vec3 radii(uniform(rng, 0.3, 1.0), uniform(rng, 0.3, 1.0), uniform(rng, 0.3, 1.0));
  for (;;) {
    std::vector<Vec3> points;
    for (int i = 0; i < 24; ++i) {
      const Vec3 d = random_direction(rng) * std::cbrt(uniform(rng, 0.3, 1.0));
      points.push_back(d.cwiseProduct(radii));
    }
    std::string error;
    std::optional<ConvexHull> hull = build_convex_hull(points, &error);
    if (hull) return Shape::convex(std::make_shared<const ConvexHull>(std::move(*hull)));
  }
}

Shape random_shape(ShapeType type, Rng& rng) {
  switch (type) {
    case ShapeType::Sphere: return Shape::sphere(uniform(rng, 0.2, 1.0));
    case ShapeType::Capsule: return Shape::capsule(uniform(rng, 0.1, 0.5), uniform(rng, 0.2, 1.0));
    case ShapeType::Box:
      return Shape::box(Vec3(uniform(rng, 0.2, 1.0), uniform(rng, 0.2, 1.0),
                             uniform(rng, 0.2, 1.0)));
    case ShapeType::Convex: return random_hull(rng);
    default: break;
  }
  return Shape::sphere(1.0);
}

// b placed along a random direction from a at U(0.4, 1.3) × the sum of the bounding radii:
// roughly half the pairs overlap, the others are separated by up to ~their size.
ShapePair place(const Shape& a, const Shape& b, Rng& rng) {
  ShapePair pair{a, b, Pose{}, Pose{}};
  pair.pose_a.position = Vec3(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1));
  pair.pose_a.orientation = random_orientation(rng);
  const double reach = bounding_radius(a) + bounding_radius(b);
  pair.pose_b.position = pair.pose_a.position + random_direction(rng) * reach *
                                                    uniform(rng, 0.4, 1.3);
  pair.pose_b.orientation = random_orientation(rng);
  return pair;
}

}  // namespace

Shape bumpy_sphere_mesh(double radius, int level) {
  // Icosahedron, then `level` 4-way subdivisions with midpoints pushed to the unit sphere.
  const double p = (1 + std::sqrt(5.0)) / 2;
  std::vector<Vec3> v = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0},
                         {0, -1, p}, {0, 1, p}, {0, -1, -p}, {0, 1, -p},
                         {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
  for (Vec3& x : v) x.normalize();
  std::vector<std::array<int, 3>> t = {
      {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
      {3, 8, 9},  {4, 9, 5},  {2, 4, 11},  {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int l = 0; l < level; ++l) {
    std::map<std::pair<int, int>, int> midpoints;  // ordered: deterministic numbering
    auto midpoint = [&](int i, int j) {
      const std::pair<int, int> key(std::min(i, j), std::max(i, j));
      auto it = midpoints.find(key);
      if (it != midpoints.end()) return it->second;
      v.push_back((v[i] + v[j]).normalized());
      const int index = static_cast<int>(v.size()) - 1;
      midpoints.emplace(key, index);
      return index;
    };
    std::vector<std::array<int, 3>> next;
    for (const auto& f : t) {
      const int a = midpoint(f[0], f[1]);
      const int b = midpoint(f[1], f[2]);
      const int c = midpoint(f[2], f[0]);
      next.push_back({f[0], a, c});
      next.push_back({f[1], b, a});
      next.push_back({f[2], c, b});
      next.push_back({a, b, c});
    }
    t = std::move(next);
  }
  auto mesh = std::make_shared<TriangleMesh>();
  for (const Vec3& d : v) {
    // Smooth radial bumps: star-shaped about the origin, so the surface stays closed and simple.
    const double bump = 0.15 * std::sin(5 * d.x()) * std::sin(4 * d.y()) * std::sin(3 * d.z() + 1);
    mesh->vertices.push_back(d * radius * (1 + bump));
  }
  // Outward orientation (the surface is star-shaped about the origin).
  for (auto& f : t) {
    const Vec3& a = mesh->vertices[f[0]];
    const Vec3 n = (mesh->vertices[f[1]] - a).cross(mesh->vertices[f[2]] - a);
    if (n.dot(a) < 0) std::swap(f[1], f[2]);
  }
  mesh->triangles = std::move(t);
  mesh->build_bvh();
  return Shape::triangle_mesh(std::move(mesh));
}

std::vector<PairCategory> make_pair_categories(int count, std::uint64_t seed) {
  struct Kind {
    const char* name;
    ShapeType a;
    ShapeType b;
  };
  const Kind kinds[] = {{"sphere_sphere", ShapeType::Sphere, ShapeType::Sphere},
                        {"sphere_capsule", ShapeType::Sphere, ShapeType::Capsule},
                        {"capsule_capsule", ShapeType::Capsule, ShapeType::Capsule},
                        {"box_box", ShapeType::Box, ShapeType::Box},
                        {"convex_convex", ShapeType::Convex, ShapeType::Convex},
                        {"mesh_mesh", ShapeType::Mesh, ShapeType::Mesh}};
  std::vector<PairCategory> categories;
  Rng rng(seed);
  const Shape mesh = bumpy_sphere_mesh(1.0, 3);
  for (const Kind& kind : kinds) {
    PairCategory category;
    category.name = kind.name;
    for (int i = 0; i < count; ++i) {
      if (kind.a == ShapeType::Mesh) {
        category.pairs.push_back(place(mesh, mesh, rng));
      } else {
        const Shape a = random_shape(kind.a, rng);
        const Shape b = random_shape(kind.b, rng);
        category.pairs.push_back(place(a, b, rng));
      }
    }
    if (kind.a == ShapeType::Mesh) {
      category.triangles = static_cast<int>(mesh.mesh->triangles.size());
    }
    categories.push_back(std::move(category));
  }
  return categories;
}

}  // namespace impetus::peers
