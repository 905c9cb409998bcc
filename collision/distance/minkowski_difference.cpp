#include "collision/distance/minkowski_difference.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace impetus {
namespace {

// Marks the faces of `patch.hull` whose normal lies in C(m, θ) (with a hair of margin so that a
// face exactly on the cone's rim, whose support pair may have been cut, is not trusted) and the
// vertices all of whose faces are marked.
void mark_exact(MinkowskiPatch& patch, const Vec3* m, double cos_theta) {
  const ConvexHull& h = patch.hull;
  patch.face_exact.assign(h.faces.size(), 1);
  patch.vertex_exact.assign(h.vertices.size(), 1);
  if (m == nullptr) return;
  for (std::size_t f = 0; f < h.faces.size(); ++f) {
    if (!(h.faces[f].normal.dot(*m) > cos_theta + 1e-12)) patch.face_exact[f] = 0;
  }
  for (std::size_t f = 0; f < h.faces.size(); ++f) {
    if (patch.face_exact[f]) continue;
    for (int v : h.faces[f].vertices) patch.vertex_exact[v] = 0;
  }
}

// The hull of the differences b − a over the given vertex indices. A difference is a vertex of D
// only if the normal cone of b and the (negated) normal cone of a share an open set of
// directions (the Gauss-map overlay of the two polytopes); pairs whose bounding caps are apart
// are skipped, which leaves O(n + m) points for finely tessellated shapes instead of n·m and
// does not change the hull.
std::optional<MinkowskiPatch> hull_of_differences(const PlacedPolytope& a,
                                                  const std::vector<int>& ia,
                                                  const PlacedPolytope& b,
                                                  const std::vector<int>& ib) {
  std::vector<Vec3> points;
  for (int j : ib) {
    for (int i : ia) {
      // angle(axis_b, −axis_a) <= ρ_a + ρ_b, i.e. axis_b·(−axis_a) >= cos(ρ_a + ρ_b).
      const double ca = a.cone_cos[i], sa = a.cone_sin[i], cb = b.cone_cos[j], sb = b.cone_sin[j];
      const bool wide = std::atan2(sa, ca) + std::atan2(sb, cb) >= kPi;
      if (!wide && -b.cone_axis[j].dot(a.cone_axis[i]) < ca * cb - sa * sb - 1e-9) continue;
      // Exact test on the cones themselves: NC_B(b) against −NC_A(a). Besides saving points it
      // keeps degenerate differences (b − a on an edge or face of D, common for aligned boxes)
      // out of the hull, whose merge of coplanar faces they can defeat.
      std::array<Vec3, 32> neg_a;
      const int na = a.cone_start[i + 1] - a.cone_start[i];
      const int nb = b.cone_start[j + 1] - b.cone_start[j];
      if (na <= static_cast<int>(neg_a.size())) {
        for (int k = 0; k < na; ++k) neg_a[k] = -a.cone_normals[a.cone_start[i] + k];
        if (!cones_overlap(&b.cone_normals[b.cone_start[j]], nb, neg_a.data(), na)) continue;
      }
      points.push_back(b.vertices[j] - a.vertices[i]);
    }
  }
  std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
  if (!hull) return std::nullopt;
  MinkowskiPatch patch;
  patch.hull = std::move(*hull);
  patch.point_count = points.size();
  return patch;
}

// Largest cosine between unit m and the cone spanned by g[0..k) (pointed, unit generators): the
// cone's point nearest to m lies on a ray, in a 2D wedge or (m inside) in the interior, and every
// candidate below is a conic combination, so the maximum over them is the exact value.
double max_cos_to_cone(const Vec3& m, const Vec3* g, int k) {
  double best = -1;
  for (int i = 0; i < k; ++i) best = std::max(best, m.dot(g[i]));
  for (int i = 0; i < k; ++i) {
    for (int j = i + 1; j < k; ++j) {
      // Projection of m onto span(g_i, g_j) with non-negative coefficients.
      const double gij = g[i].dot(g[j]);
      const double det = 1.0 - gij * gij;
      if (!(det > 1e-12)) continue;
      const double mi = m.dot(g[i]), mj = m.dot(g[j]);
      const double ai = (mi - gij * mj) / det, aj = (mj - gij * mi) / det;
      if (ai < 0 || aj < 0) continue;
      const Vec3 p = ai * g[i] + aj * g[j];
      best = std::max(best, p.norm());  // m unit: cos of the angle to its projection
      for (int l = j + 1; l < k; ++l) {
        // m inside the cone of three generators: cosine 1.
        const double vol = g[i].dot(g[j].cross(g[l]));
        if (std::abs(vol) < 1e-12) continue;
        const double bi = m.dot(g[j].cross(g[l])) / vol;
        const double bj = g[i].dot(m.cross(g[l])) / vol;
        const double bl = g[i].dot(g[j].cross(m)) / vol;
        if (bi >= 0 && bj >= 0 && bl >= 0) return 1.0;
      }
    }
  }
  return best;
}

// Vertices whose normal cone meets C(m, θ): a quick reject with the bounding cap
// (angle(m, axis) > θ + ρ), then the exact test on the cone's generators.
std::vector<int> select_vertices(const PlacedPolytope& p, const Vec3& m, double theta) {
  const double ct = std::cos(theta), st = std::sin(theta);
  std::vector<int> out;
  for (std::size_t v = 0; v < p.vertices.size(); ++v) {
    // cos(θ + ρ); when θ + ρ >= π every direction qualifies.
    const double rho = std::atan2(p.cone_sin[v], p.cone_cos[v]);
    const double bound = theta + rho >= kPi ? -2.0 : ct * p.cone_cos[v] - st * p.cone_sin[v];
    if (m.dot(p.cone_axis[v]) < bound - 1e-12) continue;
    const int k = p.cone_start[v + 1] - p.cone_start[v];
    if (max_cos_to_cone(m, &p.cone_normals[p.cone_start[v]], k) < ct - 1e-12) continue;
    out.push_back(static_cast<int>(v));
  }
  return out;
}

std::vector<int> all_vertices(const PlacedPolytope& p) {
  std::vector<int> out(p.vertices.size());
  for (std::size_t v = 0; v < out.size(); ++v) out[v] = static_cast<int>(v);
  return out;
}

}  // namespace

