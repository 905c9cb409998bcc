// signed_distance against independent references: closed forms (sphere/capsule/plane pairs),
// the support-function minimum over directions (every convex pair), brute force over triangles
// (meshes); plus symmetry under swapping and invariance under a common rigid motion.
#include "collision/distance/distance.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/collision/narrowphase/narrowphase_reference.h"

namespace impetus {
namespace {

using testref::RefDistance;

using testref::kConvexTypes;
using testref::random_shape;
using testref::size_of;

// b placed around a at a random direction and a centre distance spread over overlap and gap.
void random_pair_poses(const Shape& a, const Shape& b, std::mt19937_64& rng, Pose& pa, Pose& pb) {
  pa.position = testref::random_vector(rng, -1, 1);
  pa.orientation = testref::random_rotation(rng);
  Vec3 dir = testref::random_vector(rng, -1, 1).normalized();
  double reach = size_of(a) + size_of(b);
  pb.position = pa.position + dir * testref::uniform(rng, 0.15, 1.15) * reach;
  pb.orientation = testref::random_rotation(rng);
}

void expect_consistent(const DistanceResult& r, const std::string& what) {
  EXPECT_NEAR(r.normal.norm(), 1.0, 1e-9) << what;
  Vec3 gap = r.point_b - r.point_a;
  EXPECT_LT((gap - r.distance * r.normal).norm(), 1e-7) << what;
}

TEST(SignedDistance, ConvexPairsMatchSupportFunctionReference) {
  std::mt19937_64 rng(20240611);
  int overlapping = 0;
  int total = 0;
  for (ShapeType ta : kConvexTypes) {
    for (ShapeType tb : kConvexTypes) {
      int pair_overlap = 0;
      const int kCases = 24;
      double worst_d = 0, worst_angle = 0;
      for (int i = 0; i < kCases; ++i) {
        Shape a = random_shape(ta, rng);
        Shape b = random_shape(tb, rng);
        Pose pa, pb;
        random_pair_poses(a, b, rng, pa, pb);
        std::string what = std::string(shape_type_name(ta)) + "-" + shape_type_name(tb) + " case " +
                           std::to_string(i);
        std::optional<DistanceResult> r = signed_distance(a, pa, b, pb);
        ASSERT_TRUE(r.has_value()) << what;
        testref::SupportFn sa = testref::make_support(a, pa);
        testref::SupportFn sb = testref::make_support(b, pb);
        RefDistance ref =
            testref::reference_signed_distance(sa, sb, testref::pair_axes(a, pa, b, pb));
        double scale = size_of(a) + size_of(b);
        // EPA on curved surfaces converges linearly (capped at 200 steps): looser there.
        bool curved_overlap =
            ref.distance < 0 && (ta == ShapeType::Ellipsoid || tb == ShapeType::Ellipsoid);
        double tol = (curved_overlap ? 1e-6 : 1e-8) * scale;
        // The reported distance is the slab separation along the reported normal ...
        double gap_n = testref::support_gap(sa, sb, r->normal);
        EXPECT_NEAR(-r->distance, gap_n, tol) << what;
        // ... and no direction of the dense search separates better (δ is the max over u).
        EXPECT_LE(gap_n, -ref.distance + tol) << what;
        // Witnesses are the extreme points of each shape along the normal.
        EXPECT_NEAR(r->normal.dot(r->point_a), r->normal.dot(sa(r->normal)), tol) << what;
        EXPECT_NEAR(r->normal.dot(r->point_b), r->normal.dot(sb(-r->normal)), tol) << what;
        EXPECT_NEAR(r->distance, ref.distance, 1e-3 * scale) << what;  // sanity only
        worst_d = std::max(worst_d, std::abs(r->distance - ref.distance) / scale);
        worst_angle = std::max(worst_angle, std::max(0.0, gap_n + ref.distance) / scale);
        expect_consistent(*r, what);
        EXPECT_LT(testref::surface_residual(a, pa, r->point_a), 1e-6 * scale) << what;
        EXPECT_LT(testref::surface_residual(b, pb, r->point_b), 1e-6 * scale) << what;
        if (ref.distance < 0) ++pair_overlap;
      }
      std::printf("%s-%s: overlap %d/%d, worst |d-ref|/scale %.2e, worst excess/scale %.2e\n",
                  shape_type_name(ta), shape_type_name(tb), pair_overlap, kCases, worst_d,
                  worst_angle);
      overlapping += pair_overlap;
      total += kCases;
    }
  }
  double fraction = static_cast<double>(overlapping) / total;
  EXPECT_GT(fraction, 0.2);
  EXPECT_LT(fraction, 0.8);
}

// ---- rounded shapes: closed-form reference -------------------------------------------------

// dist(point, segment) by clamped projection; dist(segment, segment) by ternary search over the
// first segment's parameter (the distance to a convex set is convex along a segment).
double point_segment(const Vec3& x, const Vec3& a, const Vec3& b) {
  Vec3 d = b - a;
  double t = d.squaredNorm() > 0 ? std::clamp((x - a).dot(d) / d.squaredNorm(), 0.0, 1.0) : 0.0;
  return (x - (a + t * d)).norm();
}
double segment_segment(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  double lo = 0, hi = 1;
  auto f = [&](double s) { return point_segment(p0 + s * (p1 - p0), q0, q1); };
  for (int it = 0; it < 200; ++it) {
    double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2))
      hi = m2;
    else
      lo = m1;
  }
  return std::min({f(0.5 * (lo + hi)), f(0), f(1)});
}

