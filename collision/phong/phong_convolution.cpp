#include "collision/phong/phong_convolution.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "collision/phong/convolution_crease.h"
#include "collision/phong/convolution_overlap.h"
#include "collision/phong/convolution_search.h"
#include "collision/phong/phong_projection.h"

namespace impetus {
namespace {

// The outward push used by the boundary test, relative to the pair's size: far above the
// round-off of the triangle–triangle distances, far below any geometric feature. A point of
// the convolution less than this deep inside D passes as a boundary point.
constexpr double kPushRelative = 1e-8;
// Points this close (relative) to an already rejected one are rejected without a new test
// (coplanar facets of face–face contacts overlap and give the same projection several times).
constexpr double kSamePointRelative = 1e-12;
// The Euclidean fallback tests at most this many facet points.
constexpr int kMaxFallbackChecks = 256;

std::shared_ptr<const TriangleMesh> mesh_of_hull(const ConvexHull& hull) {
  auto mesh = std::make_shared<TriangleMesh>();
  mesh->vertices = hull.vertices;
  mesh->triangles = hull.triangles;
  mesh->build_bvh();
  return mesh;
}

// Closest point of triangle (p0, p1, p2) to the origin (Voronoi regions of the vertices, edges
// and face, tested in turn).
Vec3 closest_to_origin(const Vec3& p0, const Vec3& p1, const Vec3& p2) {
  const Vec3 e1 = p1 - p0, e2 = p2 - p0, w0 = -p0;
  const double d1 = e1.dot(w0), d2 = e2.dot(w0);
  if (d1 <= 0 && d2 <= 0) return p0;
  const Vec3 w1 = -p1;
  const double d3 = e1.dot(w1), d4 = e2.dot(w1);
  if (d3 >= 0 && d4 <= d3) return p1;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return p0 + (d1 / (d1 - d3)) * e1;
  const Vec3 w2 = -p2;
  const double d5 = e1.dot(w2), d6 = e2.dot(w2);
  if (d6 >= 0 && d5 <= d6) return p2;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return p0 + (d2 / (d2 - d6)) * e2;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    return p1 + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (p2 - p1);
  }
  const double denom = 1.0 / (va + vb + vc);
  return p0 + (vb * denom) * e1 + (vc * denom) * e2;
}

// The triangles a facet is split into (a parallelogram along its diagonal 0–2).
int facet_triangles(const ConvolutionFacet& f, std::array<std::array<int, 3>, 2>* tris) {
  (*tris)[0] = {0, 1, 2};
  (*tris)[1] = {0, 2, 3};
  return f.corners == 3 ? 1 : 2;
}

struct Candidate {
  double norm = 0;
  std::size_t sequence = 0;  // tie-break: order of discovery
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();  // outward: the result's direction is −normal
  Vec3 push = Vec3::UnitZ();    // the boundary test's push (out of every sheet at the point)
  int iterations = 0;
  bool crease = false;
  int facet = -1;    // index (in the order handed out) of the facet it lies on
  int other = -1;    // creases: the other facet
  int triangle = 0;  // projections: which triangle of the facet
};

// What a result was found on, to find it again at the next poses (warm start): one facet and
// the triangle of it that was projected on, or the crease of two facets.
struct Witness {
  bool valid = false;
  bool crease = false;
  std::array<ConvolutionFacet::Kind, 2> kind{};
  std::array<int, 2> b_feature{}, a_feature{};
  int triangle = 0;
};

// The last result of this thread's local searches (the warm start's previous frame).
struct WarmCache {
  const ConvolutionMesh* a = nullptr;
  const ConvolutionMesh* b = nullptr;
  Vec3 direction = Vec3::Zero();  // the result's, world frame: a warm start must repeat it
  Witness witness;
};

// q is on ∂D iff B moved by −q touches A without overlap: push B a hair (`push`) further out
// along the outward unit normal m and ask whether the solids still meet.
bool on_boundary_exact(const ConvolutionMesh& a, const ConvolutionMesh& b,
                       const ConvolutionPair& pair, const Vec3& q, const Vec3& m, double push) {
  Pose shifted = pair.b_pose;
  shifted.position -= q + push * m;
  return !meshes_overlap(*a.mesh, *b.mesh, shifted);
}

struct LongerFirst {
  bool operator()(const Candidate& x, const Candidate& y) const {
    return x.norm > y.norm || (x.norm == y.norm && x.sequence > y.sequence);
  }
};

}  // namespace

