#include "collision/phong/phong_distance.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "collision/distance/convex_signed_distance.h"
#include "collision/shape/convex_support.h"
#include "collision/distance/minkowski_difference.h"
#include "collision/phong/phong_convolution.h"
#include "collision/phong/phong_projection.h"

namespace impetus {
namespace {

// Pairs with at most this many vertex pairs get the whole ∂D (a box pair has 64, a box and a
// 320-gon prism 5120); above, ∂D is built only around the candidate, in cones of normals
// (minkowski_difference.h). Either way only pairs with overlapping normal cones become points.
constexpr std::size_t kFullPairs = 20000;
// Search cones (paper 2, §V.C–D, transposed from a ball of radius α‖q‖ in space to a cone of
// normals, see minkowski_difference.h): the first cone's half angle is kConeFactor times the
// smaller median vertex normal-cone radius of the two polytopes (at least kThetaMin), and grows by
// β = kBeta (the paper's β = 2 would overshoot quickly here since the area grows as θ²) up to
// kThetaMax < π/2 (the cap must stay convex).
constexpr double kThetaMin = 0.12;
constexpr double kConeFactor = 3.0;
constexpr double kBeta = 1.6;
constexpr double kThetaMax = 1.3;
// Cap on the first cone: polytopes with wide vertex cones (boxes, prisms) would otherwise start
// with nearly a hemisphere of ∂D; starting smaller and widening costs less (measured on a pair of
// randomly posed 320-gon prisms, CPU time per query: 156 ms mean starting at 1.3 rad, 64 ms at
// 0.4 rad; ellipsoid pairs are unaffected, their start is 3 × ~0.07 rad).
constexpr double kThetaStartMax = 0.4;
constexpr int kMaxRegions = 10;
// A found projection is accepted when its normal lies within this fraction of the cone's half
// angle from the cone axis; otherwise the cone is re-centred on it (nearer projections could lie
// just outside the cone).
constexpr double kAcceptFraction = 0.5;
// Vertex pairs allowed per region, and for the whole ∂D when the regions fail.
constexpr std::size_t kMaxPatchPairs = 200000;
constexpr std::size_t kFallbackFullPairs = 500000;

// The shapes as convex polytopes. A mesh is replaced by the hull of its vertices (exact when the
// mesh is convex; a non-convex mesh goes to phong_convolution.h instead), cached per thread: a mesh is immutable and shared, so its address identifies
// it while the cache holds a reference.
struct MeshPolytope {
  std::shared_ptr<const ConvexHull> hull;
  bool convex = true;
};

// A closed, connected triangle mesh bounds a convex solid iff every edge is convex: the far
// vertex of each neighbour triangle lies on or below the triangle's plane (relative tolerance).
bool mesh_is_convex(const TriangleMesh& mesh) {
  std::map<std::pair<int, int>, int> edge_triangle;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    for (int e = 0; e < 3; ++e) {
      edge_triangle[{mesh.triangles[t][e], mesh.triangles[t][(e + 1) % 3]}] = static_cast<int>(t);
    }
  }
  double size = 0;
  for (const Vec3& v : mesh.vertices) size = std::max(size, v.cwiseAbs().maxCoeff());
  const double tol = 1e-9 * std::max(size, 1e-300);
  for (const std::array<int, 3>& tri : mesh.triangles) {
    const Vec3& p0 = mesh.vertices[tri[0]];
    const Vec3 n = (mesh.vertices[tri[1]] - p0).cross(mesh.vertices[tri[2]] - p0);
    const double len = n.norm();
    if (!(len > 0)) continue;
    for (int e = 0; e < 3; ++e) {
      auto it = edge_triangle.find({tri[(e + 1) % 3], tri[e]});
      if (it == edge_triangle.end()) continue;
      for (int v : mesh.triangles[it->second]) {
        if (n.dot(mesh.vertices[v] - p0) / len > tol) return false;
      }
    }
  }
  return true;
}

MeshPolytope mesh_polytope(const std::shared_ptr<const TriangleMesh>& mesh) {
  struct Entry {
    std::shared_ptr<const TriangleMesh> mesh;
    MeshPolytope polytope;
  };
  thread_local std::vector<Entry> cache;
  for (const Entry& e : cache) {
    if (e.mesh == mesh) return e.polytope;
  }
  if (!mesh->is_closed()) {
    throw std::invalid_argument("phong_distance: the mesh is not closed");
  }
  std::string error;
  std::optional<ConvexHull> hull = build_convex_hull(mesh->vertices, &error);
  if (!hull) throw std::invalid_argument("phong_distance: mesh has no volume: " + error);
  constexpr std::size_t kCacheSize = 8;
  if (cache.size() >= kCacheSize) cache.erase(cache.begin());
  cache.push_back({mesh, {std::make_shared<const ConvexHull>(std::move(*hull)), mesh_is_convex(*mesh)}});
  return cache.back().polytope;
}

std::shared_ptr<const ConvexHull> polytope_of(const Shape& s, bool* hull_of_nonconvex) {
  switch (s.type) {
    case ShapeType::Box:
      return std::make_shared<const ConvexHull>(box_hull(s.half_extents));
    case ShapeType::Convex:
      if (!s.hull) throw std::invalid_argument("phong_distance: convex shape without a hull");
      return s.hull;
    case ShapeType::Mesh: {
      if (!s.mesh) throw std::invalid_argument("phong_distance: mesh shape without a mesh");
      MeshPolytope p = mesh_polytope(s.mesh);
      if (!p.convex) *hull_of_nonconvex = true;
      return p.hull;
    }
    default:
      throw std::invalid_argument(std::string("phong_distance: unsupported shape type ") +
                                  shape_type_name(s.type) + " (box, convex or mesh only)");
  }
}

// Vertex normals of a patch: the paper averages the adjacent triangles' normals; we weight each
// face by its corner angle at the vertex, which does not depend on how a polygonal face of D is
// triangulated (a box corner gets (±1, ±1, ±1)/√3 whatever the diagonals). Only exact vertices
// (whole star in ∂D) get one.
std::vector<Vec3> vertex_normals(const MinkowskiPatch& patch) {
  const ConvexHull& h = patch.hull;
  std::vector<Vec3> normal(h.vertices.size(), Vec3::Zero());
  for (std::size_t f = 0; f < h.faces.size(); ++f) {
    const std::vector<int>& loop = h.faces[f].vertices;
    const std::size_t k = loop.size();
    for (std::size_t c = 0; c < k; ++c) {
      const int v = loop[c];
      if (!patch.vertex_exact[v]) continue;
      const Vec3 e1 = h.vertices[loop[(c + 1) % k]] - h.vertices[v];
      const Vec3 e0 = h.vertices[loop[(c + k - 1) % k]] - h.vertices[v];
      const double angle = std::atan2(e0.cross(e1).norm(), e0.dot(e1));
      normal[v] += angle * h.faces[f].normal;
    }
  }
  for (Vec3& n : normal) {
    if (n.squaredNorm() > 0) n.normalize();
  }
  return normal;
}

struct SurfaceSearch {
  std::optional<PhongHit> best;   // the projection with the smallest ‖q‖ (eq. 5.3)
  Vec3 recentre = Vec3::Zero();   // normal at the centroid of the triangle nearest to eq. 5.4
  bool has_recentre = false;
  std::size_t triangles = 0;      // triangles on which a projection was attempted
};

// Phong projection of the origin onto every triangle of the patch whose vertices are exact,
// keeping the shortest (eq. 5.3). A projection q onto a
// triangle has ‖q‖ >= the triangle's distance to the origin, bounded below by ‖centre‖ − radius
// of its bounding ball: triangles are visited by increasing bound and the search stops once the
// bound reaches the best ‖q‖ (the result is the same as visiting all of them).
SurfaceSearch search_patch(const MinkowskiPatch& patch, const PhongDistanceOptions& options) {
  const ConvexHull& h = patch.hull;
  const std::vector<Vec3> normal = vertex_normals(patch);
  struct Candidate {
    double bound;
    std::array<Vec3, 3> q;
    std::array<Vec3, 3> n;
  };
  std::vector<Candidate> candidates;
  auto add = [&](const std::array<Vec3, 3>& q, const std::array<Vec3, 3>& n) {
    const Vec3 centre = (q[0] + q[1] + q[2]) / 3.0;
    double radius = 0;
    for (const Vec3& p : q) radius = std::max(radius, (p - centre).norm());
    candidates.push_back({centre.norm() - radius, q, n});
  };
  for (std::size_t f = 0; f < h.faces.size(); ++f) {
    if (!patch.face_exact[f]) continue;
    const std::vector<int>& loop = h.faces[f].vertices;
    const std::size_t k = loop.size();
    if (k == 3) {
      if (patch.vertex_exact[loop[0]] && patch.vertex_exact[loop[1]] &&
          patch.vertex_exact[loop[2]]) {
        add({h.vertices[loop[0]], h.vertices[loop[1]], h.vertices[loop[2]]},
            {normal[loop[0]], normal[loop[1]], normal[loop[2]]});
      }
      continue;
    }
    // A polygon is split into a fan around its centroid, whose normal is the face's: each
    // triangle then involves only neighbouring boundary vertices, so the part of a large face
    // near an exact edge is usable even when the far side of the face is not exact (a fan from
    // one corner would reach across the face).
    Vec3 centroid = Vec3::Zero();
    for (int v : loop) centroid += h.vertices[v];
    centroid /= static_cast<double>(k);
    for (std::size_t c = 0; c < k; ++c) {
      const int v0 = loop[c], v1 = loop[(c + 1) % k];
      if (!patch.vertex_exact[v0] || !patch.vertex_exact[v1]) continue;
      add({centroid, h.vertices[v0], h.vertices[v1]}, {h.faces[f].normal, normal[v0], normal[v1]});
    }
  }
  // Stable order (bound, then construction order) keeps ties deterministic.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& x, const Candidate& y) { return x.bound < y.bound; });

  const Vec3 origin = Vec3::Zero();
  SurfaceSearch s;
  double best_norm = std::numeric_limits<double>::infinity();
  double best_residual = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates) {
    if (c.bound >= best_norm) break;
    const PhongTriangle tri(c.q, c.n);
    ++s.triangles;
    std::optional<PhongHit> hit = tri.project(origin, options.max_iterations, options.tolerance);
    if (hit) {
      const double norm = hit->point.norm();
      if (norm < best_norm) {
        best_norm = norm;
        s.best = hit;
      }
      continue;
    }
    const double r = tri.centroid_residual(origin);
    if (r < best_residual) {
      best_residual = r;
      s.recentre = tri.normal(Vec3(1.0 / 3, 1.0 / 3, 1.0 / 3));
      s.has_recentre = true;
    }
  }
  return s;
}

