// Plane TOI (paper 3) against an independent reference: the brute-force distance of the nearest
// vertex, min over all vertices of normal·(R(t) v + x(t)) − offset with the motion's own pose,
// sampled densely in time and bisected on the first bracketing sample interval.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "collision/continuous/extreme_vertex_diagram.h"
#include "collision/continuous/plane_toi.h"
#include "collision/continuous/rigid_motion.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

double brute_distance(const ConvexHull& hull, const RigidMotion& m, const Vec3& n, double offset,
                      double t) {
  const Pose p = m.at(t);
  double best = std::numeric_limits<double>::infinity();
  for (const Vec3& v : hull.vertices) best = std::min(best, n.dot(p.apply(v)) - offset);
  return best;
}

struct Reference {
  std::optional<double> toi;
  double min_sample = std::numeric_limits<double>::infinity();  // over samples (no contact)
};

// Dense sampling (`samples` intervals) and bisection of the first sample at or below the plane.
Reference dense_reference(const ConvexHull& hull, const RigidMotion& m, const Vec3& n,
                          double offset, double t0, double t1, int samples) {
  Reference ref;
  double prev = t0;
  for (int i = 0; i <= samples; ++i) {
    const double t = t0 + (t1 - t0) * i / samples;
    const double d = brute_distance(hull, m, n, offset, t);
    ref.min_sample = std::min(ref.min_sample, d);
    if (d <= 0) {
      if (i == 0) {
        ref.toi = t0;
        return ref;
      }
      double lo = prev, hi = t;
      for (int k = 0; k < 100 && hi - lo > 1e-15; ++k) {
        const double mid = 0.5 * (lo + hi);
        (brute_distance(hull, m, n, offset, mid) <= 0 ? hi : lo) = mid;
      }
      ref.toi = hi;
      return ref;
    }
    prev = t;
  }
  return ref;
}

std::vector<Vec3> sphere_points(int count, std::mt19937& rng, double radius) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> p;
  for (int i = 0; i < count; ++i) p.push_back(test::draw_vec3(g, rng).normalized() * radius);
  return p;
}

ConvexHull hull_of(const std::vector<Vec3>& points) {
  std::string error;
  std::optional<ConvexHull> hull = build_convex_hull(points, &error);
  EXPECT_TRUE(hull.has_value()) << error;
  return hull ? *hull : box_hull(Vec3::Ones());
}

RigidMotion make_motion(const Vec3& x0, const Quat& q0, const Vec3& v, const Vec3& w) {
  RigidMotion m;
  m.pose0.position = x0;
  m.pose0.orientation = q0;
  m.linear_velocity = v;
  m.angular_velocity = w;
  return m;
}

TEST(ExtremeVertexDiagram, LocateMatchesBruteForceSupport) {
  std::mt19937 rng(7);
  const ConvexHull hull = hull_of(sphere_points(60, rng, 1.3));
  const ExtremeVertexDiagram diagram = build_extreme_vertex_diagram(hull);
  ASSERT_EQ(diagram.arcs.size(), 2 * hull.edges.size());
  std::normal_distribution<double> g(0.0, 1.0);
  for (int i = 0; i < 2000; ++i) {
    const Vec3 u = test::draw_vec3(g, rng).normalized();
    const int v = diagram.locate(u, i % diagram.vertex_count());
    EXPECT_NEAR(u.dot(hull.vertices[v]), u.dot(hull.vertices[hull.support_index(u)]), 1e-14);
  }
}

TEST(ExtremeVertexDiagram, RegionBoundaryArcsSeparateTiedVertices) {
  // On the arc between S_v and S_w both vertices are extreme: check at arc midpoints.
  const ConvexHull hull = box_hull(Vec3(0.5, 1.0, 2.0));
  const ExtremeVertexDiagram diagram = build_extreme_vertex_diagram(hull);
  for (int v = 0; v < diagram.vertex_count(); ++v) {
    EXPECT_EQ(diagram.arc_begin[v + 1] - diagram.arc_begin[v], 3);
    for (int k = diagram.arc_begin[v]; k < diagram.arc_begin[v + 1]; ++k) {
      const DiagramArc& arc = diagram.arcs[k];
      const Vec3 mid = (arc.from + arc.to).normalized();
      const double best = mid.dot(hull.vertices[hull.support_index(mid)]);
      EXPECT_NEAR(mid.dot(hull.vertices[v]), best, 1e-14);
      EXPECT_NEAR(mid.dot(hull.vertices[arc.neighbor]), best, 1e-14);
      EXPECT_NEAR(geodesic_distance_to_arc(mid, arc), 0.0, 1e-15);
    }
  }
  // Distance to an arc: the pole of the great circle is π/2 away.
  const DiagramArc& arc = diagram.arcs[0];
  EXPECT_NEAR(geodesic_distance_to_arc(arc.pole, arc), kPi / 2, 1e-12);
}

