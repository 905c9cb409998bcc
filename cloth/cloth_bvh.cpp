#include "cloth/cloth_bvh.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "cloth/cloth_parallel.h"

namespace impetus {
namespace {

constexpr double kHalfPi = 0.5 * kPi;
// Nodes of a level from which its refit runs in parallel (see refit_levels).
constexpr std::ptrdiff_t kMinParallelRefitLevel = 512;

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

}  // namespace

void ClothBvh::build(const ClothTopology& topology, const std::vector<Vec3>& rest) {
  topology_ = &topology;
  const int nt = static_cast<int>(topology.triangles.size());
  nodes_.clear();
  levels_.clear();
  leaf_of_triangle_.assign(nt, -1);
  if (nt == 0) {
    box_.clear();
    cone_.clear();
    changed_.clear();
    loop_offsets_.assign(1, 0);
    orphan_offsets_.assign(1, 0);
    return;
  }
  std::vector<Vec3> centroid(nt);
  for (int t = 0; t < nt; ++t) {
    const auto& tri = topology.triangles[t];
    centroid[t] = (rest[tri[0]] + rest[tri[1]] + rest[tri[2]]) / 3.0;
  }
  // Median split on the longest centroid axis; children are created after their parent, so a
  // node's index is always below its children's (refit walks the levels bottom-up).
  std::vector<int> order(nt);
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::array<int, 2>> range;  // per node: [begin, end) in `order`
  nodes_.push_back(Node{});
  range.push_back({0, nt});
  for (size_t n = 0; n < nodes_.size(); ++n) {
    const int begin = range[n][0], end = range[n][1];
    if (end - begin == 1) {
      nodes_[n].triangle = order[begin];
      leaf_of_triangle_[order[begin]] = static_cast<int>(n);
      continue;
    }
    Aabb cb;
    for (int k = begin; k < end; ++k) cb.grow(centroid[order[k]]);
    const Vec3 ext = cb.extent();
    int axis = 0;
    if (ext.y() > ext[axis]) axis = 1;
    if (ext.z() > ext[axis]) axis = 2;
    const int mid = begin + (end - begin) / 2;
    std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end,
                     [&](int a, int b) {
                       if (centroid[a][axis] != centroid[b][axis]) return centroid[a][axis] < centroid[b][axis];
                       return a < b;
                     });
    const int left = static_cast<int>(nodes_.size());
    nodes_[n].left = left;
    nodes_[n].right = left + 1;
    Node l, r;
    l.parent = r.parent = static_cast<int>(n);
    l.depth = r.depth = nodes_[n].depth + 1;
    nodes_.push_back(l);
    nodes_.push_back(r);
    range.push_back({begin, mid});
    range.push_back({mid, end});
  }
  const int nn = static_cast<int>(nodes_.size());
  for (int n = 0; n < nn; ++n) {
    if (static_cast<int>(levels_.size()) <= nodes_[n].depth) levels_.resize(nodes_[n].depth + 1);
    levels_[nodes_[n].depth].push_back(n);
  }
  box_.assign(nn, Aabb{});
  cone_.assign(nn, NormalCone{Vec3::UnitZ(), kPi});
  changed_.assign(nn, 1);

