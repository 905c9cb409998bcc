// engine/shape_tessellation: every shape's drawn surface is closed, outward, lies on the shape,
// and encloses the shape's volume (exactly for polyhedra, from inside for round shapes).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "collision/shape/convex_hull.h"
#include "collision/shape/triangle_mesh.h"
#include "engine/shape_tessellation.h"

namespace impetus {
namespace {

// Signed volume by the divergence theorem: positive for a closed outward surface.
double enclosed_volume(const ShapeSurface& s) {
  double six_v = 0;
  for (const auto& t : s.triangles)
    six_v += s.vertices[t[0]].dot(s.vertices[t[1]].cross(s.vertices[t[2]]));
  return six_v / 6.0;
}

bool closed(const ShapeSurface& s) {
  TriangleMesh mesh;
  mesh.vertices = s.vertices;
  mesh.triangles = s.triangles;
  return mesh.is_closed();
}

TEST(ShapeTessellation, SphereLiesOnTheSphereAndEnclosesAlmostItsVolume) {
  const double r = 0.3;
  const ShapeSurface s = tessellate_shape(Shape::sphere(r));
  EXPECT_TRUE(s.smooth);
  EXPECT_TRUE(closed(s));
  for (const Vec3& v : s.vertices) EXPECT_NEAR(v.norm(), r, 1e-12);
  const double exact = 4.0 / 3.0 * kPi * r * r * r;
  const double volume = enclosed_volume(s);
  EXPECT_LT(volume, exact);  // inscribed polyhedron
  EXPECT_GT(volume, 0.95 * exact);
}

TEST(ShapeTessellation, EllipsoidVerticesSatisfyItsEquation) {
  const Vec3 radii(0.14, 0.1, 0.07);
  const ShapeSurface s = tessellate_shape(Shape::ellipsoid(radii));
  EXPECT_TRUE(closed(s));
  for (const Vec3& v : s.vertices) EXPECT_NEAR(v.cwiseQuotient(radii).squaredNorm(), 1.0, 1e-12);
  const double exact = 4.0 / 3.0 * kPi * radii.prod();
  EXPECT_LT(enclosed_volume(s), exact);
  EXPECT_GT(enclosed_volume(s), 0.95 * exact);
}

TEST(ShapeTessellation, CapsuleVerticesAreOneRadiusFromItsSegment) {
  const double r = 0.07, h = 0.1;
  const ShapeSurface s = tessellate_shape(Shape::capsule(r, h));
  EXPECT_TRUE(closed(s));
  for (const Vec3& v : s.vertices) {
    const Vec3 nearest(0, 0, std::clamp(v.z(), -h, h));
    EXPECT_NEAR((v - nearest).norm(), r, 1e-12);
  }
  // Both caps and the cylinder reach the full length.
  double top = -1, bottom = 1;
  for (const Vec3& v : s.vertices) {
    top = std::max(top, v.z());
    bottom = std::min(bottom, v.z());
  }
  EXPECT_NEAR(top, h + r, 1e-12);
  EXPECT_NEAR(bottom, -h - r, 1e-12);
  const double exact = kPi * r * r * (2 * h) + 4.0 / 3.0 * kPi * r * r * r;
  EXPECT_LT(enclosed_volume(s), exact);
  EXPECT_GT(enclosed_volume(s), 0.95 * exact);
}

TEST(ShapeTessellation, BoxAndHullAreExact) {
  const Vec3 e(0.12, 0.1, 0.08);
  const ShapeSurface box = tessellate_shape(Shape::box(e));
  EXPECT_FALSE(box.smooth);
  EXPECT_TRUE(closed(box));
  EXPECT_EQ(box.vertices.size(), 8u);
  EXPECT_NEAR(enclosed_volume(box), 8 * e.prod(), 1e-15);

  std::string error;
  std::optional<ConvexHull> hull = build_convex_hull(
      {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.1, 0.1, 0.1}}, &error);
  ASSERT_TRUE(hull) << error;
  const ShapeSurface tetra =
      tessellate_shape(Shape::convex(std::make_shared<const ConvexHull>(*hull)));
  EXPECT_TRUE(closed(tetra));
  EXPECT_NEAR(enclosed_volume(tetra), 1.0 / 6.0, 1e-12);  // the interior point is dropped
}

TEST(ShapeTessellation, PlaneIsATileFacingItsNormalThroughItsOffsetPoint) {
  const Vec3 n = Vec3(1, 2, 2).normalized();
  const ShapeSurface s = tessellate_shape(Shape::plane(n, 0.5), 10.0);
  ASSERT_EQ(s.triangles.size(), 2u);
  Vec3 centre = Vec3::Zero();
  for (const Vec3& v : s.vertices) {
    EXPECT_NEAR(n.dot(v), 0.5, 1e-12);  // on the plane
    centre += v / 4.0;
  }
  EXPECT_LT((centre - 0.5 * n).norm(), 1e-12);
  for (const auto& t : s.triangles) {
    const Vec3 face = (s.vertices[t[1]] - s.vertices[t[0]]).cross(s.vertices[t[2]] - s.vertices[t[0]]);
    EXPECT_NEAR(face.normalized().dot(n), 1.0, 1e-12);  // CCW seen from +normal
    EXPECT_NEAR(face.norm() / 2, 200.0, 1e-9);          // half of the 20 m × 20 m tile
  }
}

}  // namespace
}  // namespace impetus