void core(const Shape& s, const Pose& p, Vec3& a, Vec3& b) {
  Vec3 axis = s.type == ShapeType::Capsule ? p.rotate(Vec3(0, 0, s.half_length)) : Vec3::Zero();
  a = p.position - axis;
  b = p.position + axis;
}

TEST(SignedDistance, RoundedShapesMatchClosedForm) {
  std::mt19937_64 rng(77);
  const ShapeType types[] = {ShapeType::Sphere, ShapeType::Capsule};
  int overlapping = 0, total = 0;
  for (ShapeType ta : types) {
    for (ShapeType tb : types) {
      for (int i = 0; i < 60; ++i) {
        Shape a = random_shape(ta, rng);
        Shape b = random_shape(tb, rng);
        Pose pa, pb;
        random_pair_poses(a, b, rng, pa, pb);
        if (i % 10 == 0 && tb == ShapeType::Capsule && ta == ShapeType::Capsule) {
          pb.orientation = pa.orientation;  // parallel axes
        }
        Vec3 a0, a1, b0, b1;
        core(a, pa, a0, a1);
        core(b, pb, b0, b1);
        double ref = segment_segment(a0, a1, b0, b1) - a.radius - b.radius;
        std::optional<DistanceResult> r = signed_distance(a, pa, b, pb);
        ASSERT_TRUE(r.has_value());
        std::string what =
            std::string(shape_type_name(ta)) + "-" + shape_type_name(tb) + " " + std::to_string(i);
        EXPECT_NEAR(r->distance, ref, 1e-9) << what;
        expect_consistent(*r, what);
        EXPECT_LT(testref::surface_residual(a, pa, r->point_a), 1e-9) << what;
        EXPECT_LT(testref::surface_residual(b, pb, r->point_b), 1e-9) << what;
        overlapping += ref < 0;
        ++total;
      }
    }
  }
  EXPECT_GT(overlapping, total / 5);
  EXPECT_LT(overlapping, 4 * total / 5);
}

TEST(SignedDistance, CoincidentCentresStayFinite) {
  // Deepest overlaps: centres on top of each other, axes crossing; the depth is still exact.
  Pose p;
  p.position = Vec3(0.3, -0.2, 0.1);
  Pose q = p;
  q.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  const Shape shapes[] = {Shape::sphere(0.5), Shape::capsule(0.3, 0.6),
                          Shape::box(Vec3(0.4, 0.5, 0.6)), Shape::ellipsoid(Vec3(0.3, 0.5, 0.7))};
  for (const Shape& a : shapes) {
    for (const Shape& b : shapes) {
      std::optional<DistanceResult> r = signed_distance(a, p, b, q);
      ASSERT_TRUE(r.has_value());
      std::string what = std::string(shape_type_name(a.type)) + "-" + shape_type_name(b.type);
      ASSERT_TRUE(std::isfinite(r->distance) && r->normal.allFinite()) << what;
      testref::SupportFn sa = testref::make_support(a, p), sb = testref::make_support(b, q);
      RefDistance ref = testref::reference_signed_distance(sa, sb, testref::pair_axes(a, p, b, q));
      EXPECT_LT(r->distance, 0) << what;
      EXPECT_NEAR(-r->distance, testref::support_gap(sa, sb, r->normal), 1e-6) << what;
      EXPECT_LE(-r->distance, -ref.distance + 1e-6) << what;
      expect_consistent(*r, what);
    }
  }
}

