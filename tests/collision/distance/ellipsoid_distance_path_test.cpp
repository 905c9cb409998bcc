// signed_distance of an ellipsoid against every convex shape type (sphere, capsule, box,
// convex hull, ellipsoid) along smooth relative motions, against independent references:
// - no jumps: |δ(t) − δ(t')| never exceeds the motion bound (|v| + |ω|·r)·|t − t'|, since no point
//   of the moving shape travels farther than that and δ is 1-Lipschitz in that displacement;
// - separation: the minimum over the ellipsoid's surface (a dense grid of its parametrisation,
//   then a pattern search) of the other shape's closed-form point distance;
// - penetration: the minimum translation, i.e. the smallest over many directions u of the
//   largest t for which b moved by t·u still overlaps a, found by bisection on a GJK overlap
//   test, the directions refined by pattern search.
// Sporadic outliers of centimetres near contact (GJK declaring overlap from a flat simplex on
// the curved surface) used to break the jump and the penetration checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "collision/shape/convex_support.h"
#include "collision/distance/distance.h"
#include "collision/distance/gjk.h"
#include "tests/collision/narrowphase/narrowphase_reference.h"

namespace impetus {
namespace {

constexpr ShapeType kOtherTypes[] = {ShapeType::Sphere, ShapeType::Capsule, ShapeType::Box,
                                     ShapeType::Convex, ShapeType::Ellipsoid};

Shape random_other(ShapeType type, std::mt19937_64& rng) {
  switch (type) {
    case ShapeType::Sphere:
      return Shape::sphere(testref::uniform(rng, 0.15, 0.5));
    case ShapeType::Capsule: {
      const double radius = testref::uniform(rng, 0.1, 0.4);
      return Shape::capsule(radius, testref::uniform(rng, 0.2, 0.6));
    }
    case ShapeType::Box:
      return Shape::box(testref::random_vector(rng, 0.1, 0.5));
    case ShapeType::Convex:
      return Shape::convex(testref::random_hull(rng));
    default:
      break;
  }
  return Shape::ellipsoid(testref::random_vector(rng, 0.15, 0.6));
}

// Distance from x to an ellipsoid (0 inside): the closest point is r_i² q_i / (r_i² + λ) with
// λ >= 0 the root of Σ (r_i q_i / (r_i² + λ))² = 1, decreasing in λ, bracketed by [0, max r·|q|].
double point_ellipsoid_distance(const Vec3& radii, const Pose& p, const Vec3& x) {
  const Vec3 q = p.inverse_apply(x);
  if (q.cwiseQuotient(radii).squaredNorm() <= 1) return 0;
  auto closest = [&](double lambda) {
    Vec3 c;
    for (int k = 0; k < 3; ++k) {
      c[k] = radii[k] * radii[k] * q[k] / (radii[k] * radii[k] + lambda);
    }
    return c;
  };
  double lo = 0, hi = radii.maxCoeff() * q.norm();
  for (int it = 0; it < 200 && hi - lo > 1e-16 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (closest(mid).cwiseQuotient(radii).squaredNorm() > 1 ? lo : hi) = mid;
  }
  return (q - closest(0.5 * (lo + hi))).norm();
}

// Distance from x to a hull (0 inside): the nearest of its boundary triangles.
double point_hull_distance(const ConvexHull& hull, const Pose& p, const Vec3& x) {
  const Vec3 q = p.inverse_apply(x);
  bool inside = true;
  for (const HullFace& f : hull.faces) inside = inside && f.normal.dot(q) <= f.offset;
  if (inside) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& t : hull.triangles) {
    best = std::min(best, testref::point_triangle_distance(q, hull.vertices[t[0]],
                                                           hull.vertices[t[1]],
                                                           hull.vertices[t[2]]));
  }
  return best;
}

double point_shape_distance(const Shape& s, const Pose& p, const Vec3& x) {
  if (s.type == ShapeType::Ellipsoid) return point_ellipsoid_distance(s.radii, p, x);
  if (s.type == ShapeType::Convex) return point_hull_distance(*s.hull, p, x);
  return std::max(0.0, testref::sdf_shape(s, p, x));
}

// Minimum of f over unit vectors: the best of a Fibonacci grid, refined by a rotating pattern
// search around the `starts` best grid points. f(u, cap) must be exact below `cap` and may
// return any value >= cap above it (lets costly references skip non-improving candidates);
// grid points are evaluated with a coarse flag set.
template <class F>
double minimise_on_sphere(const F& f, int grid_size, int starts, int pattern) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<std::pair<double, Vec3>> values;
  for (const Vec3& u : testref::fibonacci_directions(grid_size)) {
    values.emplace_back(f(u, kInf, true), u);
  }
  std::partial_sort(values.begin(), values.begin() + starts, values.end(),
                    [](const auto& x, const auto& y) { return x.first < y.first; });
  double best = kInf;
  for (int s = 0; s < starts; ++s) {
    Vec3 u = values[s].second;
    double fu = f(u, kInf, false);
    double step = 0.05;
    for (int turn = 0; step > 1e-9; ++turn) {
      const Vec3 t1 = any_orthogonal(u);
      const Vec3 t2 = u.cross(t1);
      bool improved = false;
      for (int k = 0; k < pattern; ++k) {
        const double ang = (k + 0.37 * turn) * (2 * kPi / pattern);
        const Vec3 cand = (u + step * (std::cos(ang) * t1 + std::sin(ang) * t2)).normalized();
        const double fc = f(cand, fu, false);
        if (fc < fu) {
          fu = fc;
          u = cand;
          improved = true;
        }
      }
      if (!improved) step *= 0.5;
    }
    best = std::min(best, fu);
  }
  return best;
}

