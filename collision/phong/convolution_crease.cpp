#include "collision/phong/convolution_crease.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "collision/distance/segment_closest.h"

namespace impetus {
namespace {

// Facets spanning more cells than this along an axis go to the oversized list.
constexpr int kMaxCellSpan = 4;
// Facets whose normals are closer than this (sine of the angle) are taken as parallel: coplanar
// facets of face–face contacts overlap without forming a crease.
constexpr double kParallelSine = 1e-6;

std::uint64_t cell_key(long x, long y, long z) {
  constexpr long kBias = 1 << 20;
  auto part = [](long v) { return static_cast<std::uint64_t>(v + kBias) & 0x1fffffu; };
  return (part(x) << 42) | (part(y) << 21) | part(z);
}

// Where triangle t crosses the plane n·x = c: up to two points (its part on the plane).
int plane_section(const std::array<Vec3, 3>& t, const Vec3& n, double c, std::array<Vec3, 3>* pts) {
  std::array<double, 3> d;
  for (int i = 0; i < 3; ++i) d[i] = n.dot(t[i]) - c;
  if ((d[0] > 0 && d[1] > 0 && d[2] > 0) || (d[0] < 0 && d[1] < 0 && d[2] < 0)) return 0;
  int count = 0;
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    if (d[i] == 0) (*pts)[count++] = t[i];
    if ((d[i] < 0 && d[j] > 0) || (d[i] > 0 && d[j] < 0)) {
      (*pts)[count++] = t[i] + (d[i] / (d[i] - d[j])) * (t[j] - t[i]);
    }
    if (count == 3) break;
  }
  return count;
}

// The segment where two non-parallel triangles cross (line of their planes, clipped by both).
bool crossing_segment(const std::array<Vec3, 3>& t1, const Vec3& n1, const std::array<Vec3, 3>& t2,
                      const Vec3& n2, Vec3* p0, Vec3* p1) {
  std::array<Vec3, 3> s1, s2;
  const int c1 = plane_section(t1, n2, n2.dot(t2[0]), &s1);
  if (c1 == 0) return false;
  const int c2 = plane_section(t2, n1, n1.dot(t1[0]), &s2);
  if (c2 == 0) return false;
  const Vec3 line = n1.cross(n2).normalized();
  auto range = [&](const std::array<Vec3, 3>& s, int c, Vec3* lo, Vec3* hi) {
    *lo = *hi = s[0];
    for (int k = 1; k < c; ++k) {
      if (line.dot(s[k]) < line.dot(*lo)) *lo = s[k];
      if (line.dot(s[k]) > line.dot(*hi)) *hi = s[k];
    }
  };
  Vec3 lo1, hi1, lo2, hi2;
  range(s1, c1, &lo1, &hi1);
  range(s2, c2, &lo2, &hi2);
  *p0 = line.dot(lo1) >= line.dot(lo2) ? lo1 : lo2;
  *p1 = line.dot(hi1) <= line.dot(hi2) ? hi1 : hi2;
  return line.dot(*p0) <= line.dot(*p1);
}

std::array<Vec3, 3> triangle(const ConvolutionFacet& f, int t) {
  return t == 0 ? std::array<Vec3, 3>{f.points[0], f.points[1], f.points[2]}
                : std::array<Vec3, 3>{f.points[0], f.points[2], f.points[3]};
}

bool share_vertex(const ConvolutionFacet& f, const ConvolutionFacet& g) {
  for (int i = 0; i < f.corners; ++i) {
    for (int j = 0; j < g.corners; ++j) {
      if (f.keys[i] == g.keys[j]) return true;
    }
  }
  return false;
}

void facet_box(const ConvolutionFacet& f, Vec3* lo, Vec3* hi) {
  *lo = *hi = f.points[0];
  for (int k = 1; k < f.corners; ++k) {
    *lo = lo->cwiseMin(f.points[k]);
    *hi = hi->cwiseMax(f.points[k]);
  }
}

}  // namespace

CreaseFinder::CreaseFinder(const std::vector<ConvolutionFacet>& facets, double cell)
    : facets_(facets), cell_(cell), stamp_(facets.size(), -1) {}

void CreaseFinder::add(int index, std::vector<CreasePoint>* out) {
  // The facet list may have grown since construction (local construction, facets appended).
  if (stamp_.size() < facets_.size()) stamp_.resize(facets_.size(), -1);
  const ConvolutionFacet& f = facets_[index];
  Vec3 lo, hi;
  facet_box(f, &lo, &hi);
  auto test = [&](int other) {
    if (stamp_[other] == index) return;
    stamp_[other] = index;
    const ConvolutionFacet& g = facets_[other];
    const Vec3 axis = f.normal.cross(g.normal);
    if (axis.norm() < kParallelSine || share_vertex(f, g)) return;
    Vec3 glo, ghi;
    facet_box(g, &glo, &ghi);
    if ((glo.array() > hi.array()).any() || (lo.array() > ghi.array()).any()) return;
    const double c = f.normal.dot(g.normal);
    for (int i = 0; i < (f.corners == 3 ? 1 : 2); ++i) {
      for (int j = 0; j < (g.corners == 3 ? 1 : 2); ++j) {
        Vec3 p0, p1;
        if (!crossing_segment(triangle(f, i), f.normal, triangle(g, j), g.normal, &p0, &p1)) {
          continue;
        }
        const Vec3 p = closest_point_on_segment(Vec3::Zero(), p0, p1);
        // p = α n1 + β n2 (+ along the crease) with α, β ≥ 0: the origin is in the wedge.
        const double a1 = p.dot(f.normal), a2 = p.dot(g.normal);
        const double alpha = (a1 - c * a2) / (1 - c * c), beta = (a2 - c * a1) / (1 - c * c);
        const double tol = 1e-9 * p.norm();
        if (alpha < -tol || beta < -tol) continue;
        const Vec3 push = f.normal + g.normal;
        if (!(push.norm() > 1e-12)) continue;
        out->push_back({p, push.normalized(), other});
      }
    }
  };
  for (int other : oversized_) test(other);
  const Vec3 a = lo / cell_, b = hi / cell_;
  const long x0 = static_cast<long>(std::floor(a.x())), x1 = static_cast<long>(std::floor(b.x()));
  const long y0 = static_cast<long>(std::floor(a.y())), y1 = static_cast<long>(std::floor(b.y()));
  const long z0 = static_cast<long>(std::floor(a.z())), z1 = static_cast<long>(std::floor(b.z()));
  const bool big = x1 - x0 >= kMaxCellSpan || y1 - y0 >= kMaxCellSpan || z1 - z0 >= kMaxCellSpan;
  if (big) {
    // Against everything added so far (rare: facets much larger than the cell).
    for (int other : added_) test(other);
    oversized_.push_back(index);
    added_.push_back(index);
    return;
  }
  added_.push_back(index);
  for (long x = x0; x <= x1; ++x) {
    for (long y = y0; y <= y1; ++y) {
      for (long z = z0; z <= z1; ++z) {
        std::vector<int>& list = grid_[cell_key(x, y, z)];
        for (int other : list) test(other);
        list.push_back(index);
      }
    }
  }
}

}  // namespace impetus