TEST(PlaneToi, FallingSpinningCubeMatchesDenseReferenceAndDiscrete) {
  const ConvexHull cube = box_hull(Vec3(0.5, 0.5, 0.5));
  const RigidMotion m = make_motion(Vec3(0, 0, 3), Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized())),
                                    Vec3(0.5, 0.2, -1.5), Vec3(-1.789, 1.123, -0.789));
  const Vec3 n = Vec3::UnitZ();
  const PlaneToiResult ev = plane_toi(cube, m, n, 0.0, 0.0, 3.0);
  const Reference ref = dense_reference(cube, m, n, 0.0, 0.0, 3.0, 100000);
  ASSERT_TRUE(ref.toi.has_value());
  ASSERT_TRUE(ev.toi.has_value());
  EXPECT_NEAR(*ev.toi, *ref.toi, 1e-9);
  EXPECT_NEAR(n.dot(m.at(*ev.toi).apply(cube.vertices[ev.vertex])), 0.0, 1e-9);
  // The discrete baseline gives the same TOI whatever its step (no contact is short enough to
  // slip between its samples here).
  for (double dt : {0.01, 0.005, 0.001}) {
    const PlaneToiResult d = plane_toi_discrete(cube, m, n, 0.0, 0.0, 3.0, dt);
    ASSERT_TRUE(d.toi.has_value()) << dt;
    EXPECT_NEAR(*d.toi, *ev.toi, 1e-9) << dt;
    EXPECT_EQ(d.vertex, ev.vertex) << dt;
    const ExtremeVertexDiagram diagram = build_extreme_vertex_diagram(cube);
    const PlaneToiResult di = plane_toi_discrete(diagram, m, n, 0.0, 0.0, 3.0, dt);
    ASSERT_TRUE(di.toi.has_value());
    EXPECT_NEAR(*di.toi, *ev.toi, 1e-9) << dt;
  }
  // The paper's pure method (no motion-bound pruning) finds the same contact.
  PlaneToiOptions pure;
  pure.motion_bound_pruning = false;
  const PlaneToiResult p = plane_toi(cube, m, n, 0.0, 0.0, 3.0, pure);
  ASSERT_TRUE(p.toi.has_value());
  EXPECT_NEAR(*p.toi, *ev.toi, 1e-12);
  // A later start inside the interval: t is absolute.
  const PlaneToiResult late = plane_toi(cube, m, n, 0.0, 0.5, 3.0);
  ASSERT_TRUE(late.toi.has_value());
  EXPECT_NEAR(*late.toi, *ev.toi, 1e-12);
}

TEST(PlaneToi, NoImpactAndInitialContact) {
  std::mt19937 rng(3);
  const ConvexHull hull = hull_of(sphere_points(30, rng, 1.0));
  const Vec3 n = Vec3(0.2, -0.3, 1.0).normalized();
  // Moving away while spinning: never touches.
  const RigidMotion away = make_motion(Vec3(0, 0, 2), Quat::Identity(), Vec3(0, 0, 1), Vec3(3, -2, 5));
  const PlaneToiResult r = plane_toi(hull, away, n, 0.0, 0.0, 2.0);
  EXPECT_FALSE(r.toi.has_value());
  const Reference ref = dense_reference(hull, away, n, 0.0, 0.0, 2.0, 20000);
  EXPECT_FALSE(ref.toi.has_value());
  EXPECT_FALSE(plane_toi_discrete(hull, away, n, 0.0, 0.0, 2.0, 0.01).toi.has_value());
  // Sliding parallel to the plane, 1 cm above, spinning about the normal: no contact.
  const double lowest = -hull.vertices[hull.support_index(Vec3(-n))].dot(n);
  const RigidMotion slide = make_motion(n * (lowest + 0.01), Quat::Identity(), any_orthogonal(n) * 4,
                                        n * 30.0);
  EXPECT_FALSE(plane_toi(hull, slide, n, 0.0, 0.0, 1.0).toi.has_value());
  // Starting in contact: TOI is the start of the interval.
  const RigidMotion inside = make_motion(Vec3(0, 0, 0.2), Quat::Identity(), Vec3(0, 0, 1), Vec3(1, 0, 0));
  const PlaneToiResult c = plane_toi(hull, inside, n, 0.0, 0.25, 1.0);
  ASSERT_TRUE(c.toi.has_value());
  EXPECT_EQ(*c.toi, 0.25);
}

