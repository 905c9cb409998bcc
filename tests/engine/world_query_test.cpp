// World queries (engine/world_query.cpp) against brute force over every body: ray casts against
// analytic ray–shape intersections written here for each shape type, overlap against the
// pairwise signed distance (a band around zero left out), shape casts against the first contact
// found by sampling the translation densely with that distance and bisecting. The worlds are
// stepped before querying, so the broadphase boxes the queries start from have moved.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "collision/distance/distance.h"
#include "collision/shape/procedural_mesh.h"
#include "engine/world.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

constexpr double kNone = std::numeric_limits<double>::infinity();

// ---- Analytic first entry of o + f·d, f in [0, 1], into a shape (local frame) --------------
// Solid shapes give 0 when o is inside; kNone when the segment misses.

double ray_sphere(const Vec3& o, const Vec3& d, double r) {
  if (o.squaredNorm() <= r * r) return 0;
  const double a = d.squaredNorm();
  if (a == 0) return kNone;
  const double b = o.dot(d), c = o.squaredNorm() - r * r;
  const double disc = b * b - a * c;
  if (disc < 0) return kNone;
  const double f = (-b - std::sqrt(disc)) / a;  // the entry: o is outside
  return f >= 0 && f <= 1 ? f : kNone;
}

double ray_box(const Vec3& o, const Vec3& d, const Vec3& half) {
  if ((o.cwiseAbs().array() <= half.array()).all()) return 0;
  double enter = 0, exit = 1;
  for (int k = 0; k < 3; ++k) {
    if (d[k] == 0) {
      if (std::abs(o[k]) > half[k]) return kNone;
      continue;
    }
    double f0 = (-half[k] - o[k]) / d[k], f1 = (half[k] - o[k]) / d[k];
    if (f0 > f1) std::swap(f0, f1);
    enter = std::max(enter, f0);
    exit = std::min(exit, f1);
  }
  return enter <= exit ? enter : kNone;
}

// The capsule is the union of a finite cylinder and two balls: the first entry into a union of
// convex sets, from outside all of them, is the earliest of their entries.
double ray_capsule(const Vec3& o, const Vec3& d, double r, double h) {
  const double z = std::clamp(o.z(), -h, h);
  if ((o - Vec3(0, 0, z)).squaredNorm() <= r * r) return 0;
  double best = std::min(ray_sphere(o - Vec3(0, 0, h), d, r), ray_sphere(o + Vec3(0, 0, h), d, r));
  const double a = d.x() * d.x() + d.y() * d.y();
  if (a > 0) {
    const double b = o.x() * d.x() + o.y() * d.y();
    const double c = o.x() * o.x() + o.y() * o.y() - r * r;
    const double disc = b * b - a * c;
    if (disc >= 0) {
      const double f = (-b - std::sqrt(disc)) / a;
      if (f >= 0 && f <= 1 && std::abs(o.z() + f * d.z()) <= h) best = std::min(best, f);
    }
  }
  return best;
}

// Cyrus–Beck clipping against the hull's face planes.
double ray_hull(const Vec3& o, const Vec3& d, const ConvexHull& hull) {
  bool inside = true;
  double enter = 0, exit = 1;
  for (const HullFace& f : hull.faces) {
    const double gap = f.offset - f.normal.dot(o), rate = f.normal.dot(d);
    if (gap < 0) inside = false;
    if (rate == 0) {
      if (gap < 0) return kNone;
      continue;
    }
    const double t = gap / rate;
    if (rate < 0) enter = std::max(enter, t);
    else exit = std::min(exit, t);
  }
  if (inside) return 0;
  return enter <= exit ? enter : kNone;
}

// Every triangle: the crossing of its plane, kept when it lies on the inner side of all three
// edges (either winding). Meshes are surfaces: no inside.
double ray_mesh(const Vec3& o, const Vec3& d, const TriangleMesh& mesh) {
  double best = kNone;
  for (const auto& t : mesh.triangles) {
    const Vec3& a = mesh.vertices[t[0]];
    const Vec3& b = mesh.vertices[t[1]];
    const Vec3& c = mesh.vertices[t[2]];
    const Vec3 n = (b - a).cross(c - a);
    const double rate = n.dot(d);
    if (rate == 0) continue;
    const double f = n.dot(a - o) / rate;
    if (f < 0 || f > 1 || f >= best) continue;
    const Vec3 p = o + f * d;
    const double e0 = (b - a).cross(p - a).dot(n), e1 = (c - b).cross(p - b).dot(n),
                 e2 = (a - c).cross(p - c).dot(n);
    if (e0 >= 0 && e1 >= 0 && e2 >= 0) best = f;
  }
  return best;
}

