#include "collision/distance/epa.h"

#include <array>
#include <cmath>

namespace impetus {
namespace {

// A closed triangulated polytope with V vertices has 2V − 4 faces; slots are recycled.
constexpr int kMaxVertices = 256;
constexpr int kMaxFaces = 2 * kMaxVertices;
constexpr int kMaxIterations = 200;
// Stop when the support point along the closest face's normal is within this of the face
// (relative to the pair's size): polytopes stop exactly, smooth shapes need the tolerance.
constexpr double kGapTol = 1e-9;
// The origin counts as enclosed by the start polytope up to this (GJK stops within 1e-10).
constexpr double kEncloseTol = 1e-8;

struct Face {
  std::array<int, 3> v{};         // CCW seen from outside
  std::array<int, 3> adj{};       // face across edge k = (v[k], v[k+1])
  std::array<int, 3> adj_edge{};  // that edge's index in the neighbour
  Vec3 n = Vec3::Zero();          // outward unit normal
  double dist = 0;                // n·v[0]: distance of the face plane from the origin
  bool live = false;
};

struct HorizonEdge {
  int face;
  int edge;
};

class Polytope {
 public:
  void reset(double scale) {
    nv_ = 0;
    nf_ = 0;
    nfree_ = 0;
    scale_ = scale;
  }
  int vertex_count() const { return nv_; }
  const GjkVertex& vertex(int i) const { return verts_[i]; }
  Face& face(int i) { return faces_[i]; }
  int face_slots() const { return nf_; }

  int add_vertex(const GjkVertex& x) {
    if (nv_ == kMaxVertices) return -1;
    verts_[nv_] = x;
    return nv_++;
  }

  // New live face (a, b, c); -1 when it is degenerate or there is no room.
  int add_face(int a, int b, int c) {
    Vec3 n = (verts_[b].w - verts_[a].w).cross(verts_[c].w - verts_[a].w);
    double len = n.norm();
    if (!(len > 1e-14 * scale_ * scale_)) return -1;
    int f;
    if (nfree_ > 0) {
      f = free_[--nfree_];
    } else if (nf_ < kMaxFaces) {
      f = nf_++;
    } else {
      return -1;
    }
    Face& face = faces_[f];
    face.v = {a, b, c};
    face.n = n / len;
    face.dist = face.n.dot(verts_[a].w);
    face.live = true;
    return f;
  }

  void kill(int f) {
    faces_[f].live = false;
    free_[nfree_++] = f;
  }

  // Adjacency by matching reversed edges among live faces (start polytope only: O(F²)).
  bool link_all() {
    for (int f = 0; f < nf_; ++f) {
      if (!faces_[f].live) continue;
      for (int e = 0; e < 3; ++e) {
        int a = faces_[f].v[e];
        int b = faces_[f].v[(e + 1) % 3];
        bool found = false;
        for (int g = 0; g < nf_ && !found; ++g) {
          if (g == f || !faces_[g].live) continue;
          for (int k = 0; k < 3; ++k) {
            if (faces_[g].v[k] == b && faces_[g].v[(k + 1) % 3] == a) {
              faces_[f].adj[e] = g;
              faces_[f].adj_edge[e] = k;
              found = true;
              break;
            }
          }
        }
        if (!found) return false;
      }
    }
    return true;
  }

  // Faces visible from w are removed (flood from `f` across edges); the boundary of the
  // removed region is appended to `horizon` as (kept face, edge) pairs.
  void silhouette(int f, int e, const Vec3& w, HorizonEdge* horizon, int& count) {
    Face& face = faces_[f];
    if (!face.live) return;
    if (face.n.dot(w - verts_[face.v[0]].w) > 1e-14 * scale_) {
      kill(f);
      int e1 = (e + 1) % 3;
      int e2 = (e + 2) % 3;
      silhouette(face.adj[e1], face.adj_edge[e1], w, horizon, count);
      silhouette(face.adj[e2], face.adj_edge[e2], w, horizon, count);
    } else if (count < kMaxFaces) {
      horizon[count++] = HorizonEdge{f, e};
    }
  }