TEST(PlaneToi, GrazingDoubleRootIsFound) {
  // A box spinning about x above the plane z = −r, r = |(hy, hz)|: the lowest edge just touches
  // the plane (a double root of the distance) when the half-diagonal in the (y, z) plane points
  // straight down, and never goes below.
  const Vec3 h(0.3, 0.4, 0.7);
  const ConvexHull box = box_hull(h);
  const double r = std::hypot(h.y(), h.z());
  const double w = 2.0;
  const RigidMotion m = make_motion(Vec3::Zero(), Quat::Identity(), Vec3::Zero(), Vec3(w, 0, 0));
  // Vertex (·, −hy, −hz) sits at angle atan2(−hz, −hy) in the (y, z) plane; it points down
  // (angle −π/2) after turning by −π/2 − atan2(−hz, −hy) (mod 2π); the other lower vertex pair
  // (·, +hy, −hz) gets there first.
  double first = kPi;
  for (double sy : {-1.0, 1.0}) {
    for (double sz : {-1.0, 1.0}) {
      double turn = -kPi / 2 - std::atan2(sz * h.z(), sy * h.y());
      while (turn < 0) turn += 2 * kPi;
      first = std::min(first, turn / w);
    }
  }
  const Vec3 n = Vec3::UnitZ();
  const PlaneToiResult g = plane_toi(box, m, n, -r, 0.0, 3.0);
  ASSERT_TRUE(g.toi.has_value());
  EXPECT_NEAR(*g.toi, first, 1e-6);
  EXPECT_NEAR(brute_distance(box, m, n, -r, *g.toi), 0.0, 1e-9);
  // 1 µm further down: a near miss, no contact. 1 µm up: a shallow crossing just before.
  EXPECT_FALSE(plane_toi(box, m, n, -r - 1e-6, 0.0, 3.0).toi.has_value());
  const PlaneToiResult cross = plane_toi(box, m, n, -r + 1e-6, 0.0, 3.0);
  ASSERT_TRUE(cross.toi.has_value());
  const Reference ref = dense_reference(box, m, n, -r + 1e-6, 0.0, 3.0, 200000);
  ASSERT_TRUE(ref.toi.has_value());
  EXPECT_NEAR(*cross.toi, *ref.toi, 1e-9);
  EXPECT_LT(*cross.toi, first);
}

TEST(PlaneToi, IdenticalToiAcrossDiscreteStepsForPolyhedra) {
  std::mt19937 rng(11);
  for (int count : {6, 27, 102}) {
    const ConvexHull hull = hull_of(sphere_points(count, rng, 0.8));
    const ExtremeVertexDiagram diagram = build_extreme_vertex_diagram(hull);
    const RigidMotion m = make_motion(Vec3(0.1, 0.2, 4.0), Quat(Eigen::AngleAxisd(1.0, Vec3::UnitY())),
                                      Vec3(1.0, 0.5, -1.3), Vec3(-1.789, 1.123, -0.789));
    const PlaneToiResult ev = plane_toi(diagram, m, Vec3::UnitZ(), 0.0, 0.0, 3.0);
    ASSERT_TRUE(ev.toi.has_value()) << count;
    for (double dt : {0.005, 0.001}) {
      const PlaneToiResult d = plane_toi_discrete(diagram, m, Vec3::UnitZ(), 0.0, 0.0, 3.0, dt);
      ASSERT_TRUE(d.toi.has_value());
      EXPECT_NEAR(*d.toi, *ev.toi, 1e-9) << count << " faces, dt " << dt;
    }
  }
}

