#include "cloth/cloth_topology.h"

#include <algorithm>

namespace impetus {

ClothTopology ClothTopology::build(int vertex_count,
                                   const std::vector<std::array<int, 3>>& triangles) {
  ClothTopology t;
  t.vertex_count = vertex_count;
  t.triangles = triangles;
  const int nt = static_cast<int>(triangles.size());

  // Edges: (lo, hi, triangle) records sorted, then grouped.
  std::vector<std::array<int, 3>> half;
  half.reserve(3 * static_cast<size_t>(nt));
  for (int f = 0; f < nt; ++f) {
    for (int k = 0; k < 3; ++k) {
      int a = triangles[f][k], b = triangles[f][(k + 1) % 3];
      half.push_back({std::min(a, b), std::max(a, b), f});
    }
  }
  std::sort(half.begin(), half.end());
  t.triangle_edges.assign(nt, {-1, -1, -1});
  for (size_t i = 0; i < half.size();) {
    size_t j = i;
    std::array<int, 2> tris = {-1, -1};
    int count = 0;
    while (j < half.size() && half[j][0] == half[i][0] && half[j][1] == half[i][1]) {
      if (count < 2) tris[count] = half[j][2];
      ++count;
      ++j;
    }
    const int e = static_cast<int>(t.edges.size());
    t.edges.push_back({half[i][0], half[i][1]});
    t.edge_triangles.push_back(tris);
    for (size_t k = i; k < j; ++k) {
      const int f = half[k][2];
      for (int s = 0; s < 3; ++s) {
        int a = triangles[f][s], b = triangles[f][(s + 1) % 3];
        if (std::min(a, b) == half[i][0] && std::max(a, b) == half[i][1]) t.triangle_edges[f][s] = e;
      }
    }
    i = j;
  }

  // Vertex → triangles (CSR, triangles ascending).
  t.vertex_triangle_offsets.assign(vertex_count + 1, 0);
  for (const auto& tri : triangles)
    for (int v : tri) ++t.vertex_triangle_offsets[v + 1];
  for (int v = 0; v < vertex_count; ++v)
    t.vertex_triangle_offsets[v + 1] += t.vertex_triangle_offsets[v];
  t.vertex_triangles.resize(t.vertex_triangle_offsets[vertex_count]);
  std::vector<int> fill(t.vertex_triangle_offsets.begin(), t.vertex_triangle_offsets.end() - 1);
  for (int f = 0; f < nt; ++f)
    for (int v : triangles[f]) t.vertex_triangles[fill[v]++] = f;

  // 1-ring from the edges (edges are sorted, so each list comes out sorted after a sort).
  std::vector<std::vector<int>> ring(vertex_count);
  for (const auto& e : t.edges) {
    ring[e[0]].push_back(e[1]);
    ring[e[1]].push_back(e[0]);
  }
  t.neighbor_offsets.assign(vertex_count + 1, 0);
  for (int v = 0; v < vertex_count; ++v) {
    std::sort(ring[v].begin(), ring[v].end());
    t.neighbor_offsets[v + 1] = t.neighbor_offsets[v] + static_cast<int>(ring[v].size());
  }
  t.neighbors.reserve(t.neighbor_offsets[vertex_count]);
  for (int v = 0; v < vertex_count; ++v) t.neighbors.insert(t.neighbors.end(), ring[v].begin(), ring[v].end());

  t.boundary_vertex.assign(vertex_count, false);
  for (size_t e = 0; e < t.edges.size(); ++e) {
    if (t.edge_triangles[e][1] < 0) {
      t.boundary_vertex[t.edges[e][0]] = true;
      t.boundary_vertex[t.edges[e][1]] = true;
    }
  }
  return t;
}

bool ClothTopology::triangles_share_vertex(int s, int t) const {
  for (int a : triangles[s])
    for (int b : triangles[t])
      if (a == b) return true;
  return false;
}

}  // namespace impetus
