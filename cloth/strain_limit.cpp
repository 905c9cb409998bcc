#include "cloth/strain_limit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include "cloth/cloth_parallel.h"
#include "collision/base/aabb.h"

namespace impetus {

void StrainLimiter::build(const std::vector<std::array<int, 2>>& edges, const std::vector<Vec3>& rest,
                          const std::vector<int>& anchors) {
  edges_ = edges;
  rest_length_.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) rest_length_[e] = (rest[edges[e][0]] - rest[edges[e][1]]).norm();
  // The 64-edge words holding each vertex's edges, for the change tracking of limit(): visited
  // in edge order, a vertex's words come in ascending order, so comparing with the last one
  // listed keeps them distinct.
  std::vector<std::vector<int>> words(rest.size());
  for (size_t e = 0; e < edges.size(); ++e)
    for (int end : edges[e])
      if (words[end].empty() || words[end].back() != static_cast<int>(e / 64)) words[end].push_back(static_cast<int>(e / 64));
  vertex_word_start_.assign(rest.size() + 1, 0);
  vertex_words_.clear();
  for (size_t i = 0; i < rest.size(); ++i) {
    vertex_words_.insert(vertex_words_.end(), words[i].begin(), words[i].end());
    vertex_word_start_[i + 1] = static_cast<int>(vertex_words_.size());
  }
  anchors_ = anchors;
  std::sort(anchors_.begin(), anchors_.end());
  anchors_.erase(std::unique(anchors_.begin(), anchors_.end()), anchors_.end());
  const int nv = static_cast<int>(rest.size());
  tether_length_.assign(anchors_.size() * rest.size(), 0.0);
  if (anchors_.empty()) return;
  // Flat rest sheet: the straight rest distance is the geodesic one.
  Aabb box;
  for (const Vec3& p : rest) box.grow(p);
  const double size = std::max(box.extent().maxCoeff(), 1e-12);
  bool flat = edges.size() >= 2;
  Vec3 normal = Vec3::Zero();
  for (size_t e = 1; e < edges.size() && normal.squaredNorm() == 0; ++e) {
    const Vec3 c = (rest[edges[0][1]] - rest[edges[0][0]]).cross(rest[edges[e][1]] - rest[edges[e][0]]);
    if (c.norm() > 1e-9 * size * size) normal = c.normalized();
  }
  if (normal.squaredNorm() == 0) flat = false;
  for (int i = 0; flat && i < nv; ++i) flat = std::abs(normal.dot(rest[i] - rest[edges[0][0]])) <= 1e-9 * size;
  // Otherwise: shortest paths along the rest edges (Dijkstra), an upper bound of the geodesic.
  std::vector<std::vector<std::pair<int, double>>> adjacency;
  if (!flat) {
    adjacency.resize(nv);
    for (size_t e = 0; e < edges.size(); ++e) {
      adjacency[edges[e][0]].push_back({edges[e][1], rest_length_[e]});
      adjacency[edges[e][1]].push_back({edges[e][0], rest_length_[e]});
    }
  }
  for (size_t a = 0; a < anchors_.size(); ++a) {
    double* length = &tether_length_[a * rest.size()];
    const int anchor = anchors_[a];
    if (flat) {
      for (int i = 0; i < nv; ++i) length[i] = (rest[i] - rest[anchor]).norm();
      continue;
    }
    std::fill(length, length + nv, std::numeric_limits<double>::infinity());
    using Item = std::pair<double, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
    length[anchor] = 0;
    queue.push({0.0, anchor});
    while (!queue.empty()) {
      const auto [d, i] = queue.top();
      queue.pop();
      if (d > length[i]) continue;
      for (const auto& [j, l] : adjacency[i]) {
        if (d + l < length[j]) {
          length[j] = d + l;
          queue.push({length[j], j});
        }
      }
    }
  }
}