// ---- planes --------------------------------------------------------------------------------

TEST(SignedDistance, PlaneAgainstEveryShapeMatchesSupportPoint) {
  std::mt19937_64 rng(5150);
  auto mesh = testref::sphere_mesh(0.6, 2);
  int overlapping = 0, total = 0;
  for (int k = 0; k < 6; ++k) {
    for (int i = 0; i < 30; ++i) {
      Shape b = k < 5 ? random_shape(kConvexTypes[k], rng) : Shape::triangle_mesh(mesh);
      Vec3 local_n = testref::random_vector(rng, -1, 1).normalized();
      Shape plane = Shape::plane(local_n, testref::uniform(rng, -0.5, 0.5));
      Pose pp, pb;
      pp.position = testref::random_vector(rng, -1, 1);
      pp.orientation = testref::random_rotation(rng);
      Vec3 n = pp.rotate(plane.normal);
      double offset = plane.offset + n.dot(pp.position);
      pb.orientation = testref::random_rotation(rng);
      // b's centre at a random height around the plane.
      Vec3 on_plane = pp.position + (offset - n.dot(pp.position)) * n;
      const double height = testref::uniform(rng, -0.3, 1.6) * size_of(b);
      pb.position = on_plane + height * n + testref::random_vector(rng, -1, 1).cross(n);
      double ref;
      if (b.type == ShapeType::Mesh) {
        ref = 1e300;
        for (const Vec3& v : mesh->vertices) ref = std::min(ref, n.dot(pb.apply(v)) - offset);
      } else {
        testref::SupportFn sb = testref::make_support(b, pb);
        ref = n.dot(sb(-n)) - offset;
      }
      std::string what = std::string("plane-") + shape_type_name(b.type) + " " + std::to_string(i);
      std::optional<DistanceResult> r = signed_distance(plane, pp, b, pb);
      ASSERT_TRUE(r.has_value());
      EXPECT_NEAR(r->distance, ref, 1e-9) << what;
      EXPECT_LT((r->normal - n).norm(), 1e-12) << what;
      EXPECT_NEAR(n.dot(r->point_a) - offset, 0, 1e-9) << what;
      expect_consistent(*r, what);
      std::optional<DistanceResult> s = signed_distance(b, pb, plane, pp);
      ASSERT_TRUE(s.has_value());
      EXPECT_NEAR(s->distance, ref, 1e-9) << what;
      EXPECT_LT((s->normal + n).norm(), 1e-12) << what;
      overlapping += ref < 0;
      ++total;
    }
  }
  EXPECT_GT(overlapping, total / 5);
  EXPECT_LT(overlapping, 4 * total / 5);
}

TEST(SignedDistance, PlanePairIsAnError) {
  Shape p = Shape::plane(Vec3::UnitZ(), 0);
  std::string error;
  EXPECT_FALSE(signed_distance(p, Pose{}, p, Pose{}, &error).has_value());
  EXPECT_FALSE(error.empty());
}

// ---- meshes --------------------------------------------------------------------------------