std::shared_ptr<const ConvolutionMesh> convolution_mesh_of(const Shape& shape) {
  struct Entry {
    std::shared_ptr<const void> owner;  // the hull or mesh (null for a box)
    Vec3 half_extents = Vec3::Zero();
    std::shared_ptr<const ConvolutionMesh> data;
  };
  thread_local std::vector<Entry> cache;
  constexpr std::size_t kCacheSize = 8;
  std::shared_ptr<const void> owner;
  Vec3 half = Vec3::Zero();
  switch (shape.type) {
    case ShapeType::Box:
      half = shape.half_extents;
      break;
    case ShapeType::Convex:
      if (!shape.hull) throw std::invalid_argument("phong_distance: convex shape without a hull");
      owner = shape.hull;
      break;
    case ShapeType::Mesh:
      if (!shape.mesh) throw std::invalid_argument("phong_distance: mesh shape without a mesh");
      owner = shape.mesh;
      break;
    default:
      throw std::invalid_argument(std::string("phong_distance: unsupported shape type ") +
                                  shape_type_name(shape.type));
  }
  for (const Entry& e : cache) {
    if (e.owner == owner && (owner || e.half_extents == half)) return e.data;
  }
  std::shared_ptr<const TriangleMesh> mesh;
  if (shape.type == ShapeType::Box) {
    mesh = mesh_of_hull(box_hull(half));
  } else if (shape.type == ShapeType::Convex) {
    mesh = mesh_of_hull(*shape.hull);
  } else if (shape.mesh->bvh.nodes.empty()) {
    auto copy = std::make_shared<TriangleMesh>(*shape.mesh);
    copy->build_bvh();
    mesh = copy;
  } else {
    mesh = shape.mesh;
  }
  std::shared_ptr<const ConvolutionMesh> data = build_convolution_mesh(mesh);
  if (cache.size() >= kCacheSize) cache.erase(cache.begin());
  cache.push_back({owner, half, data});
  return data;
}

namespace {

// The whole convolution, each facet keyed by the lower bound of its bounding ball (centre
// minus radius), handed out in that order: the reference the local search must agree with.
class FullListing {
 public:
  explicit FullListing(const ConvolutionPair& pair) : facets_(convolution_facets(pair)) {
    bound_.resize(facets_.size());
    for (std::size_t i = 0; i < facets_.size(); ++i) {
      const ConvolutionFacet& f = facets_[i];
      Vec3 centre = Vec3::Zero();
      for (int k = 0; k < f.corners; ++k) centre += f.points[k];
      centre /= f.corners;
      double radius = 0;
      for (int k = 0; k < f.corners; ++k) radius = std::max(radius, (f.points[k] - centre).norm());
      bound_[i] = centre.norm() - radius;
      mean_radius_ += radius;
    }
    if (!facets_.empty()) mean_radius_ /= static_cast<double>(facets_.size());
    order_.resize(facets_.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int>(i);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](int x, int y) { return bound_[x] < bound_[y]; });
  }
  double bound() const {
    return next_ < order_.size() ? bound_[order_[next_]] : std::numeric_limits<double>::infinity();
  }
  bool done() const { return next_ >= order_.size(); }
  bool step(ConvolutionFacet* facet, double* key) {
    *key = bound_[order_[next_]];
    *facet = facets_[order_[next_++]];
    return true;
  }
  std::size_t facets_built() const { return facets_.size(); }
  double mean_radius() const { return mean_radius_; }

 private:
  std::vector<ConvolutionFacet> facets_;
  std::vector<double> bound_;
  std::vector<int> order_;
  std::size_t next_ = 0;
  double mean_radius_ = 0;
};