  // Contours: boundary edges bottom-up; disks keep their boundary loop.
  const int ne = static_cast<int>(topology.edges.size());
  std::vector<std::vector<std::array<int, 2>>> boundary(nn);
  std::vector<std::vector<int>> loops(nn);
  std::vector<int> edge_stamp(ne, -1), edge_first(ne, -1), uf(nt);
  std::vector<int> vertex_stamp(topology.vertex_count, -1);
  for (int n = nn - 1; n >= 0; --n) {
    const Node& node = nodes_[n];
    std::vector<std::array<int, 2>>& b = boundary[n];
    if (node.triangle >= 0) {
      const auto& tri = topology.triangles[node.triangle];
      b = {{tri[0], tri[1]}, {tri[1], tri[2]}, {tri[2], tri[0]}};
    } else {
      std::vector<std::array<int, 2>> all = boundary[node.left];
      all.insert(all.end(), boundary[node.right].begin(), boundary[node.right].end());
      auto key = [](const std::array<int, 2>& e) {
        return std::make_pair(std::min(e[0], e[1]), std::max(e[0], e[1]));
      };
      std::sort(all.begin(), all.end(), [&](const auto& x, const auto& y) {
        if (key(x) != key(y)) return key(x) < key(y);
        return x < y;
      });
      for (size_t i = 0; i < all.size();) {
        size_t j = i;
        while (j < all.size() && key(all[j]) == key(all[i])) ++j;
        if (j - i == 1) b.push_back(all[i]);
        i = j;
      }
      boundary[node.left].clear();
      boundary[node.left].shrink_to_fit();
      boundary[node.right].clear();
      boundary[node.right].shrink_to_fit();
    }
    // Disk test: connected, Euler characteristic 1, one simple boundary cycle.
    const int begin = range[n][0], end = range[n][1];
    int V = 0, E = 0;
    const int F = end - begin;
    for (int k = begin; k < end; ++k) {
      const int t = order[k];
      uf[t] = t;
      for (int v : topology.triangles[t]) {
        if (vertex_stamp[v] != n) {
          vertex_stamp[v] = n;
          ++V;
        }
      }
    }
    int components = F;
    for (int k = begin; k < end; ++k) {
      const int t = order[k];
      for (int e : topology.triangle_edges[t]) {
        if (edge_stamp[e] != n) {
          edge_stamp[e] = n;
          edge_first[e] = t;
          ++E;
        } else {
          int ra = find_root(uf, edge_first[e]), rb = find_root(uf, t);
          if (ra != rb) {
            uf[ra] = rb;
            --components;
          }
        }
      }
    }
    if (components != 1 || V - E + F != 1 || b.empty()) continue;
    std::vector<std::array<int, 2>> sorted = b;
    std::sort(sorted.begin(), sorted.end());
    bool simple = true;
    for (size_t i = 1; i < sorted.size(); ++i) simple = simple && sorted[i][0] != sorted[i - 1][0];
    if (!simple) continue;
    std::vector<int> loop;
    int start = sorted[0][0], cur = start;
    do {
      loop.push_back(cur);
      auto it = std::lower_bound(sorted.begin(), sorted.end(), std::array<int, 2>{cur, -1});
      if (it == sorted.end() || (*it)[0] != cur) {
        simple = false;
        break;
      }
      cur = (*it)[1];
    } while (cur != start && loop.size() <= sorted.size());
    if (simple && loop.size() == sorted.size()) loops[n] = std::move(loop);
  }
  scratch_.assign(1, UnionScratch{});
  scratch_[0].stamp.assign(topology.vertex_count, 0);
  scratch_[0].position.assign(topology.vertex_count, 0);
  loop_offsets_.assign(nn + 1, 0);
  loop_vertices_.clear();
  for (int n = 0; n < nn; ++n) {
    loop_vertices_.insert(loop_vertices_.end(), loops[n].begin(), loops[n].end());
    loop_offsets_[n + 1] = static_cast<int>(loop_vertices_.size());
  }

  // Feature ownership: the lowest-index triangle with the vertex / edge.
  owned_vertices_.assign(nt, 0);
  owned_edges_.assign(nt, 0);
  std::vector<int> owner_vertex(topology.vertex_count, -1), owner_edge(ne, -1);
  for (int v = 0; v < topology.vertex_count; ++v) {
    if (topology.vertex_triangle_offsets[v + 1] > topology.vertex_triangle_offsets[v])
      owner_vertex[v] = topology.vertex_triangles[topology.vertex_triangle_offsets[v]];
  }
  for (int e = 0; e < ne; ++e) {
    const auto& et = topology.edge_triangles[e];
    owner_edge[e] = et[1] >= 0 ? std::min(et[0], et[1]) : et[0];
  }
  for (int t = 0; t < nt; ++t) {
    for (int k = 0; k < 3; ++k) {
      if (owner_vertex[topology.triangles[t][k]] == t) owned_vertices_[t] |= std::uint8_t(1u << k);
      if (owner_edge[topology.triangle_edges[t][k]] == t) owned_edges_[t] |= std::uint8_t(1u << k);
    }
  }

