#include "cloth/self_collision.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "collision/distance/segment_closest.h"
#include "collision/distance/triangle_distance.h"
#include "cloth/triangle_intersection.h"
#include "cloth/cloth_parallel.h"

namespace impetus {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Vec3 relative(const std::vector<Vec3>& y, const SelfContact& c) {
  Vec3 r = Vec3::Zero();
  for (int k = 0; k < 4; ++k) r += c.weight[k] * y[c.vertex[k]];
  return r;
}

// Mass-weighted impulse that changes the pair's relative quantity Σ w_k y_k by `delta`.
bool apply(std::vector<Vec3>& y, const SelfContact& c, const std::vector<double>& inv_mass,
           const Vec3& delta) {
  double denom = 0;
  for (int k = 0; k < 4; ++k) denom += c.weight[k] * c.weight[k] * inv_mass[c.vertex[k]];
  if (!(denom > 0)) return false;
  const Vec3 J = delta / denom;
  for (int k = 0; k < 4; ++k) y[c.vertex[k]] += (c.weight[k] * inv_mass[c.vertex[k]]) * J;
  return true;
}

SelfContact vertex_triangle_contact(const PrimitivePair& pair, const std::array<int, 3>& tri,
                                    const Vec3& w) {
  SelfContact c;
  c.pair = pair;
  c.vertex[0] = pair.a;
  c.weight[0] = 1.0;
  for (int k = 0; k < 3; ++k) {
    c.vertex[k + 1] = tri[k];
    c.weight[k + 1] = -w[k];
  }
  return c;
}

SelfContact edge_edge_contact(const PrimitivePair& pair, const std::array<int, 2>& e,
                              const std::array<int, 2>& f, double s, double u) {
  SelfContact c;
  c.pair = pair;
  c.vertex[0] = e[0];
  c.vertex[1] = e[1];
  c.vertex[2] = f[0];
  c.vertex[3] = f[1];
  c.weight[0] = 1.0 - s;
  c.weight[1] = s;
  c.weight[2] = -(1.0 - u);
  c.weight[3] = -u;
  return c;
}

Aabb segment_box(const Vec3& x, const Vec3& u) {
  Aabb b;
  b.grow(x);
  b.grow(Vec3(x + u));
  return b;
}

}  // namespace

void SelfCollision::build(const ClothTopology& topology, const std::vector<Vec3>& rest) {
  topology_ = &topology;
  bvh_.build(topology, rest);
  // Orphan pairs around each vertex (for update_near_orphans).
  const std::vector<PrimitivePair>& orphans = bvh_.all_orphans();
  const int nv = topology.vertex_count;
  orphan_vertex_offsets_.assign(nv + 1, 0);
  auto for_vertices = [&](const PrimitivePair& pp, auto&& f) {
    if (pp.kind == PrimitivePair::kVertexTriangle) {
      f(pp.a);
      for (int v : topology.triangles[pp.b]) f(v);
    } else {
      for (int v : topology.edges[pp.a]) f(v);
      for (int v : topology.edges[pp.b]) f(v);
    }
  };
  for (const PrimitivePair& pp : orphans) for_vertices(pp, [&](int v) { ++orphan_vertex_offsets_[v + 1]; });
  for (int v = 0; v < nv; ++v) orphan_vertex_offsets_[v + 1] += orphan_vertex_offsets_[v];
  orphan_vertex_pairs_.assign(orphan_vertex_offsets_[nv], 0);
  std::vector<int> fill(orphan_vertex_offsets_.begin(), orphan_vertex_offsets_.end() - 1);
  for (int k = 0; k < static_cast<int>(orphans.size()); ++k)
    for_vertices(orphans[k], [&](int v) { orphan_vertex_pairs_[fill[v]++] = k; });
  orphan_near_.assign(orphans.size(), 1);
  orphan_moved_.clear();
  orphan_moved_.reserve(nv);
  near_orphans_.clear();
  near_orphans_.reserve(orphans.size());
  orphan_list_current_ = false;
  orphan_reference_.clear();
  orphan_thickness_ = -1;
}

