#pragma once
// Spherical extreme-vertex diagram of a convex polyhedron (paper 3, §2). The region S_v of a
// vertex v is the set of unit directions u for which v is extreme (u·v = max over vertices): the
// dual face of v projected on the Gauss sphere, a convex spherical polygon whose corners are the
// outward normals of the faces around v. Two regions S_v, S_w share a boundary arc exactly when
// (v, w) is a hull edge; the arc is the great-circle arc between the normals of the two faces on
// either side of that edge. Finding the extreme vertex for a direction is then point location on
// the sphere, done here by walking the vertex graph (a local maximum of a linear function on a
// convex polytope's graph is global).
#include <vector>

#include "collision/base/math.h"
#include "collision/shape/convex_hull.h"

namespace impetus {

/// One boundary arc of a region: the shared boundary of S_v and S_neighbor.
struct DiagramArc {
  int neighbor = -1;          // the vertex on the other side of the arc
  Vec3 from = Vec3::UnitZ();  // arc end points: unit normals of the two faces along edge (v, w)
  Vec3 to = Vec3::UnitZ();
  Vec3 pole = Vec3::Zero();   // unit normal of the arc's great circle (from × to), zero if the
                              // arc degenerates to a point (coplanar neighbouring faces)
};

struct ExtremeVertexDiagram {
  std::vector<Vec3> vertices;     // hull vertices (body frame), same indices as the hull
  std::vector<int> arc_begin;     // arcs of region v: arcs[arc_begin[v] .. arc_begin[v + 1])
  std::vector<DiagramArc> arcs;   // every arc stored once per side (2 × hull edges)
  double max_vertex_norm = 0;     // max ‖v‖ (body frame), for motion bounds

  int vertex_count() const { return static_cast<int>(vertices.size()); }
  /// Extreme vertex for direction u (argmax u·v), walking the vertex graph from `hint`.
  /// Ties (u on a region boundary) return one of the tied vertices.
  int locate(const Vec3& u, int hint = 0) const;
};

/// Builds the diagram of a hull (O(n), once per hull). Needs the hull's face loops (CCW from
/// outside, each edge shared by exactly two faces) as produced by build_convex_hull / box_hull.
ExtremeVertexDiagram build_extreme_vertex_diagram(const ConvexHull& hull);

/// Geodesic distance on the unit sphere between unit vectors a and b (accurate near 0 and π).
double geodesic_distance(const Vec3& a, const Vec3& b);

/// Geodesic distance from the unit vector u to a boundary arc (exact: the foot on the great
/// circle when it falls inside the arc, else the nearer end point).
double geodesic_distance_to_arc(const Vec3& u, const DiagramArc& arc);

}  // namespace impetus