// The search proper (phong_convolution.h, "How"), over facets handed out by `source` in
// increasing order of a lower bound on the distance to the origin of any point their Phong
// projection may return (FullListing or ConvolutionSearch). A candidate is tested for lying on
// ∂D once it is no farther than source.bound(): no facet left can then hold a shorter one.
// `cell`: the crease grid's spacing (changes the work only). Returns nullopt when no
// projection lies on ∂D and `fallback` is false.
template <class Source>
std::optional<PhongDistanceResult> search_facets(const ConvolutionMesh& a, const Pose& pose_a,
                                                 const ConvolutionMesh& b,
                                                 const ConvolutionPair& pair, Source& source,
                                                 double cell, const PhongDistanceOptions& options,
                                                 bool fallback, Witness* witness) {
  double scale = a.size;
  for (const Vec3& x : pair.b_vertices) scale = std::max(scale, x.cwiseAbs().maxCoeff());
  const double push = kPushRelative * scale;
  const double same_point = kSamePointRelative * scale;

  PhongDistanceResult result;
  result.convolution_used = true;
  result.regions = 1;
  std::vector<ConvolutionFacet> seen;  // facets handed out so far, in order

  // q is on ∂D iff B moved by −q touches A without overlap: push B a hair further out along
  // the outward normal m and ask whether the solids still meet.
  std::vector<Vec3> rejected;
  auto on_boundary = [&](const Vec3& q, const Vec3& m) {  // m: unit push
    for (const Vec3& r : rejected) {
      if ((r - q).norm() <= same_point) return false;
    }
    ++result.boundary_checks;
    if (on_boundary_exact(a, b, pair, q, m, push)) return true;
    rejected.push_back(q);
    return false;
  };
  auto finish = [&](const Candidate& c, bool converged) {
    if (witness != nullptr) *witness = Witness{};
    if (witness != nullptr && converged && c.facet >= 0) {
      witness->valid = true;
      witness->crease = c.crease;
      witness->triangle = c.triangle;
      const std::array<int, 2> index = {c.facet, c.other};
      for (int k = 0; k < (c.crease ? 2 : 1); ++k) {
        witness->kind[k] = seen[index[k]].kind;
        witness->b_feature[k] = seen[index[k]].b_feature;
        witness->a_feature[k] = seen[index[k]].a_feature;
      }
    }
    result.convolution_facets = source.facets_built();
    result.point = pose_a.rotate(c.point);
    const Vec3 n = pose_a.rotate(c.normal);
    result.direction = -n;
    result.distance = -c.point.dot(c.normal);
    result.converged = converged;
    result.iterations = c.iterations;
    result.crease = c.crease;
    return result;
  };

  CreaseFinder creases(seen, cell);
  std::vector<CreasePoint> crease_points;

  std::unordered_map<ConvolutionKey, Vec3> normals;  // looked up only, never iterated
  auto vertex_normal = [&](ConvolutionKey key) -> const Vec3& {
    auto it = normals.find(key);
    if (it != normals.end()) return it->second;
    const int vb = static_cast<int>(key >> 32), va = static_cast<int>(key & 0xffffffffu);
    return normals.emplace(key, convolution_vertex_normal(pair, vb, va)).first->second;
  };

  std::priority_queue<Candidate, std::vector<Candidate>, LongerFirst> queue;
  std::size_t sequence = 0;
  std::optional<Candidate> shortest;  // shortest projection, on ∂D or not (last resort)
  const Vec3 origin = Vec3::Zero();
  while (true) {
    const double bound = source.bound();
    while (!queue.empty() && queue.top().norm <= bound) {
      const Candidate c = queue.top();
      queue.pop();
      if (on_boundary(c.point, c.push)) return finish(c, true);
    }
    if (source.done()) break;
    ConvolutionFacet facet;
    double key = 0;
    if (!source.step(&facet, &key)) continue;  // the source refined its bound
    seen.push_back(facet);
    const int index = static_cast<int>(seen.size()) - 1;
    const ConvolutionFacet& f = seen.back();
    // Crease points with the facets met before (all nearer candidates have been queued).
    crease_points.clear();
    creases.add(index, &crease_points);
    for (const CreasePoint& cp : crease_points) {
      const double len = cp.point.norm();
      const Vec3 outward = len > 0 ? Vec3(cp.point / len) : cp.push;
      queue.push({len, sequence++, cp.point, outward, cp.push, 0, true, index, cp.other, 0});
    }
    std::array<Vec3, 4> n = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
    bool usable = true;
    for (int k = 0; k < f.corners && usable; ++k) {
      n[k] = vertex_normal(f.keys[k]);
      // A corner whose normal does not face the facet's side sits in a fold of the
      // convolution: the interpolated plane field is meaningless there.
      usable = n[k].dot(f.normal) > 0;
    }
    if (!usable) continue;
    std::array<std::array<int, 3>, 2> tris;
    const int count = facet_triangles(f, &tris);
    for (int t = 0; t < count; ++t) {
      const std::array<int, 3>& c = tris[t];
      const PhongTriangle tri({f.points[c[0]], f.points[c[1]], f.points[c[2]]},
                              {n[c[0]], n[c[1]], n[c[2]]});
      ++result.triangles;
      std::optional<PhongHit> hit = tri.project(origin, options.max_iterations, options.tolerance);
      if (!hit) continue;
      Candidate cand{hit->point.norm(), sequence++, hit->point, hit->normal, hit->normal,
                     hit->iterations, false, index, -1, t};
      if (!shortest || cand.norm < shortest->norm) shortest = cand;
      queue.push(cand);
    }
  }
  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    // Beyond a finite limit the search is not exhaustive: a shorter point may be missing.
    if (c.norm > source.bound()) return std::nullopt;
    if (on_boundary(c.point, c.push)) return finish(c, true);
  }
  if (!fallback) return std::nullopt;

  // No Phong projection lies on ∂D: the nearest facet point that does (Euclidean).
  std::vector<Candidate> nearest;
  for (const ConvolutionFacet& f : seen) {
    std::array<std::array<int, 3>, 2> tris;
    const int count = facet_triangles(f, &tris);
    for (int t = 0; t < count; ++t) {
      const Vec3 p = closest_to_origin(f.points[tris[t][0]], f.points[tris[t][1]],
                                       f.points[tris[t][2]]);
      // Direction along p, on the outward side, so that point == distance · direction.
      const double len = p.norm();
      Vec3 m = f.normal;
      if (len > 0) m = p.dot(f.normal) < 0 ? Vec3(-p / len) : Vec3(p / len);
      nearest.push_back({len, nearest.size(), p, m, m, 0, false});
    }
  }
  std::sort(nearest.begin(), nearest.end(), [](const Candidate& x, const Candidate& y) {
    return x.norm < y.norm || (x.norm == y.norm && x.sequence < y.sequence);
  });
  int checks = 0;
  for (const Candidate& c : nearest) {
    if (checks++ >= kMaxFallbackChecks) break;
    if (on_boundary(c.point, c.push)) return finish(c, false);
  }
  if (shortest) return finish(*shortest, false);
  result.convolution_facets = source.facets_built();
  return result;
}

}  // namespace

