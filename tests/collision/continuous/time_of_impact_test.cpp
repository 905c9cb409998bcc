// Time of impact (collision/continuous/time_of_impact.h) against independent references: closed forms for
// spheres and for a sphere against a plane, and dense time sampling + bisection of the first
// crossing of the target level for random convex pairs, a mesh and spinning polyhedra on a plane.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "collision/distance/distance.h"
#include "collision/continuous/time_of_impact.h"
#include "collision/shape/triangle_mesh.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

double pair_distance(const ToiBody& a, const ToiBody& b, double t) {
  return signed_distance(*a.shape, a.shape_pose(t), *b.shape, b.shape_pose(t))->distance;
}

struct Reference {
  std::optional<double> toi;
  double min_sample = std::numeric_limits<double>::infinity();
};

// First crossing of `level` by f over [t0, t1]: `samples` uniform samples, then bisection of the
// first bracketing interval.
template <class F>
Reference dense_first_crossing(const F& f, double level, double t0, double t1, int samples) {
  Reference ref;
  double prev = t0;
  for (int i = 0; i <= samples; ++i) {
    const double t = t0 + (t1 - t0) * i / samples;
    const double d = f(t);
    ref.min_sample = std::min(ref.min_sample, d);
    if (d <= level) {
      if (i == 0) {
        ref.toi = t0;
        return ref;
      }
      double lo = prev, hi = t;
      for (int k = 0; k < 200 && hi - lo > 1e-15; ++k) {
        const double mid = 0.5 * (lo + hi);
        (f(mid) <= level ? hi : lo) = mid;
      }
      ref.toi = hi;
      return ref;
    }
    prev = t;
  }
  return ref;
}

// One draw per statement throughout (see tests/random_draws.h).
using test::random_rotation;
using test::random_unit;

// u(rng) − 0.5 per coordinate.
Vec3 centred_vector(std::uniform_real_distribution<double>& u, std::mt19937_64& rng) {
  return test::draw_vec3(u, rng) - Vec3::Constant(0.5);
}

TEST(TimeOfImpact, SpheresMatchClosedForm) {
  // Two spheres closing head-on and off-centre: |p + u t| = rA + rB + target, first root.
  const Shape sa = Shape::sphere(0.3), sb = Shape::sphere(0.2);
  for (double lateral : {0.0, 0.2, 0.45}) {
    ToiBody a, b;
    a.shape = &sa;
    b.shape = &sb;
    a.motion.pose0.position = Vec3(0, 0, 0);
    a.motion.linear_velocity = Vec3(10, 0, 0);
    b.motion.pose0.position = Vec3(3, lateral, 0);
    b.motion.linear_velocity = Vec3(-2, 0, 0);
    ToiOptions options;
    options.target = 0.001;
    options.tolerance = 1e-7;
    const ToiResult r = conservative_advancement_toi(a, b, 0, 1, options);
    // Relative position p(t) = (3 − 12 t, lateral, 0); reach R = 0.5 + target.
    const double reach = 0.5 + options.target;
    const double along = std::sqrt(reach * reach - lateral * lateral);
    const double t_exact = (3 - along) / 12;
    ASSERT_TRUE(r.toi.has_value()) << lateral;
    EXPECT_LE(*r.toi, t_exact + 1e-12);
    // Closing speed along the normal is 12·along/reach, so the time error is tolerance/speed.
    EXPECT_NEAR(*r.toi, t_exact, 1e-7 / (12 * along / reach) + 1e-12) << lateral;
    EXPECT_GE(r.distance, options.target - 1e-12);
    EXPECT_LE(r.distance, options.target + options.tolerance);
  }
  // Missing by 1 mm: no TOI.
  ToiBody a, b;
  a.shape = &sa;
  b.shape = &sb;
  a.motion.linear_velocity = Vec3(10, 0, 0);
  b.motion.pose0.position = Vec3(3, 0.501, 0);
  EXPECT_FALSE(conservative_advancement_toi(a, b, 0, 1).toi.has_value());
}