// Orphan pair k may pass the proximity box test at x (every vertex within kOrphanDrift·thickness
// of its reference, per coordinate) only if it passes it at the references with the box grown
// by twice that drift (each side moves at most that far); a little more covers round-off.
bool SelfCollision::orphan_may_be_near(const PrimitivePair& pp, double margin) const {
  const ClothTopology& topo = *topology_;
  const std::vector<Vec3>& r = orphan_reference_;
  if (pp.kind == PrimitivePair::kVertexTriangle) {
    const auto& tri = topo.triangles[pp.b];
    const Vec3 &p = r[pp.a], &a = r[tri[0]], &b = r[tri[1]], &c = r[tri[2]];
    for (int k = 0; k < 3; ++k) {
      const double lo = std::min(std::min(a[k], b[k]), c[k]);
      const double hi = std::max(std::max(a[k], b[k]), c[k]);
      if (!(lo - margin <= p[k] && p[k] <= hi + margin)) return false;
    }
    return true;
  }
  const auto& e = topo.edges[pp.a];
  const auto& f = topo.edges[pp.b];
  const Vec3 &e0 = r[e[0]], &e1 = r[e[1]], &f0 = r[f[0]], &f1 = r[f[1]];
  for (int k = 0; k < 3; ++k) {
    const double elo = std::min(e0[k], e1[k]), ehi = std::max(e0[k], e1[k]);
    const double flo = std::min(f0[k], f1[k]), fhi = std::max(f0[k], f1[k]);
    if (!(elo - margin <= fhi && flo <= ehi + margin)) return false;
  }
  return true;
}

void SelfCollision::update_near_orphans(const std::vector<Vec3>& x, double thickness, int threads) {
  const std::vector<PrimitivePair>& orphans = bvh_.all_orphans();
  const int nv = static_cast<int>(x.size());
  const std::ptrdiff_t no = static_cast<std::ptrdiff_t>(orphans.size());
  const double drift = kOrphanDrift * thickness;
  const double margin = thickness + 2.5 * drift;
  bool all = orphan_thickness_ != thickness || static_cast<int>(orphan_reference_.size()) != nv;
  int moved = 0;
  if (all) {
    orphan_reference_ = x;
    orphan_thickness_ = thickness;
  } else {
    orphan_moved_.clear();
    for (int i = 0; i < nv; ++i) {
      if (!((x[i] - orphan_reference_[i]).cwiseAbs().maxCoeff() <= drift)) {
        orphan_reference_[i] = x[i];
        orphan_moved_.push_back(i);
      }
    }
    moved = static_cast<int>(orphan_moved_.size());
    // Each vertex is in 4·no/nv orphan pairs on average (~90 on a grid): past about a sixth of
    // the vertices, one pass over all pairs is cheaper than their lists.
    all = 6 * moved > nv;
  }
  if (all) {
    cloth_parallel_for(no, threads, [&](std::ptrdiff_t k) {
      orphan_near_[k] = orphan_may_be_near(orphans[k], margin) ? 1 : 0;
    });
  } else if (moved > 0) {
    // Pairs around a moved vertex are marked (2) and re-tested once each, in order, below.
    for (int i : orphan_moved_)
      for (int j = orphan_vertex_offsets_[i]; j < orphan_vertex_offsets_[i + 1]; ++j)
        orphan_near_[orphan_vertex_pairs_[j]] = 2;
  } else if (orphan_list_current_) {
    return;
  }
  near_orphans_.resize(no);
  std::ptrdiff_t count = 0;
  for (std::ptrdiff_t k = 0; k < no; ++k) {
    char f = orphan_near_[k];
    if (f == 2) {
      f = orphan_may_be_near(orphans[k], margin) ? 1 : 0;
      orphan_near_[k] = f;
    }
    near_orphans_[count] = static_cast<int>(k);
    count += f;
  }
  near_orphans_.resize(count);
  orphan_list_current_ = true;
}

void SelfCollision::gather(const ClothBvh::Traversal& traversal, std::vector<PrimitivePair>& out,
                           int threads) const {
  out.clear();
  bvh_.append_leaf_pair_primitives(traversal.triangle_pairs, out, threads);
  for (int n : traversal.orphan_nodes) out.insert(out.end(), bvh_.orphans_begin(n), bvh_.orphans_end(n));
}

