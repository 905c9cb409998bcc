#include "cloth/strain_limit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include "collision/base/aabb.h"

namespace impetus {

void StrainLimiter::build(const std::vector<std::array<int, 2>>& edges, const std::vector<Vec3>& rest,
                          const std::vector<int>& anchors) {
  edges_ = edges;
  rest_length_.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) rest_length_[e] = (rest[edges[e][0]] - rest[edges[e][1]]).norm();
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
                                      double tolerance, int max_sweeps, bool use_tethers) const {
  StrainLimitStats stats;
  const int ne = static_cast<int>(edges_.size());
  const int nv = static_cast<int>(x0.size());
  const double lo = std::max(0.0, 1.0 - limit), hi = 1.0 + limit;
  const double lo2 = lo * lo, hi2 = hi * hi;
  // Change tracking: moved_[i] is the clock of the last change of u[i], ok_[e] (tether_ok_[·])
  // the clock at which the edge (tether) was last found within its bounds. A constraint found
  // within its bounds whose vertices have not changed since would be found so again from the
  // same numbers: it is skipped, which gives the same bits as testing it. After the first
  // sweep only the constraints around the corrected ones are tested again.
  long long clock = 0;
  moved_.assign(nv, 0);
  ok_.assign(ne, -1);
  if (use_tethers) tether_ok_.assign(anchors_.size() * x0.size(), -1);
  // One projection of edge e; returns its excess beyond the bound as a strain (0 if within).
  auto project = [&](int e) {
    const int i = edges_[e][0], j = edges_[e][1];
    if (ok_[e] > moved_[i] && ok_[e] > moved_[j]) return 0.0;
    const double wi = inv_mass[i], wj = inv_mass[j];
    const double l0 = rest_length_[e];
    const Vec3 d = (x0[j] + u[j]) - (x0[i] + u[i]);
    const double len2 = d.squaredNorm();
    const double r2 = l0 * l0;
    if (len2 <= hi2 * r2 && len2 >= lo2 * r2) {
      ok_[e] = ++clock;
      return 0.0;
    }
    const double len = std::sqrt(len2);
    const double target = std::clamp(len, lo * l0, hi * l0);
    const double excess = std::abs(len - target) / l0;
    const double w = wi + wj;
    if (!(w > 0) || !(len > 0)) return 0.0;
    const Vec3 corr = ((len - target) / (len * w)) * d;  // moves i towards j when too long
    u[i] += wi * corr;
    u[j] -= wj * corr;
    moved_[i] = moved_[j] = ++clock;
    return excess;
  };
  // Tethers: vertex i no farther than (1 + ε)·rest distance from each anchor's end position
  // (anchors have no inverse mass: the edges never move them).
  auto tethers = [&]() {
    for (size_t a = 0; a < anchors_.size(); ++a) {
      const Vec3 pa = x0[anchors_[a]] + u[anchors_[a]];
      const double* length = &tether_length_[a * x0.size()];
      long long* ok = &tether_ok_[a * x0.size()];
      for (int i = 0; i < nv; ++i) {
        if (!(inv_mass[i] > 0)) continue;
        if (ok[i] > moved_[i]) continue;
        const double bound = hi * length[i];
        const Vec3 d = (x0[i] + u[i]) - pa;
        const double len2 = d.squaredNorm();
        if (!(len2 > bound * bound)) {
          ok[i] = ++clock;
          continue;
        }
        const double len = std::sqrt(len2);
        u[i] -= ((len - bound) / len) * d;
        moved_[i] = ++clock;
      }
    }
  };
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    double worst = 0;
    int limited = 0;
    const bool forward = sweep % 2 == 0;
    if (use_tethers) tethers();
    for (int k = 0; k < ne; ++k) {
      const double excess = project(forward ? k : ne - 1 - k);
      if (excess > 0) {
        ++limited;
        worst = std::max(worst, excess);
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
                                               double& compression) const {
  double worst = 0, worst_c = 0;
  for (size_t e = 0; e < edges_.size(); ++e) {
    const double ratio = (x[edges_[e][0]] - x[edges_[e][1]]).norm() / rest_length_[e];
    worst = std::max(worst, ratio - 1.0);
    worst_c = std::max(worst_c, 1.0 - ratio);
  }
  strain = worst;
  compression = worst_c;
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
