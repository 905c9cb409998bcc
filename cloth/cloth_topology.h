#pragma once
// Static connectivity of a cloth triangle mesh, computed once: unique edges, the triangles
// around each vertex and edge, and the vertex 1-ring. Everything is sorted so that every loop
// over it runs in a fixed order.
#include <array>
#include <vector>

namespace impetus {

struct ClothTopology {
  int vertex_count = 0;
  std::vector<std::array<int, 3>> triangles;
  std::vector<std::array<int, 2>> edges;           // unique, (lo, hi), sorted
  std::vector<std::array<int, 2>> edge_triangles;  // one or two triangles per edge (-1 if none)
  std::vector<std::array<int, 3>> triangle_edges;  // edge of (v0v1, v1v2, v2v0)
  std::vector<int> vertex_triangle_offsets;        // CSR: triangles around vertex v are
  std::vector<int> vertex_triangles;               //   vertex_triangles[off[v] .. off[v+1])
  std::vector<int> neighbor_offsets;               // CSR 1-ring (sorted, without v itself)
  std::vector<int> neighbors;
  std::vector<bool> boundary_vertex;               // on an edge with one triangle

  static ClothTopology build(int vertex_count, const std::vector<std::array<int, 3>>& triangles);

  /// True when triangles s and t have at least one vertex in common (or s == t).
  bool triangles_share_vertex(int s, int t) const;
};

}  // namespace impetus
