// collide() for planes and triangle meshes against every other shape: vertex lists and closed
// forms (planes), brute force over triangles (meshes), resting manifolds on flat meshes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "collision/narrowphase/narrowphase.h"
#include "collision/shape/convex_hull.h"
#include "tests/collision/narrowphase/contact_checks.h"
#include "tests/collision/narrowphase/narrowphase_reference.h"

namespace impetus {
namespace {

using testref::RefDistance;
using namespace testref;

// ---- planes --------------------------------------------------------------------------------

TEST(Collide, PlaneAgainstEveryShapeKeepsTheDeepestAndSpreads) {
  std::mt19937_64 rng(1234);
  auto mesh = testref::sphere_mesh(0.5, 2);
  int overlapping = 0, total = 0;
  for (int k = 0; k < 6; ++k) {
    for (int i = 0; i < 25; ++i) {
      Shape b = k < 5 ? random_shape(kConvexTypes[k], rng) : Shape::triangle_mesh(mesh);
      Shape plane = Shape::plane(testref::random_vector(rng, -1, 1).normalized(), 0.2);
      Pose pp{testref::random_vector(rng, -1, 1), testref::random_rotation(rng)};
      Vec3 n = pp.rotate(plane.normal);
      double offset = plane.offset + n.dot(pp.position);
      Pose pb;
      pb.orientation = testref::random_rotation(rng);
      pb.position = pp.position + (offset - n.dot(pp.position)) * n +
                    testref::uniform(rng, -0.3, 1.5) * size_of(b) * n;
      const double margin = 0.05;
      std::string what = std::string("plane-") + shape_type_name(b.type) + " " + std::to_string(i);
      // Reference: the candidate points of b (vertices, end caps, support point).
      std::vector<double> heights;
      if (b.type == ShapeType::Box) {
        for (int c = 0; c < 8; ++c) {
          Vec3 v((c & 1) ? b.half_extents.x() : -b.half_extents.x(),
                 (c & 2) ? b.half_extents.y() : -b.half_extents.y(),
                 (c & 4) ? b.half_extents.z() : -b.half_extents.z());
          heights.push_back(n.dot(pb.apply(v)) - offset);
        }
      } else if (b.type == ShapeType::Convex) {
        for (const Vec3& v : b.hull->vertices) heights.push_back(n.dot(pb.apply(v)) - offset);
      } else if (b.type == ShapeType::Mesh) {
        for (const Vec3& v : mesh->vertices) heights.push_back(n.dot(pb.apply(v)) - offset);
      } else if (b.type == ShapeType::Capsule) {
        for (double e : {-1.0, 1.0}) {
          heights.push_back(n.dot(pb.apply(Vec3(0, 0, e * b.half_length))) - b.radius - offset);
        }
      } else {
        heights.push_back(n.dot(testref::make_support(b, pb)(-n)) - offset);
      }
      double deepest = *std::min_element(heights.begin(), heights.end());
      int below = static_cast<int>(
          std::count_if(heights.begin(), heights.end(), [&](double h) { return h < margin; }));
      Manifold m;
      collide(plane, pp, b, pb, margin, m);
      expect_well_formed(m, margin, what);
      EXPECT_EQ(m.count, std::min(below, 4)) << what;
      if (m.count > 0) {
        EXPECT_NEAR(min_separation(m), deepest, 1e-12) << what;
        for (int j = 0; j < m.count; ++j) {
          EXPECT_LT((m.points[j].normal - n).norm(), 1e-12) << what;
          EXPECT_NEAR(n.dot(m.points[j].point_a) - offset, 0, 1e-9) << what;
        }
      }
      overlapping += deepest < 0;
      ++total;
      expect_symmetric_and_invariant(plane, pp, b, pb, margin, m, rng, what);
    }
  }
  EXPECT_GT(overlapping, total / 5);
  EXPECT_LT(overlapping, 4 * total / 5);
}

TEST(Collide, BoxOnPlaneSpreadsOverItsBottomFace) {
  Shape ground = Shape::plane(Vec3::UnitZ(), 0);
  Shape box = Shape::box(Vec3(0.4, 0.3, 0.2));
  Pose pb;
  pb.position = Vec3(1, 2, 0.2 - 0.004);
  pb.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3::UnitZ()));
  Manifold m;
  collide(ground, Pose{}, box, pb, 0.01, m);
  ASSERT_EQ(m.count, 4);
  std::vector<std::pair<double, double>> expected;
  for (int k = 0; k < 4; ++k) {
    Vec3 w = pb.apply(Vec3((k & 1) ? 0.4 : -0.4, (k & 2) ? 0.3 : -0.3, -0.2));
    expected.emplace_back(std::round(w.x() * 1e6) / 1e6, std::round(w.y() * 1e6) / 1e6);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(corners_xy(m, true), expected);
}

TEST(Collide, NoContactsForPlanePairsAndMeshPairs) {
  Shape p = Shape::plane(Vec3::UnitZ(), 0);
  auto mesh = testref::sphere_mesh(0.5, 1);
  Shape s = Shape::triangle_mesh(mesh);
  Manifold m;
  EXPECT_FALSE(collide(p, Pose{}, p, Pose{}, 0.1, m));
  EXPECT_FALSE(collide(s, Pose{}, s, Pose{}, 0.1, m));
  EXPECT_EQ(m.count, 0);
}

// ---- meshes --------------------------------------------------------------------------------

TEST(Collide, MeshAgainstConvexMatchesTriangleBruteForce) {
  std::mt19937_64 rng(2718);
  auto terrain = testref::terrain_mesh(rng, 8, 1.5, 0.05);
  Shape ground = Shape::triangle_mesh(terrain);
  int overlapping = 0, total = 0;
  for (ShapeType tb : kConvexTypes) {
    for (int i = 0; i < 12; ++i) {
      Shape b = random_shape(tb, rng);
      Pose pm{testref::random_vector(rng, -0.2, 0.2), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX()))};
      Pose pb;
      pb.orientation = testref::random_rotation(rng);
      Vec3 up = pm.rotate(Vec3::UnitZ());
      // The shape's lowest point from 8 cm below to 10 cm above the mean surface (bumps ±5 cm):
      // resting and shallow contacts, where the surface's depth is the triangles' own.
      Pose centred{Vec3::Zero(), pb.orientation};
      double below = -up.dot(testref::make_support(b, centred)(-up));
      const double x = testref::uniform(rng, -0.7, 0.7);
      const double y = testref::uniform(rng, -0.7, 0.7);
      pb.position = pm.apply(Vec3(x, y, 0)) + up * (below + testref::uniform(rng, -0.08, 0.1));
      const double margin = 0.02;
      std::string what = std::string("mesh-") + shape_type_name(tb) + " " + std::to_string(i);
      // Reference: min over triangles of the triangle–shape signed distance, a triangle that b
      // is stuck through from the front counting with its front-face depth (collide's rule).
      double ref = testref::mesh_reference_distance(*terrain, pm, b, pb, true);
      Manifold m;
      collide(ground, pm, b, pb, margin, m);
      expect_well_formed(m, margin, what);
      EXPECT_LE(m.count, kMaxManifoldPoints) << what;
      if (ref < margin - 1e-4) {
        EXPECT_GT(m.count, 0) << what;
      }
      if (ref > margin + 1e-4) {
        EXPECT_EQ(m.count, 0) << what;
      }
      if (m.count > 0) {
        // Shapes sit on the terrain from above: the deepest point is the reference depth and
        // every normal points up out of the surface.
        EXPECT_NEAR(min_separation(m), ref, 2e-4) << what;
        // Polytopes keep edge–edge contacts on internal mesh edges, whose normals tilt more.
        bool polytope = tb == ShapeType::Box || tb == ShapeType::Convex;
        for (int j = 0; j < m.count; ++j) {
          EXPECT_GT(m.points[j].normal.dot(up), polytope ? 0.0 : 0.5) << what;
        }
      }
      overlapping += ref < 0;
      ++total;
      expect_symmetric_and_invariant(ground, pm, b, pb, margin, m, rng, what);
    }
  }
  EXPECT_GT(overlapping, total / 5);
  EXPECT_LT(overlapping, 4 * total / 5);
}