namespace {

bool build_facet(const ConvolutionPair& pair, ConvolutionFacet::Kind kind, int b_feature,
                 int a_feature, ConvolutionFacet* out) {
  // The witness may come from meshes since freed, whose address was reused: check the range.
  auto in = [](int i, std::size_t n) { return i >= 0 && static_cast<std::size_t>(i) < n; };
  const ConvolutionMesh& a = *pair.a;
  const ConvolutionMesh& b = *pair.b;
  const std::size_t fa = a.face_normal.size(), fb = b.face_normal.size();
  const std::size_t va = a.vertex_normal.size(), vb = b.vertex_normal.size();
  if ((kind == ConvolutionFacet::Kind::FaceVertex && !(in(b_feature, fb) && in(a_feature, va))) ||
      (kind == ConvolutionFacet::Kind::VertexFace && !(in(b_feature, vb) && in(a_feature, fa))) ||
      (kind == ConvolutionFacet::Kind::EdgeEdge &&
       !(in(b_feature, b.edges.size()) && in(a_feature, a.edges.size())))) {
    return false;
  }
  switch (kind) {
    case ConvolutionFacet::Kind::FaceVertex:
      return face_vertex_facet(pair, b_feature, a_feature, out);
    case ConvolutionFacet::Kind::VertexFace:
      return vertex_face_facet(pair, b_feature, a_feature, out);
    case ConvolutionFacet::Kind::EdgeEdge:
      return edge_edge_facet(pair, b_feature, a_feature, out);
  }
  return false;
}

// The previous result found again at the new poses: the Phong projection onto the same facet
// triangle, or the crease point of the same two facets, when it still lies on ∂D. Its norm
// bounds the new answer from above (it is one of the candidates the search would test), which
// is all the warm start is used for: the search then builds only the facets within it.
std::optional<double> warm_bound(const ConvolutionMesh& a, const ConvolutionMesh& b,
                                 const ConvolutionPair& pair, const Witness& w,
                                 const PhongDistanceOptions& options, double push) {
  std::vector<ConvolutionFacet> facets(w.crease ? 2 : 1);
  for (std::size_t k = 0; k < facets.size(); ++k) {
    if (!build_facet(pair, w.kind[k], w.b_feature[k], w.a_feature[k], &facets[k])) {
      return std::nullopt;
    }
  }
  if (w.crease) {
    CreaseFinder finder(facets, 1.0);
    std::vector<CreasePoint> points;
    finder.add(0, &points);
    finder.add(1, &points);
    std::optional<double> best;
    for (const CreasePoint& cp : points) {
      const double len = cp.point.norm();
      if ((!best || len < *best) && on_boundary_exact(a, b, pair, cp.point, cp.push, push)) {
        best = len;
      }
    }
    return best;
  }
  const ConvolutionFacet& f = facets[0];
  std::array<std::array<int, 3>, 2> tris;
  if (w.triangle >= facet_triangles(f, &tris)) return std::nullopt;
  std::array<Vec3, 3> q, n;
  for (int k = 0; k < 3; ++k) {
    const int corner = tris[w.triangle][k];
    const ConvolutionKey key = f.keys[corner];
    q[k] = f.points[corner];
    n[k] = convolution_vertex_normal(pair, static_cast<int>(key >> 32),
                                     static_cast<int>(key & 0xffffffffu));
    if (!(n[k].dot(f.normal) > 0)) return std::nullopt;
  }
  const std::optional<PhongHit> hit =
      PhongTriangle(q, n).project(Vec3::Zero(), options.max_iterations, options.tolerance);
  if (!hit || !on_boundary_exact(a, b, pair, hit->point, hit->normal, push)) return std::nullopt;
  return hit->point.norm();
}

}  // namespace