TEST(PlaneToi, HighAngularSpeedsNeverMiss) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  int impacts = 0, misses = 0, shallow = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int count = 6 + trial % 5 * 10;
    const ConvexHull hull =
        trial % 3 == 0 ? box_hull(Vec3(0.2 + 0.3 * std::abs(uni(rng)), 0.3, 0.5))
                       : hull_of(sphere_points(count, rng, 0.5));
    const ExtremeVertexDiagram diagram = build_extreme_vertex_diagram(hull);
    const Vec3 n = test::draw_vec3(g, rng).normalized();
    const double speed = 50.0 + 450.0 * std::abs(uni(rng));
    const Vec3 w = test::draw_vec3(g, rng).normalized() * speed;
    // Start between just touching and clearly above; drift slowly along the normal. One draw
    // per statement (see tests/random_draws.h).
    const double height = 0.4 + 0.8 * std::abs(uni(rng));
    const Vec3 x0 = n * height + any_orthogonal(n) * uni(rng);
    const double sink = -1.0 * std::abs(uni(rng)) - 0.2;
    const Vec3 v = n * sink + any_orthogonal(n) * uni(rng);
    const double angle = 3 * uni(rng);
    const Quat q0(Eigen::AngleAxisd(angle, test::draw_vec3(g, rng).normalized()));
    RigidMotion m = make_motion(x0, q0, v, w);
    // Start clear of the plane (initial contact is a separate test).
    const double d0 = brute_distance(hull, m, n, 0.0, 0.0);
    if (d0 < 0.01) m.pose0.position += n * (0.01 - d0);
    const double t1 = 0.2;
    const PlaneToiResult ev = plane_toi(diagram, m, n, 0.0, 0.0, t1);
    const Reference ref = dense_reference(hull, m, n, 0.0, 0.0, t1, 100000);
    // The paper's own configuration (no pruning, at most two regions per interval) agrees.
    PlaneToiOptions paper;
    paper.motion_bound_pruning = false;
    paper.max_candidates = 2;
    const PlaneToiResult pv = plane_toi(diagram, m, n, 0.0, 0.0, t1, paper);
    ASSERT_EQ(pv.toi.has_value(), ev.toi.has_value()) << trial;
    if (pv.toi) {
      EXPECT_NEAR(*pv.toi, *ev.toi, 1e-12) << trial;
    }
    if (ref.toi) {
      ++impacts;
      if (!ev.toi) {
        ++misses;
        ADD_FAILURE() << "trial " << trial << ": missed contact at " << *ref.toi;
        continue;
      }
      EXPECT_LE(*ev.toi, *ref.toi + 1e-9) << trial;
      if (*ev.toi < *ref.toi - 1e-9) ++shallow;  // a dip between the reference's samples
    } else if (ev.toi) {
      ++shallow;
    }
    if (ev.toi) {
      // A genuine contact: the reported vertex is on the plane, nothing was below it earlier.
      EXPECT_NEAR(n.dot(m.at(*ev.toi).apply(hull.vertices[ev.vertex])), 0.0, 1e-9) << trial;
      EXPECT_NEAR(brute_distance(hull, m, n, 0.0, *ev.toi), 0.0, 1e-9) << trial;
      for (int i = 0; i < 2000; ++i) {
        const double t = *ev.toi * i / 2000.0;
        ASSERT_GT(brute_distance(hull, m, n, 0.0, t), -1e-12) << trial << " at " << t;
      }
    }
    // The discrete method with a step the rotation outruns can miss; it is never earlier.
    const PlaneToiResult d = plane_toi_discrete(diagram, m, n, 0.0, 0.0, t1, 0.005);
    if (d.toi && ev.toi) {
      EXPECT_GE(*d.toi, *ev.toi - 1e-9);
    }
  }
  EXPECT_EQ(misses, 0);
  EXPECT_GT(impacts, 20);
  EXPECT_LT(impacts, 60);  // both outcomes occur
  std::printf("[ high-speed ] %d impacts in 60 trials, %d earlier than the dense reference\n",
              impacts, shallow);
}

TEST(PlaneToi, ShapeWrapperScalesTheNormalAndRejectsCurvedShapes) {
  const Shape box = Shape::box(Vec3(0.5, 0.5, 0.5));
  const RigidMotion m = make_motion(Vec3(0, 0, 2), Quat::Identity(), Vec3(0, 0, -1), Vec3::Zero());
  // 2z <= 2 is the plane z = 1: the box's bottom (z − 0.5) reaches it at t = 0.5.
  const std::optional<PlaneToiResult> r = plane_toi_for_shape(box, m, Vec3(0, 0, 2), 2.0, 0, 1);
  ASSERT_TRUE(r.has_value());
  ASSERT_TRUE(r->toi.has_value());
  EXPECT_NEAR(*r->toi, 0.5, 1e-12);
  const std::optional<PlaneToiResult> d = plane_toi_for_shape(box, m, Vec3(0, 0, 2), 2.0, 0, 1, 0.03);
  ASSERT_TRUE(d.has_value() && d->toi.has_value());
  EXPECT_NEAR(*d->toi, 0.5, 1e-12);
  std::string error;
  EXPECT_FALSE(plane_toi_for_shape(Shape::sphere(1), m, Vec3::UnitZ(), 0, 0, 1, 0, &error));
  EXPECT_NE(error.find("box or a convex hull"), std::string::npos);
  EXPECT_FALSE(plane_toi_for_shape(box, m, Vec3::Zero(), 0, 0, 1, 0, &error));
}

}  // namespace
}  // namespace impetus
