#include "collision/shape/convex_hull.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/base/aabb.h"
#include "collision/base/assert.h"
#include "collision/shape/quickhull.h"

namespace impetus {
namespace {

// Tolerances relative to the point cloud's extent (AABB diagonal). Hull triangles whose vertices
// lie within kMergeRelative of a face plane join that face: this catches float-rounded CAD or OBJ
// input (single precision is ~6e-8 relative) while staying far below the smallest dihedral
// deviation of finely tessellated round shapes (a 256-gon cylinder's faces leave the plane by
// ~6e-4). The merge tolerance never drops below the rounding noise of coordinates far from the
// origin (kRoundoff × the largest coordinate). A cloud thinner than kFlatFactor merge tolerances
// has no usable volume and is rejected.
constexpr double kMergeRelative = 1e-7;
constexpr double kRoundoff = 64 * std::numeric_limits<double>::epsilon();
constexpr double kFlatFactor = 10;

// Groups the hull triangles into planar faces, each returned as its boundary loop (input point
// indices, CCW from outside). Region growing from the largest triangles: a neighbour joins while
// all its vertices are within `tol` of the seed's plane and it faces the same way. A group whose
// boundary is not one simple loop (possible only at tolerance-level ambiguities) falls back to
// its separate triangles, so every face is a topological disk and the polyhedron stays valid.
std::vector<std::vector<int>> merge_coplanar(const std::vector<Vec3>& p, const HullTriangulation& h,
                                             double tol) {
  const int count = static_cast<int>(h.triangles.size());
  std::vector<Vec3> normal(count);
  std::vector<double> area(count);
  for (int t = 0; t < count; ++t) {
    const std::array<int, 3>& v = h.triangles[t];
    normal[t] = (p[v[1]] - p[v[0]]).cross(p[v[2]] - p[v[0]]);
    area[t] = normal[t].norm();
  }
  std::vector<int> order(count);
  for (int t = 0; t < count; ++t) order[t] = t;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return area[a] != area[b] ? area[a] > area[b] : a < b;
  });

  std::vector<int> group(count, -1);
  std::vector<std::vector<int>> members;
  for (int seed : order) {
    if (group[seed] != -1) continue;
    const int g = static_cast<int>(members.size());
    members.push_back({seed});
    group[seed] = g;
    if (!(area[seed] > 0)) continue;
    const Vec3 n = normal[seed] / area[seed];
    const double d = n.dot(p[h.triangles[seed][0]]);
    for (std::size_t k = 0; k < members[g].size(); ++k) {
      const int t = members[g][k];
      for (int e = 0; e < 3; ++e) {
        const int u = h.neighbors[t][e];
        if (group[u] != -1 || !(n.dot(normal[u]) > 0)) continue;
        bool flat = true;
        for (int v : h.triangles[u]) flat = flat && std::abs(n.dot(p[v]) - d) <= tol;
        if (!flat) continue;
        group[u] = g;
        members[g].push_back(u);
      }
    }
  }

  std::vector<std::vector<int>> loops;
  std::vector<int> next(p.size(), -1);
  std::vector<std::array<int, 2>> boundary;
  for (int g = 0; g < static_cast<int>(members.size()); ++g) {
    boundary.clear();
    for (int t : members[g]) {
      for (int e = 0; e < 3; ++e) {
        if (group[h.neighbors[t][e]] != g) {
          boundary.push_back({h.triangles[t][e], h.triangles[t][(e + 1) % 3]});
        }
      }
    }
    bool simple = true;
    for (const std::array<int, 2>& edge : boundary) {
      if (next[edge[0]] != -1) simple = false;
      next[edge[0]] = edge[1];
    }
    std::vector<int> loop;
    if (simple) {
      int cur = boundary.front()[0];
      for (std::size_t k = 0; k < boundary.size() && cur >= 0; ++k) {
        loop.push_back(cur);
        cur = next[cur];
      }
      simple = cur == boundary.front()[0] && loop.size() == boundary.size();
    }
    for (const std::array<int, 2>& edge : boundary) next[edge[0]] = -1;
    if (simple) {
      loops.push_back(std::move(loop));
    } else {
      for (int t : members[g]) {
        loops.push_back({h.triangles[t][0], h.triangles[t][1], h.triangles[t][2]});
      }
    }
  }
  return loops;
}