 private:
  std::array<GjkVertex, kMaxVertices> verts_;
  std::array<Face, kMaxFaces> faces_;
  std::array<int, kMaxFaces> free_{};
  int nv_ = 0;
  int nf_ = 0;
  int nfree_ = 0;
  double scale_ = 1;
};

// Witness points for the origin's projection onto face f (barycentric in the face triangle).
EpaResult result_from_face(Polytope& poly, int f) {
  const Face& face = poly.face(f);
  const GjkVertex& x0 = poly.vertex(face.v[0]);
  const GjkVertex& x1 = poly.vertex(face.v[1]);
  const GjkVertex& x2 = poly.vertex(face.v[2]);
  Vec3 p = face.dist * face.n;
  Vec3 e0 = x1.w - x0.w;
  Vec3 e1 = x2.w - x0.w;
  Vec3 e2 = p - x0.w;
  double d00 = e0.dot(e0);
  double d01 = e0.dot(e1);
  double d11 = e1.dot(e1);
  double d20 = e2.dot(e0);
  double d21 = e2.dot(e1);
  double denom = d00 * d11 - d01 * d01;
  double v = 1.0 / 3.0;
  double w = 1.0 / 3.0;
  if (denom > 0) {
    v = (d11 * d20 - d01 * d21) / denom;
    w = (d00 * d21 - d01 * d20) / denom;
  }
  double u = 1 - v - w;
  EpaResult r;
  r.depth = face.dist;
  r.normal = face.n;
  r.point_a = u * x0.a + v * x1.a + w * x2.a;
  r.point_b = u * x0.b + v * x1.b + w * x2.b;
  return r;
}

// True when tetrahedron (i0, i1, i2, i3) encloses the origin up to `tol`; builds its faces.
bool build_tetrahedron(Polytope& poly, int i0, int i1, int i2, int i3, double tol) {
  const Vec3& w0 = poly.vertex(i0).w;
  double det = (poly.vertex(i1).w - w0).cross(poly.vertex(i2).w - w0).dot(poly.vertex(i3).w - w0);
  // Faces below are outward for det < 0.
  if (det > 0) std::swap(i1, i2);
  const int faces[4][3] = {{i0, i1, i2}, {i0, i3, i1}, {i0, i2, i3}, {i1, i3, i2}};
  for (const auto& f : faces) {
    int id = poly.add_face(f[0], f[1], f[2]);
    if (id < 0 || poly.face(id).dist < -tol) return false;
  }
  return poly.link_all();
}

}  // namespace

std::optional<EpaResult> epa_penetration(const ConvexSupport& a, const ConvexSupport& b,
                                         double inflate_a, double inflate_b,
                                         const GjkSimplex& start) {
  // Big scratch (tens of KB): one per thread, so that OpenMP workers' stacks stay small.
  thread_local Polytope poly;
  const double scale = a.extent() + b.extent() + inflate_a + inflate_b;
  const double tol = kEncloseTol * scale;
  const double min_len = 1e-7 * scale;
  auto support = [&](const Vec3& dir) {
    return minkowski_support(a, b, dir, inflate_a, inflate_b);
  };

  // Blow the GJK simplex up to a tetrahedron that encloses the origin.
  std::array<GjkVertex, 4> pts;
  int n = start.count;
  for (int i = 0; i < n; ++i) pts[i] = start.v[i];
  if (n == 1) {
    const Vec3 axes[6] = {Vec3::UnitX(), -Vec3::UnitX(), Vec3::UnitY(),
                          -Vec3::UnitY(), Vec3::UnitZ(), -Vec3::UnitZ()};
    for (const Vec3& d : axes) {
      GjkVertex p = support(d);
      if ((p.w - pts[0].w).norm() > min_len) {
        pts[n++] = p;
        break;
      }
    }
    if (n == 1) return std::nullopt;
  }
  if (n == 2) {
    Vec3 d = pts[1].w - pts[0].w;
    Vec3 e1 = any_orthogonal(d);
    Vec3 e2 = d.normalized().cross(e1);
    for (int k = 0; k < 6; ++k) {
      double t = k * kPi / 3;
      GjkVertex p = support(std::cos(t) * e1 + std::sin(t) * e2);
      if ((p.w - pts[0].w).cross(d).norm() > min_len * d.norm()) {
        pts[n++] = p;
        break;
      }
    }
    if (n == 2) return std::nullopt;
  }
  poly.reset(scale);
  if (n == 3) {
    Vec3 nrm = (pts[1].w - pts[0].w).cross(pts[2].w - pts[0].w);
    if (!(nrm.norm() > 0)) return std::nullopt;
    bool ok = false;
    for (double sign : {1.0, -1.0}) {
      poly.reset(scale);
      for (int i = 0; i < 3; ++i) poly.add_vertex(pts[i]);
      poly.add_vertex(support(sign * nrm));
      if (build_tetrahedron(poly, 0, 1, 2, 3, tol)) {
        ok = true;
        break;
      }
    }
    if (!ok) return std::nullopt;
  } else {
    for (int i = 0; i < 4; ++i) poly.add_vertex(pts[i]);
    if (!build_tetrahedron(poly, 0, 1, 2, 3, tol)) return std::nullopt;
  }

  std::array<HorizonEdge, kMaxFaces> horizon;
  std::array<int, kMaxFaces> created;
  EpaResult best;
  for (int it = 0; it < kMaxIterations; ++it) {
    // Closest live face; ties go to the lowest slot (deterministic).
    int f = -1;
    for (int i = 0; i < poly.face_slots(); ++i) {
      if (poly.face(i).live && (f < 0 || poly.face(i).dist < poly.face(f).dist)) f = i;
    }
    if (f < 0) break;
    best = result_from_face(poly, f);
    best.iterations = it + 1;
    const Vec3 n_f = poly.face(f).n;
    const double d_f = poly.face(f).dist;
    GjkVertex w = support(n_f);
    double gap = n_f.dot(w.w) - d_f;
    if (gap <= kGapTol * scale + kGapTol * std::abs(d_f)) {
      best.converged = true;
      break;
    }
    int wi = poly.add_vertex(w);
    if (wi < 0) break;

    int h = 0;
    Face& closest = poly.face(f);
    std::array<int, 3> adj = closest.adj;
    std::array<int, 3> adj_edge = closest.adj_edge;
    poly.kill(f);
    for (int e = 0; e < 3; ++e) poly.silhouette(adj[e], adj_edge[e], w.w, horizon.data(), h);

    // Cone of new faces from the horizon to w.
    bool ok = h >= 3;
    for (int k = 0; k < h && ok; ++k) {
      Face& g = poly.face(horizon[k].face);
      int e = horizon[k].edge;
      int va = g.v[(e + 1) % 3];
      int vb = g.v[e];
      int id = poly.add_face(va, vb, wi);
      if (id < 0 || poly.face(id).dist < -tol) {
        ok = false;
        break;
      }
      created[k] = id;
      Face& nf = poly.face(id);
      nf.adj[0] = horizon[k].face;
      nf.adj_edge[0] = e;
      g.adj[e] = id;
      g.adj_edge[e] = 0;
    }
    // Edge 1 (vb → w) of one new face meets edge 2 (w → va) of the face whose va is that vb.
    for (int k = 0; k < h && ok; ++k) {
      Face& fk = poly.face(created[k]);
      bool found = false;
      for (int j = 0; j < h; ++j) {
        if (poly.face(created[j]).v[0] == fk.v[1]) {
          fk.adj[1] = created[j];
          fk.adj_edge[1] = 2;
          poly.face(created[j]).adj[2] = created[k];
          poly.face(created[j]).adj_edge[2] = 1;
          found = true;
          break;
        }
      }
      ok = found;
    }
    // A broken expansion (round-off on nearly coplanar faces) ends the search with the last
    // consistent face, which is a valid lower bound of the depth.
    if (!ok) break;
  }
  if (best.iterations == 0) return std::nullopt;
  return best;
}

}  // namespace impetus