TEST(TimeOfImpact, SphereAgainstPlaneAndAlreadyTouching) {
  const Shape ball = Shape::sphere(0.05);
  const Shape ground = Shape::plane(Vec3::UnitZ(), 0.0);
  ToiBody a, b;
  a.shape = &ball;
  b.shape = &ground;
  a.motion.pose0.position = Vec3(0, 0, 2);
  a.motion.linear_velocity = Vec3(30, -4, -200);
  a.motion.angular_velocity = Vec3(0, 50, 0);  // a spinning sphere's distance does not change
  ToiOptions options;
  options.target = 0.001;
  const ToiResult r = conservative_advancement_toi(a, b, 0, 0.1, options);
  ASSERT_TRUE(r.toi.has_value());
  EXPECT_NEAR(*r.toi, (2 - 0.05 - 0.001) / 200, 1e-12);
  EXPECT_LE(r.iterations, 2);  // pure translation: the directional bound is exact
  // Touching at t0 → t0.
  a.motion.pose0.position = Vec3(0, 0, 0.0505);
  EXPECT_EQ(conservative_advancement_toi(a, b, 0.25, 0.5, options).toi.value_or(-1), 0.25);
  // Moving away: nothing.
  a.motion.linear_velocity = Vec3(0, 0, 5);
  a.motion.pose0.position = Vec3(0, 0, 0.2);
  EXPECT_FALSE(conservative_advancement_toi(a, b, 0, 1, options).toi.has_value());
}

// Random convex pairs in uniform rigid motion (spinning, off-centre rotation centres) against
// dense sampling: the CA time is never past the first crossing, the distance there is within the
// tolerance of the target, no sample before it is below the target, and where sampling proves
// there is no crossing CA finds none. Both outcomes must occur often.
TEST(TimeOfImpact, RandomConvexPairsMatchDenseSampling) {
  std::mt19937_64 rng(20240611);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vec3> points;
  for (int i = 0; i < 14; ++i) points.push_back(centred_vector(u, rng) * 0.6);
  auto hull = std::make_shared<const ConvexHull>(*build_convex_hull(points, nullptr));
  const std::vector<Shape> shapes = {Shape::sphere(0.2),
                                     Shape::box(Vec3(0.3, 0.1, 0.2)),
                                     Shape::capsule(0.1, 0.25),
                                     Shape::box(Vec3(0.05, 0.25, 0.15)),
                                     Shape::convex(hull),
                                     Shape::ellipsoid(Vec3(0.3, 0.12, 0.2))};
  constexpr int kCases = 160;
  constexpr int kSamples = 1500;
  int hits = 0, misses = 0;
  for (int c = 0; c < kCases; ++c) {
    const Shape& sa = shapes[c % shapes.size()];
    const Shape& sb = shapes[(c / shapes.size() + c) % shapes.size()];
    ToiBody a, b;
    a.shape = &sa;
    b.shape = &sb;
    a.center_local = centred_vector(u, rng) * 0.1;
    b.center_local = centred_vector(u, rng) * 0.1;
    a.motion.pose0 = Pose{Vec3::Zero(), random_rotation(rng)};
    b.motion.pose0 = Pose{random_unit(rng) * 3.0, random_rotation(rng)};
    // Aim a roughly at b, off by up to ~0.6 m at the meeting point; b drifts and both spin.
    const Vec3 miss = random_unit(rng);
    const Vec3 aim = b.motion.pose0.position + miss * (0.6 * u(rng));
    a.motion.linear_velocity = aim * (3.0 + 3.0 * u(rng)) / 3.0;
    const Vec3 drift = random_unit(rng);
    b.motion.linear_velocity = drift * u(rng);
    const Vec3 spin_a = random_unit(rng);
    a.motion.angular_velocity = spin_a * (20 * u(rng));
    const Vec3 spin_b = random_unit(rng);
    b.motion.angular_velocity = spin_b * (5 * u(rng));
    ToiOptions options;
    options.target = 0.002;
    options.tolerance = 1e-4;
    options.max_iterations = 100000;
    const double t0 = 0, t1 = 1;
    const ToiResult r = conservative_advancement_toi(a, b, t0, t1, options);
    ASSERT_TRUE(r.converged) << c;
    auto f = [&](double t) { return pair_distance(a, b, t); };
    const Reference ref = dense_first_crossing(f, options.target, t0, t1, kSamples);
    if (r.toi) {
      ++hits;
      const double d = f(*r.toi);
      EXPECT_GE(d, options.target - 1e-9) << c;
      EXPECT_LE(d, options.target + options.tolerance + 1e-9) << c;
      // No sample before the CA time is below the target (CA never steps over a contact).
      for (int i = 0; i <= kSamples; ++i) {
        const double t = t0 + (t1 - t0) * i / kSamples;
        if (t >= *r.toi) break;
        ASSERT_GT(f(t), options.target - 1e-9) << c << " t=" << t;
      }
      if (ref.toi) {
        EXPECT_LE(*r.toi, *ref.toi + 1e-9) << c;
      }
    } else {
      ++misses;
      EXPECT_FALSE(ref.toi.has_value()) << c << " sampled contact at " << *ref.toi;
    }
    if (ref.toi) {
      EXPECT_TRUE(r.toi.has_value()) << c;
    } else {
      // Sampling certifies no crossing when every sample is above the target by more than the
      // motion bound times half a sample interval; CA must agree.
      const double mu = (a.motion.linear_velocity - b.motion.linear_velocity).norm() +
                        a.motion.angular_velocity.norm() * (bounding_radius(sa) + a.center_local.norm()) +
                        b.motion.angular_velocity.norm() * (bounding_radius(sb) + b.center_local.norm());
      if (ref.min_sample - options.target > mu * (t1 - t0) / kSamples / 2) {
        EXPECT_FALSE(r.toi.has_value()) << c;
      }
    }
  }
  EXPECT_GT(hits, kCases * 3 / 10);
  EXPECT_GT(misses, kCases / 10);
}

