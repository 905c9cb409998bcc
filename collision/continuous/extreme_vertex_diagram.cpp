#include "collision/continuous/extreme_vertex_diagram.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "collision/base/assert.h"

namespace impetus {

ExtremeVertexDiagram build_extreme_vertex_diagram(const ConvexHull& hull) {
  ExtremeVertexDiagram diagram;
  diagram.vertices = hull.vertices;
  const int n = static_cast<int>(hull.vertices.size());
  for (const Vec3& v : hull.vertices) diagram.max_vertex_norm = std::max(diagram.max_vertex_norm, v.norm());

  // Directed edge (a, b) of face f (CCW from outside) -> f. The face across the edge is the one
  // holding (b, a). A std::map keeps the construction deterministic and is built once per hull.
  std::map<std::pair<int, int>, int> face_of_edge;
  for (int f = 0; f < static_cast<int>(hull.faces.size()); ++f) {
    const std::vector<int>& loop = hull.faces[f].vertices;
    for (std::size_t i = 0; i < loop.size(); ++i) {
      face_of_edge[{loop[i], loop[(i + 1) % loop.size()]}] = f;
    }
  }

  // Per vertex, its arcs: for directed edge (v, w) in face f, the arc runs from the normal of the
  // face across (holding (w, v)) to the normal of f. Sorted by neighbour for a canonical order.
  std::vector<std::vector<DiagramArc>> per_vertex(n);
  for (const auto& [edge, f] : face_of_edge) {
    const auto across = face_of_edge.find({edge.second, edge.first});
    IMPETUS_ASSERT(across != face_of_edge.end(), "hull edge without a face on its other side");
    if (across == face_of_edge.end()) continue;
    DiagramArc arc;
    arc.neighbor = edge.second;
    arc.from = hull.faces[across->second].normal;
    arc.to = hull.faces[f].normal;
    const Vec3 c = arc.from.cross(arc.to);
    const double len = c.norm();
    arc.pole = len > 1e-15 ? Vec3(c / len) : Vec3(Vec3::Zero());
    per_vertex[edge.first].push_back(arc);
  }
  diagram.arc_begin.assign(n + 1, 0);
  for (int v = 0; v < n; ++v) {
    std::sort(per_vertex[v].begin(), per_vertex[v].end(),
              [](const DiagramArc& a, const DiagramArc& b) { return a.neighbor < b.neighbor; });
    diagram.arc_begin[v + 1] = diagram.arc_begin[v] + static_cast<int>(per_vertex[v].size());
    for (const DiagramArc& arc : per_vertex[v]) diagram.arcs.push_back(arc);
  }
  return diagram;
}

int ExtremeVertexDiagram::locate(const Vec3& u, int hint) const {
  int cur = (hint >= 0 && hint < vertex_count()) ? hint : 0;
  double best = u.dot(vertices[cur]);
  // Steepest ascent over the vertex graph; strict improvement guarantees termination, and on a
  // convex polytope no vertex is a local but not global maximum.
  for (bool improved = true; improved;) {
    improved = false;
    int next = cur;
    for (int a = arc_begin[cur]; a < arc_begin[cur + 1]; ++a) {
      const int w = arcs[a].neighbor;
      const double value = u.dot(vertices[w]);
      if (value > best) {
        best = value;
        next = w;
        improved = true;
      }
    }
    cur = next;
  }
  return cur;
}

double geodesic_distance(const Vec3& a, const Vec3& b) {
  return std::atan2(a.cross(b).norm(), a.dot(b));
}

double geodesic_distance_to_arc(const Vec3& u, const DiagramArc& arc) {
  const double end_points = std::min(geodesic_distance(u, arc.from), geodesic_distance(u, arc.to));
  if (arc.pole.isZero()) return end_points;
  // Foot of u on the arc's great circle; inside the arc when it lies between `from` and `to`
  // (arcs are shorter than π, so the two orientation tests decide it).
  const double s = u.dot(arc.pole);
  const Vec3 foot = u - s * arc.pole;
  const double foot_norm = foot.norm();
  if (foot_norm > 0 && arc.from.cross(foot).dot(arc.pole) >= 0 &&
      foot.cross(arc.to).dot(arc.pole) >= 0) {
    return std::atan2(std::abs(s), foot_norm);
  }
  return end_points;
}

}  // namespace impetus