bool cones_overlap(const Vec3* first, int first_count, const Vec3* second, int second_count,
                   double eps) {
  // Two pointed polyhedral cones with disjoint interiors are separated by a plane through the
  // origin that can be turned until it contains two of their generators; so it suffices to try
  // the planes spanned by every pair of generators (either cone).
  const int total = first_count + second_count;
  auto gen = [&](int k) -> const Vec3& { return k < first_count ? first[k] : second[k - first_count]; };
  for (int p = 0; p < total; ++p) {
    for (int q = p + 1; q < total; ++q) {
      Vec3 w = gen(p).cross(gen(q));
      const double len = w.norm();
      if (!(len > 1e-12)) continue;
      w /= len;
      // Sides of the first cone's generators, then the second's.
      double min1 = 1, max1 = -1, min2 = 1, max2 = -1;
      for (int k = 0; k < first_count; ++k) {
        const double d = w.dot(first[k]);
        min1 = std::min(min1, d);
        max1 = std::max(max1, d);
      }
      for (int k = 0; k < second_count; ++k) {
        const double d = w.dot(second[k]);
        min2 = std::min(min2, d);
        max2 = std::max(max2, d);
      }
      if ((min1 >= -eps && max2 <= eps) || (max1 <= eps && min2 >= -eps)) return false;
    }
  }
  return true;
}

PlacedPolytope place_polytope(const ConvexHull& hull, const Pose& pose) {
  const std::size_t n = hull.vertices.size();
  PlacedPolytope p;
  p.vertices.resize(n);
  p.cone_axis.assign(n, Vec3::Zero());
  p.cone_cos.assign(n, 1.0);
  p.cone_sin.assign(n, 0.0);
  for (std::size_t v = 0; v < n; ++v) p.vertices[v] = pose.apply(hull.vertices[v]);
  for (const HullFace& f : hull.faces) {
    for (int v : f.vertices) p.cone_axis[v] += f.normal;
  }
  for (std::size_t v = 0; v < n; ++v) {
    const double len = p.cone_axis[v].norm();
    p.cone_axis[v] = len > 0 ? Vec3(p.cone_axis[v] / len) : Vec3::UnitZ();
    if (!(len > 0)) p.cone_cos[v] = -1.0;
  }
  for (const HullFace& f : hull.faces) {
    for (int v : f.vertices) {
      p.cone_cos[v] = std::min(p.cone_cos[v], std::clamp(p.cone_axis[v].dot(f.normal), -1.0, 1.0));
    }
  }
  std::vector<double> angles(n);
  for (std::size_t v = 0; v < n; ++v) {
    p.cone_sin[v] = std::sqrt(std::max(0.0, 1.0 - p.cone_cos[v] * p.cone_cos[v]));
    p.cone_axis[v] = pose.rotate(p.cone_axis[v]);
    angles[v] = std::acos(p.cone_cos[v]);
  }
  if (n > 0) {
    std::nth_element(angles.begin(), angles.begin() + n / 2, angles.end());
    p.median_cone_angle = angles[n / 2];
  }
  // Incident face normals per vertex (CSR), in world coordinates.
  p.cone_start.assign(n + 1, 0);
  for (const HullFace& f : hull.faces) {
    for (int v : f.vertices) ++p.cone_start[v + 1];
  }
  for (std::size_t v = 0; v < n; ++v) p.cone_start[v + 1] += p.cone_start[v];
  p.cone_normals.resize(p.cone_start[n]);
  std::vector<int> fill(p.cone_start.begin(), p.cone_start.end() - 1);
  for (const HullFace& f : hull.faces) {
    const Vec3 normal = pose.rotate(f.normal);
    for (int v : f.vertices) p.cone_normals[fill[v]++] = normal;
  }
  return p;
}

std::optional<MinkowskiPatch> minkowski_difference_full(const PlacedPolytope& a,
                                                        const PlacedPolytope& b) {
  std::optional<MinkowskiPatch> patch = hull_of_differences(a, all_vertices(a), b, all_vertices(b));
  if (patch) mark_exact(*patch, nullptr, 0);
  return patch;
}

std::optional<MinkowskiPatch> minkowski_difference_patch(const PlacedPolytope& a,
                                                         const PlacedPolytope& b, const Vec3& m,
                                                         double theta, std::size_t max_pairs) {
  // Faces of D along n are (face of B along n) − (face of A along −n).
  const std::vector<int> sel_b = select_vertices(b, m, theta);
  const std::vector<int> sel_a = select_vertices(a, -m, theta);
  if (sel_a.empty() || sel_b.empty() || sel_a.size() * sel_b.size() > max_pairs) {
    return std::nullopt;
  }
  std::optional<MinkowskiPatch> patch = hull_of_differences(a, sel_a, b, sel_b);
  if (patch) mark_exact(*patch, &m, std::cos(theta));
  return patch;
}

}  // namespace impetus
