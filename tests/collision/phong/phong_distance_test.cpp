// Phong distance (paper 2, §V) against independent references: closed forms for boxes, the
// Euclidean signed distance (GJK / EPA, collision/distance/distance.h) where the projection is unique or
// nearly so, the touching-contact property of the returned point, and direction continuity
// along paths of poses that cross a medial axis of the Minkowski difference (where the Euclidean
// direction provably jumps by 90°).
#include "collision/phong/phong_distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "collision/distance/distance.h"
#include "collision/shape/procedural_mesh.h"
#include "collision/shape/triangle_mesh.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

double angle_deg(const Vec3& a, const Vec3& b) {
  return std::acos(std::clamp(a.normalized().dot(b.normalized()), -1.0, 1.0)) * 180.0 / kPi;
}

Shape hull_shape(const std::vector<Vec3>& points) {
  std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
  EXPECT_TRUE(hull.has_value());
  return Shape::convex(std::make_shared<const ConvexHull>(std::move(*hull)));
}

// A prism approximating a cylinder of the given radius about z: sharp rims, 4n − 4 triangles.
Shape prism_shape(int sides, double radius, double half_height) {
  std::vector<Vec3> p;
  for (int i = 0; i < sides; ++i) {
    const double a = 2 * kPi * (i + 0.5) / sides;
    p.emplace_back(radius * std::cos(a), radius * std::sin(a), half_height);
    p.emplace_back(radius * std::cos(a), radius * std::sin(a), -half_height);
  }
  return hull_shape(p);
}

DistanceResult euclidean(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
  std::optional<DistanceResult> d = signed_distance(a, pa, b, pb);
  EXPECT_TRUE(d.has_value());
  return d.value_or(DistanceResult{});
}

// The documented convention: translating b by −point (= −distance·direction) leaves the shapes
// touching, which GJK / EPA can check independently.
double distance_after_moving_b(const Shape& a, const Pose& pa, const Shape& b, Pose pb,
                               const PhongDistanceResult& r) {
  pb.position -= r.point;
  return euclidean(a, pa, b, pb).distance;
}

using test::random_rotation;  // one draw per statement (tests/random_draws.h)

TEST(PhongDistance, BoxBoxOnFaceAxisMatchesClosedForm) {
  // D = B ⊕ −A is a box of half extents (0.7, 1.3, 2.4) centred at c = pb − pa. With c on D's
  // x axis the origin lies on the normal through the centre of an x face; every point of ∂D is at
  // least as far as that face's plane, so the Phong and Euclidean projections coincide:
  // distance −(0.7 − |x|), direction sign(x)·x̂ (pushing b further along x separates the boxes).
  const Shape a = Shape::box(Vec3(0.5, 1.0, 2.0));
  const Shape b = Shape::box(Vec3(0.2, 0.3, 0.4));
  std::mt19937 rng(5);
  for (int turn = 0; turn < 3; ++turn) {
    const Quat rot = turn == 0 ? Quat::Identity() : random_rotation(rng);
    for (double x : {-0.4, -0.1, 0.05, 0.3, 0.65}) {
      Pose pa, pb;
      pa.orientation = pb.orientation = rot;
      pa.position = Vec3(0.3, -0.2, 0.1);
      pb.position = pa.position + rot * Vec3(x, 0, 0);
      const PhongDistanceResult r = phong_distance(a, pa, b, pb);
      ASSERT_TRUE(r.converged) << x;
      EXPECT_NEAR(r.distance, -(0.7 - std::abs(x)), 1e-9) << x;
      const Vec3 expected = rot * Vec3(x > 0 ? 1.0 : -1.0, 0, 0);
      EXPECT_LT((r.direction - expected).norm(), 1e-8) << x;
      EXPECT_LT((r.point - r.distance * r.direction).norm(), 1e-9) << x;
      const DistanceResult e = euclidean(a, pa, b, pb);
      EXPECT_NEAR(r.distance, e.distance, 1e-9) << x;
      EXPECT_LT((r.direction - e.normal).norm(), 1e-6) << x;
    }
  }
}