  // Orphans: owned features of triangle pairs that share a vertex, at the pair's LCA node.
  auto lca = [&](int a, int b) {
    while (nodes_[a].depth > nodes_[b].depth) a = nodes_[a].parent;
    while (nodes_[b].depth > nodes_[a].depth) b = nodes_[b].parent;
    while (a != b) {
      a = nodes_[a].parent;
      b = nodes_[b].parent;
    }
    return a;
  };
  std::vector<std::pair<int, PrimitivePair>> listed;
  std::vector<int> adjacent;
  for (int s = 0; s < nt; ++s) {
    adjacent.clear();
    for (int v : topology.triangles[s]) {
      for (int k = topology.vertex_triangle_offsets[v]; k < topology.vertex_triangle_offsets[v + 1]; ++k) {
        const int t = topology.vertex_triangles[k];
        if (t > s) adjacent.push_back(t);
      }
    }
    std::sort(adjacent.begin(), adjacent.end());
    adjacent.erase(std::unique(adjacent.begin(), adjacent.end()), adjacent.end());
    for (int t : adjacent) {
      const int node = lca(leaf_of_triangle_[s], leaf_of_triangle_[t]);
      const auto& ts = topology.triangles[s];
      const auto& tt = topology.triangles[t];
      auto contains = [](const std::array<int, 3>& tri, int v) {
        return tri[0] == v || tri[1] == v || tri[2] == v;
      };
      for (int k = 0; k < 3; ++k) {
        if ((owned_vertices_[s] >> k & 1u) && !contains(tt, ts[k]))
          listed.push_back({node, {PrimitivePair::kVertexTriangle, ts[k], t}});
        if ((owned_vertices_[t] >> k & 1u) && !contains(ts, tt[k]))
          listed.push_back({node, {PrimitivePair::kVertexTriangle, tt[k], s}});
      }
      for (int k = 0; k < 3; ++k) {
        if (!(owned_edges_[s] >> k & 1u)) continue;
        const int e = topology.triangle_edges[s][k];
        for (int l = 0; l < 3; ++l) {
          if (!(owned_edges_[t] >> l & 1u)) continue;
          const int f = topology.triangle_edges[t][l];
          const auto& ea = topology.edges[e];
          const auto& fb = topology.edges[f];
          if (ea[0] == fb[0] || ea[0] == fb[1] || ea[1] == fb[0] || ea[1] == fb[1]) continue;
          listed.push_back({node, {PrimitivePair::kEdgeEdge, e, f}});
        }
      }
    }
  }
  std::sort(listed.begin(), listed.end(), [](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first < y.first;
    return x.second.key() < y.second.key();
  });
  orphans_.resize(listed.size());
  orphan_offsets_.assign(nn + 1, 0);
  for (size_t i = 0; i < listed.size(); ++i) {
    orphans_[i] = listed[i].second;
    ++orphan_offsets_[listed[i].first + 1];
  }
  for (int n = 0; n < nn; ++n) orphan_offsets_[n + 1] += orphan_offsets_[n];
  // Pre-order (node, left subtree, right subtree), the order of static_self_test.
  preorder_orphans_.clear();
  preorder_orphans_.reserve(orphans_.size());
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    if (nodes_[n].triangle >= 0) continue;
    preorder_orphans_.insert(preorder_orphans_.end(), orphans_begin(n), orphans_end(n));
    stack.push_back(nodes_[n].right);
    stack.push_back(nodes_[n].left);
  }
}