// A static mesh (two triangles forming a thin tent) and a spinning box flying past or through it:
// the direction-free bound of paper 2, eq. 4.7.
TEST(TimeOfImpact, BoxAgainstMeshMatchesDenseSampling) {
  auto mesh = std::make_shared<TriangleMesh>();
  mesh->vertices = {Vec3(-1, -1, 0), Vec3(1, -1, 0), Vec3(0, 1, 0.3), Vec3(0, 0, 1)};
  mesh->triangles = {{0, 1, 3}, {1, 2, 3}};
  mesh->build_bvh();
  const Shape tent = Shape::triangle_mesh(mesh);
  const Shape box = Shape::box(Vec3(0.1, 0.05, 0.2));
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int hits = 0, misses = 0;
  for (int c = 0; c < 40; ++c) {
    ToiBody a, b;
    a.shape = &box;
    b.shape = &tent;
    const double x = 2.5 * u(rng);
    const double y = 2.5 * u(rng);
    a.motion.pose0 = Pose{Vec3(x, y, 2.0), random_rotation(rng)};
    const Vec3 aim = test::draw_vec3(u, rng).cwiseProduct(Vec3(1, 1, 0.3)) + Vec3(0, 0, 0.3);
    a.motion.linear_velocity = (aim - a.motion.pose0.position) * 2.0;
    a.motion.angular_velocity = random_unit(rng) * 15.0;
    ToiOptions options;
    options.target = 0.001;
    options.tolerance = 1e-4;
    options.max_iterations = 100000;
    const ToiResult r = conservative_advancement_toi(a, b, 0, 1, options);
    auto f = [&](double t) { return pair_distance(a, b, t); };
    const Reference ref = dense_first_crossing(f, options.target, 0, 1, 1000);
    if (r.toi) {
      ++hits;
      EXPECT_GE(f(*r.toi), options.target - 1e-9) << c;
      EXPECT_LE(f(*r.toi), options.target + options.tolerance + 1e-9) << c;
      ASSERT_TRUE(ref.toi.has_value()) << c;
      EXPECT_LE(*r.toi, *ref.toi + 1e-9) << c;
    } else {
      ++misses;
      EXPECT_FALSE(ref.toi.has_value()) << c;
    }
  }
  EXPECT_GT(hits, 5);
  EXPECT_GT(misses, 5);
}