TEST(PhongDistance, SeparatedAndOverlappingBoxesAgreeWithGjkEpaSign) {
  // Random rotated box pairs. ‖point‖ is a distance from the origin to ∂D, so it can never beat
  // the Euclidean one; the sign is the overlap test's; and b moved by −point touches a.
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int separated = 0, overlapping = 0, converged = 0;
  const int count = 60;
  for (int k = 0; k < count; ++k) {
    const Shape a = Shape::box(Vec3::Constant(0.2) + 0.3 * test::draw_vec3(u, rng).cwiseAbs());
    const Shape b = Shape::box(Vec3::Constant(0.1) + 0.3 * test::draw_vec3(u, rng).cwiseAbs());
    Pose pa, pb;
    pa.orientation = random_rotation(rng);
    pb.orientation = random_rotation(rng);
    pb.position = test::draw_vec3(u, rng);
    const PhongDistanceResult r = phong_distance(a, pa, b, pb);
    const DistanceResult e = euclidean(a, pa, b, pb);
    if (std::abs(e.distance) < 1e-6) continue;
    (e.distance > 0 ? separated : overlapping) += 1;
    EXPECT_EQ(r.distance > 0, e.distance > 0) << k;
    EXPECT_NEAR(r.direction.norm(), 1.0, 1e-12);
    if (!r.converged) continue;
    ++converged;
    EXPECT_GE(std::abs(r.distance), std::abs(e.distance) - 1e-9) << k;
    EXPECT_NEAR(distance_after_moving_b(a, pa, b, pb, r), 0.0, 1e-7) << k;
  }
  EXPECT_GT(separated, 10);
  EXPECT_GT(overlapping, 10);
  EXPECT_GE(converged, (separated + overlapping) * 9 / 10);
}

// A pose path along which the origin crosses the medial-axis sheet that bisects two faces of D
// meeting at an edge, at depth `depth` from both. Euclidean projection switches faces there (a 90°
// jump); the Phong normals turn round the edge continuously.
struct PathStats {
  double phong_max_step_deg = 0;
  double euclid_max_step_deg = 0;
  int not_converged = 0;
  std::vector<PhongDistanceResult> results;
};

PathStats run_path(const Shape& a, const Shape& b, const Pose& pa, const std::vector<Vec3>& b_positions,
                   bool warm) {
  PathStats stats;
  Vec3 prev_phong = Vec3::Zero(), prev_euclid = Vec3::Zero();
  for (std::size_t i = 0; i < b_positions.size(); ++i) {
    Pose pb;
    pb.orientation = pa.orientation;
    pb.position = b_positions[i];
    PhongDistanceOptions options;
    if (warm && i > 0) options.warm_start = &prev_phong;
    const PhongDistanceResult r = phong_distance(a, pa, b, pb, options);
    const DistanceResult e = euclidean(a, pa, b, pb);
    if (!r.converged) ++stats.not_converged;
    if (i > 0) {
      stats.phong_max_step_deg = std::max(stats.phong_max_step_deg, angle_deg(prev_phong, r.direction));
      stats.euclid_max_step_deg = std::max(stats.euclid_max_step_deg, angle_deg(prev_euclid, e.normal));
    }
    prev_phong = r.direction;
    prev_euclid = e.normal;
    stats.results.push_back(r);
  }
  return stats;
}

TEST(PhongDistance, SmallBoxCrossingMedialAxisInsideLargeBox) {
  // A = box (0.5, 1, 2), B = box 0.1 inside it near A's edge x = +0.5, y = +1 (seen from D):
  // D is the box of half extents (0.6, 1.1, 2.1) centred at pb − pa and the origin sits at
  // o = (0.6 − δ − s, 1.1 − δ + s, 0) from D's centre, δ = 0.1, s ∈ [−0.05, 0.05] in 1 mm steps.
  // At s = 0 the origin is on the bisector of the x and y faces, and by the symmetry swapping
  // them the Phong point is the edge point (0.6, 1.1, 0) from D's centre: distance −δ√2,
  // direction −(1, 1, 0)/√2.
  //
  // (Sliding the small box across A's exact centre would cross the medial sheet where two
  // opposite faces tie; there the nearest Phong projection switches faces as well — any distance
  // defined as a minimum over ∂D must — so the continuity claim is tested at an edge bisector.)
  const Shape a = Shape::box(Vec3(0.5, 1.0, 2.0));
  const Shape b = Shape::box(Vec3(0.1, 0.1, 0.1));
  std::mt19937 rng(3);
  for (int turn = 0; turn < 2; ++turn) {
    Pose pa;
    pa.orientation = turn == 0 ? Quat::Identity() : random_rotation(rng);
    pa.position = Vec3(0.2, 0.1, -0.3);
    std::vector<Vec3> path;
    const double delta = 0.1;
    for (int i = -50; i <= 50; ++i) {
      const double s = 1e-3 * i;
      path.push_back(pa.position - pa.orientation * Vec3(0.6 - delta - s, 1.1 - delta + s, 0));
    }
    for (bool warm : {false, true}) {
      const PathStats st = run_path(a, b, pa, path, warm);
      EXPECT_EQ(st.not_converged, 0);
      EXPECT_LE(st.phong_max_step_deg, 5.0) << "warm " << warm;
      EXPECT_GT(st.euclid_max_step_deg, 45.0);
      const PhongDistanceResult& mid = st.results[50];
      EXPECT_NEAR(mid.distance, -delta * std::sqrt(2.0), 1e-9);
      EXPECT_LT((mid.direction - pa.orientation * Vec3(-1, -1, 0).normalized()).norm(), 1e-8);
    }
  }
}