void ClothBvh::refit_levels(int threads, const std::vector<char>* vertex_changed, ConeCulling mode,
                            const std::vector<Vec3>* x0, const std::vector<Vec3>* u, double pad,
                            bool swept) {
  const ClothTopology& topo = *topology_;
  // Later CCD passes move few vertices: keep the boxes and (costly) cones of untouched nodes.
  const bool incremental = swept && vertex_changed && swept_current_ && swept_pad_ == pad && mode_ == mode;
  for (int level = static_cast<int>(levels_.size()) - 1; level >= 0; --level) {
    const std::vector<int>& ids = levels_[level];
    // A node's merge of two cones costs about as much as a leaf's cone: a level of 512 nodes
    // (two chunks) is worth a region too, though not the general loops' 1,024 items.
    cloth_parallel_for_from(kMinParallelRefitLevel, static_cast<std::ptrdiff_t>(ids.size()), threads,
                            [&](std::ptrdiff_t k) {
      const int n = ids[k];
      const Node& node = nodes_[n];
      if (incremental) {
        if (node.triangle >= 0) {
          const auto& tri = topo.triangles[node.triangle];
          const std::vector<char>& ch = *vertex_changed;
          changed_[n] = ch[tri[0]] || ch[tri[1]] || ch[tri[2]];
        } else {
          changed_[n] = changed_[node.left] || changed_[node.right];
        }
        if (!changed_[n]) return;
      }
      if (node.triangle >= 0) {
        const auto& tri = topo.triangles[node.triangle];
        const std::vector<Vec3>& x = *x0;
        Aabb b;
        for (int v : tri) {
          b.grow(x[v]);
          if (swept) b.grow(Vec3(x[v] + (*u)[v]));
        }
        box_[n] = b.inflated(pad);
        if (vertex_changed) {
          const std::vector<char>& ch = *vertex_changed;
          changed_[n] = ch[tri[0]] || ch[tri[1]] || ch[tri[2]];
        } else {
          changed_[n] = 1;
        }
        if (swept && mode != ConeCulling::None) {
          const Vec3 &a = x[tri[0]], &b0 = x[tri[1]], &c = x[tri[2]];
          const Vec3 &ua = (*u)[tri[0]], &ub = (*u)[tri[1]], &uc = (*u)[tri[2]];
          const Vec3 n0 = (b0 - a).cross(c - a);
          const Vec3 n1 = (Vec3(b0 + ub) - Vec3(a + ua)).cross(Vec3(c + uc) - Vec3(a + ua));
          const Vec3 delta = (ub - ua).cross(uc - ua);
          cone_[n] = mode == ConeCulling::ProvotTang3 ? continuous_cone_tang3(n0, n1, delta)
                                                     : continuous_cone_5pt(n0, n1, delta);
        }
      } else {
        Aabb b = box_[node.left];
        b.grow(box_[node.right]);
        box_[n] = b;
        changed_[n] = changed_[node.left] || changed_[node.right];
        if (swept && mode != ConeCulling::None) {
          const NormalCone& cl = cone_[node.left];
          const NormalCone& cr = cone_[node.right];
          // Both merges are at least as wide as either input (Provot: β/2 + max(α1, α2); Alg. 1:
          // a containing input, else α − αi = (β ± (α2 − α1))/2 > 0), so a child of π/2 or more
          // makes this node, its ancestors and every union with it unculled whatever its cone
          // is: mark it full and skip the trigonometry (most of a crumpled cloth's upper tree).
          if (cl.angle >= kHalfPi || cr.angle >= kHalfPi) {
            cone_[n] = NormalCone{Vec3::UnitZ(), kPi};
          } else {
            cone_[n] = mode == ConeCulling::ProvotTang3 ? merge_provot(cl, cr) : merge_tight(cl, cr);
          }
        }
      }
    });
  }
}

void ClothBvh::refit_swept(const std::vector<Vec3>& x0, const std::vector<Vec3>& u, double pad,
                           ConeCulling mode, const std::vector<char>* vertex_changed, int threads) {
  if (nodes_.empty()) return;
  refit_levels(threads, vertex_changed, mode, &x0, &u, pad, true);
  mode_ = mode;
  swept_current_ = true;
  swept_pad_ = pad;
}

void ClothBvh::refit_static(const std::vector<Vec3>& x, double pad, int threads) {
  swept_current_ = false;
  if (nodes_.empty()) return;
  refit_levels(threads, nullptr, ConeCulling::None, &x, nullptr, pad, false);
}

bool ClothBvh::contour_ok(int n, const std::vector<Vec3>& x0, const std::vector<Vec3>& u) const {
  const int begin = loop_offsets_[n], end = loop_offsets_[n + 1];
  return loop_contour_ok(loop_vertices_.data() + begin, end - begin, cone_[n].axis, x0, u);
}