void SelfCollision::ccd_candidates(const std::vector<Vec3>& x0, const std::vector<Vec3>& u,
                                   ConeCulling mode, double pad, int threads,
                                   std::vector<PrimitivePair>& out, long long* triangle_pairs) {
  bvh_.refit_swept(x0, u, pad, mode, nullptr, threads);
  bvh_.traverse(mode != ConeCulling::None, false, &x0, &u, traversal_, threads);
  gather(traversal_, out, threads);
  if (triangle_pairs) *triangle_pairs = static_cast<long long>(traversal_.triangle_pairs.size());
}

void SelfCollision::ccd_contacts(const std::vector<PrimitivePair>& pairs, const std::vector<Vec3>& x0,
                                 const std::vector<Vec3>& u, double eta, int threads,
                                 std::vector<SelfContact>& out) const {
  std::vector<SelfContact> slots;
  std::vector<char> flags;
  test_pairs(pairs, x0, u, eta, nullptr, threads, slots, flags, out);
}

void SelfCollision::test_pairs(const std::vector<PrimitivePair>& pairs, const std::vector<Vec3>& x0,
                               const std::vector<Vec3>& u, double eta, const std::vector<char>* changed,
                               int threads, std::vector<SelfContact>& slots, std::vector<char>& flags,
                               std::vector<SelfContact>& out) const {
  const ClothTopology& topo = *topology_;
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(pairs.size());
  // Grow only: the proximity pass and the CCD passes share this scratch with very different
  // sizes, and shrinking then growing again default-constructs every new slot each step.
  if (static_cast<std::ptrdiff_t>(slots.size()) < n) slots.resize(n);
  flags.assign(n, 0);
  cloth_parallel_for_uneven(n, threads, [&](std::ptrdiff_t i) {
    const PrimitivePair& pp = pairs[i];
    if (changed) {
      // Later passes: only pairs with a vertex moved by the previous pass.
      bool any = false;
      if (pp.kind == PrimitivePair::kVertexTriangle) {
        any = (*changed)[pp.a];
        for (int v : topo.triangles[pp.b]) any = any || (*changed)[v];
      } else {
        for (int v : topo.edges[pp.a]) any = any || (*changed)[v];
        for (int v : topo.edges[pp.b]) any = any || (*changed)[v];
      }
      if (!any) return;
    }
    if (pp.kind == PrimitivePair::kVertexTriangle) {
      const auto& tri = topo.triangles[pp.b];
      const int p = pp.a;
      Aabb tb = segment_box(x0[tri[0]], u[tri[0]]);
      tb.grow(segment_box(x0[tri[1]], u[tri[1]]));
      tb.grow(segment_box(x0[tri[2]], u[tri[2]]));
      if (!segment_box(x0[p], u[p]).inflated(eta).overlaps(tb)) return;
      CcdHit h = ccd_vertex_triangle(x0[p], x0[tri[0]], x0[tri[1]], x0[tri[2]], u[p], u[tri[0]],
                                     u[tri[1]], u[tri[2]], eta);
      if (!h.hit) return;
      slots[i] = vertex_triangle_contact(pp, tri, h.weights);
      slots[i].normal = h.normal;
      slots[i].t = h.t;
    } else {
      const auto& e = topo.edges[pp.a];
      const auto& f = topo.edges[pp.b];
      Aabb eb = segment_box(x0[e[0]], u[e[0]]);
      eb.grow(segment_box(x0[e[1]], u[e[1]]));
      Aabb fb = segment_box(x0[f[0]], u[f[0]]);
      fb.grow(segment_box(x0[f[1]], u[f[1]]));
      if (!eb.inflated(eta).overlaps(fb)) return;
      CcdHit h = ccd_edge_edge(x0[e[0]], x0[e[1]], x0[f[0]], x0[f[1]], u[e[0]], u[e[1]], u[f[0]],
                               u[f[1]], eta);
      if (!h.hit) return;
      slots[i] = edge_edge_contact(pp, e, f, h.s, h.u);
      slots[i].normal = h.normal;
      slots[i].t = h.t;
    }
    flags[i] = 1;
  });
  out.clear();
  for (std::ptrdiff_t i = 0; i < n; ++i)
    if (flags[i]) out.push_back(slots[i]);
}