PhongDistanceResult from_hit(const PhongHit& hit) {
  // o = q − distance·(−n) with n the outward normal: distance = −q·n (> 0 when the origin is
  // outside D, i.e. the shapes are apart), direction a → b = −n.
  PhongDistanceResult r;
  r.point = hit.point;
  r.direction = -hit.normal;
  r.distance = -hit.point.dot(hit.normal);
  r.converged = true;
  r.iterations = hit.iterations;
  return r;
}

// Euclidean signed distance (GJK / EPA) of the two polytopes: the cold start of the search.
ConvexDistance euclidean(const std::shared_ptr<const ConvexHull>& a, const Pose& pa,
                         const std::shared_ptr<const ConvexHull>& b, const Pose& pb) {
  const Shape sa = Shape::convex(a);
  const Shape sb = Shape::convex(b);
  return convex_signed_distance(make_convex_support(sa, pa), make_convex_support(sb, pb));
}

PhongDistanceResult from_euclidean(const ConvexDistance& d) {
  PhongDistanceResult r;
  r.distance = d.distance;
  r.direction = d.normal;
  r.point = d.distance * d.normal;
  r.converged = false;
  return r;
}

}  // namespace

PhongDistanceResult phong_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                   const Pose& pose_b, const PhongDistanceOptions& options) {
  bool hull_of_nonconvex = false;
  const std::shared_ptr<const ConvexHull> hull_a = polytope_of(a, &hull_of_nonconvex);
  const std::shared_ptr<const ConvexHull> hull_b = polytope_of(b, &hull_of_nonconvex);
  if (hull_of_nonconvex) {
    // A non-convex mesh: its hull would be wrong; project onto the convolution instead.
    return phong_distance_convolution(*convolution_mesh_of(a), pose_a, *convolution_mesh_of(b),
                                      pose_b, options);
  }
  const PlacedPolytope pa = place_polytope(*hull_a, pose_a);
  const PlacedPolytope pb = place_polytope(*hull_b, pose_b);
  const std::size_t pairs = pa.vertices.size() * pb.vertices.size();

  std::size_t tried = 0;
  int regions = 0;
  auto finish = [&](PhongDistanceResult r) {
    r.regions = regions;
    r.triangles = tried;
    r.mesh_hull_used = hull_of_nonconvex;
    return r;
  };
  auto whole_boundary = [&]() -> std::optional<PhongHit> {
    ++regions;
    std::optional<MinkowskiPatch> patch = minkowski_difference_full(pa, pb);
    if (!patch) return std::nullopt;
    SurfaceSearch s = search_patch(*patch, options);
    tried += s.triangles;
    return s.best;
  };

  if (pairs <= kFullPairs) {
    std::optional<PhongHit> hit = whole_boundary();
    if (hit) return finish(from_hit(*hit));
    return finish(from_euclidean(euclidean(hull_a, pose_a, hull_b, pose_b)));
  }

  // Local construction (paper 2, Alg. 5.1): start from the previous direction or from the
  // Euclidean distance, build ∂D around it, project, re-centre or widen until a projection is
  // found well inside the region.
  std::optional<ConvexDistance> euclid;
  Vec3 m;
  if (options.warm_start != nullptr && options.warm_start->squaredNorm() > 0) {
    m = -options.warm_start->normalized();
  } else {
    euclid = euclidean(hull_a, pose_a, hull_b, pose_b);
    m = -euclid->normal;
  }
  double theta = std::clamp(kConeFactor * std::min(pa.median_cone_angle, pb.median_cone_angle),
                            kThetaMin, kThetaStartMax);
  std::optional<PhongHit> seen;  // shortest projection met in any region
  for (int round = 0; round < kMaxRegions; ++round) {
    ++regions;
    std::optional<MinkowskiPatch> patch =
        minkowski_difference_patch(pa, pb, m, theta, kMaxPatchPairs);
    if (!patch) {
      if (theta >= kThetaMax) break;
      theta = std::min(theta * kBeta, kThetaMax);
      continue;
    }
    SurfaceSearch s = search_patch(*patch, options);
    tried += s.triangles;
    if (s.best) {
      if (!seen || s.best->point.norm() < seen->point.norm()) seen = s.best;
      if (s.best->normal.dot(m) >= std::cos(kAcceptFraction * theta)) {
        return finish(from_hit(*s.best));
      }
      m = s.best->normal;  // re-centre on the projection found near the rim
      continue;
    }
    // No projection: move to the triangle closest to satisfying eq. 5.4 (Alg. 5.1, line 19);
    // widen when that does not move the region.
    if (s.has_recentre && s.recentre.dot(m) < std::cos(0.25 * theta)) {
      m = s.recentre;
    } else {
      if (theta >= kThetaMax) break;
      theta = std::min(theta * kBeta, kThetaMax);
    }
  }
  // The regions did not settle: the whole boundary when affordable, else the shortest
  // projection met, else (none found anywhere) the Euclidean distance, flagged unconverged.
  if (pairs <= kFallbackFullPairs) {
    std::optional<PhongHit> hit = whole_boundary();
    if (hit) return finish(from_hit(*hit));
  }
  if (seen) return finish(from_hit(*seen));
  if (!euclid) euclid = euclidean(hull_a, pose_a, hull_b, pose_b);
  return finish(from_euclidean(*euclid));
}

}  // namespace impetus
