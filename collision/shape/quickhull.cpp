#include "collision/shape/quickhull.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/base/robust_predicates.h"

namespace impetus {
namespace {

struct Face {
  std::array<int, 3> v{};              // CCW seen from outside
  std::array<int, 3> adj{-1, -1, -1};  // adj[e]: face across edge v[e] → v[e+1]
  Vec3 normal = Vec3::Zero();          // unit, rounded: only ranks candidate points
  double offset = 0;
  std::vector<int> outside;            // points strictly above this face (exact test)
  bool alive = true;
  int stamp = -1;                      // visibility pass that last classified this face
  bool visible = false;
};

struct HorizonEdge {
  int a, b;        // directed as in the visible face
  int outer;       // the invisible face across the edge
  int outer_edge;  // index of (b → a) in `outer`
};

class Quickhull {
 public:
  explicit Quickhull(const std::vector<Vec3>& points)
      : p_(points), horizon_start_(points.size(), -1) {}

  bool initial_simplex(double flat_tolerance, std::string* error);
  bool expand(std::string* error);
  HullTriangulation result() const;

 private:
  int add_face(int a, int b, int c);
  bool above(int face, int point) const {
    const Face& f = faces_[face];
    return orient3d_sign(p_[f.v[0]], p_[f.v[1]], p_[f.v[2]], p_[point]) > 0;
  }
  bool add_point(int face, std::string* error);