double reference_fraction(const Shape& s, const Pose& pose, const Vec3& origin,
                          const Vec3& translation) {
  const Vec3 o = pose.inverse_apply(origin), d = pose.inverse_rotate(translation);
  switch (s.type) {
    case ShapeType::Sphere: return ray_sphere(o, d, s.radius);
    case ShapeType::Capsule: return ray_capsule(o, d, s.radius, s.half_length);
    case ShapeType::Box: return ray_box(o, d, s.half_extents);
    case ShapeType::Ellipsoid:
      return ray_sphere(o.cwiseQuotient(s.radii), d.cwiseQuotient(s.radii), 1.0);
    case ShapeType::Convex: return ray_hull(o, d, *s.hull);
    case ShapeType::Mesh: return ray_mesh(o, d, *s.mesh);
    case ShapeType::Plane: {
      const double gap = s.normal.dot(o) - s.offset, rate = s.normal.dot(d);
      if (gap <= 0) return 0;
      if (rate >= 0) return kNone;
      const double f = gap / -rate;
      return f <= 1 ? f : kNone;
    }
  }
  return kNone;
}

// ---- A world with every shape type --------------------------------------------------------

// "prefix" + number, appended (GCC 12 warns falsely on `"literal" + std::string`, PR 105329).
std::string numbered(const char* prefix, int i) {
  std::string name(prefix);
  name += std::to_string(i);
  return name;
}

using test::random_rotation;
using test::random_vector;
using test::uniform;

std::shared_ptr<const ConvexHull> random_hull(std::mt19937_64& rng) {
  std::vector<Vec3> points;
  for (int i = 0; i < 14; ++i) points.push_back(random_vector(rng, -0.5, 0.5));
  std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
  EXPECT_TRUE(hull.has_value());
  return std::make_shared<const ConvexHull>(*hull);
}

// Kinds 0..5: sphere, capsule, box, ellipsoid, convex hull, closed mesh (torus or icosphere).
Shape random_shape(int kind, std::mt19937_64& rng) {
  switch (kind) {
    case 0: return Shape::sphere(uniform(rng, 0.2, 0.6));
    case 1: {
      const double r = uniform(rng, 0.1, 0.35);
      return Shape::capsule(r, uniform(rng, 0.1, 0.5));
    }
    case 2: return Shape::box(random_vector(rng, 0.1, 0.6));
    case 3: return Shape::ellipsoid(random_vector(rng, 0.15, 0.6));
    case 4: return Shape::convex(random_hull(rng));
    default: {
      const bool torus = uniform(rng, 0, 1) < 0.5;
      if (torus) return Shape::triangle_mesh(torus_mesh(0.45, 0.15, 16, 8));
      return Shape::triangle_mesh(icosphere_mesh(1, random_vector(rng, 0.2, 0.6)));
    }
  }
}

struct Scene {
  std::unique_ptr<World> world;
  std::vector<Shape> shapes;  // by body index
  std::vector<Filter> filters;
  std::vector<bool> sensors;
  std::vector<Pose> poses;    // body frames after the steps

  bool reported(int i, const QueryFilter& f) const {
    return query_accepts(f, filters[i]) && (!sensors[i] || f.include_sensors);
  }
};