void SelfCollision::detect(const std::vector<Vec3>& x0, const std::vector<Vec3>& u,
                           const std::vector<char>* changed, const SelfCollisionSettings& s,
                           double eta, SelfCollisionStats& stats, bool first,
                           std::vector<SelfContact>& out) {
  Clock::time_point start = Clock::now();
  bvh_.refit_swept(x0, u, eta, s.culling, changed, s.threads);
  bvh_.traverse(s.culling != ConeCulling::None, changed != nullptr, &x0, &u, traversal_, s.threads);
  gather(traversal_, pairs_, s.threads);
  if (first) {
    stats.triangle_pairs = static_cast<long long>(traversal_.triangle_pairs.size());
    stats.culled_nodes = traversal_.culled_nodes;
  }
  stats.seconds_culling += seconds_since(start);

  start = Clock::now();
  stats.primitive_tests += static_cast<long long>(pairs_.size());
  test_pairs(pairs_, x0, u, eta, changed, s.threads, slots_, flags_, out);
  stats.seconds_ccd += seconds_since(start);
}

void SelfCollision::proximity_pass(const std::vector<Vec3>& x0, std::vector<Vec3>& u,
                                   std::vector<Vec3>& v, const std::vector<double>& inv_mass,
                                   const SelfCollisionSettings& s, SelfCollisionStats& stats) {
  const ClothTopology& topo = *topology_;
  const double thickness = s.thickness;
  if (!(thickness > 0)) return;
  Clock::time_point start = Clock::now();
  static_traversal(x0, thickness, s.threads);
  // gather() without copying the orphans: a traversal without cones lists every node that has
  // orphans, so they are bvh_.all_orphans(), in the same order, after the leaf pairs' features.
  pairs_.clear();
  bvh_.append_leaf_pair_primitives(static_traversal_.triangle_pairs, pairs_, s.threads);
  const std::vector<PrimitivePair>& orphans = bvh_.all_orphans();
  update_near_orphans(x0, thickness, s.threads);
  stats.seconds_culling += seconds_since(start);
  start = Clock::now();

  const std::ptrdiff_t n_leaf = static_cast<std::ptrdiff_t>(pairs_.size());
  const std::ptrdiff_t n = n_leaf + static_cast<std::ptrdiff_t>(near_orphans_.size());
  auto pair_at = [&](std::ptrdiff_t i) -> const PrimitivePair& {
    return i < n_leaf ? pairs_[i] : orphans[near_orphans_[i - n_leaf]];
  };
  if (static_cast<std::ptrdiff_t>(slots_.size()) < n) slots_.resize(n);  // grow only (test_pairs)
  flags_.assign(n, 0);
  // Most pairs fail the box test (the orphan pairs of the 2-ring are listed every step): it is
  // done inline, in scalar code, and only the pairs that pass it enter the exact test.
  auto close_vertex_triangle = [&](std::ptrdiff_t i) {
    const PrimitivePair& pp = pair_at(i);
    const auto& tri = topo.triangles[pp.b];
    const Vec3 &p = x0[pp.a], &a = x0[tri[0]], &b = x0[tri[1]], &cc = x0[tri[2]];
    PointTriangleClosest cl = closest_point_triangle(p, a, b, cc);
    if (!(cl.distance < thickness)) return;
    SelfContact c = vertex_triangle_contact(pp, tri, cl.weights);
    c.normal = cl.distance > 1e-12 ? Vec3((p - cl.point) / cl.distance)
                                   : Vec3((b - a).cross(cc - a).normalized());
    c.gap = cl.distance;
    if (!c.normal.allFinite()) return;
    slots_[i] = c;
    flags_[i] = 1;
  };
  auto close_edge_edge = [&](std::ptrdiff_t i) {
    const PrimitivePair& pp = pair_at(i);
    const auto& e = topo.edges[pp.a];
    const auto& f = topo.edges[pp.b];
    SegmentClosest cl = closest_segment_segment(x0[e[0]], x0[e[1]], x0[f[0]], x0[f[1]]);
    if (!(cl.distance < thickness)) return;
    SelfContact c = edge_edge_contact(pp, e, f, cl.s, cl.t);
    c.normal = cl.distance > 1e-12
                   ? Vec3((cl.p - cl.q) / cl.distance)
                   : Vec3((x0[e[1]] - x0[e[0]]).cross(x0[f[1]] - x0[f[0]]).normalized());
    c.gap = cl.distance;
    if (!c.normal.allFinite()) return;
    slots_[i] = c;
    flags_[i] = 1;
  };
  // The same test as Aabb::inflated(thickness).overlaps, per axis: lo − r ≤ q ≤ hi + r for the
  // vertex, lo₁ − r ≤ hi₂ and lo₂ ≤ hi₁ + r for two edges. The pairs that pass it cluster (the
  // near orphans, listed last, mostly do), so the chunks are handed out as threads get free.
  cloth_parallel_for_uneven(n, s.threads, [&](std::ptrdiff_t i) {
    const PrimitivePair& pp = pair_at(i);
    if (pp.kind == PrimitivePair::kVertexTriangle) {
      const auto& tri = topo.triangles[pp.b];
      const Vec3 &p = x0[pp.a], &a = x0[tri[0]], &b = x0[tri[1]], &cc = x0[tri[2]];
      for (int k = 0; k < 3; ++k) {
        const double lo = std::min(std::min(a[k], b[k]), cc[k]);
        const double hi = std::max(std::max(a[k], b[k]), cc[k]);
        if (!(lo - thickness <= p[k] && p[k] <= hi + thickness)) return;
      }
      close_vertex_triangle(i);
    } else {
      const auto& e = topo.edges[pp.a];
      const auto& f = topo.edges[pp.b];
      const Vec3 &e0 = x0[e[0]], &e1 = x0[e[1]], &f0 = x0[f[0]], &f1 = x0[f[1]];
      for (int k = 0; k < 3; ++k) {
        const double elo = std::min(e0[k], e1[k]), ehi = std::max(e0[k], e1[k]);
        const double flo = std::min(f0[k], f1[k]), fhi = std::max(f0[k], f1[k]);
        if (!(elo - thickness <= fhi && flo <= ehi + thickness)) return;
      }
      close_edge_edge(i);
    }
  });
  std::vector<SelfContact>& contacts = proximity_contacts_;
  contacts.clear();
  for (std::ptrdiff_t i = 0; i < n; ++i)
    if (flags_[i]) contacts.push_back(slots_[i]);
  stats.proximity_contacts = static_cast<int>(contacts.size());

  // Gauss–Seidel in the fixed traversal order.
  for (int sweep = 0; sweep < 2; ++sweep) {
    for (const SelfContact& c : contacts) {
      const Vec3& n = c.normal;
      const double vn = n.dot(relative(v, c));
      if (vn < 0) {
        apply(v, c, inv_mass, -vn * n);
        apply(u, c, inv_mass, (-vn * s.h) * n);
        // Coulomb friction bounded by the normal velocity change.
        const Vec3 vr = relative(v, c);
        const Vec3 vt = vr - n.dot(vr) * n;
        const double vt_len = vt.norm();
        if (vt_len > 0) {
          const double dvt = std::min(vt_len, s.friction * (-vn));
          const Vec3 dv = (-dvt / vt_len) * vt;
          apply(v, c, inv_mass, dv);
          apply(u, c, inv_mass, s.h * dv);
        }
      }
      // Soft separation toward the thickness, on the displacement only.
      const double target = c.gap + 0.5 * (thickness - c.gap);
      const double end_gap = c.gap + n.dot(relative(u, c));
      if (end_gap < target) apply(u, c, inv_mass, (target - end_gap) * n);
    }
  }
  stats.seconds_response += seconds_since(start);
}