// A vertex shared by exactly two faces is not a corner (a corner has three or more faces): both
// faces contain it and its two loop neighbours u and w, so with faces planar to within the merge
// tolerance it lies on their common edge line, or, when the two faces are nearly parallel, on a
// bump no higher than that tolerance. Such vertices come from points on hull edges that
// quickhull picked before the edge's end points, from near-duplicate points and from rounding
// noise on nearly flat regions. Dropping the vertex from both loops (joining u–w directly) moves
// the surface by at most about the merge tolerance, and the faces' supporting offsets are taken
// over all hull points afterwards, so nothing ends up outside. Repeats until nothing changes,
// since a removal changes the neighbours of the vertices next to it.
void remove_edge_vertices(std::size_t point_count, std::vector<std::vector<int>>* loops) {
  std::vector<std::vector<int>>& f = *loops;
  const int n = static_cast<int>(point_count);
  std::vector<int> degree(n), face_a(n), face_b(n);
  for (bool changed = true; changed;) {
    changed = false;
    std::fill(degree.begin(), degree.end(), 0);
    for (int k = 0; k < static_cast<int>(f.size()); ++k) {
      for (int v : f[k]) {
        if (degree[v] == 0) face_a[v] = k;
        if (degree[v] == 1) face_b[v] = k;
        ++degree[v];
      }
    }
    for (int v = 0; v < n; ++v) {
      if (degree[v] != 2) continue;
      std::vector<int>& a = f[face_a[v]];
      std::vector<int>& b = f[face_b[v]];
      // A triangle cannot lose a vertex; if one is involved the final closed-surface check
      // decides (and falls back to the exact triangulation).
      if (a.size() <= 3 || b.size() <= 3) continue;
      const int na = static_cast<int>(a.size()), nb = static_cast<int>(b.size());
      const int ia = static_cast<int>(std::find(a.begin(), a.end(), v) - a.begin());
      const int ib = static_cast<int>(std::find(b.begin(), b.end(), v) - b.begin());
      const int u = a[(ia + na - 1) % na], w = a[(ia + 1) % na];
      if (b[(ib + nb - 1) % nb] != w || b[(ib + 1) % nb] != u) continue;
      a.erase(a.begin() + ia);
      b.erase(b.begin() + ib);
      changed = true;
    }
  }
}

// Vector area of a closed loop (twice the area times the unit normal for a planar one),
// accumulated about its first point to limit cancellation far from the origin.
Vec3 loop_vector_area(const std::vector<Vec3>& p, const std::vector<int>& loop) {
  Vec3 sum = Vec3::Zero();
  const Vec3& o = p[loop[0]];
  for (std::size_t i = 1; i + 1 < loop.size(); ++i) {
    sum += (p[loop[i]] - o).cross(p[loop[i + 1]] - o);
  }
  return sum;
}

// Local maximum of dir·x over the hull's vertex graph, walking from `start`. On a convex
// polytope a local maximum of a linear function is the global one (the simplex method's
// argument), so this finds the supporting plane without scanning every vertex.
double support_value(const std::vector<Vec3>& p, const std::vector<std::vector<int>>& adjacency,
                     const Vec3& dir, int start) {
  int cur = start;
  double best = dir.dot(p[cur]);
  for (bool improved = true; improved;) {
    improved = false;
    for (int nb : adjacency[cur]) {
      const double d = dir.dot(p[nb]);
      if (d > best) {
        best = d;
        cur = nb;
        improved = true;
      }
    }
  }
  return best;
}

void fill_triangles_and_edges(ConvexHull* hull) {
  hull->triangles.clear();
  hull->edges.clear();
  for (const HullFace& face : hull->faces) {
    const std::vector<int>& v = face.vertices;
    for (std::size_t i = 1; i + 1 < v.size(); ++i) hull->triangles.push_back({v[0], v[i], v[i + 1]});
    for (std::size_t i = 0; i < v.size(); ++i) {
      const int a = v[i], b = v[(i + 1) % v.size()];
      hull->edges.push_back({std::min(a, b), std::max(a, b)});
    }
  }
  std::sort(hull->edges.begin(), hull->edges.end());
  hull->edges.erase(std::unique(hull->edges.begin(), hull->edges.end()), hull->edges.end());
}

// The hull from its face loops (input indices): vertices on some loop, renumbered in input
// order; each face with its normal, supporting offset and canonical loop; fan triangles; edges.
ConvexHull assemble(const std::vector<Vec3>& points,
                    const std::vector<std::vector<int>>& adjacency,
                    const std::vector<std::vector<int>>& loops) {
  std::vector<int> index(points.size(), -1);
  for (const std::vector<int>& loop : loops) {
    for (int v : loop) index[v] = 0;
  }
  ConvexHull hull;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (index[i] == 0) {
      index[i] = static_cast<int>(hull.vertices.size());
      hull.vertices.push_back(points[i]);
    }
  }
  hull.faces.reserve(loops.size());
  for (const std::vector<int>& loop : loops) {
    HullFace face;
    face.normal = loop_vector_area(points, loop).normalized();
    // The supporting plane with this normal: every input point is on or below it.
    face.offset = support_value(points, adjacency, face.normal, loop[0]);
    // Start each loop at its lowest vertex index so that the output is canonical.
    const std::size_t first = static_cast<std::size_t>(
        std::min_element(loop.begin(), loop.end(),
                         [&](int a, int b) { return index[a] < index[b]; }) -
        loop.begin());
    for (std::size_t k = 0; k < loop.size(); ++k) {
      face.vertices.push_back(index[loop[(first + k) % loop.size()]]);
    }
    hull.faces.push_back(std::move(face));
  }
  fill_triangles_and_edges(&hull);
  return hull;
}

