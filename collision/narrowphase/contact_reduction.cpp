#include "collision/narrowphase/contact_reduction.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace impetus {

namespace {

// Scores within this fraction of the best count as equal. Boxes and other polytopes give exact
// ties (parallel edges span equal triangles with a base on the opposite edge), and a tie
// settled by rounding picks another point when the pair is only moved: the manifold and its
// feature ids would then flicker under a rigid motion.
constexpr double kTieRel = 1e-9;

// The candidate with the largest score(i) among points[0..n) that are not `skip`ped, or −1
// when no score exceeds `floor`. Ties (within kTieRel of the best) go to the deeper point
// (separations within `sep_tie` are equal), then to the lower index, which rounding cannot
// change.
template <class Score>
int pick_best(const ContactPoint* points, int n, const std::array<int, 3>& skip, double floor,
              double sep_tie, Score score) {
  auto skipped = [&](int i) { return i == skip[0] || i == skip[1] || i == skip[2]; };
  double best = floor;
  for (int i = 0; i < n; ++i) {
    if (!skipped(i)) best = std::max(best, score(i));
  }
  if (!(best > floor)) return -1;
  const double cut = best - kTieRel * std::abs(best);
  double deepest = 0;
  bool any = false;
  for (int i = 0; i < n; ++i) {
    if (skipped(i) || score(i) < cut) continue;
    deepest = any ? std::min(deepest, points[i].separation) : points[i].separation;
    any = true;
  }
  for (int i = 0; i < n; ++i) {
    if (!skipped(i) && score(i) >= cut && points[i].separation <= deepest + sep_tie) return i;
  }
  return -1;
}

}  // namespace

int reduce_to_four(ContactPoint* points, int n) {
  if (n <= 4) return n;
  Vec3 centroid = Vec3::Zero();
  double min_sep = points[0].separation;
  for (int i = 0; i < n; ++i) {
    centroid += points[i].point_a;
    min_sep = std::min(min_sep, points[i].separation);
  }
  centroid /= n;
  double extent = 0;
  for (int i = 0; i < n; ++i) extent = std::max(extent, (points[i].point_a - centroid).norm());
  const double tie = 1e-9 * extent;
  const std::array<int, 3> none = {-1, -1, -1};
  // The deepest point; among points equally deep (a flat face resting flat), the one farthest
  // from the centroid, so that a point in the middle of an edge does not displace a corner.
  const int i0 = pick_best(points, n, none, -1.0, tie, [&](int i) {
    return points[i].separation > min_sep + tie ? -1.0
                                                : (points[i].point_a - centroid).squaredNorm();
  });
  const Vec3 p0 = points[i0].point_a;
  const int i1 = pick_best(points, n, {i0, -1, -1}, -1.0, tie,
                           [&](int i) { return (points[i].point_a - p0).squaredNorm(); });
  const Vec3 p1 = points[i1].point_a;
  const int i2 = pick_best(points, n, {i0, i1, -1}, -1.0, tie, [&](int i) {
    return (p1 - p0).cross(points[i].point_a - p0).squaredNorm();
  });
  const Vec3 p2 = points[i2].point_a;
  // Farthest outside the triangle: the most negative edge-side value, measured with the
  // triangle's own normal so that the winding of (p0, p1, p2) does not matter.
  const Vec3 m = (p1 - p0).cross(p2 - p0);
  const Vec3 tri[3] = {p0, p1, p2};
  const int i3 = pick_best(points, n, {i0, i1, i2}, 0.0, tie, [&](int i) {
    const Vec3& q = points[i].point_a;
    double outside = 0;
    for (int e = 0; e < 3; ++e) {
      double side = m.dot((tri[(e + 1) % 3] - tri[e]).cross(q - tri[e]));
      outside = std::max(outside, -side);
    }
    return outside;
  });
  std::array<ContactPoint, 4> kept = {points[i0], points[i1], points[i2], points[i2]};
  int k = 3;
  if (i3 >= 0) kept[k++] = points[i3];
  for (int i = 0; i < k; ++i) points[i] = kept[i];
  return k;
}

int reduce_spread(ContactPoint* points, int n, int max_points, double merge_distance) {
  if (n == 0) return 0;
  // Scratch reused across calls, one per thread: no allocation in steady state.
  thread_local std::vector<int> order;
  thread_local std::vector<int> unique;
  thread_local std::vector<double> nearest;
  thread_local std::vector<ContactPoint> kept;
  // Deepest first; stable, so ties keep their (deterministic) input order.
  order.clear();
  for (int i = 0; i < n; ++i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return points[x].separation < points[y].separation; });
  // Merge near-duplicates (one touch seen from neighbouring triangles) into the deeper one.
  unique.clear();
  const double merge_sq = merge_distance * merge_distance;
  for (int i : order) {
    bool duplicate = false;
    for (int j : unique) {
      if ((points[i].point_a - points[j].point_a).squaredNorm() <= merge_sq &&
          points[i].normal.dot(points[j].normal) > 0.99) {
        duplicate = true;
        break;
      }
    }
    if (!duplicate) unique.push_back(i);
  }
  // Farthest-point selection after the deepest.
  const int u_count = static_cast<int>(unique.size());
  kept.clear();
  kept.push_back(points[unique[0]]);
  nearest.assign(u_count, 0.0);
  for (int u = 0; u < u_count; ++u) {
    nearest[u] = (points[unique[u]].point_a - points[unique[0]].point_a).squaredNorm();
  }
  while (static_cast<int>(kept.size()) < max_points) {
    int pick = -1;
    double best = 0;
    for (int u = 0; u < u_count; ++u) {
      if (nearest[u] > best) {
        best = nearest[u];
        pick = u;
      }
    }
    if (pick < 0) break;
    kept.push_back(points[unique[pick]]);
    for (int u = 0; u < u_count; ++u) {
      nearest[u] = std::min(
          nearest[u], (points[unique[u]].point_a - points[unique[pick]].point_a).squaredNorm());
    }
  }
  for (std::size_t i = 0; i < kept.size(); ++i) points[i] = kept[i];
  return static_cast<int>(kept.size());
}

}  // namespace impetus