TEST(SignedDistance, MeshAgainstConvexMatchesTriangleMinimum) {
  std::mt19937_64 rng(31337);
  auto closed = testref::sphere_mesh(0.8, 2);           // 128 triangles, closed
  auto open = testref::terrain_mesh(rng, 6, 1.0, 0.1);  // 72 triangles, open
  int overlapping = 0, total = 0;
  for (const auto& mesh : {closed, open}) {
    Shape m = Shape::triangle_mesh(mesh);
    for (ShapeType tb : kConvexTypes) {
      for (int i = 0; i < 6; ++i) {
        Shape b = random_shape(tb, rng);
        Pose pm, pb;
        pm.position = testref::random_vector(rng, -0.5, 0.5);
        pm.orientation = testref::random_rotation(rng);
        // b near the surface: a random surface vertex pushed along a random direction.
        Vec3 anchor = pm.apply(mesh->vertices[rng() % mesh->vertices.size()]);
        const Vec3 dir = testref::random_vector(rng, -1, 1).normalized();
        pb.position = anchor + dir * testref::uniform(rng, 0.3, 2.0) * size_of(b);
        pb.orientation = testref::random_rotation(rng);
        std::string what = std::string(mesh == closed ? "closed" : "open") + " mesh-" +
                           shape_type_name(tb) + " " + std::to_string(i);
        std::optional<DistanceResult> r = signed_distance(m, pm, b, pb);
        ASSERT_TRUE(r.has_value()) << what;
        double ref = testref::mesh_reference_distance(*mesh, pm, b, pb);
        // Inside a closed mesh without touching its surface: the gap, negated.
        bool inside_rule = false;
        if (mesh == closed && ref > 0) {
          // The sphere mesh is convex: inside ⇔ behind every triangle's plane.
          Vec3 c = pm.inverse_apply(pb.position);
          inside_rule = true;
          for (const auto& t : mesh->triangles) {
            const Vec3& v0 = mesh->vertices[t[0]];
            Vec3 n = (mesh->vertices[t[1]] - v0).cross(mesh->vertices[t[2]] - v0);
            if (n.dot(c - v0) > 0) inside_rule = false;
          }
          if (inside_rule) ref = -ref;
        }
        // The search's minimum of h_D is an upper bound, so ref <= the true δ: the code may
        // not be below it, and above it only by the search's inaccuracy (kinks of rounded and
        // flat sets).
        bool curved = tb == ShapeType::Ellipsoid && ref < 0;
        double scale = size_of(b) + 1;
        if (inside_rule) {
          EXPECT_NEAR(r->distance, ref, 1e-5 * scale) << what;
        } else {
          EXPECT_GE(r->distance, ref - (curved ? 1e-6 : 1e-8) * scale) << what;
          EXPECT_LE(r->distance, ref + 1e-5 * scale) << what;
        }
        expect_consistent(*r, what);
        EXPECT_NEAR(r->distance, signed_distance(b, pb, m, pm)->distance, 1e-12) << what;
        overlapping += ref < 0;
        ++total;
      }
    }
  }
  EXPECT_GT(overlapping, total / 5);
  EXPECT_LT(overlapping, 4 * total / 5);
}

TEST(SignedDistance, SphereInsideClosedMeshIsNegative) {
  auto mesh = testref::sphere_mesh(1.0, 3);
  Shape m = Shape::triangle_mesh(mesh);
  Shape ball = Shape::sphere(0.2);
  Pose pb;
  pb.position = Vec3(0.1, 0.2, -0.1);
  std::optional<DistanceResult> r = signed_distance(m, Pose{}, ball, pb);
  ASSERT_TRUE(r.has_value());
  // Gap to the surface: min over triangles of the point–triangle distance, minus the radius.
  double gap = 1e300;
  for (const auto& t : mesh->triangles) {
    gap =
        std::min(gap, testref::point_triangle_distance(pb.position, mesh->vertices[t[0]],
                                                       mesh->vertices[t[1]], mesh->vertices[t[2]]));
  }
  gap -= ball.radius;
  EXPECT_NEAR(r->distance, -gap, 1e-9);
  expect_consistent(*r, "inside");
}