// True when both the polygon loops and the triangles form a closed, consistently oriented
// surface: every directed edge occurs once and so does its reverse.
bool is_closed_surface(const ConvexHull& hull) {
  auto closed = [](std::vector<std::array<int, 2>> directed) {
    std::sort(directed.begin(), directed.end());
    if (std::adjacent_find(directed.begin(), directed.end()) != directed.end()) return false;
    for (const std::array<int, 2>& e : directed) {
      if (e[0] == e[1]) return false;
      if (!std::binary_search(directed.begin(), directed.end(), std::array<int, 2>{e[1], e[0]})) {
        return false;
      }
    }
    return true;
  };
  std::vector<std::array<int, 2>> directed;
  for (const HullFace& f : hull.faces) {
    if (f.vertices.size() < 3 || !f.normal.allFinite()) return false;
    for (std::size_t i = 0; i < f.vertices.size(); ++i) {
      directed.push_back({f.vertices[i], f.vertices[(i + 1) % f.vertices.size()]});
    }
  }
  if (!closed(directed)) return false;
  directed.clear();
  for (const std::array<int, 3>& t : hull.triangles) {
    for (int e = 0; e < 3; ++e) directed.push_back({t[e], t[(e + 1) % 3]});
  }
  return closed(directed);
}

}  // namespace

std::optional<ConvexHull> build_convex_hull(const std::vector<Vec3>& points, std::string* error) {
  std::string local_error;
  std::string* err = error != nullptr ? error : &local_error;
  if (points.size() < 4) {
    *err = "a convex hull needs at least 4 points, got " + std::to_string(points.size());
    return std::nullopt;
  }
  Aabb bounds;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].allFinite()) {
      *err = "point " + std::to_string(i) + " is not finite";
      return std::nullopt;
    }
    bounds.grow(points[i]);
  }
  const double extent = bounds.extent().norm();
  const double coordinate_scale = std::max(bounds.min.cwiseAbs().maxCoeff(),
                                           bounds.max.cwiseAbs().maxCoeff());
  const double tol = std::max(kMergeRelative * extent, kRoundoff * coordinate_scale);
  std::optional<HullTriangulation> tri = quickhull(points, kFlatFactor * tol, err);
  if (!tri) return std::nullopt;

  std::vector<std::vector<int>> loops = merge_coplanar(points, *tri, tol);
  remove_edge_vertices(points.size(), &loops);

  // Vertex graph of the exact triangulation, for the faces' supporting offsets.
  std::vector<std::vector<int>> adjacency(points.size());
  for (const std::array<int, 3>& t : tri->triangles) {
    for (int e = 0; e < 3; ++e) adjacency[t[e]].push_back(t[(e + 1) % 3]);
  }
  ConvexHull hull = assemble(points, adjacency, loops);
  if (!is_closed_surface(hull)) {
    // Tolerance-level ambiguities (near-duplicate points on nearly coplanar faces) can leave two
    // faces sharing more than one edge, which the fan triangulation cannot represent. The exact
    // triangulation is always a valid closed surface: fall back to one face per triangle.
    loops.clear();
    for (const std::array<int, 3>& t : tri->triangles) loops.push_back({t[0], t[1], t[2]});
    hull = assemble(points, adjacency, loops);
    IMPETUS_ASSERT(is_closed_surface(hull), "the exact hull triangulation is not closed");
  }
  return hull;
}

int ConvexHull::support_index(const Vec3& dir) const {
  IMPETUS_ASSERT(!vertices.empty(), "support of an empty hull");
  int best = 0;
  double best_value = dir.dot(vertices[0]);
  for (int i = 1; i < static_cast<int>(vertices.size()); ++i) {
    const double value = dir.dot(vertices[i]);
    if (value > best_value) {
      best_value = value;
      best = i;
    }
  }
  return best;
}

ConvexHull box_hull(const Vec3& half_extents) {
  IMPETUS_ASSERT((half_extents.array() > 0).all(), "box half extents must be positive");
  ConvexHull hull;
  // Vertex k has coordinate +h on axis j when bit j of k is set.
  for (int k = 0; k < 8; ++k) {
    hull.vertices.emplace_back((k & 1) ? half_extents.x() : -half_extents.x(),
                               (k & 2) ? half_extents.y() : -half_extents.y(),
                               (k & 4) ? half_extents.z() : -half_extents.z());
  }
  // Loops CCW seen from outside: about +x the (y, z) plane is right-handed, about +y (z, x),
  // about +z (x, y).
  const int loops[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (int f = 0; f < 6; ++f) {
    HullFace face;
    const int axis = f / 2;
    const double sign = (f % 2 == 0) ? -1.0 : 1.0;
    face.normal = Vec3::Zero();
    face.normal[axis] = sign;
    face.offset = half_extents[axis];
    face.vertices.assign(loops[f], loops[f] + 4);
    hull.faces.push_back(std::move(face));
  }
  fill_triangles_and_edges(&hull);
  return hull;
}

}  // namespace impetus