bool ClothBvh::loop_contour_ok(const int* loop, int m, const Vec3& a, const std::vector<Vec3>& x0,
                               const std::vector<Vec3>& u) const {
  if (m < 3) return false;
  Vec3 c0 = Vec3::Zero(), cu = Vec3::Zero();
  for (int k = 0; k < m; ++k) {
    c0 += x0[loop[k]];
    cu += u[loop[k]];
  }
  c0 /= m;
  cu /= m;
  for (int k = 0; k < m; ++k) {
    const int p = loop[k], q = loop[(k + 1) % m];
    const Vec3 P0 = x0[p] - c0, Q0 = x0[q] - c0;
    const Vec3 P1 = P0 + (u[p] - cu), Q1 = Q0 + (u[q] - cu);
    // g(t) = ((P × Q)·a)(t), quadratic; Bernstein coefficients must be strictly positive.
    const double b0 = P0.cross(Q0).dot(a);
    const double b1 = 0.5 * (P0.cross(Q1) + P1.cross(Q0)).dot(a);
    const double b2 = P1.cross(Q1).dot(a);
    const double scale = std::max(P0.norm(), P1.norm()) * std::max(Q0.norm(), Q1.norm());
    const double err = 1e-12 * scale;
    if (!(b0 > err && b1 > err && b2 > err)) return false;
  }
  // Every edge turns positively about c, so the boundary winds k ≥ 1 times; only k = 1 is a
  // simple curve. k = the number of times it crosses the ray from c through its first vertex,
  // each crossing going from the ray's negative side to its non-negative side (at t = 0).
  const Vec3 d = x0[loop[0]] - c0;
  auto side = [&](int k) { return d.cross(x0[loop[k]] - c0).dot(a); };
  int crossings = 0;
  double s_cur = side(0);
  for (int k = 0; k < m; ++k) {
    const double s_next = side((k + 1) % m);
    if (s_cur < 0 && s_next >= 0) ++crossings;
    s_cur = s_next;
  }
  return crossings == 1;
}

bool ClothBvh::union_culled(int a, int b, const std::vector<Vec3>& x0, const std::vector<Vec3>& u,
                            UnionScratch& scratch) const {
  if (!is_disk(a) || !is_disk(b)) return false;
  // A merged cone is at least as wide as either input (see refit_levels).
  if (cone_[a].angle >= kHalfPi || cone_[b].angle >= kHalfPi) return false;
  const NormalCone merged = mode_ == ConeCulling::ProvotTang3 ? merge_provot(cone_[a], cone_[b])
                                                              : merge_tight(cone_[a], cone_[b]);
  if (!(merged.angle < kHalfPi)) return false;
  // Directed boundary of the union: both loops' edges minus the shared ones, which the two
  // consistently oriented patches traverse in opposite directions. The union is a disk with a
  // simple boundary exactly when the shared edges form one run and no other vertex is on both
  // loops (two runs would leave an annulus; a vertex shared off the run, a pinch). Linear in
  // the loop lengths: loop a's vertices are stamped with their position in a, so b's edge
  // p → q is shared when q comes just before p in a.
  const int* la = loop_vertices_.data() + loop_offsets_[a];
  const int* lb = loop_vertices_.data() + loop_offsets_[b];
  const int ma = loop_offsets_[a + 1] - loop_offsets_[a];
  const int mb = loop_offsets_[b + 1] - loop_offsets_[b];
  std::vector<int>& stamp = scratch.stamp;
  std::vector<int>& loop_position = scratch.position;
  std::vector<char>& union_shared = scratch.shared;
  std::vector<int>& union_loop = scratch.loop;
  if (scratch.token == std::numeric_limits<int>::max()) {
    std::fill(stamp.begin(), stamp.end(), 0);
    scratch.token = 0;
  }
  const int token = ++scratch.token;
  for (int k = 0; k < ma; ++k) {
    stamp[la[k]] = token;
    loop_position[la[k]] = k;
  }
  auto shared_edge = [&](int k) {  // edge k of b, lb[k] → lb[k + 1]
    const int p = lb[k], q = lb[k + 1 == mb ? 0 : k + 1];
    if (stamp[p] != token || stamp[q] != token) return false;
    const int next = loop_position[q] + 1;
    return loop_position[p] == (next == ma ? 0 : next);
  };
  union_shared.resize(mb);
  int shared = 0;
  for (int k = 0; k < mb; ++k) {
    union_shared[k] = shared_edge(k) ? 1 : 0;
    shared += union_shared[k];
  }
  int runs = 0, run_end = -1;
  for (int k = 0; k < mb; ++k) {
    if (union_shared[k] && !union_shared[k + 1 == mb ? 0 : k + 1]) {
      ++runs;
      run_end = k;
    }
  }
  if (runs != 1 || ma + mb - 2 * shared < 3) return false;
  // b's run goes lb[s] → … → lb[e + 1] and a's, reversed, lb[e + 1] → … → lb[s]. The union's
  // boundary: b from lb[e + 1] on to just before lb[s], then a from lb[s] on to just before
  // lb[e + 1]. A vertex strictly inside b's remaining path that is also on a is a pinch.
  union_loop.clear();
  const int b_first = run_end + 1 == mb ? 0 : run_end + 1;
  const int b_count = mb - shared;
  for (int i = 0; i < b_count; ++i) {
    const int v = lb[(b_first + i) % mb];
    if (i > 0 && stamp[v] == token) return false;
    union_loop.push_back(v);
  }
  const int run_start_vertex = lb[(b_first + b_count) % mb];
  const int a_first = loop_position[run_start_vertex];
  const int a_count = ma - shared;
  for (int i = 0; i < a_count; ++i) union_loop.push_back(la[(a_first + i) % ma]);
  return loop_contour_ok(union_loop.data(), static_cast<int>(union_loop.size()), merged.axis, x0, u);
}