TEST(PhongDistance, BoxCrossingRimBisectorInsideFinePrism) {
  // Same experiment against a 1276-triangle model with sharp rims: a 320-gon prism (radius 1,
  // half height 0.5) around a 0.1 box; the origin crosses the bisector of the top cap and the
  // side at depth 0.1, in 1 mm steps.
  const Shape a = prism_shape(320, 1.0, 0.5);
  const Shape b = Shape::box(Vec3(0.1, 0.1, 0.1));
  Pose pa;
  std::vector<Vec3> path;
  for (int i = -20; i <= 20; ++i) {
    const double s = 1e-3 * i;
    path.push_back(-Vec3(1.1 - 0.1 - s, 0.0, 0.6 - 0.1 + s));
  }
  const PathStats st = run_path(a, b, pa, path, true);
  EXPECT_EQ(st.not_converged, 0);
  EXPECT_LE(st.phong_max_step_deg, 5.0);
  EXPECT_GT(st.euclid_max_step_deg, 45.0);
  for (std::size_t i = 0; i < path.size(); ++i) {
    Pose pb;
    pb.position = path[i];
    EXPECT_NEAR(distance_after_moving_b(a, pa, b, pb, st.results[i]), 0.0, 1e-7) << i;
  }
}

// The tessellation step of a hull: the largest angle between the normals of two faces that
// share an edge [degrees].
double largest_turn_between_faces_deg(const ConvexHull& hull) {
  std::map<std::pair<int, int>, int> face_of_edge;
  double worst = 0;
  for (int f = 0; f < static_cast<int>(hull.faces.size()); ++f) {
    const std::vector<int>& loop = hull.faces[f].vertices;
    for (std::size_t i = 0; i < loop.size(); ++i) {
      const int a = loop[i], b = loop[(i + 1) % loop.size()];
      const auto edge = std::make_pair(std::min(a, b), std::max(a, b));
      const auto [it, first] = face_of_edge.emplace(edge, f);
      if (!first) {
        worst = std::max(worst, angle_deg(hull.faces[f].normal, hull.faces[it->second].normal));
      }
    }
  }
  return worst;
}

TEST(PhongDistance, SphereLikeHullsAgreeWithEuclidean) {
  // Finely tessellated round hulls (1280 triangles): vertex normals are close to the face
  // normals, so the Phong and Euclidean projections differ by tessellation-level amounts only:
  // no more than one step between neighbouring faces of a round hull in the pair (5.8° on the
  // ball, 8.4° at the egg's pointed ends; the faces of the Minkowski difference turn no faster
  // than those of its round summands).
  const Shape ball = hull_shape(icosphere_mesh(3, Vec3(1.0, 1.0, 1.0))->vertices);
  const Shape egg = hull_shape(icosphere_mesh(3, Vec3(0.5, 0.4, 0.3))->vertices);
  const double ball_step = largest_turn_between_faces_deg(*ball.hull);
  const double egg_step = largest_turn_between_faces_deg(*egg.hull);
  const Shape cube = Shape::box(Vec3(0.05, 0.05, 0.05));
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int separated = 0, overlapping = 0;
  for (int k = 0; k < 24; ++k) {
    const Shape& b = (k % 2 == 0) ? cube : egg;
    Pose pa, pb;
    pa.orientation = random_rotation(rng);
    pb.orientation = random_rotation(rng);
    pb.position = test::draw_vec3(u, rng) * 1.4;
    const PhongDistanceResult r = phong_distance(ball, pa, b, pb);
    const DistanceResult e = euclidean(ball, pa, b, pb);
    if (std::abs(e.distance) < 1e-3) continue;
    (e.distance > 0 ? separated : overlapping) += 1;
    ASSERT_TRUE(r.converged) << k;
    EXPECT_EQ(r.distance > 0, e.distance > 0) << k;
    EXPECT_GE(std::abs(r.distance), std::abs(e.distance) - 1e-9) << k;
    EXPECT_LE(std::abs(r.distance) - std::abs(e.distance), 0.01) << k;
    EXPECT_LE(angle_deg(r.direction, e.normal), &b == &egg ? std::max(ball_step, egg_step) : ball_step)
        << k;
    EXPECT_NEAR(distance_after_moving_b(ball, pa, b, pb, r), 0.0, 1e-7) << k;
  }
  EXPECT_GT(separated, 3);
  EXPECT_GT(overlapping, 3);
}