TEST(Collide, BoxOnFlatMeshGetsItsCorners) {
  // Two big triangles forming a square floor; a box resting across the diagonal seam.
  auto floor = std::make_shared<TriangleMesh>();
  floor->vertices = {Vec3(-2, -2, 0), Vec3(2, -2, 0), Vec3(2, 2, 0), Vec3(-2, 2, 0)};
  floor->triangles = {{0, 1, 2}, {0, 2, 3}};
  floor->build_bvh();
  Shape ground = Shape::triangle_mesh(floor);
  Shape box = Shape::box(Vec3(0.3, 0.3, 0.3));
  Pose pb;
  pb.position = Vec3(0.1, 0.05, 0.3 - 0.003);
  pb.orientation = Quat(Eigen::AngleAxisd(0.2, Vec3::UnitZ()));
  Manifold m;
  collide(ground, Pose{}, box, pb, 0.01, m);
  ASSERT_EQ(m.count, 4);
  std::vector<std::pair<double, double>> expected;
  for (int k = 0; k < 4; ++k) {
    Vec3 w = pb.apply(Vec3((k & 1) ? 0.3 : -0.3, (k & 2) ? 0.3 : -0.3, -0.3));
    expected.emplace_back(std::round(w.x() * 1e6) / 1e6, std::round(w.y() * 1e6) / 1e6);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(corners_xy(m, true), expected);
  for (int i = 0; i < m.count; ++i) {
    EXPECT_NEAR(m.points[i].separation, -0.003, 1e-12);
    EXPECT_LT((m.points[i].normal - Vec3::UnitZ()).norm(), 1e-12);
  }
}

TEST(Collide, SphereSunkIntoMeshIsPushedOutOfTheFront) {
  // A sphere whose centre is just below a floor triangle (but still in front of the other side
  // of the mesh) is pushed up, not through.
  auto floor = std::make_shared<TriangleMesh>();
  floor->vertices = {Vec3(-2, -2, 0), Vec3(2, -2, 0), Vec3(2, 2, 0), Vec3(-2, 2, 0)};
  floor->triangles = {{0, 1, 2}, {0, 2, 3}};
  floor->build_bvh();
  Shape ground = Shape::triangle_mesh(floor);
  Shape ball = Shape::sphere(0.5);
  Pose pb;
  pb.position = Vec3(0.3, 0.2, 0.1);  // centre above: 0.4 deep
  Manifold m;
  collide(ground, Pose{}, ball, pb, 0.01, m);
  ASSERT_GE(m.count, 1);
  EXPECT_NEAR(min_separation(m), -0.4, 1e-9);
  for (int i = 0; i < m.count; ++i) EXPECT_GT(m.points[i].normal.z(), 0.99);
}

TEST(Collide, SpikeStuckThroughAMeshNextToAnEdgeIsPushedOutOfTheFront) {
  // A ridge: a flat triangle (z = 0, y >= 0) and one sloping down from their shared edge on the
  // x axis. A thin pyramid leans over the edge (its axis 30° off +z towards −y), its tip 6 cm
  // under the flat triangle and 6.5 cm in from the edge, and crosses the flat triangle about
  // 3 cm from the edge. Out of that zero-thickness triangle the short way is sideways and down,
  // past the edge; but the centre is in front and the tip 6 cm under the surface: the contact
  // is the front face's, as deep as the tip (by construction). Clang's draws of
  // MeshAgainstConvexMatchesTriangleBruteForce gave such a case, a hull vertex 36.8 mm deep.
  auto ridge = std::make_shared<TriangleMesh>();
  ridge->vertices = {Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, -0.3)};
  ridge->triangles = {{0, 1, 2}, {1, 0, 3}};
  ridge->build_bvh();
  const Shape ground = Shape::triangle_mesh(ridge);
  const double depth = 0.06;
  const Vec3 tip(0, 0.065, -depth);
  const Vec3 axis(0, -0.5, std::sqrt(3.0) / 2);
  const Vec3 e1 = Vec3::UnitX(), e2 = axis.cross(e1);
  std::vector<Vec3> points = {tip};
  for (int k = 0; k < 3; ++k) {
    const double phi = 2 * kPi * k / 3;
    points.push_back(tip + 0.6 * axis + 0.15 * (std::cos(phi) * e1 + std::sin(phi) * e2));
  }
  const Shape spike = Shape::convex(std::make_shared<const ConvexHull>(*build_convex_hull(points, nullptr)));
  Manifold m;
  ASSERT_TRUE(collide(ground, Pose{}, spike, Pose{}, 0.01, m));
  int deepest = 0;
  for (int i = 1; i < m.count; ++i) {
    if (m.points[i].separation < m.points[deepest].separation) deepest = i;
  }
  EXPECT_NEAR(m.points[deepest].separation, -depth, 1e-9);
  EXPECT_LT((m.points[deepest].normal - Vec3::UnitZ()).norm(), 1e-9);
  EXPECT_LT((m.points[deepest].point_b - tip).norm(), 1e-9);
  // The references: the front-face rule gives the tip's depth; the two-sided triangle distance
  // alone (the way out past the edge) is centimetres shallower.
  EXPECT_NEAR(testref::mesh_reference_distance(*ridge, Pose{}, spike, Pose{}, true), -depth, 1e-6);
  EXPECT_GT(testref::mesh_reference_distance(*ridge, Pose{}, spike, Pose{}), -depth + 0.01);
}

TEST(Collide, DeterministicAcrossRepeats) {
  std::mt19937_64 rng(99);
  auto terrain = testref::terrain_mesh(rng, 6, 1.0, 0.05);
  Shape ground = Shape::triangle_mesh(terrain);
  Shape hull = Shape::convex(testref::random_hull(rng));
  Pose ph;
  ph.position = Vec3(0.1, 0.2, 0.3);
  ph.orientation = testref::random_rotation(rng);
  Manifold first;
  collide(ground, Pose{}, hull, ph, 0.05, first);
  for (int r = 0; r < 3; ++r) {
    Manifold again;
    collide(ground, Pose{}, hull, ph, 0.05, again);
    ASSERT_EQ(again.count, first.count);
    for (int i = 0; i < first.count; ++i) {
      EXPECT_EQ(again.points[i].point_a, first.points[i].point_a);
      EXPECT_EQ(again.points[i].separation, first.points[i].separation);
      EXPECT_EQ(again.points[i].feature_id, first.points[i].feature_id);
    }
  }
}

}  // namespace
}  // namespace impetus
