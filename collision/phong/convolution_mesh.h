#pragma once
// Convolution of two closed triangle meshes: a superset of the boundary of their Minkowski
// difference D = B ⊕ (−A) that needs no convexity (paper 2, §V.E: "the convolution, a superset
// of the Minkowski sum, built from facet–vertex and edge–edge combinations"; the construction is
// Guibas, Ramshaw and Stolfi's, used for non-convex polyhedra by Lee et al., the paper's [78]).
//
// Its facets are
//   FV: f − a, a face f of B and a vertex a of A that is a local maximum of x·(−n_f) on A's
//       surface (A lies below f's plane near a): a triangle with normal n_f;
//   VF: b − g, a vertex b of B that is a local maximum of x·(−n_g) on B, a face g of A:
//       a triangle with normal −n_g;
//   EE: e − e', edges of B and A (neither reflex) whose arcs on the Gauss sphere admit a common
//       normal ν (ν between e's face normals, −ν between e''s): a parallelogram with normal ν.
// These are exactly the feature pairs that can be in touching contact when B is translated (a
// vertex of A inside f's plane with an edge going up would cut into B; a reflex edge's solid
// wedge exceeds a half-space), so every point of ∂D lies on some facet; for convex meshes the
// facets are exactly ∂D. For non-convex meshes most facets can lie inside D: whether a point
// of a facet is on ∂D is decided by an overlap test of the translated meshes
// (convolution_overlap.h).
//
// The "local maximum" test is exact: v is a local maximum of x·u iff every edge from v goes
// down (d·u ≤ 0) and the solid lies below, i.e. u·N > 0 with N the angle-weighted normal (the
// angle-weighted normal sum is −2∫x over the solid's cap on the unit sphere, so it points away
// from the half-space the solid is in). Ties (flat neighbourhoods, face–face contact) are
// included within an angular tolerance, which only adds facets.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "collision/base/math.h"
#include "collision/phong/convolution_bvh.h"
#include "collision/shape/triangle_mesh.h"

namespace impetus {

/// Topology and local differential data of one closed triangle mesh (local frame), immutable.
struct ConvolutionMesh {
  struct Edge {
    int v0 = 0, v1 = 0;  // v0 → v1 runs CCW in face f0, v1 → v0 in face f1
    int f0 = 0, f1 = 0;
    bool reflex = false;  // dihedral angle > π (beyond the angular tolerance)
  };
  std::shared_ptr<const TriangleMesh> mesh;  // the triangles, with their BVH (overlap test)
  std::vector<Vec3> face_normal;             // unit, outward
  std::vector<double> corner_angle;          // [3·f + k]: angle of face f at its corner k [rad]
  std::vector<Edge> edges;
  std::vector<Vec3> edge_direction;          // unit, v0 → v1
  std::vector<Vec3> vertex_normal;           // unit, angle-weighted sum of the face normals
  // Per vertex (CSR): incident faces and incident edges.
  std::vector<int> face_start, vertex_faces;
  std::vector<int> edge_start, vertex_edges;
  // A cap on the sphere holding the vertex's extremal cone {u : v is a local maximum of x·u}:
  // axis and angular radius; radius < 0 when the cone is empty (saddles, dents).
  std::vector<Vec3> extremal_axis;
  std::vector<double> extremal_radius;
  // A cap holding each edge's arc [n_f0, n_f1] (reflex edges: radius < 0).
  std::vector<Vec3> arc_axis;
  std::vector<double> arc_radius;
  // Cosine and sine of the cap radii (the sweep's cap test), and of arc_radius + the angular
  // tolerance (an edge's cap used as the query).
  std::vector<double> extremal_cos, extremal_sin;
  std::vector<double> arc_cos, arc_sin, arc_query_cos, arc_query_sin;
  bool convex = true;  // no reflex edge
  double size = 0;     // largest |coordinate| of a vertex, for tolerances [m]
  double mean_edge = 0;  // mean edge length [m]
  double max_edge = 0;   // longest edge [m]
  ConvolutionBvh features;  // the features in space and on the Gauss sphere (local search)
};

/// Builds the convolution data of a closed mesh (throws std::invalid_argument if it is not
/// closed). `mesh` must have its BVH built.
std::shared_ptr<const ConvolutionMesh> build_convolution_mesh(
    std::shared_ptr<const TriangleMesh> mesh);

/// Angular tolerance of the compatibility tests [rad].
inline constexpr double kConvolutionAngleTolerance = 1e-9;

/// True when vertex v of `m` is a local maximum of x·u on the surface (u unit, m's frame).
bool vertex_is_extremal(const ConvolutionMesh& m, int v, const Vec3& u);

/// True when unit ν lies on the arc of edge e (between its two face normals), ν in m's frame.
bool edge_arc_contains(const ConvolutionMesh& m, int e, const Vec3& nu);

/// The convolution's vertices are differences b − a of a vertex of B and a vertex of A.
using ConvolutionKey = std::uint64_t;
inline ConvolutionKey convolution_key(int b, int a) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(b)) << 32) |
         static_cast<std::uint32_t>(a);
}