namespace {

// Depth down to which a split traversal descends serially, cutting what lies below into tasks
// (up to 2^depth self-tests, and the pair tests met on the way down): a few hundred tasks,
// enough for dynamic scheduling to even out patches that are culled whole beside crumpled ones.
constexpr int kTaskDepth = 6;
// Triangles from which a traversal is split: below, it takes well under 0.1 ms.
constexpr int kMinSplitTriangles = 2048;

}  // namespace

void ClothBvh::traverse(bool use_cones, bool only_changed, const std::vector<Vec3>* x0,
                        const std::vector<Vec3>* u, Traversal& out, int threads) const {
  out.clear();
  if (nodes_.empty()) return;
  const int triangles = static_cast<int>(leaf_of_triangle_.size());
  const int team_threads = cloth_threads_for(triangles, threads, kMinSplitTriangles);
  Walk walk{use_cones, only_changed, x0, u, &scratch_[0], &out};
  if (team_threads == 1) {
    if (!use_cones && !only_changed) {
      static_self_test(0, out);
    } else {
      self_test(0, walk);
    }
    return;
  }
  // The top levels serially, into tasks (their culling counted in `out`)...
  tasks_.clear();
  split_self_test(0, 0, walk);
  if (static_cast<int>(scratch_.size()) < team_threads) {
    const std::size_t nv = scratch_[0].stamp.size();
    scratch_.resize(team_threads);
    for (UnionScratch& s : scratch_) {
      s.stamp.resize(nv, 0);
      s.position.resize(nv, 0);
    }
  }
  const std::ptrdiff_t task_count = static_cast<std::ptrdiff_t>(tasks_.size());
  if (static_cast<std::ptrdiff_t>(task_out_.size()) < task_count) task_out_.resize(task_count);
  // ... the tasks on the team, each into its own lists ...
  run_team(team_threads, [&](auto& team) {
    Walk mine = walk;
    mine.scratch = &scratch_[team.thread()];
    team.for_dynamic(task_count, [&](std::ptrdiff_t k) {
      Traversal& part = task_out_[k];
      part.clear();
      mine.out = &part;
      run_task(tasks_[k], mine);
    });
  });
  // ... joined in task order: the serial descent's order.
  for (std::ptrdiff_t k = 0; k < task_count; ++k) {
    const Traversal& part = task_out_[k];
    out.triangle_pairs.insert(out.triangle_pairs.end(), part.triangle_pairs.begin(), part.triangle_pairs.end());
    out.orphan_nodes.insert(out.orphan_nodes.end(), part.orphan_nodes.begin(), part.orphan_nodes.end());
    out.culled_nodes += part.culled_nodes;
    out.culled_pairs += part.culled_pairs;
  }
}

void ClothBvh::run_task(const Task& task, Walk& walk) const {
  const bool plain = !walk.use_cones && !walk.only_changed;
  if (task.b == kOrphanTask) {
    walk.out->orphan_nodes.push_back(task.a);
  } else if (task.b == kSelfTask) {
    if (plain) {
      static_self_test(task.a, *walk.out);
    } else {
      self_test(task.a, walk);
    }
  } else if (plain) {
    static_visit(task.a, task.b, *walk.out);
  } else {
    pair_test(task.a, task.b, walk);
  }
}