// 64 bodies on a jittered grid (spacing 2.5 m), all shape types, static, kinematic and dynamic,
// moving, with mixed filters and a few sensors; a tilted ground plane below. Stepped `steps`.
Scene make_scene(int threads, int steps) {
  WorldDef def;
  def.threads = threads;
  def.sleep = false;
  Scene s;
  s.world = std::make_unique<World>(def);
  std::mt19937_64 rng(20260);
  int k = 0;
  for (int ix = 0; ix < 4; ++ix)
    for (int iy = 0; iy < 4; ++iy)
      for (int iz = 0; iz < 4; ++iz, ++k) {
        const int kind = k % 6;
        BodyDef b;
        b.name = numbered("b", k);
        b.shape = random_shape(kind, rng);
        b.position = 2.5 * Vec3(ix - 1.5, iy - 1.5, iz - 1.5) + random_vector(rng, -0.3, 0.3);
        b.orientation = random_rotation(rng);
        const int m = kind == 5 ? k % 2 : k % 3;  // meshes: static or kinematic
        b.motion = m == 0 ? MotionType::Static : m == 1 ? MotionType::Kinematic : MotionType::Dynamic;
        if (b.motion != MotionType::Static) {
          b.linear_velocity = random_vector(rng, -1, 1);
          b.angular_velocity = random_vector(rng, -2, 2);
        }
        b.filter.category = std::uint64_t{1} << (k % 4);
        if (k % 5 == 0) b.filter.mask = ~std::uint64_t{2};
        b.is_sensor = k % 9 == 4;
        s.world->create_body(b);
        s.shapes.push_back(b.shape);
        s.filters.push_back(b.filter);
        s.sensors.push_back(b.is_sensor);
      }
  BodyDef ground;
  ground.name = "ground";
  ground.motion = MotionType::Static;
  ground.shape = Shape::plane(Vec3(0.1, -0.05, 1).normalized(), -5.5);
  s.world->create_body(ground);
  s.shapes.push_back(ground.shape);
  s.filters.push_back(ground.filter);
  s.sensors.push_back(false);
  for (int i = 0; i < steps; ++i) s.world->step();
  for (int i = 0; i < s.world->body_count(); ++i) {
    const BodyState st = s.world->body_state(s.world->body_id(i));
    s.poses.push_back(Pose{st.position, st.orientation});
  }
  return s;
}

QueryFilter filter_for(int q) {
  QueryFilter f;
  if (q % 3 == 1) {
    f.category = 2;
    f.mask = 0b0101;  // categories 1 and 4 only; bodies with mask ~2 refuse category 2
  } else if (q % 3 == 2) {
    f.include_sensors = true;
  }
  return f;
}

struct RefHit {
  double fraction;
  int body;
};

// From `from` towards one of the 64 grid bodies (missing it by up to `jitter` per axis), the
// distance scaled by a factor in [lo, hi].
Vec3 towards_a_body(std::mt19937_64& rng, const Scene& s, const Vec3& from, double jitter,
                    double lo, double hi) {
  const int target = static_cast<int>(uniform(rng, 0, 63.999));
  const Vec3 aim = s.poses[target].position + random_vector(rng, -jitter, jitter);
  const double scale = uniform(rng, lo, hi);
  return scale * (aim - from);
}

// A ray aimed at a body, or a random one.
void random_ray(std::mt19937_64& rng, const Scene& s, int q, Vec3& origin, Vec3& translation) {
  origin = random_vector(rng, -7, 7);
  if (q % 2 == 0) {
    translation = towards_a_body(rng, s, origin, 0.4, 0.6, 1.6);
  } else {
    translation = random_vector(rng, -12, 12);
  }
  if (q % 97 == 0) {  // a point: inside a solid shape or nothing
    origin = s.poses[q % 64].position;
    translation = Vec3::Zero();
  }
}

TEST(WorldQuery, RayCastsMatchAnalyticIntersectionsOverAllBodies) {
  const Scene s = make_scene(1, 10);
  const int n = s.world->body_count();
  std::mt19937_64 rng(4242);
  std::array<int, kShapeTypeCount> hits_by_type{};
  int misses = 0, zero_hits = 0;
  for (int q = 0; q < 800; ++q) {
    Vec3 origin, translation;
    random_ray(rng, s, q, origin, translation);
    const QueryFilter filter = filter_for(q);
    std::vector<RefHit> expected;
    for (int i = 0; i < n; ++i) {
      if (!s.reported(i, filter)) continue;
      const double f = reference_fraction(s.shapes[i], s.poses[i], origin, translation);
      if (f <= 1) expected.push_back({f, i});
    }
    std::sort(expected.begin(), expected.end(), [](const RefHit& a, const RefHit& b) {
      return a.fraction != b.fraction ? a.fraction < b.fraction : a.body < b.body;
    });

    std::vector<RayHit> all;
    s.world->ray_cast_all(origin, translation, filter, [&all](const RayHit& h) { all.push_back(h); });
    const std::optional<RayHit> closest = s.world->ray_cast(origin, translation, filter);
    ASSERT_EQ(all.size(), expected.size()) << "ray " << q;
    for (std::size_t k = 0; k < all.size(); ++k) {
      const RayHit& h = all[k];
      EXPECT_EQ(static_cast<int>(h.body.index), expected[k].body) << "ray " << q << " hit " << k;
      EXPECT_NEAR(h.fraction, expected[k].fraction, 1e-9) << "ray " << q << " hit " << k;
      EXPECT_LT((h.point - (origin + h.fraction * translation)).norm(), 1e-9);
      EXPECT_NEAR(h.normal.norm(), 1.0, 1e-9);
      EXPECT_LE(h.normal.dot(translation), 1e-9) << "normal along the ray";
      ++hits_by_type[static_cast<int>(s.shapes[h.body.index].type)];
      if (h.fraction == 0) ++zero_hits;
    }
    if (expected.empty()) {
      EXPECT_FALSE(closest.has_value()) << "ray " << q;
      ++misses;
    } else {
      ASSERT_TRUE(closest.has_value()) << "ray " << q;
      EXPECT_EQ(static_cast<int>(closest->body.index), expected[0].body) << "ray " << q;
      EXPECT_EQ(closest->fraction, all[0].fraction);
      EXPECT_EQ(closest->point, all[0].point);
    }
  }
  for (int t = 0; t < kShapeTypeCount; ++t)
    EXPECT_GT(hits_by_type[t], 5) << shape_type_name(static_cast<ShapeType>(t)) << " never hit";
  EXPECT_GT(misses, 50);
  EXPECT_GT(zero_hits, 3);
}