void SelfCollision::rigidify_zones(const std::vector<Vec3>& x0, std::vector<Vec3>& u,
                                   std::vector<Vec3>& v, const std::vector<double>& inv_mass,
                                   std::vector<int>& zone, std::vector<char>& changed,
                                   SelfCollisionStats& stats) const {
  const int nv = static_cast<int>(x0.size());
  auto find = [&](int i) {
    while (zone[i] != i) {
      zone[i] = zone[zone[i]];
      i = zone[i];
    }
    return i;
  };
  std::vector<std::vector<int>> members(nv);
  for (int i = 0; i < nv; ++i)
    if (zone[i] >= 0) members[find(i)].push_back(i);
  stats.impact_zones = 0;
  stats.impact_zone_vertices = 0;
  std::fill(changed.begin(), changed.end(), 0);
  for (int r = 0; r < nv; ++r) {
    const std::vector<int>& z = members[r];
    if (z.empty()) continue;
    ++stats.impact_zones;
    stats.impact_zone_vertices += static_cast<int>(z.size());
    for (int i : z) changed[i] = 1;
    // Constrained members (infinite mass) decide the motion: one common displacement → the
    // zone translates with it; otherwise the zone stays where it is for this step.
    bool constrained = false, common = true;
    Vec3 cu = Vec3::Zero(), cv = Vec3::Zero();
    for (int i : z) {
      if (inv_mass[i] > 0) continue;
      if (!constrained) {
        cu = u[i];
        cv = v[i];
        constrained = true;
      } else if (u[i] != cu) {
        common = false;
      }
    }
    if (constrained) {
      if (!common) {
        cu.setZero();
        cv.setZero();
      }
      for (int i : z) {
        u[i] = cu;
        v[i] = cv;
      }
      continue;
    }
    // Rigid motion with the zone's linear and angular momentum (of u and of v): an affine
    // map x ↦ x + P/M + ω × (x − x_c) with det(I + s[ω]×) = 1 + s²|ω|² > 0 for every s, so
    // the zone stays intersection-free along the whole step.
    double M = 0;
    Vec3 xc = Vec3::Zero();
    for (int i : z) {
      const double m = 1.0 / inv_mass[i];
      M += m;
      xc += m * x0[i];
    }
    xc /= M;
    auto rigid = [&](std::vector<Vec3>& y) {
      Vec3 P = Vec3::Zero(), L = Vec3::Zero();
      Mat3 I = Mat3::Zero();
      for (int i : z) {
        const double m = 1.0 / inv_mass[i];
        const Vec3 r = x0[i] - xc;
        P += m * y[i];
        L += m * r.cross(y[i]);
        I += m * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
      }
      I.diagonal().array() += 1e-12 * std::max(I.trace(), 1e-300);
      const Vec3 w = I.ldlt().solve(L);
      const Vec3 vc = P / M;
      for (int i : z) y[i] = vc + w.cross(x0[i] - xc);
    };
    rigid(u);
    rigid(v);
  }
}