// Separation of a separated pair: min over the ellipsoid's surface c + R·diag(r)·y, |y| = 1, of
// b's point distance.
double separation_reference(const Shape& ell, const Pose& pe, const Shape& b, const Pose& pb) {
  auto f = [&](const Vec3& y, double /*cap*/, bool /*coarse*/) {
    return point_shape_distance(b, pb, pe.apply(ell.radii.cwiseProduct(y)));
  };
  return minimise_on_sphere(f, 4000, 6, 24);
}

// Overlap test: GJK on the cores, the radii compared with the core distance.
bool overlaps(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
  const ConvexSupport sa = make_convex_support(a, pa);
  const ConvexSupport sb = make_convex_support(b, pb);
  const GjkResult g = gjk_closest_points(sa, sb);
  return g.overlap || g.distance <= sa.radius + sb.radius;
}

// Penetration depth of an overlapping pair: min over u of the largest t at which b moved by t·u
// still overlaps a (the overlapping t form an interval [0, t*(u)] since a − b is convex),
// by bisection on [0, cap] (2·reach when uncapped: nothing overlaps there any more).
double penetration_reference(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
  const double reach =
      2 * (bounding_radius(a) + bounding_radius(b)) + (pb.position - pa.position).norm();
  auto overlaps_at = [&](const Vec3& u, double t) {
    return overlaps(a, pa, b, Pose{pb.position + t * u, pb.orientation});
  };
  auto exit_distance = [&](const Vec3& u, double cap, bool coarse) {
    double lo = 0, hi = std::min(cap, reach);
    if (overlaps_at(u, hi)) return hi;  // t*(u) >= cap: no improvement
    const double tol = coarse ? 1e-3 * reach : 1e-13 * reach;
    while (hi - lo > tol) {
      const double mid = 0.5 * (lo + hi);
      (overlaps_at(u, mid) ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  };
  return minimise_on_sphere(exit_distance, 400, 3, 8);
}

// Relative motion of b around a fixed a: b's centre moves at constant velocity on a line that
// crosses a's neighbourhood (from a gap of ~1.2·reach to an overlap), b spinning about it.
struct Path {
  Pose pose_a;
  Vec3 start = Vec3::Zero();
  Vec3 velocity = Vec3::Zero();
  Vec3 omega = Vec3::UnitZ();
  Quat q0 = Quat::Identity();

  Pose pose_b(double t) const {
    const Quat spin(Eigen::AngleAxisd(omega.norm() * t, omega.normalized()));
    return Pose{start + velocity * t, spin * q0};
  }
};

Path random_path(const Shape& a, const Shape& b, std::mt19937_64& rng, double depth_end) {
  Path p;
  p.pose_a = Pose{testref::random_vector(rng, -0.5, 0.5), testref::random_rotation(rng)};
  const Vec3 dir = testref::random_vector(rng, -1, 1).normalized();
  const double reach = bounding_radius(a) + bounding_radius(b);
  p.start = p.pose_a.position + dir * 1.2 * reach;
  const Vec3 end = p.pose_a.position + dir * depth_end * reach +
                   testref::random_vector(rng, -0.3, 0.3) * reach;
  p.velocity = end - p.start;
  const Vec3 axis = testref::random_vector(rng, -1, 1).normalized();
  p.omega = axis * testref::uniform(rng, 0.2, 2.0);
  p.q0 = testref::random_rotation(rng);
  return p;
}

double motion_bound(const Path& p, const Shape& b) {
  return p.velocity.norm() + p.omega.norm() * bounding_radius(b);
}

TEST(EllipsoidDistancePath, NoJumpsBeyondTheMotionBoundAgainstEveryShape) {
  std::mt19937_64 rng(31);
  for (ShapeType type : kOtherTypes) {
    int overlapping = 0, samples = 0;
    double worst_excess = -1;
    for (int c = 0; c < 16; ++c) {
      const Shape a = Shape::ellipsoid(testref::random_vector(rng, 0.15, 0.6));
      const Shape b = random_other(type, rng);
      // Paths ending anywhere from grazing to half-way through.
      const Path path = random_path(a, b, rng, testref::uniform(rng, 0.0, 0.6));
      const double mu = motion_bound(path, b);
      const double scale = bounding_radius(a) + bounding_radius(b);
      constexpr int kSteps = 1500;
      double prev = 0;
      for (int i = 0; i <= kSteps; ++i) {
        const double t = static_cast<double>(i) / kSteps;
        const double d = signed_distance(a, path.pose_a, b, path.pose_b(t))->distance;
        ++samples;
        if (d < 0) ++overlapping;
        if (i > 0) {
          const double excess = std::abs(d - prev) - mu / kSteps;
          worst_excess = std::max(worst_excess, excess / scale);
          ASSERT_LE(excess, 1e-7 * scale)
              << shape_type_name(type) << " path " << c << " step " << i << ": " << prev << " → "
              << d << ", bound " << mu / kSteps;
        }
        prev = d;
      }
    }
    std::printf("ellipsoid-%s: %d/%d samples overlapping, worst excess/scale %.2e\n",
                shape_type_name(type), overlapping, samples, worst_excess);
    // The paths must cover both sides of contact for the check to mean anything.
    EXPECT_GT(overlapping, samples / 10) << shape_type_name(type);
    EXPECT_LT(overlapping, samples * 9 / 10) << shape_type_name(type);
  }
}

// Poses sampled along such paths where the pair is near contact (|δ| below 5 % of the pair's
// size), where the outliers were.
struct NearPose {
  Shape a, b;
  Pose pa, pb;
};

std::vector<NearPose> near_contact_poses(ShapeType type, std::mt19937_64& rng, bool separated,
                                         int count) {
  std::vector<NearPose> out;
  for (int attempt = 0; attempt < 2000 && static_cast<int>(out.size()) < count; ++attempt) {
    const Shape a = Shape::ellipsoid(testref::random_vector(rng, 0.15, 0.6));
    const Shape b = random_other(type, rng);
    const Path path = random_path(a, b, rng, 0.3);
    const double scale = bounding_radius(a) + bounding_radius(b);
    const double t = testref::uniform(rng, 0.0, 1.0);
    const Pose pb = path.pose_b(t);
    const double d = signed_distance(a, path.pose_a, b, pb)->distance;
    if (std::abs(d) > 0.05 * scale || (d > 0) != separated) continue;
    out.push_back(NearPose{a, b, path.pose_a, pb});
  }
  return out;
}

TEST(EllipsoidDistancePath, SeparationMatchesSurfaceMinimisation) {
  std::mt19937_64 rng(32);
  for (ShapeType type : kOtherTypes) {
    const std::vector<NearPose> poses = near_contact_poses(type, rng, true, 16);
    ASSERT_EQ(poses.size(), 16u) << shape_type_name(type);
    double worst = 0;
    for (size_t i = 0; i < poses.size(); ++i) {
      const NearPose& p = poses[i];
      const double scale = bounding_radius(p.a) + bounding_radius(p.b);
      const double ref = separation_reference(p.a, p.pa, p.b, p.pb);
      const std::string what = std::string(shape_type_name(type)) + " pose " + std::to_string(i);
      const double d = signed_distance(p.a, p.pa, p.b, p.pb)->distance;
      const double d_swapped = signed_distance(p.b, p.pb, p.a, p.pa)->distance;
      EXPECT_NEAR(d, ref, 1e-8 * scale) << what;
      EXPECT_NEAR(d_swapped, ref, 1e-8 * scale) << what;
      worst = std::max(worst, std::abs(d - ref) / scale);
    }
    std::printf("ellipsoid-%s separated: worst |d-ref|/scale %.2e\n", shape_type_name(type), worst);
  }
}

TEST(EllipsoidDistancePath, PenetrationMatchesMinimumTranslation) {
  std::mt19937_64 rng(33);
  for (ShapeType type : kOtherTypes) {
    const std::vector<NearPose> poses = near_contact_poses(type, rng, false, 10);
    ASSERT_EQ(poses.size(), 10u) << shape_type_name(type);
    double worst = 0;
    for (size_t i = 0; i < poses.size(); ++i) {
      const NearPose& p = poses[i];
      const double scale = bounding_radius(p.a) + bounding_radius(p.b);
      const double ref = -penetration_reference(p.a, p.pa, p.b, p.pb);
      const std::string what = std::string(shape_type_name(type)) + " pose " + std::to_string(i);
      const DistanceResult r = *signed_distance(p.a, p.pa, p.b, p.pb);
      const double d_swapped = signed_distance(p.b, p.pb, p.a, p.pa)->distance;
      EXPECT_NEAR(r.distance, ref, 1e-7 * scale) << what;
      EXPECT_NEAR(d_swapped, ref, 1e-7 * scale) << what;
      // The reported normal separates: b moved by the depth along it (plus a hair) is clear.
      const Pose cleared{p.pb.position + (-r.distance + 1e-6 * scale) * r.normal, p.pb.orientation};
      EXPECT_FALSE(overlaps(p.a, p.pa, p.b, cleared)) << what;
      worst = std::max(worst, std::abs(r.distance - ref) / scale);
    }
    std::printf("ellipsoid-%s overlapping: worst |d-ref|/scale %.2e\n", shape_type_name(type),
                worst);
  }
}

}  // namespace
}  // namespace impetus