// A box sliding fast just above a mesh floor (two big triangles) must not creep: per triangle the
// directional bound sees no approach. Dropped onto it instead, it stops at the closed-form time.
TEST(TimeOfImpact, BoxSlidingOverMeshFloorDoesNotCreep) {
  auto mesh = std::make_shared<TriangleMesh>();
  mesh->vertices = {Vec3(-50, -50, 0), Vec3(50, -50, 0), Vec3(50, 50, 0), Vec3(-50, 50, 0)};
  mesh->triangles = {{0, 1, 2}, {0, 2, 3}};
  mesh->build_bvh();
  const Shape floor = Shape::triangle_mesh(mesh);
  const Shape box = Shape::box(Vec3(0.1, 0.1, 0.1));
  ToiBody a, b;
  a.shape = &floor;
  b.shape = &box;
  b.motion.pose0.position = Vec3(0, 0, 0.1002);
  b.motion.linear_velocity = Vec3(40, 10, 0);
  ToiOptions options;
  options.target = -0.0005;
  options.tolerance = 1e-4;
  options.max_iterations = 50;
  ToiResult r = conservative_advancement_toi(a, b, 0, 1.0 / 60, options);
  EXPECT_FALSE(r.toi.has_value());
  EXPECT_LE(r.iterations, 4);
  // Falling at 5 m/s from 0.3 m above: the lowest face reaches 1 mm at (0.3 − 0.001)/5.
  b.motion.pose0.position = Vec3(0, 0, 0.4);
  b.motion.linear_velocity = Vec3(40, 10, -5);
  options.target = 0.001;
  r = conservative_advancement_toi(a, b, 0, 1, options);
  ASSERT_TRUE(r.toi.has_value());
  EXPECT_LE(*r.toi, 0.299 / 5 + 1e-12);
  EXPECT_NEAR(*r.toi, 0.299 / 5, options.tolerance / 5);
}

// Paper 3 through the centred diagram: a spinning box (and hull) with its rotation centre off
// the shape's origin against a tilted plane, vs dense sampling of the brute-force lowest vertex.
TEST(TimeOfImpact, PlaneTimeOfImpactWithOffsetCentreMatchesDenseSampling) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vec3> points;
  for (int i = 0; i < 20; ++i) points.push_back(centred_vector(u, rng) * 0.4);
  auto hull = std::make_shared<const ConvexHull>(*build_convex_hull(points, nullptr));
  const std::vector<Shape> shapes = {Shape::box(Vec3(0.2, 0.1, 0.05)), Shape::convex(hull)};
  const Vec3 normal = Vec3(0.1, -0.2, 1).normalized();
  const double offset = 0.05;
  int hits = 0, misses = 0;
  for (int c = 0; c < 60; ++c) {
    const Shape& shape = shapes[c % 2];
    const std::vector<Vec3> vertices =
        shape.type == ShapeType::Box ? box_hull(shape.half_extents).vertices : hull->vertices;
    const double cx = 0.05 * u(rng);
    const Vec3 centre(cx, -0.03 * u(rng), 0.02);
    RigidMotion m;
    m.pose0 = Pose{test::draw_vec3(u, rng) + Vec3(0, 0, 1.0), random_rotation(rng)};
    const Vec3 v = test::draw_vec3(u, rng);
    m.linear_velocity = Vec3(v.x() - 0.5, v.y() - 0.5, -(4.0 * v.z()));
    const Vec3 spin = random_unit(rng);
    m.angular_velocity = spin * (40 * u(rng));
    ToiOptions options;
    options.target = 0.001;
    const ExtremeVertexDiagram diagram = build_centered_diagram(shape, centre);
    const ToiResult r = plane_time_of_impact(diagram, m, normal, offset, 0, 0.5, options);
    // Reference: vertices in the shape frame, placed by the centre's motion.
    auto lowest = [&](double t) {
      const Pose p = m.at(t);
      double best = std::numeric_limits<double>::infinity();
      for (const Vec3& v : vertices) best = std::min(best, normal.dot(p.apply(v - centre)) - offset);
      return best;
    };
    const Reference ref = dense_first_crossing(lowest, options.target, 0, 0.5, 4000);
    if (ref.toi) {
      ++hits;
      ASSERT_TRUE(r.toi.has_value()) << c;
      EXPECT_NEAR(*r.toi, *ref.toi, 1e-9) << c;
      EXPECT_NEAR(r.distance, options.target, 1e-9) << c;
    } else {
      ++misses;
      EXPECT_FALSE(r.toi.has_value()) << c;
    }
  }
  EXPECT_GT(hits, 10);
  EXPECT_GT(misses, 5);
}

}  // namespace
}  // namespace impetus