// self_test's steps (static_self_test's, for a plain traversal, are the same), with what it
// would record or descend into below kTaskDepth listed as tasks.
void ClothBvh::split_self_test(int n, int depth, Walk& walk) const {
  const Node& node = nodes_[n];
  if (node.triangle >= 0) return;
  if (depth == kTaskDepth) {
    tasks_.push_back({n, kSelfTask});
    return;
  }
  if (walk.only_changed && !changed_[n]) return;
  if (walk.use_cones && cone_[n].angle < kHalfPi && is_disk(n) && contour_ok(n, *walk.x0, *walk.u)) {
    ++walk.out->culled_nodes;
    return;
  }
  if (orphan_offsets_[n + 1] > orphan_offsets_[n]) tasks_.push_back({n, kOrphanTask});
  split_self_test(node.left, depth + 1, walk);
  split_self_test(node.right, depth + 1, walk);
  split_pair_test(node.left, node.right, depth + 1, walk);
}

// pair_test's steps (static_visit's make the same decisions: a leaf pair is recorded when
// the triangles share no vertex and their boxes overlap; other pairs descend when their boxes
// overlap, by the same rule), a leaf pair or one below kTaskDepth becoming a task.
void ClothBvh::split_pair_test(int a, int b, int depth, Walk& walk) const {
  const Node& na = nodes_[a];
  const Node& nb = nodes_[b];
  if (depth == kTaskDepth || (na.triangle >= 0 && nb.triangle >= 0)) {
    tasks_.push_back({a, b});
    return;
  }
  if (walk.only_changed && !changed_[a] && !changed_[b]) return;
  if (!box_[a].overlaps(box_[b])) return;
  if (walk.use_cones && union_culled(a, b, *walk.x0, *walk.u, *walk.scratch)) {
    ++walk.out->culled_pairs;
    return;
  }
  const bool descend_a = nb.triangle >= 0 || (na.triangle < 0 && na.depth <= nb.depth);
  if (descend_a) {
    split_pair_test(na.left, b, depth + 1, walk);
    split_pair_test(na.right, b, depth + 1, walk);
  } else {
    split_pair_test(a, nb.left, depth + 1, walk);
    split_pair_test(a, nb.right, depth + 1, walk);
  }
}

// The plain traversal (no cones, every node) in exactly the order of self_test / pair_test
// (same descent rule; a pair is entered only when its boxes overlap, which pair_test checks
// first), with the box test of a child pair and the leaf–leaf case done in the caller: most of
// the static traversal is spent on the seams between adjacent patches, whose leaf pairs share
// a vertex and end there, so saving a call per pair is a large part of its cost.
void ClothBvh::static_self_test(int n, Traversal& out) const {
  const Node& node = nodes_[n];
  if (node.triangle >= 0) return;
  if (orphan_offsets_[n + 1] > orphan_offsets_[n]) out.orphan_nodes.push_back(n);
  static_self_test(node.left, out);
  static_self_test(node.right, out);
  static_visit(node.left, node.right, out);
}

inline void ClothBvh::static_visit(int a, int b, Traversal& out) const {
  const Node& na = nodes_[a];
  const Node& nb = nodes_[b];
  if (na.triangle >= 0 && nb.triangle >= 0) {
    // Two leaves: the topology test first. A third of the pairs a traversal reaches are
    // neighbours sharing a vertex, whose boxes always overlap; they need no box test.
    const auto& s = topology_->triangles[na.triangle];
    const auto& t = topology_->triangles[nb.triangle];
    const bool share = s[0] == t[0] || s[0] == t[1] || s[0] == t[2] || s[1] == t[0] || s[1] == t[1] ||
                       s[1] == t[2] || s[2] == t[0] || s[2] == t[1] || s[2] == t[2];
    if (!share && box_[a].overlaps(box_[b])) out.triangle_pairs.push_back({na.triangle, nb.triangle});
    return;
  }
  if (!box_[a].overlaps(box_[b])) return;
  static_pair_test(a, b, out);
}

void ClothBvh::static_pair_test(int a, int b, Traversal& out) const {
  const Node& na = nodes_[a];
  const Node& nb = nodes_[b];
  const bool descend_a = nb.triangle >= 0 || (na.triangle < 0 && na.depth <= nb.depth);
  if (descend_a) {
    static_visit(na.left, b, out);
    static_visit(na.right, b, out);
  } else {
    static_visit(a, nb.left, out);
    static_visit(a, nb.right, out);
  }
}

