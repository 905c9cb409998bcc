#pragma once
// Bounding-volume tree over the features of one closed mesh (faces, vertices, edges) for the
// local construction of the convolution (convolution_search.h). Each node bounds its features
// twice: in space (a box in the mesh frame, and the box's circumscribed sphere, which stays
// tight under the rotation that places the other mesh) and on the Gauss sphere (a cap holding
// every feature's normal set: a face's normal, a vertex's extremal cone, an edge's arc). A
// feature of B and a feature of A form a facet only when their caps meet (B's cap against A's
// negated one), and the facet's points are differences of the features' points, so a node pair
// whose caps are apart or whose boxes are far can hold no facet near the origin.
//
// Every vertex and edge is owned by one incident face (a vertex by its first face in the
// mesh's vertex–face list, an edge by its face f0), and lives in the leaf holding that face, so
// the leaf's box (of its faces) bounds its vertices and edges too.
#include <array>
#include <vector>

#include "collision/base/aabb.h"
#include "collision/base/math.h"

namespace impetus {

struct ConvolutionMesh;

/// A cap on the Gauss sphere: the directions within `radius` of `axis`.
struct GaussCap {
  Vec3 axis = Vec3::UnitZ();  // unit
  double radius = -1;         // [rad]; < 0: empty; ≥ π: the whole sphere
  double cos = 1, sin = 0;    // of radius (when in [0, π))
};

struct ConvolutionBvh {
  // Feature kinds, as indices into Node::caps.
  static constexpr int kFaces = 0, kVertices = 1, kEdges = 2;
  struct Node {
    Aabb box;                         // of the node's faces, mesh frame
    Vec3 centre = Vec3::Zero();       // of the box
    double radius = 0;                // half the box's diagonal
    // Gauss caps of the node's faces (normals), vertices (extremal cones) and edges (arcs),
    // mesh frame, kept apart because each kind pairs with one kind of the other mesh only.
    std::array<GaussCap, 3> caps;
    int left = -1, right = -1;        // children (internal nodes); -1 for leaves
    // Leaves: ranges into faces, vertices and edges below.
    int face_first = 0, face_count = 0;
    int vertex_first = 0, vertex_count = 0;
    int edge_first = 0, edge_count = 0;
  };
  std::vector<Node> nodes;  // nodes[0] is the root (when not empty)
  std::vector<int> faces, vertices, edges;  // leaf feature lists, leaf by leaf
};

/// Builds the tree of `m` (its faces, normals, extremal cones and arcs must be filled).
ConvolutionBvh build_convolution_bvh(const ConvolutionMesh& m);

}  // namespace impetus