TEST(WorldQuery, OverlapMatchesPairwiseSignedDistance) {
  const Scene s = make_scene(1, 10);
  const int n = s.world->body_count();
  std::mt19937_64 rng(777);
  int overlaps = 0, separate = 0, in_band = 0;
  std::array<int, kShapeTypeCount> overlaps_by_type{};
  for (int q = 0; q < 480; ++q) {
    const Shape shape = random_shape(q % 6, rng);
    const int near = static_cast<int>(uniform(rng, 0, 63.999));
    Vec3 position = s.poses[near].position + random_vector(rng, -0.9, 0.9);
    if (q % 8 == 7) position.z() = uniform(rng, -6.2, -5.0);  // about the ground plane
    const Quat orientation = random_rotation(rng);
    const QueryFilter filter = filter_for(q);
    const std::vector<BodyId> found = s.world->overlap(shape, position, orientation, filter);
    for (std::size_t k = 1; k < found.size(); ++k) EXPECT_LT(found[k - 1].index, found[k].index);
    const Pose pose{position, orientation};
    for (int i = 0; i < n; ++i) {
      const bool reported =
          std::find(found.begin(), found.end(), s.world->body_id(i)) != found.end();
      if (!s.reported(i, filter)) {
        EXPECT_FALSE(reported) << "query " << q << ": filtered body " << i << " reported";
        continue;
      }
      const std::optional<DistanceResult> d = signed_distance(shape, pose, s.shapes[i], s.poses[i]);
      ASSERT_TRUE(d.has_value());
      if (std::abs(d->distance) < 1e-6) {
        ++in_band;
        continue;
      }
      EXPECT_EQ(reported, d->distance < 0)
          << "query " << q << " (" << shape_type_name(shape.type) << ") body " << i << " ("
          << shape_type_name(s.shapes[i].type) << "): distance " << d->distance;
      if (d->distance < 0) {
        ++overlaps;
        ++overlaps_by_type[static_cast<int>(s.shapes[i].type)];
      } else {
        ++separate;
      }
    }
  }
  EXPECT_GT(overlaps, 100);
  EXPECT_GT(separate, 1000);
  EXPECT_LT(in_band, 5);
  for (int t = 0; t < kShapeTypeCount; ++t)
    EXPECT_GT(overlaps_by_type[t], 2) << shape_type_name(static_cast<ShapeType>(t));
}

TEST(WorldQuery, OverlapOfPlanesIsTheHalfSpaceTest) {
  WorldDef def;
  World world(def);
  BodyDef ground;
  ground.name = "ground";
  ground.motion = MotionType::Static;
  ground.shape = Shape::plane(Vec3::UnitZ(), 0);  // z <= 0
  world.create_body(ground);
  BodyDef ball;
  ball.name = "ball";
  ball.shape = Shape::sphere(0.5);
  ball.position = Vec3(3, 0, 2);  // lowest point z = 1.5
  world.create_body(ball);
  const Quat id = Quat::Identity();
  auto count = [&](const Vec3& n, double offset) {
    return world.overlap(Shape::plane(n, offset), Vec3::Zero(), id).size();
  };
  // z >= -offset' for the normal −z: the ground is met when that level is at or below 0.
  EXPECT_EQ(count(-Vec3::UnitZ(), 0.5), 2u);   // z >= −0.5: ground and ball
  EXPECT_EQ(count(-Vec3::UnitZ(), 0.0), 2u);   // z >= 0: touches the ground
  EXPECT_EQ(count(-Vec3::UnitZ(), -1.0), 1u);  // z >= 1: the ball only
  EXPECT_EQ(count(-Vec3::UnitZ(), -1.6), 1u);  // z >= 1.6: the ball still reaches it
  EXPECT_EQ(count(-Vec3::UnitZ(), -2.6), 0u);  // z >= 2.6: nothing
  EXPECT_EQ(count(Vec3(0.01, 0, -1).normalized(), -100), 1u);  // tilted: meets the ground far away
  EXPECT_EQ(count(Vec3::UnitZ(), 1.4), 1u);    // z <= 1.4: the ground only
}