StrainLimitStats StrainLimiter::limit(const std::vector<Vec3>& x0, std::vector<Vec3>& u,
                                      const std::vector<double>& inv_mass, double limit,
                                      double tolerance, int max_sweeps, bool use_tethers,
                                      int threads) const {
  StrainLimitStats stats;
  const int ne = static_cast<int>(edges_.size());
  const int nv = static_cast<int>(x0.size());
  const int na = use_tethers ? static_cast<int>(anchors_.size()) : 0;
  const double lo = std::max(0.0, 1.0 - limit), hi = 1.0 + limit;
  const double lo2 = lo * lo, hi2 = hi * hi;
  // Change tracking: moved_[i] is the clock of the last change of u[i], ok_[e] (tether_ok_[·])
  // the clock at which the edge (tether) was last found within its bounds. A constraint found
  // within its bounds whose vertices have not changed since would be found so again from the
  // same numbers: it is skipped, which gives the same bits as testing it.
  // Visiting every constraint in every sweep to check its clocks cost more than the tests
  // themselves (the hanging 64 × 64 sheet: ~82,800 visits a step for ~17,600 tests), so the
  // constraints go by words of 64, each with a flag: a word is visited only when one of its
  // constraints may have changed since its last visit (a move of one of its vertices, or a
  // constraint left beyond its bound). A move ahead of the sweep is visited in that sweep, one
  // behind it in the next, as when every word is visited. A move sets a few flags (the words of
  // the vertex's edges) rather than a bit per edge: a sheet pressed on boxes projects a third of
  // the edges it tests, and marking each of their edges cost more than the visits saved.
  const int edge_words = (ne + 63) / 64, vertex_words = (nv + 63) / 64;
  long long clock = 1;
  moved_.assign(nv, 0);
  ok_.resize(ne);
  edge_word_open_.resize(edge_words);
  tether_ok_.resize(static_cast<size_t>(na) * nv);
  tether_word_open_.resize(static_cast<size_t>(na) * vertex_words);
  auto end_position = [&](int i) { return Vec3(x0[i] + u[i]); };
  auto edge_within = [&](int e, double& len2) {
    const Vec3 d = end_position(edges_[e][1]) - end_position(edges_[e][0]);
    len2 = d.squaredNorm();
    const double r2 = rest_length_[e] * rest_length_[e];
    return len2 <= hi2 * r2 && len2 >= lo2 * r2;
  };
  auto tether_within = [&](const Vec3& pa, double length, int i, double& len2, Vec3& d) {
    const double bound = hi * length;
    d = end_position(i) - pa;
    len2 = d.squaredNorm();
    return !(len2 > bound * bound);
  };
  // The first sweep's tests at the start positions, in parallel (clock 1): what the first sweep
  // would find on reaching each constraint, unless one of its vertices moved before, which a
  // later clock tells. Chunks of kChunkSize (a multiple of 64) constraints fill whole words.
  static_assert(kChunkSize % 64 == 0);
  auto first_tests = [&](int count, long long* ok, char* open_words, auto&& within) {
    for_each_chunk(count, threads, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
      for (std::ptrdiff_t w = begin / 64; w < (end + 63) / 64; ++w) {
        char open = 0;
        for (int k = static_cast<int>(64 * w); k < std::min<std::ptrdiff_t>(end, 64 * (w + 1)); ++k) {
          const bool in = within(k);
          ok[k] = in ? 1 : -1;
          open |= !in;
        }
        open_words[w] = open;
      }
    });
  };
  // The constraints of the flagged words, by words (forward: ascending, else descending); a
  // word's flag is cleared before its visit, so a move within the visit flags it for the next.
  auto visit_flagged = [](int count, char* open_words, bool forward, auto&& visit) {
    const int words = (count + 63) / 64;
    for (int n = 0; n < words; ++n) {
      const int w = forward ? n : words - 1 - n;
      if (!open_words[w]) continue;
      open_words[w] = 0;
      const int first = 64 * w, last = std::min(count, 64 * (w + 1)) - 1;
      if (forward) {
        for (int k = first; k <= last; ++k) visit(k);
      } else {
        for (int k = last; k >= first; --k) visit(k);
      }
    }
  };
  first_tests(ne, ok_.data(), edge_word_open_.data(), [&](int e) {
    double len2;
    return edge_within(e, len2);
  });
  for (int a = 0; a < na; ++a) {
    const Vec3 pa = end_position(anchors_[a]);
    const double* length = &tether_length_[a * x0.size()];
    first_tests(nv, &tether_ok_[a * x0.size()], &tether_word_open_[a * vertex_words], [&](int i) {
      double len2;
      Vec3 d;
      return !(inv_mass[i] > 0) || tether_within(pa, length[i], i, len2, d);  // pinned: no tethers
    });
  }
  auto mark_moved = [&](int i, long long when) {
    moved_[i] = when;
    for (int k = vertex_word_start_[i]; k < vertex_word_start_[i + 1]; ++k) edge_word_open_[vertex_words_[k]] = 1;
    for (int a = 0; a < na; ++a) tether_word_open_[a * vertex_words + i / 64] = 1;
  };
  // One projection of edge e; returns its excess beyond the bound as a strain (0 if within).
  auto project = [&](int e) {
    const int i = edges_[e][0], j = edges_[e][1];
    if (ok_[e] > moved_[i] && ok_[e] > moved_[j]) return 0.0;
    double len2;
    if (edge_within(e, len2)) {
      ok_[e] = ++clock;
      return 0.0;
    }
    const double wi = inv_mass[i], wj = inv_mass[j];
    const double l0 = rest_length_[e];
    const double len = std::sqrt(len2);
    const double target = std::clamp(len, lo * l0, hi * l0);
    const double excess = std::abs(len - target) / l0;
    const double w = wi + wj;
    if (!(w > 0) || !(len > 0)) {
      edge_word_open_[e / 64] = 1;  // still beyond its bound: tested again next sweep
      return 0.0;
    }
    const Vec3 corr = ((len - target) / (len * w)) * (end_position(j) - end_position(i));
    u[i] += wi * corr;  // moves i towards j when too long
    u[j] -= wj * corr;
    const long long when = ++clock;
    mark_moved(i, when);
    mark_moved(j, when);
    return excess;
  };
  // Tethers: vertex i no farther than (1 + ε)·rest distance from each anchor's end position
  // (anchors have no inverse mass: the edges never move them).
  auto tethers = [&]() {
    for (int a = 0; a < na; ++a) {
      const Vec3 pa = end_position(anchors_[a]);
      const double* length = &tether_length_[a * x0.size()];
      long long* ok = &tether_ok_[a * x0.size()];
      visit_flagged(nv, &tether_word_open_[a * vertex_words], true, [&](int i) {
        if (!(inv_mass[i] > 0)) return;
        if (ok[i] > moved_[i]) return;
        double len2;
        Vec3 d;
        if (tether_within(pa, length[i], i, len2, d)) {
          ok[i] = ++clock;
          return;
        }
        const double len = std::sqrt(len2);
        u[i] -= ((len - hi * length[i]) / len) * d;
        mark_moved(i, ++clock);
      });
    }
  };
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    double worst = 0;
    int limited = 0;
    auto visit = [&](int e) {
      const double excess = project(e);
      if (excess > 0) {
        ++limited;
        worst = std::max(worst, excess);
      }
    };
    tethers();
    visit_flagged(ne, edge_word_open_.data(), sweep % 2 == 0, visit);
    if (sweep == 0) {
      stats.edges_limited = limited;
      stats.worst_before = limited > 0 ? limit + worst : 0.0;
    }
    if (limited == 0) break;
    stats.sweeps = sweep + 1;
    if (worst <= tolerance) break;
  }
  return stats;
}

