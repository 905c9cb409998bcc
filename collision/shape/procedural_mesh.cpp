#include "collision/shape/procedural_mesh.h"

#include <cmath>
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

std::shared_ptr<TriangleMesh> voxel_mesh(const std::array<int, 3>& n, double cell,
                                         const Vec3& corner,
                                         const std::function<bool(int, int, int)>& filled) {
  auto mesh = std::make_shared<TriangleMesh>();
  std::map<std::array<int, 3>, int> index;
  auto vertex = [&](const std::array<int, 3>& g) {
    auto it = index.find(g);
    if (it != index.end()) return it->second;
    mesh->vertices.push_back(corner + cell * Vec3(g[0], g[1], g[2]));
    const int id = static_cast<int>(mesh->vertices.size()) - 1;
    index[g] = id;
    return id;
  };
  auto full = [&](int i, int j, int k) {
    if (i < 0 || j < 0 || k < 0 || i >= n[0] || j >= n[1] || k >= n[2]) return false;
    return filled(i, j, k);
  };
  for (int i = 0; i < n[0]; ++i) {
    for (int j = 0; j < n[1]; ++j) {
      for (int k = 0; k < n[2]; ++k) {
        if (!full(i, j, k)) continue;
        for (int d = 0; d < 3; ++d) {
          for (int s : {-1, 1}) {
            std::array<int, 3> nb = {i, j, k};
            nb[d] += s;
            if (full(nb[0], nb[1], nb[2])) continue;
            // Corners in the (u, v) = (d + 1, d + 2) plane; e_u × e_v = e_d, so this order is
            // counter-clockwise seen from +d (outward for s > 0, reversed below for s < 0).
            const int u = (d + 1) % 3, v = (d + 2) % 3;
            const std::array<std::array<int, 2>, 4> uv = {{{0, 0}, {1, 0}, {1, 1}, {0, 1}}};
            std::array<int, 4> c;
            for (int q = 0; q < 4; ++q) {
              std::array<int, 3> g = {i, j, k};
              g[d] += s > 0 ? 1 : 0;
              g[u] += uv[q][0];
              g[v] += uv[q][1];
              c[q] = vertex(g);
            }
            if (s < 0) std::swap(c[1], c[3]);
            mesh->triangles.push_back({c[0], c[1], c[2]});
            mesh->triangles.push_back({c[0], c[2], c[3]});
          }
        }
      }
    }
  }
  mesh->build_bvh();
  return mesh;
}

std::shared_ptr<TriangleMesh> u_mesh(double cell, double half_depth) {
  const int nxy = static_cast<int>(std::lround(2.0 / cell));
  const int nz = static_cast<int>(std::lround(2 * half_depth / cell));
  return voxel_mesh({nxy, nxy, nz}, cell, Vec3(-1, -1, -half_depth), [cell](int i, int j, int) {
    const double x = -1 + (i + 0.5) * cell, y = -1 + (j + 0.5) * cell;
    return !(std::abs(x) < 0.5 && y > -0.5);
  });
}

std::shared_ptr<TriangleMesh> icosphere_mesh(int levels, const Vec3& radii) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  auto mesh = std::make_shared<TriangleMesh>();
  std::vector<Vec3>& v = mesh->vertices;
  v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
       {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  for (Vec3& p : v) p.normalize();
  mesh->triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                     {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                     {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                     {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int level = 0; level < levels; ++level) {
    // Each edge's midpoint once, pushed out to the unit sphere.
    std::map<std::pair<int, int>, int> middle;
    auto mid = [&](int a, int b) {
      const std::pair<int, int> key = std::minmax(a, b);
      auto it = middle.find(key);
      if (it != middle.end()) return it->second;
      v.push_back((v[a] + v[b]).normalized());
      const int index = static_cast<int>(v.size()) - 1;
      middle[key] = index;
      return index;
    };
    std::vector<std::array<int, 3>> next;
    for (const std::array<int, 3>& f : mesh->triangles) {
      const int a = mid(f[0], f[1]), b = mid(f[1], f[2]), c = mid(f[2], f[0]);
      next.push_back({f[0], a, c});
      next.push_back({f[1], b, a});
      next.push_back({f[2], c, b});
      next.push_back({a, b, c});
    }
    mesh->triangles = std::move(next);
  }
  for (Vec3& p : v) p = p.cwiseProduct(radii);
  mesh->build_bvh();
  return mesh;
}

std::shared_ptr<TriangleMesh> torus_mesh(double major, double minor, int around, int across) {
  auto mesh = std::make_shared<TriangleMesh>();
  for (int i = 0; i < around; ++i) {
    const double a = 2 * kPi * i / around;
    for (int j = 0; j < across; ++j) {
      const double b = 2 * kPi * j / across;
      const double rho = major + minor * std::cos(b);
      mesh->vertices.emplace_back(rho * std::cos(a), rho * std::sin(a), minor * std::sin(b));
    }
  }
  auto id = [&](int i, int j) { return ((i + around) % around) * across + (j + across) % across; };
  for (int i = 0; i < around; ++i) {
    for (int j = 0; j < across; ++j) {
      mesh->triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      mesh->triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  }
  mesh->build_bvh();
  return mesh;
}

}  // namespace impetus