// Smallest signed distance from the cast shape at fraction f to the bodies in `bodies`.
std::pair<double, int> closest_body(const Scene& s, const std::vector<int>& bodies,
                                    const Shape& shape, const Pose& start, const Vec3& translation,
                                    double f) {
  const Pose at{start.position + f * translation, start.orientation};
  std::pair<double, int> best{kNone, -1};
  for (int i : bodies) {
    const std::optional<DistanceResult> d = signed_distance(s.shapes[i], s.poses[i], shape, at);
    if (d && d->distance < best.first) best = {d->distance, i};
  }
  return best;
}

TEST(WorldQuery, ShapeCastMatchesSampledFirstContact) {
  const Scene s = make_scene(1, 10);
  const int n = s.world->body_count();
  std::mt19937_64 rng(99);
  int hits = 0, misses = 0, close = 0, grazes_missed_by_sampling = 0;
  std::array<int, kShapeTypeCount> hits_by_type{};
  for (int q = 0; q < 150; ++q) {
    const Shape shape = random_shape(q % 6, rng);
    Vec3 start = random_vector(rng, -7, 7);
    start.z() = std::max(start.z(), -4.0);  // above the ground plane
    const Quat orientation = random_rotation(rng);
    Vec3 translation;
    if (q % 4 != 3) {
      translation = towards_a_body(rng, s, start, 0.5, 0.5, 1.5);
    } else {
      translation = random_vector(rng, -8, 8);
    }
    const QueryFilter filter = filter_for(q);
    const Pose pose{start, orientation};

    // Bodies the sweep may reach: bounding spheres against the swept segment (and planes).
    const double reach = bounding_radius(shape) + 1e-3;
    std::vector<int> bodies;
    for (int i = 0; i < n; ++i) {
      if (!s.reported(i, filter)) continue;
      if (s.shapes[i].type == ShapeType::Plane) {
        bodies.push_back(i);
        continue;
      }
      const Vec3 c = s.poses[i].position;
      const double along = std::clamp((c - start).dot(translation) / translation.squaredNorm(), 0.0, 1.0);
      if ((start + along * translation - c).norm() <= reach + bounding_radius(s.shapes[i]))
        bodies.push_back(i);
    }
    // Reference: first of 400 samples in contact, then bisection.
    constexpr int kSamples = 400;
    double f_ref = kNone;
    for (int k = 0; k <= kSamples; ++k) {
      const double f = static_cast<double>(k) / kSamples;
      if (closest_body(s, bodies, shape, pose, translation, f).first > 0) continue;
      if (k == 0) {
        f_ref = 0;
        break;
      }
      double lo = static_cast<double>(k - 1) / kSamples, hi = f;
      for (int it = 0; it < 60; ++it) {
        const double mid = 0.5 * (lo + hi);
        (closest_body(s, bodies, shape, pose, translation, mid).first > 0 ? lo : hi) = mid;
      }
      f_ref = hi;
      break;
    }

    const std::optional<ShapeCastHit> hit =
        s.world->shape_cast(shape, start, orientation, translation, filter);
    if (f_ref == kNone && !hit) {
      ++misses;
      continue;
    }
    ASSERT_TRUE(hit.has_value()) << "cast " << q << ": sampling found contact at " << f_ref;
    const int body = static_cast<int>(hit->body.index);
    ASSERT_TRUE(s.reported(body, filter));
    ++hits;
    ++hits_by_type[static_cast<int>(s.shapes[body].type)];
    // Never past the first contact; where it stops, the shape touches the body it reports.
    EXPECT_GE(hit->fraction, 0.0);
    EXPECT_LE(hit->fraction, f_ref + 1e-9) << "cast " << q;
    const Pose at{start + hit->fraction * translation, orientation};
    const std::optional<DistanceResult> d = signed_distance(s.shapes[body], s.poses[body], shape, at);
    ASSERT_TRUE(d.has_value());
    if (hit->fraction > 0) {
      EXPECT_GE(d->distance, -1e-9) << "cast " << q;
      EXPECT_LE(d->distance, 1e-6) << "cast " << q << ": stopped short of contact";
      EXPECT_LE(hit->normal.dot(translation), 1e-6 * translation.norm()) << "cast " << q;
    } else {
      EXPECT_LE(d->distance, 1e-6) << "cast " << q << ": fraction 0 without contact";
    }
    if (std::abs(hit->fraction - f_ref) <= 1e-5) ++close;
    else ++grazes_missed_by_sampling;  // a touch between two samples: allowed, but rare
    EXPECT_NEAR(hit->normal.norm(), 1.0, 1e-9);
    // The point lies on the body's surface.
    const std::optional<DistanceResult> p = signed_distance(
        s.shapes[body], s.poses[body], Shape::sphere(1e-9), Pose{hit->point, Quat::Identity()});
    ASSERT_TRUE(p.has_value());
    EXPECT_LT(std::abs(p->distance + 1e-9), 1e-6) << "cast " << q << ": point off the surface";
  }
  EXPECT_GT(hits, 50);
  EXPECT_GT(misses, 10);
  EXPECT_LE(grazes_missed_by_sampling, 3);
  EXPECT_GE(close, hits - 3);
  for (int t = 0; t < kShapeTypeCount; ++t)
    EXPECT_GT(hits_by_type[t], 0) << shape_type_name(static_cast<ShapeType>(t)) << " never hit";
}