/// B placed in A's frame: D = B ⊕ (−A) is built in A's local frame, where the origin is the
/// origin of the world's D rotated by A's inverse orientation.
struct ConvolutionPair {
  const ConvolutionMesh* a = nullptr;
  const ConvolutionMesh* b = nullptr;
  Quat b_rotation = Quat::Identity();   // B's frame → A's frame (rotation part)
  std::vector<Vec3> b_vertices;         // in A's frame
  std::vector<Vec3> b_face_normals;     // in A's frame
  std::vector<Vec3> b_extremal_axes;    // B's extremal-cone axes, in A's frame
  std::vector<Vec3> b_arc_axes;         // B's arc axes, in A's frame
  Pose b_pose;                          // B's frame → A's frame
};

ConvolutionPair place_convolution_pair(const ConvolutionMesh& a, const Pose& pose_a,
                                       const ConvolutionMesh& b, const Pose& pose_b);

struct ConvolutionFacet {
  enum class Kind : std::uint8_t { FaceVertex, VertexFace, EdgeEdge };
  Kind kind = Kind::FaceVertex;
  int b_feature = 0;  // face, vertex or edge of B
  int a_feature = 0;  // vertex, face or edge of A
  int corners = 3;    // 3 (triangle) or 4 (parallelogram)
  std::array<Vec3, 4> points = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
                                            // CCW seen from outside, in A's frame
  std::array<ConvolutionKey, 4> keys{};     // the (b, a) vertex pair of each corner
  Vec3 normal = Vec3::UnitZ();              // unit outward normal of D at the facet
};

/// All facets of the convolution, in a deterministic order (FV by face of B, then VF by face of
/// A, then EE by edge of B). The compatible pairs are found by sweeping caps on the Gauss
/// sphere sorted by one coordinate, then the exact tests above.
std::vector<ConvolutionFacet> convolution_facets(const ConvolutionPair& pair);

/// The facet of one feature pair: face f of B with vertex v of A, vertex v of B with face g of
/// A, edge eb of B with edge ea of A. False when the pair forms no facet. These are the tests
/// and constructions convolution_facets() applies to the pairs its sweep finds (the sweep's cap
/// test included), so a facet built here is bit-identical to the listed one.
bool face_vertex_facet(const ConvolutionPair& pair, int f, int v, ConvolutionFacet* out);
bool vertex_face_facet(const ConvolutionPair& pair, int v, int g, ConvolutionFacet* out);
bool edge_edge_facet(const ConvolutionPair& pair, int eb, int ea, ConvolutionFacet* out);

/// Angle-weighted outward normal of the convolution at vertex (b, a): the sum over every facet
/// incident to it (found from the one-rings of b and a) of the facet's angle there times its
/// normal, normalised; zero when the facets cancel.
Vec3 convolution_vertex_normal(const ConvolutionPair& pair, int b, int a);

}  // namespace impetus