TEST(SignedDistance, SphereAgainstMeshMatchesPointTriangleDistance) {
  std::mt19937_64 rng(99);
  auto mesh = testref::terrain_mesh(rng, 8, 1.0, 0.2);
  Shape m = Shape::triangle_mesh(mesh);
  int overlapping = 0;
  for (int i = 0; i < 100; ++i) {
    Shape ball = Shape::sphere(testref::uniform(rng, 0.05, 0.3));
    Pose pb;
    const double x = testref::uniform(rng, -1, 1);
    const double y = testref::uniform(rng, -1, 1);
    pb.position = Vec3(x, y, testref::uniform(rng, -0.3, 0.5));
    double ref = 1e300;
    for (const auto& t : mesh->triangles) {
      ref = std::min(ref,
                     testref::point_triangle_distance(pb.position, mesh->vertices[t[0]],
                                                      mesh->vertices[t[1]], mesh->vertices[t[2]]));
    }
    ref -= ball.radius;  // a sphere against a flat triangle: centre distance minus radius
    std::optional<DistanceResult> r = signed_distance(m, Pose{}, ball, pb);
    ASSERT_TRUE(r.has_value());
    EXPECT_NEAR(r->distance, ref, 1e-8) << i;
    overlapping += ref < 0;
  }
  EXPECT_GT(overlapping, 20);
  EXPECT_LT(overlapping, 80);
}

// Triangle–triangle distance of disjoint triangles: the minimum over the 6 vertex–triangle and
// the 9 edge–edge distances.
double triangle_triangle(const std::array<Vec3, 3>& a, const std::array<Vec3, 3>& b) {
  double d = 1e300;
  for (int i = 0; i < 3; ++i) {
    d = std::min(d, testref::point_triangle_distance(a[i], b[0], b[1], b[2]));
    d = std::min(d, testref::point_triangle_distance(b[i], a[0], a[1], a[2]));
    for (int j = 0; j < 3; ++j) {
      d = std::min(d, segment_segment(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]));
    }
  }
  return d;
}

// Whether segment pq passes through triangle abc (generic position: no touching or coplanar
// cases): p and q on opposite sides of its plane, and pq on the same side of its three edges.
bool segment_crosses_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b,
                              const Vec3& c) {
  auto volume = [](const Vec3& w, const Vec3& x, const Vec3& y, const Vec3& z) {
    return (x - w).dot((y - w).cross(z - w));
  };
  if ((volume(a, b, c, p) > 0) == (volume(a, b, c, q) > 0)) return false;
  const bool s0 = volume(p, q, a, b) > 0, s1 = volume(p, q, b, c) > 0, s2 = volume(p, q, c, a) > 0;
  return s0 == s1 && s1 == s2;
}

// Two triangles cross when an edge of one passes through the other.
bool triangles_cross(const std::array<Vec3, 3>& a, const std::array<Vec3, 3>& b) {
  for (int i = 0; i < 3; ++i) {
    if (segment_crosses_triangle(a[i], a[(i + 1) % 3], b[0], b[1], b[2]) ||
        segment_crosses_triangle(b[i], b[(i + 1) % 3], a[0], a[1], a[2])) {
      return true;
    }
  }
  return false;
}

TEST(SignedDistance, MeshAgainstMeshMatchesBruteForce) {
  std::mt19937_64 rng(4242);
  auto ma = testref::sphere_mesh(0.5, 1);
  auto mb = testref::terrain_mesh(rng, 3, 0.6, 0.15);
  Shape a = Shape::triangle_mesh(ma), b = Shape::triangle_mesh(mb);
  // At least 16 cases, and at least 3 of each kind (surfaces crossing, apart): most draws
  // cross, so draw on until both kinds are there.
  int crossing = 0, apart = 0;
  for (int i = 0; i < 16 || crossing < 3 || apart < 3; ++i) {
    ASSERT_LT(i, 64) << "crossing " << crossing << ", apart " << apart;
    Pose pa, pb;
    pa.orientation = testref::random_rotation(rng);
    pb.orientation = testref::random_rotation(rng);
    const Vec3 dir = testref::random_vector(rng, -1, 1).normalized();
    pb.position = dir * testref::uniform(rng, 0.2, 1.2);
    std::optional<DistanceResult> r = signed_distance(a, pa, b, pb);
    ASSERT_TRUE(r.has_value());
    // Brute force: whether any two triangles cross (the open terrain, wider than the sphere,
    // cannot lie inside it), else the least distance over all pairs.
    double ref = 1e300;
    bool cross = false;
    for (const auto& ta : ma->triangles) {
      std::array<Vec3, 3> wa = {pa.apply(ma->vertices[ta[0]]), pa.apply(ma->vertices[ta[1]]),
                                pa.apply(ma->vertices[ta[2]])};
      for (const auto& tb : mb->triangles) {
        std::array<Vec3, 3> wb = {pb.apply(mb->vertices[tb[0]]), pb.apply(mb->vertices[tb[1]]),
                                  pb.apply(mb->vertices[tb[2]])};
        cross = cross || triangles_cross(wa, wb);
        ref = std::min(ref, triangle_triangle(wa, wb));
      }
    }
    expect_consistent(*r, "mesh-mesh");
    EXPECT_EQ(r->distance < 0, cross) << i;
    if (cross) {
      // The brute force's vertex and edge distances then find touching triangles.
      ++crossing;
      EXPECT_LT(ref, 1e-6 + std::abs(r->distance)) << i;
    } else {
      ++apart;
      EXPECT_NEAR(r->distance, ref, 1e-8) << i;
    }
  }
}