TEST(WorldQuery, ResultsIdenticalForOneAndTwoThreads) {
  const Scene a = make_scene(1, 20), b = make_scene(2, 20);
  std::mt19937_64 rng(5);
  for (int q = 0; q < 100; ++q) {
    Vec3 origin, translation;
    random_ray(rng, a, q, origin, translation);
    std::vector<RayHit> ha, hb;
    a.world->ray_cast_all(origin, translation, {}, [&ha](const RayHit& h) { ha.push_back(h); });
    b.world->ray_cast_all(origin, translation, {}, [&hb](const RayHit& h) { hb.push_back(h); });
    ASSERT_EQ(ha.size(), hb.size());
    for (std::size_t k = 0; k < ha.size(); ++k) {
      EXPECT_EQ(ha[k].body, hb[k].body);
      EXPECT_EQ(ha[k].fraction, hb[k].fraction);
      EXPECT_EQ(ha[k].point, hb[k].point);
      EXPECT_EQ(ha[k].normal, hb[k].normal);
    }
    const Shape shape = random_shape(q % 6, rng);
    const Quat orientation = random_rotation(rng);
    EXPECT_EQ(a.world->overlap(shape, origin, orientation), b.world->overlap(shape, origin, orientation));
    const std::optional<ShapeCastHit> ca = a.world->shape_cast(shape, origin, orientation, translation);
    const std::optional<ShapeCastHit> cb = b.world->shape_cast(shape, origin, orientation, translation);
    ASSERT_EQ(ca.has_value(), cb.has_value());
    if (ca) {
      EXPECT_EQ(ca->body, cb->body);
      EXPECT_EQ(ca->fraction, cb->fraction);
      EXPECT_EQ(ca->point, cb->point);
      EXPECT_EQ(ca->normal, cb->normal);
    }
  }
}

