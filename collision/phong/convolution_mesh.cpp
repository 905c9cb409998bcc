#include "collision/phong/convolution_mesh.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

namespace impetus {
namespace {

constexpr double kTol = kConvolutionAngleTolerance;

double angle_between(const Vec3& x, const Vec3& y) {
  return std::atan2(x.cross(y).norm(), x.dot(y));
}

// Bounding cap of the cone {u : c_k·u ≤ 0 for all k} (pointed, so every extreme ray lies on two
// of the constraint planes: u ∝ ±(c_i × c_j)). Returns false when the cone is {0}.
bool cone_cap(const std::vector<Vec3>& constraints, Vec3* axis, double* radius) {
  std::vector<Vec3> rays;
  for (std::size_t i = 0; i < constraints.size(); ++i) {
    for (std::size_t j = i + 1; j < constraints.size(); ++j) {
      const Vec3 w = constraints[i].cross(constraints[j]);
      const double len = w.norm();
      if (!(len > 1e-12)) continue;
      for (double sign : {1.0, -1.0}) {
        const Vec3 u = sign * w / len;
        bool feasible = true;
        for (const Vec3& c : constraints) {
          if (c.dot(u) > kTol) {
            feasible = false;
            break;
          }
        }
        if (feasible) rays.push_back(u);
      }
    }
  }
  if (rays.empty()) return false;
  Vec3 sum = Vec3::Zero();
  for (const Vec3& r : rays) sum += r;
  if (!(sum.norm() > 1e-9)) return false;
  *axis = sum.normalized();
  double rho = 0;
  for (const Vec3& r : rays) rho = std::max(rho, angle_between(*axis, r));
  *radius = rho + kTol;
  return true;
}

// The sweep's cap test: false when the cap (u, r) surely misses the cap (axis, radius); cr, sr
// are cos and sin of r + kTol, c and s of radius. Shared by the sweep and the single-pair
// builders so that both keep exactly the same pairs.
bool caps_may_meet(const Vec3& u, double r, double cr, double sr, const Vec3& axis, double radius,
                   double c, double s) {
  // angle(u, axis) ≤ r + radius: cos of the sum by the addition formula (cheaper than cos per
  // pair); beyond π every direction qualifies.
  return !(r + kTol + radius < kPi && u.dot(axis) < cr * c - sr * s - 1e-15);
}

int corner_of(const std::array<int, 3>& tri, int v) {
  return tri[0] == v ? 0 : (tri[1] == v ? 1 : 2);
}

// Caps sorted by the z coordinate of their axis, for a sweep: candidates for a direction u lie
// within |axis.z − u.z| ≤ chord ≤ angle ≤ radius + query radius. Caps are split into tiers by
// radius so that a few wide caps (box corners, sharp edges) do not widen the band of the many
// narrow ones (flat or finely tessellated parts).
struct CapIndex {
  std::vector<Vec3> axis;     // by item
  std::vector<double> radius; // by item
  const std::vector<double>* cos_radius = nullptr;  // by item
  const std::vector<double>* sin_radius = nullptr;  // by item

  void build(const std::vector<int>& items) {
    for (std::size_t t = 0; t < kTiers; ++t) {
      std::vector<int> members;
      for (int i : items) {
        if (tier_of(radius[i]) == t) members.push_back(i);
      }
      std::sort(members.begin(), members.end(), [&](int x, int y) {
        return axis[x].z() < axis[y].z() || (axis[x].z() == axis[y].z() && x < y);
      });
      Tier& tier = tiers_[t];
      tier.item = std::move(members);
      tier.z.resize(tier.item.size());
      for (std::size_t k = 0; k < tier.item.size(); ++k) {
        tier.z[k] = axis[tier.item[k]].z();
        tier.max_radius = std::max(tier.max_radius, radius[tier.item[k]]);
      }
    }
  }
  // Calls visit(item) for the caps meeting the cap (u, r), tier by tier in sorted order.
  template <class Visit>
  void query(const Vec3& u, double r, Visit&& visit) const {
    const double cr = std::cos(r + kTol), sr = std::sin(r + kTol);
    for (const Tier& tier : tiers_) {
      const double reach = r + tier.max_radius + kTol;
      auto lo = std::lower_bound(tier.z.begin(), tier.z.end(), u.z() - reach);
      auto hi = std::upper_bound(tier.z.begin(), tier.z.end(), u.z() + reach);
      for (auto it = lo; it != hi; ++it) {
        const int i = tier.item[it - tier.z.begin()];
        if (caps_may_meet(u, r, cr, sr, axis[i], radius[i], (*cos_radius)[i], (*sin_radius)[i])) {
          visit(i);
        }
      }
    }
  }

