#pragma once
// Checks shared by the contact tests: manifold well-formedness, symmetry under swapping a and
// b, invariance under a common rigid motion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "collision/narrowphase/narrowphase.h"
#include "tests/collision/narrowphase/narrowphase_reference.h"

namespace impetus::testref {

inline double angle_between(const Vec3& u, const Vec3& v) {
  return std::atan2(u.cross(v).norm(), u.dot(v));
}

inline double min_separation(const Manifold& m) {
  double s = 1e300;
  for (int i = 0; i < m.count; ++i) s = std::min(s, m.points[i].separation);
  return s;
}

// Every point: unit normal, separation = (b − a)·n below the margin.
inline void expect_well_formed(const Manifold& m, double margin, const std::string& what) {
  for (int i = 0; i < m.count; ++i) {
    const ContactPoint& c = m.points[i];
    EXPECT_NEAR(c.normal.norm(), 1.0, 1e-9) << what;
    EXPECT_NEAR((c.point_b - c.point_a).dot(c.normal), c.separation, 1e-9) << what;
    EXPECT_LT(c.separation, margin) << what;
  }
}

// collide(b, a) is collide(a, b) seen from the other side; a common rigid motion moves it.
inline void expect_symmetric_and_invariant(const Shape& a, const Pose& pa, const Shape& b,
                                           const Pose& pb, double margin, const Manifold& m,
                                           std::mt19937_64& rng, const std::string& what) {
  Manifold s;
  collide(b, pb, a, pa, margin, s);
  EXPECT_EQ(s.count, m.count) << what << " (swapped)";
  if (s.count == m.count && m.count > 0) {
    EXPECT_NEAR(min_separation(s), min_separation(m), 1e-6) << what;
    // The deepest points' normals are opposite.
    int im = 0, is = 0;
    for (int i = 1; i < m.count; ++i)
      if (m.points[i].separation < m.points[im].separation) im = i;
    for (int i = 1; i < s.count; ++i)
      if (s.points[i].separation < s.points[is].separation) is = i;
    EXPECT_LT((m.points[im].normal + s.points[is].normal).norm(), 1e-4) << what;
  }
  Pose t{random_vector(rng, -3, 3), random_rotation(rng)};
  Manifold u;
  collide(a, t * pa, b, t * pb, margin, u);
  EXPECT_EQ(u.count, m.count) << what << " (moved)";
  if (u.count == m.count && m.count > 0) {
    EXPECT_NEAR(min_separation(u), min_separation(m), 1e-6) << what;
    for (int i = 0; i < m.count; ++i) {
      // Points match up to reordering: look for the moved twin.
      double best = 1e300;
      for (int j = 0; j < u.count; ++j) {
        best = std::min(best, (t.apply(m.points[i].point_a) - u.points[j].point_a).norm() +
                                  (t.rotate(m.points[i].normal) - u.points[j].normal).norm());
      }
      EXPECT_LT(best, 1e-5) << what << " (moved point " << i << ")";
    }
  }
}

// Sorted (x, y) of the points' a-side witnesses, for comparing corner sets.
inline std::vector<std::pair<double, double>> corners_xy(const Manifold& m, bool use_b) {
  std::vector<std::pair<double, double>> out;
  for (int i = 0; i < m.count; ++i) {
    const Vec3& p = use_b ? m.points[i].point_b : m.points[i].point_a;
    out.emplace_back(std::round(p.x() * 1e6) / 1e6, std::round(p.y() * 1e6) / 1e6);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace impetus::testref