PhongDistanceResult phong_distance_convolution(const ConvolutionMesh& a, const Pose& pose_a,
                                               const ConvolutionMesh& b, const Pose& pose_b,
                                               const PhongDistanceOptions& options,
                                               ConvolutionListing listing) {
  // D is built in A's frame (convolution_mesh.h); results are turned back into the world.
  const ConvolutionPair pair = place_convolution_pair(a, pose_a, b, pose_b);
  double scale = a.size;
  for (const Vec3& x : pair.b_vertices) scale = std::max(scale, x.cwiseAbs().maxCoeff());
  if (listing == ConvolutionListing::Full) {
    FullListing source(pair);
    const double cell = std::max(2.0 * source.mean_radius(), 1e-6 * scale);
    return *search_facets(a, pose_a, b, pair, source, cell, options, true, nullptr);
  }
  // A facet's size is about an edge of A plus an edge of B: the crease grid's cell.
  const double cell = std::max(a.mean_edge + b.mean_edge, 1e-6 * scale);
  thread_local WarmCache cache;
  Witness witness;
  if (options.warm_start != nullptr && cache.witness.valid && cache.a == &a && cache.b == &b &&
      cache.direction == *options.warm_start) {
    const std::optional<double> bound =
        warm_bound(a, b, pair, cache.witness, options, kPushRelative * scale);
    if (bound) {
      // A hair of slack so that round-off in re-finding the point cannot leave it outside.
      ConvolutionSearch source(pair, *bound + kSamePointRelative * scale);
      std::optional<PhongDistanceResult> r =
          search_facets(a, pose_a, b, pair, source, cell, options, false, &witness);
      if (r) {
        cache = {&a, &b, r->direction, witness};
        return *r;
      }
    }
  }
  ConvolutionSearch source(pair);
  const PhongDistanceResult r =
      *search_facets(a, pose_a, b, pair, source, cell, options, true, &witness);
  cache = {&a, &b, r.direction, witness};
  return r;
}

}  // namespace impetus