// Balls bouncing in a closed box change direction inside a step, so they leave the broadphase
// boxes the step started with; queries between steps must still find them where they are.
TEST(WorldQuery, QueriesBetweenStepsSeeBouncingBallsWhereTheyAre) {
  WorldDef def;
  def.gravity = Vec3::Zero();
  def.dt = 1.0 / 60.0;
  def.sleep = false;
  def.materials[0].restitution = 1.0;
  def.materials[0].friction = 0.0;
  World world(def);
  std::vector<Shape> shapes;
  auto add = [&](const Shape& shape, const Vec3& position, MotionType motion, const Vec3& v) {
    BodyDef b;
    b.name = numbered("b", static_cast<int>(shapes.size()));
    b.shape = shape;
    b.position = position;
    b.motion = motion;
    b.linear_velocity = v;
    world.create_body(b);
    shapes.push_back(shape);
  };
  const double half = 1.5, wall = 0.2;
  for (int axis = 0; axis < 3; ++axis)
    for (int side = -1; side <= 1; side += 2) {
      Vec3 extent = Vec3::Constant(half + 2 * wall);
      extent[axis] = wall;
      Vec3 position = Vec3::Zero();
      position[axis] = side * (half + wall);
      add(Shape::box(extent), position, MotionType::Static, Vec3::Zero());
    }
  std::mt19937_64 rng(31);
  for (int i = 0; i < 20; ++i) {
    const Vec3 position(-1.2 + 0.6 * (i % 5), -0.9 + 0.6 * ((i / 5) % 4), uniform(rng, -1.2, 1.2));
    Vec3 v = random_vector(rng, -1, 1);
    v = 9.0 * v.normalized();
    add(Shape::sphere(0.12), position, MotionType::Dynamic, v);
  }
  const int n = world.body_count();
  int hits = 0, overlaps = 0;
  for (int step = 0; step < 90; ++step) {
    world.step();
    std::vector<Pose> poses;
    for (int i = 0; i < n; ++i) {
      const BodyState st = world.body_state(world.body_id(i));
      poses.push_back(Pose{st.position, st.orientation});
    }
    for (int r = 0; r < 12; ++r) {
      // A short ray through a ball, and a small sphere around another.
      const int target = 6 + static_cast<int>(uniform(rng, 0, 19.999));
      const Vec3 origin = poses[target].position + random_vector(rng, -0.3, 0.3);
      const Vec3 translation = random_vector(rng, -0.4, 0.4);
      double best = kNone;
      int best_body = -1;
      for (int i = 0; i < n; ++i) {
        const double f = reference_fraction(shapes[i], poses[i], origin, translation);
        if (f < best) {
          best = f;
          best_body = i;
        }
      }
      const std::optional<RayHit> hit = world.ray_cast(origin, translation);
      ASSERT_EQ(hit.has_value(), best_body >= 0) << "step " << step;
      if (hit) {
        ++hits;
        EXPECT_EQ(static_cast<int>(hit->body.index), best_body) << "step " << step;
        EXPECT_NEAR(hit->fraction, best, 1e-9);
      }
      const Vec3 centre = poses[target].position + random_vector(rng, -0.2, 0.2);
      const std::vector<BodyId> found = world.overlap(Shape::sphere(0.1), centre, Quat::Identity());
      for (int i = 6; i < n; ++i) {
        const double gap = (poses[i].position - centre).norm() - 0.22;
        if (std::abs(gap) < 1e-9) continue;
        const bool reported = std::find(found.begin(), found.end(), world.body_id(i)) != found.end();
        EXPECT_EQ(reported, gap < 0) << "step " << step << " ball " << i;
        overlaps += gap < 0;
      }
    }
  }
  EXPECT_GT(hits, 150);
  EXPECT_GT(overlaps, 300);
}

TEST(WorldQuery, TeleportedBodyIsFoundAtItsNewPlace) {
  WorldDef def;
  World world(def);
  BodyDef b;
  b.name = "ball";
  b.shape = Shape::sphere(0.5);
  const BodyId ball = world.create_body(b);
  world.step();
  BodyState st = world.body_state(ball);
  st.position = Vec3(40, 0, 0);
  world.set_body_state(ball, st);
  const std::optional<RayHit> hit = world.ray_cast(Vec3(40, 0, 5), Vec3(0, 0, -10));
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->fraction, 0.45, 1e-12);
  EXPECT_FALSE(world.ray_cast(Vec3(0, 0, 5), Vec3(0, 0, -10)).has_value());
  EXPECT_EQ(world.overlap(Shape::box(Vec3::Constant(0.1)), Vec3(40, 0, 0.55), Quat::Identity()).size(), 1u);
  const std::optional<ShapeCastHit> cast =
      world.shape_cast(Shape::sphere(0.5), Vec3(37, 0, 0), Quat::Identity(), Vec3(4, 0, 0));
  ASSERT_TRUE(cast.has_value());
  EXPECT_NEAR(cast->fraction, 0.5, 1e-6);  // centres 1 m apart at x = 39
  EXPECT_LT((cast->point - Vec3(39.5, 0, 0)).norm(), 1e-6);
  EXPECT_LT((cast->normal - Vec3(-1, 0, 0)).norm(), 1e-6);
}