// ---- properties ------------------------------------------------------------------------------

Shape shape_of(ShapeType t, std::mt19937_64& rng, const std::shared_ptr<const TriangleMesh>& mesh) {
  if (t == ShapeType::Mesh) return Shape::triangle_mesh(mesh);
  if (t == ShapeType::Plane)
    return Shape::plane(testref::random_vector(rng, -1, 1).normalized(), 0.1);
  return random_shape(t, rng);
}

TEST(SignedDistance, SymmetricUnderSwapAndInvariantUnderRigidMotion) {
  std::mt19937_64 rng(8080);
  auto mesh = testref::sphere_mesh(0.5, 1);
  for (int ta = 0; ta < kShapeTypeCount; ++ta) {
    for (int tb = 0; tb < kShapeTypeCount; ++tb) {
      if (ta == static_cast<int>(ShapeType::Plane) && tb == ta) continue;
      for (int i = 0; i < 6; ++i) {
        Shape a = shape_of(static_cast<ShapeType>(ta), rng, mesh);
        Shape b = shape_of(static_cast<ShapeType>(tb), rng, mesh);
        Pose pa, pb;
        pa.orientation = testref::random_rotation(rng);
        pb.orientation = testref::random_rotation(rng);
        pb.position = testref::random_vector(rng, -1, 1);
        std::string what = std::string(shape_type_name(a.type)) + "-" + shape_type_name(b.type);
        std::optional<DistanceResult> r = signed_distance(a, pa, b, pb);
        std::optional<DistanceResult> s = signed_distance(b, pb, a, pa);
        ASSERT_TRUE(r && s) << what;
        double tol = 1e-7 * (1 + std::abs(r->distance));
        EXPECT_NEAR(r->distance, s->distance, tol) << what;
        if (std::abs(r->distance) > 1e-6) {
          EXPECT_LT((r->normal + s->normal).norm(), 1e-5) << what;
        }
        // A common rigid motion T: the same distance, the normal rotated.
        Pose t{testref::random_vector(rng, -3, 3), testref::random_rotation(rng)};
        std::optional<DistanceResult> u = signed_distance(a, t * pa, b, t * pb);
        ASSERT_TRUE(u) << what;
        EXPECT_NEAR(r->distance, u->distance, tol) << what;
        if (std::abs(r->distance) > 1e-6) {
          EXPECT_LT((t.rotate(r->normal) - u->normal).norm(), 1e-5) << what;
        }
      }
    }
  }
}

TEST(SignedDistance, Deterministic) {
  std::mt19937_64 rng(1);
  Shape a = Shape::convex(testref::random_hull(rng));
  Shape b = Shape::ellipsoid(Vec3(0.3, 0.4, 0.5));
  Pose pa, pb;
  pb.position = Vec3(0.2, 0.3, 0.1);
  pb.orientation = testref::random_rotation(rng);
  DistanceResult r = *signed_distance(a, pa, b, pb);
  for (int i = 0; i < 3; ++i) {
    DistanceResult s = *signed_distance(a, pa, b, pb);
    EXPECT_EQ(r.distance, s.distance);
    EXPECT_EQ(r.normal, s.normal);
    EXPECT_EQ(r.point_a, s.point_a);
  }
}

}  // namespace
}  // namespace impetus
