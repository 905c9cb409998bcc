// Mesh against a convex shape: the triangles whose boxes overlap the shape's box (in the mesh
// frame, inflated by the margin) come from the mesh BVH; each triangle is a flat convex set
// (GJK/EPA, face clipping for polyhedra); the points of all triangles, each with its own
// normal, are merged and reduced to kMaxManifoldPoints, deepest first.
//
// Edge and vertex contacts of smooth shapes that a neighbouring triangle shadows are dropped
// (see is_ghost_contact); polytopes can still catch on internal edges (Jolt's active-edge
// flags would be the fix, with mesh adjacency precomputed). Triangles are two-sided, except that a
// deep contact whose EPA normal points out of the back of a triangle while the shape's centre is in
// front of it is replaced by the front-face contact: EPA on a zero-thickness triangle picks the
// shorter way out, which would push a shape sunk into a surface through it.
#include <array>
#include <cmath>
#include <vector>

#include "collision/narrowphase/contact_pairs.h"
#include "collision/narrowphase/contact_reduction.h"
#include "collision/distance/convex_signed_distance.h"
#include "collision/shape/convex_support.h"
#include "collision/narrowphase/face_manifold.h"

namespace impetus {
namespace {

// Points from different triangles closer than this (relative to the shape's size) merge.
constexpr double kMergeRel = 1e-3;
// Contact normals this close (cos) belong to one flat patch of the surface.
constexpr double kSameNormalCos = 0.9999;

// Vertices of triangle t whose barycentric weight at x (on the triangle) is not negligible:
// 3 of them for a face point, 2 on an edge, 1 at a vertex. Returns the count.
int touched_vertices(const std::array<int, 3>& tri, const Vec3& v0, const Vec3& v1, const Vec3& v2,
                     const Vec3& x, std::array<int, 3>& out) {
  const Vec3 n = (v1 - v0).cross(v2 - v0);
  const double nn = n.squaredNorm();
  const double w0 = n.dot((v1 - x).cross(v2 - x)) / nn;
  const double w1 = n.dot((v2 - x).cross(v0 - x)) / nn;
  const double w[3] = {w0, w1, 1 - w0 - w1};
  int count = 0;
  for (int k = 0; k < 3; ++k) {
    if (w[k] > 1e-7) out[count++] = tri[k];
  }
  return count;
}

// An edge or vertex contact is a ghost of the surface around it (the "internal edge" problem)
// when a neighbouring triangle sharing that edge or vertex rises above it along the contact
// normal: then the touched feature is not extreme along the normal on the surface, and the
// neighbour's own (face) contact is the real one. Neighbours are looked up among the candidate
// triangles only, which hold every triangle near the shape.
bool is_ghost_contact(const TriangleMesh& mesh, const Pose& pose, const std::vector<int>& tris,
                      int t, const std::array<int, 3>& feature, int count, const Vec3& normal,
                      const Vec3& at, double tol) {
  for (int s : tris) {
    if (s == t) continue;
    const auto& other = mesh.triangles[s];
    bool shares = true;
    for (int k = 0; k < count; ++k) {
      shares =
          shares && (other[0] == feature[k] || other[1] == feature[k] || other[2] == feature[k]);
    }
    if (!shares) continue;
    for (int q : other) {
      if (normal.dot(pose.apply(mesh.vertices[q]) - at) > tol) return true;
    }
  }
  return false;
}

}  // namespace

bool collide_mesh_convex(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                         double margin, Manifold& m) {
  const TriangleMesh& mesh = *a.mesh;
  const Pose b_in_a = pa.inverse() * pb;
  const Aabb query = compute_aabb(b, b_in_a).inflated(margin);

  thread_local std::vector<int> tris;
  thread_local std::vector<ContactPoint> cand;
  tris.clear();
  cand.clear();
  if (mesh.bvh.nodes.empty()) {
    for (int t = 0; t < static_cast<int>(mesh.triangles.size()); ++t) tris.push_back(t);
  } else {
    mesh.bvh.query(query, [](int t) { tris.push_back(t); });
  }
  if (tris.empty()) return false;

  const ConvexSupport other = make_convex_support(b, pb);
  const Vec3 centre_b = other.center();
  for (int t : tris) {
    const auto& tri = mesh.triangles[t];
    const Vec3 v0 = pa.apply(mesh.vertices[tri[0]]);
    const Vec3 v1 = pa.apply(mesh.vertices[tri[1]]);
    const Vec3 v2 = pa.apply(mesh.vertices[tri[2]]);
    const Vec3 face_normal = (v1 - v0).cross(v2 - v0);
    if (!(face_normal.squaredNorm() > 0)) continue;  // degenerate triangle
    ConvexDistance d = convex_signed_distance(make_triangle_support(v0, v1, v2), other, margin);
    if (!(d.distance < margin)) continue;

    const Vec3 nf = face_normal.normalized();
    if (d.distance < 0 && nf.dot(centre_b - v0) > 0 && d.normal.dot(nf) < 0) {
      // Front-face contact (see the file comment).
      Vec3 deepest = other.support(-nf);
      d.normal = nf;
      d.distance = nf.dot(deepest - v0);
      d.point_b = deepest;
      d.point_a = deepest - d.distance * nf;
    }

    SupportFace ft;
    SupportFace fo;
    support_face(b, pb, -d.normal, fo);
    // Smooth shapes (sphere, ellipsoid, a capsule touching with an end cap) on an edge or
    // vertex of the triangle: the normal is set by that feature alone; drop ghosts. Polytopes
    // (and a capsule's side) also touch mesh edges edge-on, where the neighbour's rising above
    // the contact normal does not make the contact a ghost; they keep them.
    const bool smooth = b.type == ShapeType::Sphere || b.type == ShapeType::Ellipsoid ||
                        (b.type == ShapeType::Capsule && fo.count < 2);
    if (smooth && std::abs(d.normal.dot(nf)) < 1 - 1e-9) {
      std::array<int, 3> feature;
      int count = touched_vertices(tri, v0, v1, v2, d.point_a, feature);
      if (count < 3 && is_ghost_contact(mesh, pa, tris, t, feature, count, d.normal, d.point_a,
                                        1e-9 * other.extent())) {
        continue;
      }
    }

    triangle_face(v0, v1, v2, d.normal, static_cast<std::uint32_t>(t),
                  {static_cast<std::uint32_t>(tri[0]), static_cast<std::uint32_t>(tri[1]),
                   static_cast<std::uint32_t>(tri[2])},
                  ft);
    std::array<ContactPoint, 4> points;
    int n =
        convex_contact_points(ft, fo, d.normal, d.distance, d.point_a, d.point_b, margin, points);
    for (int i = 0; i < n; ++i) {
      points[i].feature_id = feature_hash(feature_hash(kFeatureSeed, static_cast<std::uint32_t>(t)),
                                          points[i].feature_id);
      cand.push_back(points[i]);
    }
  }
  // Points sharing a normal (one flat patch of the surface, e.g. a box face across several
  // coplanar triangles) are reduced as one convex manifold to its 4 best; then all patches
  // together to kMaxManifoldPoints.
  thread_local std::vector<ContactPoint> grouped;
  thread_local std::vector<ContactPoint> group;
  thread_local std::vector<char> taken;
  grouped.clear();
  taken.assign(cand.size(), 0);
  for (std::size_t i = 0; i < cand.size(); ++i) {
    if (taken[i]) continue;
    group.clear();
    for (std::size_t j = i; j < cand.size(); ++j) {
      if (!taken[j] && cand[j].normal.dot(cand[i].normal) > kSameNormalCos) {
        taken[j] = 1;
        group.push_back(cand[j]);
      }
    }
    int g = reduce_to_four(group.data(), static_cast<int>(group.size()));
    grouped.insert(grouped.end(), group.begin(), group.begin() + g);
  }
  cand.swap(grouped);
  int k = reduce_spread(cand.data(), static_cast<int>(cand.size()), kMaxManifoldPoints,
                        kMergeRel * other.extent());
  for (int i = 0; i < k; ++i) m.add(cand[i]);
  return k > 0;
}

}  // namespace impetus
