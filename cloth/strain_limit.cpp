#include "cloth/strain_limit.h"

#include <algorithm>
#include <bit>
#include <cstdint>
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
  // Each vertex's edges, for the change tracking of limit().
  vertex_edge_start_.assign(rest.size() + 1, 0);
  for (const auto& e : edges) {
    ++vertex_edge_start_[e[0] + 1];
    ++vertex_edge_start_[e[1] + 1];
  }
  for (size_t i = 0; i < rest.size(); ++i) vertex_edge_start_[i + 1] += vertex_edge_start_[i];
  vertex_edges_.assign(vertex_edge_start_.back(), 0);
  std::vector<int> fill(vertex_edge_start_.begin(), vertex_edge_start_.end() - 1);
  for (size_t e = 0; e < edges.size(); ++e)
    for (int end : edges[e]) vertex_edges_[fill[end]++] = static_cast<int>(e);
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

namespace {

// Bits of a word above bit b (forward sweeps) and below it (backward sweeps).
inline std::uint64_t bits_above(int b) { return b == 63 ? 0 : ~std::uint64_t{0} << (b + 1); }
inline std::uint64_t bits_below(int b) { return (std::uint64_t{1} << b) - 1; }

}  // namespace

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
  // Change tracking: a constraint is clean once it was found within its bounds, and turns dirty
  // again when one of its vertices moves. A clean constraint would be found within its bounds
  // again from the same numbers, so skipping it gives the same bits as testing it; only the dirty
  // ones are visited, in sweep order, from bit sets (one bit an edge, one bit a free vertex per
  // anchor). Marks ahead of a sweep's position are visited in that sweep, marks behind it in the
  // next, as when every constraint is visited and tested: the hanging 64 × 64 sheet tests ~17,600
  // edges a step, while a visit of every edge in each of its ~6.6 sweeps made ~82,800 visits.
  const int edge_words = (ne + 63) / 64, vertex_words = (nv + 63) / 64;
  auto end_position = [&](int i) { return Vec3(x0[i] + u[i]); };
  auto edge_within = [&](int e, double& len2) {
    const Vec3 d = end_position(edges_[e][1]) - end_position(edges_[e][0]);
    len2 = d.squaredNorm();
    const double r2 = rest_length_[e] * rest_length_[e];
    return len2 <= hi2 * r2 && len2 >= lo2 * r2;
  };
  // The first sweep's tests at the start positions, in parallel: a constraint within its bounds
  // there starts clean, which is what the first sweep would find on reaching it unless one of its
  // vertices moved before, and that move marks it dirty again. Chunks of kChunkSize (a multiple of
  // 64) indices write whole words of their own.
  static_assert(kChunkSize % 64 == 0);
  dirty_edges_.resize(edge_words);
  for_each_chunk(ne, threads, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
    for (std::ptrdiff_t w = begin / 64; w < (end + 63) / 64; ++w) {
      std::uint64_t bits = 0;
      const int last = static_cast<int>(std::min<std::ptrdiff_t>(end, 64 * (w + 1)));
      double len2;
      for (int e = static_cast<int>(64 * w); e < last; ++e)
        if (!edge_within(e, len2)) bits |= std::uint64_t{1} << (e % 64);
      dirty_edges_[w] = bits;
    }
  });
  dirty_tethers_.resize(static_cast<size_t>(na) * vertex_words);
  for (int a = 0; a < na; ++a) {
    const Vec3 pa = end_position(anchors_[a]);
    const double* length = &tether_length_[a * x0.size()];
    std::uint64_t* dirty = &dirty_tethers_[a * vertex_words];
    for_each_chunk(nv, threads, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
      for (std::ptrdiff_t w = begin / 64; w < (end + 63) / 64; ++w) {
        std::uint64_t bits = 0;
        const int last = static_cast<int>(std::min<std::ptrdiff_t>(end, 64 * (w + 1)));
        for (int i = static_cast<int>(64 * w); i < last; ++i) {
          if (!(inv_mass[i] > 0)) continue;  // a pinned vertex has no tethers of its own
          const double bound = hi * length[i];
          if ((end_position(i) - pa).squaredNorm() > bound * bound) bits |= std::uint64_t{1} << (i % 64);
        }
        dirty[w] = bits;
      }
    });
  }
  auto mark_moved = [&](int i) {
    for (int k = vertex_edge_start_[i]; k < vertex_edge_start_[i + 1]; ++k) {
      const int e = vertex_edges_[k];
      dirty_edges_[e / 64] |= std::uint64_t{1} << (e % 64);
    }
    if (!(inv_mass[i] > 0)) return;  // a pinned vertex has no tethers of its own
    for (int a = 0; a < na; ++a) dirty_tethers_[a * vertex_words + i / 64] |= std::uint64_t{1} << (i % 64);
  };
  // One projection of dirty edge e; returns its excess beyond the bound as a strain (0 if within).
  auto project = [&](int e) {
    const int i = edges_[e][0], j = edges_[e][1];
    const double wi = inv_mass[i], wj = inv_mass[j];
    const double l0 = rest_length_[e];
    double len2;
    if (edge_within(e, len2)) {
      dirty_edges_[e / 64] &= ~(std::uint64_t{1} << (e % 64));
      return 0.0;
    }
    const Vec3 d = end_position(j) - end_position(i);
    const double len = std::sqrt(len2);
    const double target = std::clamp(len, lo * l0, hi * l0);
    const double excess = std::abs(len - target) / l0;
    const double w = wi + wj;
    if (!(w > 0) || !(len > 0)) return 0.0;  // stays dirty, as it is still beyond its bound
    const Vec3 corr = ((len - target) / (len * w)) * d;  // moves i towards j when too long
    u[i] += wi * corr;
    u[j] -= wj * corr;
    mark_moved(i);  // (e itself among their edges: it is tested again in the next sweep)
    mark_moved(j);
    return excess;
  };
  // Tethers: vertex i no farther than (1 + ε)·rest distance from each anchor's end position
  // (anchors have no inverse mass: the edges never move them).
  auto tethers = [&]() {
    for (int a = 0; a < na; ++a) {
      const Vec3 pa = x0[anchors_[a]] + u[anchors_[a]];
      const double* length = &tether_length_[a * x0.size()];
      std::uint64_t* dirty = &dirty_tethers_[a * vertex_words];
      for (int w = 0; w < vertex_words; ++w) {
        for (std::uint64_t bits = dirty[w]; bits != 0;) {
          const int b = std::countr_zero(bits);
          const int i = 64 * w + b;
          const double bound = hi * length[i];
          const Vec3 d = end_position(i) - pa;
          const double len2 = d.squaredNorm();
          if (!(len2 > bound * bound)) {
            dirty[w] &= ~(std::uint64_t{1} << b);
          } else {
            const double len = std::sqrt(len2);
            u[i] -= ((len - bound) / len) * d;
            mark_moved(i);
          }
          bits = dirty[w] & bits_above(b);
        }
      }
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
    if (sweep % 2 == 0) {
      for (int w = 0; w < edge_words; ++w)
        for (std::uint64_t bits = dirty_edges_[w]; bits != 0;) {
          const int b = std::countr_zero(bits);
          visit(64 * w + b);
          bits = dirty_edges_[w] & bits_above(b);
        }
    } else {
      for (int w = edge_words - 1; w >= 0; --w)
        for (std::uint64_t bits = dirty_edges_[w]; bits != 0;) {
          const int b = 63 - std::countl_zero(bits);
          visit(64 * w + b);
          bits = dirty_edges_[w] & bits_below(b);
        }
    }
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