 private:
  static constexpr std::size_t kTiers = 4;
  static std::size_t tier_of(double radius) {
    return radius <= 0.02 ? 0 : (radius <= 0.15 ? 1 : (radius <= 0.5 ? 2 : 3));
  }
  struct Tier {
    std::vector<double> z;  // sorted
    std::vector<int> item;  // item of each sorted cap
    double max_radius = 0;
  };
  std::array<Tier, kTiers> tiers_;
};

// Common normal of an edge pair (edge eb of B, edge ea of A), or false. ν (A's frame) is
// orthogonal to both edges, on eb's arc, with −ν on ea's arc.
bool edge_pair_normal(const ConvolutionPair& pair, int eb, int ea, Vec3* nu) {
  const ConvolutionMesh& a = *pair.a;
  const ConvolutionMesh& b = *pair.b;
  if (a.edges[ea].reflex || b.edges[eb].reflex) return false;
  const Vec3 db = pair.b_rotation * b.edge_direction[eb];
  const Vec3& da = a.edge_direction[ea];
  const Vec3 w = db.cross(da);
  const double len = w.norm();
  if (!(len > 1e-12)) return false;  // parallel: the parallelogram is flat
  for (double sign : {1.0, -1.0}) {
    const Vec3 v = sign * w / len;
    if (edge_arc_contains(a, ea, -v) &&
        edge_arc_contains(b, eb, pair.b_rotation.conjugate() * v)) {
      *nu = v;
      return true;
    }
  }
  return false;
}

void fill_face_vertex(const ConvolutionPair& pair, int f, int v, ConvolutionFacet* facet) {
  const std::vector<Vec3>& xa = pair.a->mesh->vertices;
  const std::array<int, 3>& tri = pair.b->mesh->triangles[f];
  facet->kind = ConvolutionFacet::Kind::FaceVertex;
  facet->b_feature = f;
  facet->a_feature = v;
  facet->corners = 3;
  for (int k = 0; k < 3; ++k) {
    facet->points[k] = pair.b_vertices[tri[k]] - xa[v];
    facet->keys[k] = convolution_key(tri[k], v);
  }
  facet->normal = pair.b_face_normals[f];
}

void fill_vertex_face(const ConvolutionPair& pair, int v, int g, ConvolutionFacet* facet) {
  const std::vector<Vec3>& xa = pair.a->mesh->vertices;
  const std::array<int, 3>& tri = pair.a->mesh->triangles[g];
  facet->kind = ConvolutionFacet::Kind::VertexFace;
  facet->b_feature = v;
  facet->a_feature = g;
  facet->corners = 3;
  // b − g is g point-reflected: reverse the corners to keep them CCW about −n_g.
  const std::array<int, 3> order = {0, 2, 1};
  for (int k = 0; k < 3; ++k) {
    facet->points[k] = pair.b_vertices[v] - xa[tri[order[k]]];
    facet->keys[k] = convolution_key(v, tri[order[k]]);
  }
  facet->normal = -pair.a->face_normal[g];
}

void fill_edge_edge(const ConvolutionPair& pair, int eb, int ea, const Vec3& nu,
                    ConvolutionFacet* facet) {
  const std::vector<Vec3>& xa = pair.a->mesh->vertices;
  const ConvolutionMesh::Edge& e1 = pair.b->edges[eb];
  const ConvolutionMesh::Edge& e2 = pair.a->edges[ea];
  facet->kind = ConvolutionFacet::Kind::EdgeEdge;
  facet->b_feature = eb;
  facet->a_feature = ea;
  facet->corners = 4;
  const std::array<std::pair<int, int>, 4> corner = {
      std::pair<int, int>{e1.v0, e2.v0}, {e1.v1, e2.v0}, {e1.v1, e2.v1}, {e1.v0, e2.v1}};
  for (int k = 0; k < 4; ++k) {
    facet->points[k] = pair.b_vertices[corner[k].first] - xa[corner[k].second];
    facet->keys[k] = convolution_key(corner[k].first, corner[k].second);
  }
  const Vec3 n = (facet->points[1] - facet->points[0]).cross(facet->points[3] - facet->points[0]);
  if (n.dot(nu) < 0) {
    std::swap(facet->points[1], facet->points[3]);
    std::swap(facet->keys[1], facet->keys[3]);
  }
  facet->normal = nu;
}

// cos and sin of the angular tolerance: the cap test of a single direction (radius 0).
const double kCosTol = std::cos(0.0 + kTol);
const double kSinTol = std::sin(0.0 + kTol);

}  // namespace

std::shared_ptr<const ConvolutionMesh> build_convolution_mesh(
    std::shared_ptr<const TriangleMesh> mesh) {
  if (!mesh->is_closed()) throw std::invalid_argument("convolution: the mesh is not closed");
  auto m = std::make_shared<ConvolutionMesh>();
  const std::vector<Vec3>& x = mesh->vertices;
  const std::vector<std::array<int, 3>>& tris = mesh->triangles;
  const std::size_t nv = x.size(), nf = tris.size();
  for (const Vec3& p : x) m->size = std::max(m->size, p.cwiseAbs().maxCoeff());

  m->face_normal.resize(nf);
  m->corner_angle.resize(3 * nf);
  for (std::size_t f = 0; f < nf; ++f) {
    const Vec3 n = (x[tris[f][1]] - x[tris[f][0]]).cross(x[tris[f][2]] - x[tris[f][0]]);
    m->face_normal[f] = n.norm() > 0 ? Vec3(n.normalized()) : Vec3::Zero();
    for (int k = 0; k < 3; ++k) {
      const Vec3& p = x[tris[f][k]];
      m->corner_angle[3 * f + k] =
          angle_between(x[tris[f][(k + 1) % 3]] - p, x[tris[f][(k + 2) % 3]] - p);
    }
  }

  // Edges: each undirected edge once, from the face where it runs from the lower index.
  std::map<std::pair<int, int>, int> directed;
  for (std::size_t f = 0; f < nf; ++f) {
    for (int k = 0; k < 3; ++k) directed[{tris[f][k], tris[f][(k + 1) % 3]}] = static_cast<int>(f);
  }
  for (std::size_t f = 0; f < nf; ++f) {
    for (int k = 0; k < 3; ++k) {
      const int p = tris[f][k], q = tris[f][(k + 1) % 3];
      if (p > q) continue;
      ConvolutionMesh::Edge e;
      e.v0 = p;
      e.v1 = q;
      e.f0 = static_cast<int>(f);
      e.f1 = directed.at({q, p});
      // Reflex when the far corner of f1 rises above f0's plane.
      int far = tris[e.f1][0];
      for (int c : tris[e.f1]) {
        if (c != p && c != q) far = c;
      }
      const Vec3 d = x[far] - x[p];
      e.reflex = m->face_normal[f].dot(d) > kTol * d.norm();
      if (e.reflex) m->convex = false;
      m->edges.push_back(e);
      const Vec3 dir = x[q] - x[p];
      m->edge_direction.push_back(dir.norm() > 0 ? Vec3(dir.normalized()) : Vec3::Zero());
    }
  }

  m->vertex_normal.assign(nv, Vec3::Zero());
  for (std::size_t f = 0; f < nf; ++f) {
    for (int k = 0; k < 3; ++k) {
      m->vertex_normal[tris[f][k]] += m->corner_angle[3 * f + k] * m->face_normal[f];
    }
  }
  for (Vec3& n : m->vertex_normal) {
    if (n.norm() > 1e-300) n.normalize();
  }

  m->face_start.assign(nv + 1, 0);
  for (const std::array<int, 3>& t : tris) {
    for (int v : t) ++m->face_start[v + 1];
  }
  for (std::size_t v = 0; v < nv; ++v) m->face_start[v + 1] += m->face_start[v];
  m->vertex_faces.resize(m->face_start[nv]);
  std::vector<int> fill(m->face_start.begin(), m->face_start.end() - 1);
  for (std::size_t f = 0; f < nf; ++f) {
    for (int v : tris[f]) m->vertex_faces[fill[v]++] = static_cast<int>(f);
  }
  m->edge_start.assign(nv + 1, 0);
  for (const ConvolutionMesh::Edge& e : m->edges) {
    ++m->edge_start[e.v0 + 1];
    ++m->edge_start[e.v1 + 1];
  }
  for (std::size_t v = 0; v < nv; ++v) m->edge_start[v + 1] += m->edge_start[v];
  m->vertex_edges.resize(m->edge_start[nv]);
  fill.assign(m->edge_start.begin(), m->edge_start.end() - 1);
  for (std::size_t e = 0; e < m->edges.size(); ++e) {
    m->vertex_edges[fill[m->edges[e].v0]++] = static_cast<int>(e);
    m->vertex_edges[fill[m->edges[e].v1]++] = static_cast<int>(e);
  }

  // Extremal cones: {u : d·u ≤ 0 for every edge direction d from v, N·u ≥ 0}.
  m->extremal_axis.assign(nv, Vec3::UnitZ());
  m->extremal_radius.assign(nv, -1.0);
  std::vector<Vec3> constraints;
  for (std::size_t v = 0; v < nv; ++v) {
    constraints.clear();
    constraints.push_back(-m->vertex_normal[v]);
    for (int k = m->edge_start[v]; k < m->edge_start[v + 1]; ++k) {
      const ConvolutionMesh::Edge& e = m->edges[m->vertex_edges[k]];
      const Vec3& d = m->edge_direction[m->vertex_edges[k]];
      constraints.push_back(e.v0 == static_cast<int>(v) ? d : Vec3(-d));
    }
    Vec3 axis;
    double radius;
    if (cone_cap(constraints, &axis, &radius)) {
      m->extremal_axis[v] = axis;
      m->extremal_radius[v] = radius;
    }
  }

  m->arc_axis.assign(m->edges.size(), Vec3::UnitZ());
  m->arc_radius.assign(m->edges.size(), -1.0);
  for (std::size_t e = 0; e < m->edges.size(); ++e) {
    if (m->edges[e].reflex) continue;
    const Vec3& n0 = m->face_normal[m->edges[e].f0];
    const Vec3& n1 = m->face_normal[m->edges[e].f1];
    const Vec3 sum = n0 + n1;
    if (!(sum.norm() > 1e-9)) continue;  // a knife edge (zero dihedral angle): no arc
    m->arc_axis[e] = sum.normalized();
    m->arc_radius[e] = 0.5 * angle_between(n0, n1) + kTol;
  }
  auto cos_sin = [](const std::vector<double>& r, double add, std::vector<double>* c,
                    std::vector<double>* s) {
    c->resize(r.size());
    s->resize(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
      (*c)[i] = std::cos(r[i] + add);
      (*s)[i] = std::sin(r[i] + add);
    }
  };
  cos_sin(m->extremal_radius, 0.0, &m->extremal_cos, &m->extremal_sin);
  cos_sin(m->arc_radius, 0.0, &m->arc_cos, &m->arc_sin);
  cos_sin(m->arc_radius, kTol, &m->arc_query_cos, &m->arc_query_sin);
  double edge_sum = 0;
  for (const ConvolutionMesh::Edge& e : m->edges) {
    const double len = (x[e.v1] - x[e.v0]).norm();
    edge_sum += len;
    m->max_edge = std::max(m->max_edge, len);
  }
  if (!m->edges.empty()) m->mean_edge = edge_sum / static_cast<double>(m->edges.size());
  m->mesh = std::move(mesh);
  m->features = build_convolution_bvh(*m);
  return m;
}

bool vertex_is_extremal(const ConvolutionMesh& m, int v, const Vec3& u) {
  if (!(m.extremal_radius[v] >= 0)) return false;
  if (!(m.vertex_normal[v].dot(u) > 0)) return false;
  for (int k = m.edge_start[v]; k < m.edge_start[v + 1]; ++k) {
    const int e = m.vertex_edges[k];
    const double along = m.edge_direction[e].dot(u);
    // The edge leaves v along +direction when v is its v0, along −direction otherwise.
    if ((m.edges[e].v0 == v ? along : -along) > kTol) return false;
  }
  return true;
}

bool edge_arc_contains(const ConvolutionMesh& m, int e, const Vec3& nu) {
  if (m.arc_radius[e] < 0) return false;
  const Vec3& n0 = m.face_normal[m.edges[e].f0];
  const Vec3& n1 = m.face_normal[m.edges[e].f1];
  const Vec3 t = n0.cross(n1);
  const double s = t.norm();
  if (s < 1e-9) return (nu - n0).norm() <= kTol + (n1 - n0).norm() && nu.dot(n0) > 0;
  // ν = α n0 + β n1 (+ a component along the edge): α s = (ν × n1)·t / s, β s = (n0 × ν)·t / s.
  return nu.cross(n1).dot(t) / s >= -kTol && n0.cross(nu).dot(t) / s >= -kTol &&
         nu.dot(n0 + n1) > 0;
}

ConvolutionPair place_convolution_pair(const ConvolutionMesh& a, const Pose& pose_a,
                                       const ConvolutionMesh& b, const Pose& pose_b) {
  ConvolutionPair pair;
  pair.a = &a;
  pair.b = &b;
  pair.b_pose = pose_a.inverse() * pose_b;
  pair.b_rotation = pair.b_pose.orientation;
  const std::vector<Vec3>& xb = b.mesh->vertices;
  pair.b_vertices.resize(xb.size());
  for (std::size_t v = 0; v < xb.size(); ++v) pair.b_vertices[v] = pair.b_pose.apply(xb[v]);
  pair.b_face_normals.resize(b.face_normal.size());
  for (std::size_t f = 0; f < b.face_normal.size(); ++f) {
    pair.b_face_normals[f] = pair.b_rotation * b.face_normal[f];
  }
  pair.b_extremal_axes.resize(b.extremal_axis.size());
  for (std::size_t v = 0; v < b.extremal_axis.size(); ++v) {
    pair.b_extremal_axes[v] = pair.b_rotation * b.extremal_axis[v];
  }
  pair.b_arc_axes.resize(b.arc_axis.size());
  for (std::size_t e = 0; e < b.arc_axis.size(); ++e) pair.b_arc_axes[e] = pair.b_rotation * b.arc_axis[e];
  return pair;
}

std::vector<ConvolutionFacet> convolution_facets(const ConvolutionPair& pair) {
  const ConvolutionMesh& a = *pair.a;
  const ConvolutionMesh& b = *pair.b;
  const std::size_t na = a.mesh->vertices.size(), nb = pair.b_vertices.size();
  const std::size_t fa = a.mesh->triangles.size(), fb = b.mesh->triangles.size();
  const Quat to_b = pair.b_rotation.conjugate();
  std::vector<ConvolutionFacet> out;
  ConvolutionFacet facet;

  // FV: faces of B against the extremal cones of A's vertices.
  {
    CapIndex caps;
    caps.axis = a.extremal_axis;
    caps.radius = a.extremal_radius;
    caps.cos_radius = &a.extremal_cos;
    caps.sin_radius = &a.extremal_sin;
    std::vector<int> items;
    for (std::size_t v = 0; v < na; ++v) {
      if (a.extremal_radius[v] >= 0) items.push_back(static_cast<int>(v));
    }
    caps.build(items);
    for (std::size_t f = 0; f < fb; ++f) {
      const Vec3& n = pair.b_face_normals[f];
      if (n.squaredNorm() == 0) continue;
      const Vec3 u = -n;
      caps.query(u, 0.0, [&](int v) {
        if (!vertex_is_extremal(a, v, u)) return;
        fill_face_vertex(pair, static_cast<int>(f), v, &facet);
        out.push_back(facet);
      });
    }
  }
  // VF: faces of A against the extremal cones of B's vertices (caps turned into A's frame).
  {
    CapIndex caps;
    caps.axis = pair.b_extremal_axes;
    caps.radius = b.extremal_radius;
    caps.cos_radius = &b.extremal_cos;
    caps.sin_radius = &b.extremal_sin;
    std::vector<int> items;
    for (std::size_t v = 0; v < nb; ++v) {
      if (b.extremal_radius[v] >= 0) items.push_back(static_cast<int>(v));
    }
    caps.build(items);
    for (std::size_t g = 0; g < fa; ++g) {
      const Vec3& n = a.face_normal[g];
      if (n.squaredNorm() == 0) continue;
      const Vec3 u = -n;
      const Vec3 u_b = to_b * u;
      caps.query(u, 0.0, [&](int v) {
        if (!vertex_is_extremal(b, v, u_b)) return;
        fill_vertex_face(pair, v, static_cast<int>(g), &facet);
        out.push_back(facet);
      });
    }
  }
  // EE: arcs of B's edges against the negated arcs of A's edges.
  {
    CapIndex caps;
    caps.axis.resize(a.edges.size());
    for (std::size_t e = 0; e < a.edges.size(); ++e) caps.axis[e] = -a.arc_axis[e];
    caps.radius = a.arc_radius;
    caps.cos_radius = &a.arc_cos;
    caps.sin_radius = &a.arc_sin;
    std::vector<int> items;
    for (std::size_t e = 0; e < a.edges.size(); ++e) {
      if (a.arc_radius[e] >= 0) items.push_back(static_cast<int>(e));
    }
    caps.build(items);
    for (std::size_t eb = 0; eb < b.edges.size(); ++eb) {
      if (b.arc_radius[eb] < 0) continue;
      caps.query(pair.b_arc_axes[eb], b.arc_radius[eb], [&](int ea) {
        Vec3 nu;
        if (!edge_pair_normal(pair, static_cast<int>(eb), ea, &nu)) return;
        fill_edge_edge(pair, static_cast<int>(eb), ea, nu, &facet);
        out.push_back(facet);
      });
    }
  }
  return out;
}

bool face_vertex_facet(const ConvolutionPair& pair, int f, int v, ConvolutionFacet* out) {
  const ConvolutionMesh& a = *pair.a;
  const Vec3& n = pair.b_face_normals[f];
  if (n.squaredNorm() == 0 || !(a.extremal_radius[v] >= 0)) return false;
  const Vec3 u = -n;
  if (!caps_may_meet(u, 0.0, kCosTol, kSinTol, a.extremal_axis[v], a.extremal_radius[v],
                     a.extremal_cos[v], a.extremal_sin[v]) ||
      !vertex_is_extremal(a, v, u)) {
    return false;
  }
  fill_face_vertex(pair, f, v, out);
  return true;
}

bool vertex_face_facet(const ConvolutionPair& pair, int v, int g, ConvolutionFacet* out) {
  const ConvolutionMesh& a = *pair.a;
  const ConvolutionMesh& b = *pair.b;
  const Vec3& n = a.face_normal[g];
  if (n.squaredNorm() == 0 || !(b.extremal_radius[v] >= 0)) return false;
  const Vec3 u = -n;
  if (!caps_may_meet(u, 0.0, kCosTol, kSinTol, pair.b_extremal_axes[v], b.extremal_radius[v],
                     b.extremal_cos[v], b.extremal_sin[v])) {
    return false;
  }
  const Quat to_b = pair.b_rotation.conjugate();
  const Vec3 u_b = to_b * u;
  if (!vertex_is_extremal(b, v, u_b)) return false;
  fill_vertex_face(pair, v, g, out);
  return true;
}

bool edge_edge_facet(const ConvolutionPair& pair, int eb, int ea, ConvolutionFacet* out) {
  const ConvolutionMesh& a = *pair.a;
  const ConvolutionMesh& b = *pair.b;
  if (b.arc_radius[eb] < 0 || !(a.arc_radius[ea] >= 0)) return false;
  const Vec3 axis_a = -a.arc_axis[ea];
  if (!caps_may_meet(pair.b_arc_axes[eb], b.arc_radius[eb], b.arc_query_cos[eb],
                     b.arc_query_sin[eb], axis_a, a.arc_radius[ea], a.arc_cos[ea], a.arc_sin[ea])) {
    return false;
  }
  Vec3 nu;
  if (!edge_pair_normal(pair, eb, ea, &nu)) return false;
  fill_edge_edge(pair, eb, ea, nu, out);
  return true;
}

Vec3 convolution_vertex_normal(const ConvolutionPair& pair, int b, int a) {
  const ConvolutionMesh& ma = *pair.a;
  const ConvolutionMesh& mb = *pair.b;
  const std::vector<Vec3>& xa = ma.mesh->vertices;
  const std::vector<Vec3>& xb = pair.b_vertices;
  const Quat to_b = pair.b_rotation.conjugate();
  Vec3 sum = Vec3::Zero();
  // FV facets f − a with f around b (same test as convolution_facets).
  for (int k = mb.face_start[b]; k < mb.face_start[b + 1]; ++k) {
    const int f = mb.vertex_faces[k];
    const Vec3& n = pair.b_face_normals[f];
    if (n.squaredNorm() == 0 || !vertex_is_extremal(ma, a, -n)) continue;
    sum += mb.corner_angle[3 * f + corner_of(mb.mesh->triangles[f], b)] * n;
  }
  // VF facets b − g with g around a.
  for (int k = ma.face_start[a]; k < ma.face_start[a + 1]; ++k) {
    const int g = ma.vertex_faces[k];
    const Vec3& n = ma.face_normal[g];
    if (n.squaredNorm() == 0 || !vertex_is_extremal(mb, b, to_b * Vec3(-n))) continue;
    sum -= ma.corner_angle[3 * g + corner_of(ma.mesh->triangles[g], a)] * n;
  }
  // EE parallelograms with a corner at (b, a): the corner's sides run along B's edge away from
  // b and along A's edge towards a.
  for (int kb = mb.edge_start[b]; kb < mb.edge_start[b + 1]; ++kb) {
    const int eb = mb.vertex_edges[kb];
    if (mb.arc_radius[eb] < 0) continue;
    const int b_other = mb.edges[eb].v0 == b ? mb.edges[eb].v1 : mb.edges[eb].v0;
    for (int ka = ma.edge_start[a]; ka < ma.edge_start[a + 1]; ++ka) {
      const int ea = ma.vertex_edges[ka];
      Vec3 nu;
      if (!edge_pair_normal(pair, eb, ea, &nu)) continue;
      const int a_other = ma.edges[ea].v0 == a ? ma.edges[ea].v1 : ma.edges[ea].v0;
      sum += angle_between(xb[b_other] - xb[b], xa[a] - xa[a_other]) * nu;
    }
  }
  const double len = sum.norm();
  return len > 1e-12 ? Vec3(sum / len) : Vec3::Zero();
}

}  // namespace impetus