TEST(PhongDistance, WarmStartGivesTheColdAnswer) {
  const Shape egg_a = hull_shape(icosphere_mesh(3, Vec3(1.0, 0.7, 0.5))->vertices);
  const Shape egg_b = hull_shape(icosphere_mesh(3, Vec3(0.6, 0.5, 0.4))->vertices);
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < 10; ++k) {
    Pose pa, pb;
    pa.orientation = random_rotation(rng);
    pb.orientation = random_rotation(rng);
    pb.position = test::draw_vec3(u, rng) * 1.2;
    const PhongDistanceResult cold = phong_distance(egg_a, pa, egg_b, pb);
    ASSERT_TRUE(cold.converged) << k;
    // The previous frame's direction: the cold one tilted by a few degrees.
    const Vec3 tilt = any_orthogonal(cold.direction);
    const Vec3 previous = (cold.direction + 0.08 * tilt).normalized();
    PhongDistanceOptions options;
    options.warm_start = &previous;
    const PhongDistanceResult warm = phong_distance(egg_a, pa, egg_b, pb, options);
    ASSERT_TRUE(warm.converged) << k;
    EXPECT_NEAR(warm.distance, cold.distance, 1e-9) << k;
    EXPECT_LT((warm.direction - cold.direction).norm(), 1e-7) << k;
  }
}

TEST(PhongDistance, ClosedConvexMeshEqualsItsHull) {
  const std::shared_ptr<TriangleMesh> mesh = icosphere_mesh(2, Vec3(0.8, 0.6, 0.5));
  const Shape as_mesh = Shape::triangle_mesh(mesh);
  const Shape as_hull = hull_shape(mesh->vertices);
  const Shape b = Shape::box(Vec3(0.2, 0.1, 0.15));
  Pose pa, pb;
  pa.orientation = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()));
  pb.position = Vec3(0.3, 0.4, -0.2);
  const PhongDistanceResult rm = phong_distance(as_mesh, pa, b, pb);
  const PhongDistanceResult rh = phong_distance(as_hull, pa, b, pb);
  ASSERT_TRUE(rm.converged);
  EXPECT_FALSE(rm.mesh_hull_used);
  EXPECT_NEAR(rm.distance, rh.distance, 1e-12);
  EXPECT_LT((rm.direction - rh.direction).norm(), 1e-12);
  EXPECT_NEAR(distance_after_moving_b(as_mesh, pa, b, pb, rm), 0.0, 1e-7);
}

TEST(PhongDistance, NonConvexMeshGoesToTheConvolutionNotItsHull) {
  // An octahedron whose top vertex is pushed below the equator: closed, dented, not convex.
  // It is no longer replaced by its hull (phong_nonconvex_test checks the answers).
  auto dented = std::make_shared<TriangleMesh>();
  dented->vertices = {Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, 0),
                      Vec3(0, 0, -0.3), Vec3(0, 0, -1)};
  dented->triangles = {{4, 0, 2}, {4, 2, 1}, {4, 1, 3}, {4, 3, 0},
                       {5, 2, 0}, {5, 1, 2}, {5, 3, 1}, {5, 0, 3}};
  dented->build_bvh();
  ASSERT_TRUE(dented->is_closed());
  const Shape mesh = Shape::triangle_mesh(dented);
  const Shape hull = hull_shape(dented->vertices);
  const Shape b = Shape::box(Vec3(0.1, 0.1, 0.1));
  Pose pa, pb;
  pb.position = Vec3(0.2, 0.1, -0.5);
  const PhongDistanceResult rm = phong_distance(mesh, pa, b, pb);
  const PhongDistanceResult rh = phong_distance(hull, pa, b, pb);
  EXPECT_FALSE(rm.mesh_hull_used);
  EXPECT_TRUE(rm.convolution_used);
  EXPECT_GT(rm.convolution_facets, 0u);
  EXPECT_FALSE(rh.mesh_hull_used);
  EXPECT_FALSE(rh.convolution_used);
}

TEST(PhongDistance, RejectsUnsupportedShapes) {
  const Shape box = Shape::box(Vec3(0.1, 0.1, 0.1));
  const Pose p;
  EXPECT_THROW(phong_distance(Shape::sphere(0.1), p, box, p), std::invalid_argument);
  EXPECT_THROW(phong_distance(box, p, Shape::capsule(0.1, 0.2), p), std::invalid_argument);
  auto open = std::make_shared<TriangleMesh>();
  open->vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
  open->triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}};  // one face missing
  open->build_bvh();
  EXPECT_THROW(phong_distance(Shape::triangle_mesh(open), p, box, p), std::invalid_argument);
}

}  // namespace
}  // namespace impetus