TEST(WorldQuery, ClothIsReportedOnlyWhenAsked) {
  WorldDef def;
  World world(def);
  ClothDef cloth;
  cloth.name = "sheet";
  cloth.grid_size = {2, 2};
  cloth.grid_resolution = {4, 4};
  cloth.grid_center = Vec3(0, 0, 1);
  world.create_cloth(cloth);
  world.step();
  EXPECT_FALSE(world.ray_cast(Vec3(0.1, 0.1, 3), Vec3(0, 0, -4)).has_value());
  EXPECT_TRUE(world.overlap(Shape::sphere(0.5), Vec3(0, 0, 1), Quat::Identity()).empty());
  EXPECT_FALSE(world.shape_cast(Shape::sphere(0.2), Vec3(0, 0, 3), Quat::Identity(), Vec3(0, 0, -4)));
}


// A tilted grid cloth, not stepped, and a slab below it: vertical rays hit the cloth where
// the plane of the grid is crossed, inside the triangle that contains the crossing (found by an
// independent 2-D sign test on the grid's own frame), only with include_cloth.
TEST(WorldQuery, RayCastsHitClothTrianglesWhenAsked) {
  World world(WorldDef{});
  BodyDef ball;
  ball.name = "ball";
  ball.motion = MotionType::Static;
  ball.shape = Shape::box(Vec3(1, 1, 0.1));
  ball.position = Vec3(0, 0, 0);
  const BodyId ball_id = world.create_body(ball);
  ClothDef sheet;
  sheet.name = "sheet";
  sheet.grid_size = {2, 2};
  sheet.grid_resolution = {6, 6};
  sheet.grid_center = Vec3(0, 0, 1);
  const Quat tilt(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()));
  sheet.grid_orientation = tilt;
  const ClothId cloth = world.create_cloth(sheet);
  const std::vector<Vec3>& x = world.cloth_positions(cloth);
  const std::vector<std::array<int, 3>>& triangles = world.cloth_triangles(cloth);
  const Vec3 n = tilt * Vec3::UnitZ();

  QueryFilter with_cloth;
  with_cloth.include_cloth = true;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> coordinate(-0.6, 0.6);
  int cloth_hits = 0;
  for (int k = 0; k < 300; ++k) {
    const double px = coordinate(rng);
    const double py = coordinate(rng);
    const Vec3 origin(px, py, 4);
    const Vec3 translation(0, 0, -8);
    // Reference: the crossing of the grid's plane n·(p − c) = 0, and the triangle around it.
    const double f = n.dot(Vec3(0, 0, 1) - origin) / n.dot(translation);
    const Vec3 p = origin + f * translation;
    int containing = -1;
    for (std::size_t t = 0; t < triangles.size() && containing < 0; ++t) {
      const Vec3 a = tilt.conjugate() * x[triangles[t][0]], b = tilt.conjugate() * x[triangles[t][1]],
                 c = tilt.conjugate() * x[triangles[t][2]], q = tilt.conjugate() * p;
      auto side = [](const Vec3& u, const Vec3& v, const Vec3& w) {
        return (v.x() - u.x()) * (w.y() - u.y()) - (v.y() - u.y()) * (w.x() - u.x());
      };
      const double s0 = side(a, b, q), s1 = side(b, c, q), s2 = side(c, a, q);
      if ((s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0))
        containing = static_cast<int>(t);
    }
    ASSERT_GE(containing, 0);  // every crossing is inside the 2 m sheet

    const std::optional<RayHit> body_only = world.ray_cast(origin, translation);
    ASSERT_TRUE(body_only.has_value());
    EXPECT_EQ(body_only->body, ball_id);
    EXPECT_EQ(body_only->triangle, -1);

    const std::optional<RayHit> hit = world.ray_cast(origin, translation, with_cloth);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->body, BodyId{});
    EXPECT_EQ(hit->cloth, cloth);
    EXPECT_NEAR(hit->fraction, f, 1e-12);
    EXPECT_LT((hit->point - p).norm(), 1e-9);
    EXPECT_NEAR(std::abs(hit->normal.dot(n)), 1.0, 1e-12);
    EXPECT_GT(hit->normal.z(), 0);  // against the downward ray
    // On an edge two triangles contain the point; the lowest index is reported.
    EXPECT_EQ(hit->triangle, containing);
    ++cloth_hits;

    std::vector<RayHit> all;
    world.ray_cast_all(origin, translation, with_cloth, [&](const RayHit& h) { all.push_back(h); });
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].cloth, cloth);
    EXPECT_EQ(all[1].body, ball_id);
  }
  EXPECT_EQ(cloth_hits, 300);
}

}  // namespace
}  // namespace impetus