  const std::vector<Vec3>& p_;
  std::vector<Face> faces_;
  int stamp_ = 0;
  // Scratch reused across add_point calls.
  std::vector<int> visible_;
  std::vector<HorizonEdge> horizon_;
  std::vector<int> horizon_start_;  // per point: horizon edge starting there, or -1
  std::vector<int> loop_;
};

int Quickhull::add_face(int a, int b, int c) {
  Face f;
  f.v = {a, b, c};
  const Vec3 n = (p_[b] - p_[a]).cross(p_[c] - p_[a]);
  const double len = n.norm();
  if (len > 0) f.normal = n / len;
  f.offset = f.normal.dot(p_[a]);
  faces_.push_back(std::move(f));
  return static_cast<int>(faces_.size()) - 1;
}

bool Quickhull::initial_simplex(double flat_tolerance, std::string* error) {
  const int n = static_cast<int>(p_.size());
  // The two extreme points along the axis of largest spread (lowest index on ties).
  int i0 = 0, i1 = 0;
  double spread = -1;
  for (int k = 0; k < 3; ++k) {
    int lo = 0, hi = 0;
    for (int i = 1; i < n; ++i) {
      if (p_[i][k] < p_[lo][k]) lo = i;
      if (p_[i][k] > p_[hi][k]) hi = i;
    }
    if (p_[hi][k] - p_[lo][k] > spread) {
      spread = p_[hi][k] - p_[lo][k];
      i0 = lo;
      i1 = hi;
    }
  }
  if (!(spread > flat_tolerance)) {
    *error = "all points coincide (no volume)";
    return false;
  }
  // The point farthest from the line i0–i1.
  const Vec3 dir = (p_[i1] - p_[i0]).normalized();
  int i2 = -1;
  double best = -1;
  for (int i = 0; i < n; ++i) {
    double d = (p_[i] - p_[i0]).cross(dir).norm();
    if (d > best) {
      best = d;
      i2 = i;
    }
  }
  if (!(best > flat_tolerance)) {
    *error = "points are (nearly) collinear (no volume)";
    return false;
  }
  // The point farthest from the plane i0, i1, i2.
  const Vec3 normal = (p_[i1] - p_[i0]).cross(p_[i2] - p_[i0]).normalized();
  int i3 = -1;
  best = -1;
  for (int i = 0; i < n; ++i) {
    double d = std::abs(normal.dot(p_[i] - p_[i0]));
    if (d > best) {
      best = d;
      i3 = i;
    }
  }
  const int side = orient3d_sign(p_[i0], p_[i1], p_[i2], p_[i3]);
  if (!(best > flat_tolerance) || side == 0) {
    *error = "points are (nearly) coplanar (no volume)";
    return false;
  }
  // Orient so that i3 lies below (i0, i1, i2); the four faces are then outward.
  if (side > 0) std::swap(i1, i2);
  add_face(i0, i1, i2);
  add_face(i0, i3, i1);
  add_face(i0, i2, i3);
  add_face(i1, i3, i2);
  for (int f = 0; f < 4; ++f) {
    for (int e = 0; e < 3; ++e) {
      const int a = faces_[f].v[e], b = faces_[f].v[(e + 1) % 3];
      for (int g = 0; g < 4; ++g) {
        for (int k = 0; k < 3; ++k) {
          if (faces_[g].v[k] == b && faces_[g].v[(k + 1) % 3] == a) faces_[f].adj[e] = g;
        }
      }
    }
  }
  // Every other point goes to the first face it lies strictly above; the rest are inside.
  for (int i = 0; i < n; ++i) {
    if (i == i0 || i == i1 || i == i2 || i == i3) continue;
    for (int f = 0; f < 4; ++f) {
      if (above(f, i)) {
        faces_[f].outside.push_back(i);
        break;
      }
    }
  }
  return true;
}

bool Quickhull::add_point(int face, std::string* error) {
  // The eye point: farthest above the face (rounded distance; ties to the lowest index).
  int eye = -1;
  double best = -std::numeric_limits<double>::infinity();
  {
    const Face& f = faces_[face];
    for (int q : f.outside) {
      double d = f.normal.dot(p_[q]) - f.offset;
      if (d > best || (d == best && q < eye)) {
        best = d;
        eye = q;
      }
    }
  }

  // Faces that see the eye strictly, grown from `face` across edges. With exact tests on a
  // convex triangulation this set is connected and its boundary is one simple loop.
  ++stamp_;
  visible_.clear();
  visible_.push_back(face);
  faces_[face].stamp = stamp_;
  faces_[face].visible = true;
  for (std::size_t k = 0; k < visible_.size(); ++k) {
    const int vf = visible_[k];
    for (int e = 0; e < 3; ++e) {
      const int g = faces_[vf].adj[e];
      if (faces_[g].stamp == stamp_) continue;
      faces_[g].stamp = stamp_;
      faces_[g].visible = above(g, eye);
      if (faces_[g].visible) visible_.push_back(g);
    }
  }

  // Horizon: edges of visible faces whose neighbour is invisible, chained into a loop.
  horizon_.clear();
  for (int vf : visible_) {
    for (int e = 0; e < 3; ++e) {
      const int g = faces_[vf].adj[e];
      if (faces_[g].visible) continue;
      const int a = faces_[vf].v[e], b = faces_[vf].v[(e + 1) % 3];
      int back = -1;
      for (int k = 0; k < 3; ++k) {
        if (faces_[g].v[k] == b && faces_[g].v[(k + 1) % 3] == a) back = k;
      }
      horizon_.push_back({a, b, g, back});
    }
  }
  bool simple = true;
  for (std::size_t h = 0; h < horizon_.size(); ++h) {
    int& slot = horizon_start_[horizon_[h].a];
    if (slot != -1 || horizon_[h].outer_edge < 0) simple = false;
    slot = static_cast<int>(h);
  }
  loop_.clear();
  if (simple) {
    int cur = 0;
    for (std::size_t k = 0; k < horizon_.size(); ++k) {
      loop_.push_back(cur);
      cur = horizon_start_[horizon_[cur].b];
      if (cur < 0) break;
    }
    simple = cur == 0 && loop_.size() == horizon_.size();
  }
  for (const HorizonEdge& h : horizon_) horizon_start_[h.a] = -1;
  if (!simple) {
    // Unreachable with exact predicates; reported rather than asserted so that a bad input can
    // never take the process down.
    *error = "internal error: the visible region's boundary is not a simple loop";
    return false;
  }

  // A cone of new faces from the horizon to the eye, stitched to the horizon and to each other.
  const int first = static_cast<int>(faces_.size());
  const int m = static_cast<int>(loop_.size());
  for (int k = 0; k < m; ++k) {
    const HorizonEdge& h = horizon_[loop_[k]];
    const int nf = add_face(h.a, h.b, eye);
    faces_[nf].adj[0] = h.outer;
    faces_[h.outer].adj[h.outer_edge] = nf;
  }
  for (int k = 0; k < m; ++k) {
    faces_[first + k].adj[1] = first + (k + 1) % m;
    faces_[first + k].adj[2] = first + (k + m - 1) % m;
  }

  // Points of the removed faces go to the first new face they lie strictly above; a point above
  // none is inside the new hull (Barber et al. 1996, quickhull's partition step).
  for (int vf : visible_) {
    faces_[vf].alive = false;
    std::vector<int> points = std::move(faces_[vf].outside);
    faces_[vf].outside = {};
    for (int q : points) {
      if (q == eye) continue;
      for (int k = 0; k < m; ++k) {
        if (above(first + k, q)) {
          faces_[first + k].outside.push_back(q);
          break;
        }
      }
    }
  }
  return true;
}

bool Quickhull::expand(std::string* error) {
  // New faces are appended, so one forward pass processes every face that ever has points.
  for (std::size_t f = 0; f < faces_.size(); ++f) {
    if (!faces_[f].alive || faces_[f].outside.empty()) continue;
    if (!add_point(static_cast<int>(f), error)) return false;
  }
  return true;
}

HullTriangulation Quickhull::result() const {
  std::vector<int> remap(faces_.size(), -1);
  int count = 0;
  for (std::size_t f = 0; f < faces_.size(); ++f) {
    if (faces_[f].alive) remap[f] = count++;
  }
  HullTriangulation out;
  out.triangles.reserve(count);
  out.neighbors.reserve(count);
  for (const Face& f : faces_) {
    if (!f.alive) continue;
    out.triangles.push_back(f.v);
    out.neighbors.push_back({remap[f.adj[0]], remap[f.adj[1]], remap[f.adj[2]]});
  }
  return out;
}

}  // namespace

std::optional<HullTriangulation> quickhull(const std::vector<Vec3>& points, double flat_tolerance,
                                           std::string* error) {
  std::string local_error;
  std::string* err = error != nullptr ? error : &local_error;
  if (points.size() < 4) {
    *err = "a convex hull needs at least 4 points, got " + std::to_string(points.size());
    return std::nullopt;
  }
  Quickhull hull(points);
  if (!hull.initial_simplex(flat_tolerance, err)) return std::nullopt;
  if (!hull.expand(err)) return std::nullopt;
  return hull.result();
}

}  // namespace impetus
