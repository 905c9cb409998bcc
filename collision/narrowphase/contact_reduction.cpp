#include "collision/narrowphase/contact_reduction.h"

#include <algorithm>
#include <array>
#include <vector>

namespace impetus {

int reduce_to_four(ContactPoint* points, int n) {
  if (n <= 4) return n;
  // The deepest point; among points equally deep (a flat face resting flat), the one farthest
  // from the centroid, so that a point in the middle of an edge does not displace a corner.
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
  int i0 = -1;
  double far = -1;
  for (int i = 0; i < n; ++i) {
    if (points[i].separation > min_sep + tie) continue;
    double d = (points[i].point_a - centroid).squaredNorm();
    if (d > far) {
      far = d;
      i0 = i;
    }
  }
  const Vec3 p0 = points[i0].point_a;
  int i1 = -1;
  double best = -1;
  for (int i = 0; i < n; ++i) {
    double d = (points[i].point_a - p0).squaredNorm();
    if (i != i0 && d > best) {
      best = d;
      i1 = i;
    }
  }
  const Vec3 p1 = points[i1].point_a;
  int i2 = -1;
  best = -1;
  for (int i = 0; i < n; ++i) {
    if (i == i0 || i == i1) continue;
    double area = (p1 - p0).cross(points[i].point_a - p0).squaredNorm();
    if (area > best) {
      best = area;
      i2 = i;
    }
  }
  const Vec3 p2 = points[i2].point_a;
  // Farthest outside the triangle: the most negative edge-side value, measured with the
  // triangle's own normal so that the winding of (p0, p1, p2) does not matter.
  Vec3 m = (p1 - p0).cross(p2 - p0);
  int i3 = -1;
  best = 0;
  const Vec3 tri[3] = {p0, p1, p2};
  for (int i = 0; i < n; ++i) {
    if (i == i0 || i == i1 || i == i2) continue;
    const Vec3& q = points[i].point_a;
    double outside = 0;
    for (int e = 0; e < 3; ++e) {
      double side = m.dot((tri[(e + 1) % 3] - tri[e]).cross(q - tri[e]));
      outside = std::max(outside, -side);
    }
    if (outside > best) {
      best = outside;
      i3 = i;
    }
  }
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