void SelfCollision::resolve(const std::vector<Vec3>& x0, std::vector<Vec3>& u, std::vector<Vec3>& v,
                            const std::vector<double>& inv_mass, const SelfCollisionSettings& s,
                            SelfCollisionStats& stats) {
  stats = SelfCollisionStats{};
  const int nv = static_cast<int>(x0.size());
  const double eta = std::max(1e-3 * s.thickness, 1e-9);
  const double delta = std::max(0.25 * s.thickness, 10.0 * eta);

  proximity_pass(x0, u, v, inv_mass, s, stats);

  std::vector<SelfContact>& contacts = ccd_contacts_;
  std::vector<char>& changed = changed_;
  contacts.clear();
  changed.assign(nv, 0);
  detect(x0, u, nullptr, s, eta, stats, true, contacts);
  stats.ccd_contacts = static_cast<int>(contacts.size());
  int pass = 0;
  while (!contacts.empty() && pass < s.ccd_impulse_iterations) {
    Clock::time_point start = Clock::now();
    std::fill(changed.begin(), changed.end(), 0);
    for (SelfContact c : contacts) {
      // Orient n so that the pair starts on its positive side (or, when it starts in contact,
      // so that its own motion is along +n and the smallest push suffices).
      Vec3 n = c.normal;
      double g0 = n.dot(relative(x0, c));
      const double du = n.dot(relative(u, c));
      if (std::abs(g0) > 1e-3 * eta) {
        if (g0 < 0) {
          n = -n;
          g0 = -g0;
        }
      } else if (du < 0) {
        n = -n;
        g0 = -g0;
      }
      const double end_gap = g0 + n.dot(relative(u, c));
      bool moved = false;
      if (end_gap < delta) moved = apply(u, c, inv_mass, (delta - end_gap) * n);
      const double vn = n.dot(relative(v, c));
      if (vn < 0) apply(v, c, inv_mass, -vn * n);
      if (moved) {
        for (int k = 0; k < 4; ++k)
          if (c.weight[k] != 0 && inv_mass[c.vertex[k]] > 0) changed[c.vertex[k]] = 1;
      }
    }
    stats.seconds_response += seconds_since(start);
    ++pass;
    detect(x0, u, &changed, s, eta, stats, false, contacts);
  }
  stats.ccd_passes = pass;
  if (contacts.empty()) return;

  // Impact zones.
  Clock::time_point start = Clock::now();
  std::vector<int>& zone = zone_;
  zone.assign(nv, -1);
  auto find = [&](int i) {
    while (zone[i] != i) {
      zone[i] = zone[zone[i]];
      i = zone[i];
    }
    return i;
  };
  for (int it = 0; it < s.impact_zone_iterations && !contacts.empty(); ++it) {
    for (const SelfContact& c : contacts) {
      int root = -1;
      for (int k = 0; k < 4; ++k) {
        const int i = c.vertex[k];
        if (zone[i] < 0) zone[i] = i;
        const int ri = find(i);
        if (root < 0) {
          root = ri;
        } else if (ri != root) {
          // Union by smaller index keeps the roots independent of the contact order.
          const int lo = std::min(root, ri), hi = std::max(root, ri);
          zone[hi] = lo;
          root = lo;
        }
      }
    }
    rigidify_zones(x0, u, v, inv_mass, zone, changed, stats);
    stats.seconds_response += seconds_since(start);
    detect(x0, u, &changed, s, eta, stats, false, contacts);
    start = Clock::now();
  }
  if (!contacts.empty()) {
    // Fail-safe: the step's start state had no intersections; keep it.
    for (int i = 0; i < nv; ++i) {
      u[i].setZero();
      v[i].setZero();
    }
    stats.frozen = true;
  }
  stats.seconds_response += seconds_since(start);
}