int StrainLimiter::violated_tethers(int i, const std::vector<Vec3>& x0, const std::vector<Vec3>& u,
                                    double limit, Vec3* directions, int max) const {
  int count = 0;
  const Vec3 p = x0[i] + u[i];
  for (size_t a = 0; a < anchors_.size() && count < max; ++a) {
    const Vec3 d = p - (x0[anchors_[a]] + u[anchors_[a]]);
    const double len = d.norm();
    if (len > (1.0 + limit) * tether_length_[a * x0.size() + i] && len > 0) directions[count++] = d / len;
  }
  return count;
}

double StrainLimiter::max_strain(const std::vector<Vec3>& x) const {
  double worst = 0;
  for (size_t e = 0; e < edges_.size(); ++e) {
    const double len = (x[edges_[e][0]] - x[edges_[e][1]]).norm();
    worst = std::max(worst, len / rest_length_[e] - 1.0);
  }
  return worst;
}

double StrainLimiter::max_compression(const std::vector<Vec3>& x) const {
  double worst = 0;
  for (size_t e = 0; e < edges_.size(); ++e) {
    const double len = (x[edges_[e][0]] - x[edges_[e][1]]).norm();
    worst = std::max(worst, 1.0 - len / rest_length_[e]);
  }
  return worst;
}

void StrainLimiter::max_strain_and_compression(const std::vector<Vec3>& x, double& strain,
                                               double& compression, int threads) const {
  // Largest values per chunk, then over the chunks: a maximum is the same whatever the grouping.
  const std::ptrdiff_t ne = static_cast<std::ptrdiff_t>(edges_.size());
  chunk_extremes_.resize(chunk_count(ne));
  for_each_chunk(ne, threads, [&](std::ptrdiff_t chunk, std::ptrdiff_t begin, std::ptrdiff_t end) {
    double worst = 0, worst_c = 0;
    for (std::ptrdiff_t e = begin; e < end; ++e) {
      const double ratio = (x[edges_[e][0]] - x[edges_[e][1]]).norm() / rest_length_[e];
      worst = std::max(worst, ratio - 1.0);
      worst_c = std::max(worst_c, 1.0 - ratio);
    }
    chunk_extremes_[chunk] = {worst, worst_c};
  });
  strain = compression = 0;
  for (const auto& [worst, worst_c] : chunk_extremes_) {
    strain = std::max(strain, worst);
    compression = std::max(compression, worst_c);
  }
}

double StrainLimiter::mean_strain(const std::vector<Vec3>& x) const {
  if (edges_.empty()) return 0.0;
  double sum = 0;
  for (size_t e = 0; e < edges_.size(); ++e) {
    const double len = (x[edges_[e][0]] - x[edges_[e][1]]).norm();
    sum += std::abs(len / rest_length_[e] - 1.0);
  }
  return sum / static_cast<double>(edges_.size());
}

}  // namespace impetus