void ClothBvh::self_test(int n, Walk& walk) const {
  const Node& node = nodes_[n];
  if (node.triangle >= 0) return;
  if (walk.only_changed && !changed_[n]) return;
  if (walk.use_cones && cone_[n].angle < kHalfPi && is_disk(n) && contour_ok(n, *walk.x0, *walk.u)) {
    ++walk.out->culled_nodes;
    return;
  }
  if (orphan_offsets_[n + 1] > orphan_offsets_[n]) walk.out->orphan_nodes.push_back(n);
  self_test(node.left, walk);
  self_test(node.right, walk);
  pair_test(node.left, node.right, walk);
}

void ClothBvh::pair_test(int a, int b, Walk& walk) const {
  if (walk.only_changed && !changed_[a] && !changed_[b]) return;
  if (!box_[a].overlaps(box_[b])) return;
  const Node& na = nodes_[a];
  const Node& nb = nodes_[b];
  if (na.triangle >= 0 && nb.triangle >= 0) {
    if (!topology_->triangles_share_vertex(na.triangle, nb.triangle))
      walk.out->triangle_pairs.push_back({na.triangle, nb.triangle});
    return;
  }
  if (walk.use_cones && union_culled(a, b, *walk.x0, *walk.u, *walk.scratch)) {
    ++walk.out->culled_pairs;
    return;
  }
  const bool descend_a = nb.triangle >= 0 || (na.triangle < 0 && na.depth <= nb.depth);
  if (descend_a) {
    pair_test(na.left, b, walk);
    pair_test(na.right, b, walk);
  } else {
    pair_test(a, nb.left, walk);
    pair_test(a, nb.right, walk);
  }
}

int ClothBvh::write_leaf_pair_primitives(int s, int t, PrimitivePair* out) const {
  const ClothTopology& topo = *topology_;
  int count = 0;
  for (int k = 0; k < 3; ++k) {
    if (owned_vertices_[s] >> k & 1u) out[count++] = {PrimitivePair::kVertexTriangle, topo.triangles[s][k], t};
    if (owned_vertices_[t] >> k & 1u) out[count++] = {PrimitivePair::kVertexTriangle, topo.triangles[t][k], s};
  }
  for (int k = 0; k < 3; ++k) {
    if (!(owned_edges_[s] >> k & 1u)) continue;
    for (int l = 0; l < 3; ++l) {
      if (owned_edges_[t] >> l & 1u)
        out[count++] = {PrimitivePair::kEdgeEdge, topo.triangle_edges[s][k], topo.triangle_edges[t][l]};
    }
  }
  return count;
}

int ClothBvh::leaf_pair_primitive_count(int s, int t) const {
  auto bits = [](std::uint8_t b) { return (b & 1) + (b >> 1 & 1) + (b >> 2 & 1); };
  return bits(owned_vertices_[s]) + bits(owned_vertices_[t]) + bits(owned_edges_[s]) * bits(owned_edges_[t]);
}

void ClothBvh::append_leaf_pair_primitives(const std::vector<std::array<int, 2>>& pairs,
                                           std::vector<PrimitivePair>& out, int threads) const {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(pairs.size());
  // Each chunk's count, then the chunks' offsets in order, then each chunk writes its pairs.
  chunk_offsets_.assign(chunk_count(n) + 1, 0);
  for_each_chunk(n, threads, [&](std::ptrdiff_t c, std::ptrdiff_t begin, std::ptrdiff_t end) {
    std::size_t count = 0;
    for (std::ptrdiff_t i = begin; i < end; ++i) count += leaf_pair_primitive_count(pairs[i][0], pairs[i][1]);
    chunk_offsets_[c + 1] = count;
  });
  chunk_offsets_[0] = out.size();
  for (std::size_t c = 1; c < chunk_offsets_.size(); ++c) chunk_offsets_[c] += chunk_offsets_[c - 1];
  out.resize(chunk_offsets_.back());
  for_each_chunk(n, threads, [&](std::ptrdiff_t c, std::ptrdiff_t begin, std::ptrdiff_t end) {
    PrimitivePair* at = out.data() + chunk_offsets_[c];
    for (std::ptrdiff_t i = begin; i < end; ++i) at += write_leaf_pair_primitives(pairs[i][0], pairs[i][1], at);
  });
}

}  // namespace impetus