void SelfCollision::static_traversal(const std::vector<Vec3>& x, double thickness, int threads) {
  if (static_valid_ && static_thickness_ == thickness && static_positions_ == x) return;
  bvh_.refit_static(x, 0.5 * thickness, threads);
  bvh_.traverse(false, false, nullptr, nullptr, static_traversal_, threads);
  static_positions_ = x;
  static_thickness_ = thickness;
  static_valid_ = true;
}

int SelfCollision::count_intersections(const std::vector<Vec3>& x, double thickness, int threads) {
  const ClothTopology& topo = *topology_;
  // The proximity traversal (boxes grown by half the thickness) lists a superset of the pairs
  // whose exact boxes overlap; it is kept for the next step's proximity pass at these positions.
  static_traversal(x, std::max(thickness, 0.0), threads);
  const auto& tp = static_traversal_.triangle_pairs;
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(tp.size());
  flags_.assign(n, 0);
  cloth_parallel_for_uneven(n, threads, [&](std::ptrdiff_t i) {
    const auto& a = topo.triangles[tp[i][0]];
    const auto& b = topo.triangles[tp[i][1]];
    Aabb ba, bb;
    for (int k = 0; k < 3; ++k) {
      ba.grow(x[a[k]]);
      bb.grow(x[b[k]]);
    }
    if (!ba.overlaps(bb)) return;
    flags_[i] = triangles_intersect(x[a[0]], x[a[1]], x[a[2]], x[b[0]], x[b[1]], x[b[2]]) ? 1 : 0;
  });
  int count = 0;
  for (char f : flags_) count += f;
  return count;
}

}  // namespace impetus
