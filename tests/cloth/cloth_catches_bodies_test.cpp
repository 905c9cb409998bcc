// A cloth must catch what is thrown at it (issue 16, item 1): a 0.2 kg body dropped at 1 to
// 50 m/s onto the middle of a 1.2 m sheet of the benchmark cloth material (32 × 32 quads,
// pinned at two opposite corners) must never cross the cloth surface, whatever its shape
// (sphere, capsule, box, ellipsoid, convex hull). At 50 m/s the body moves 0.21 m per step,
// more than its own size, so only continuous cloth–rigid tests can hold it, and the sheet must
// stop it within its slack: the pins hold it through the strain-limited sheet.
//
// The check is independent of the contact code: on every step the path of the body's centre
// (a straight segment over the step) is tested against every cloth triangle moving linearly
// from its start to its end position, by dense sampling of the signed volume
// det(a − p, b − p, c − p) over the step, bisection of each sign change, and a barycentric
// inside test at the root. A crossing means the body went through the sheet.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "engine/scene_loader.h"
#include "engine/world.h"

namespace impetus {
namespace {

double signed_volume(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  return (a - p).dot((b - p).cross(c - p));
}

// Does the point p0 → p1 pass through the triangle moving from (a0, b0, c0) to (a1, b1, c1)?
bool point_crosses_triangle(const Vec3& p0, const Vec3& p1, const Vec3& a0, const Vec3& b0,
                            const Vec3& c0, const Vec3& a1, const Vec3& b1, const Vec3& c1) {
  auto at = [](const Vec3& s, const Vec3& e, double t) { return Vec3((1 - t) * s + t * e); };
  auto f = [&](double t) {
    return signed_volume(at(p0, p1, t), at(a0, a1, t), at(b0, b1, t), at(c0, c1, t));
  };
  auto inside = [&](double t) {
    const Vec3 p = at(p0, p1, t), a = at(a0, a1, t), b = at(b0, b1, t), c = at(c0, c1, t);
    const Vec3 n = (b - a).cross(c - a);
    const double n2 = n.squaredNorm();
    if (!(n2 > 0)) return false;
    const double wa = (b - p).cross(c - p).dot(n) / n2;
    const double wb = (c - p).cross(a - p).dot(n) / n2;
    const double wc = 1 - wa - wb;
    constexpr double kSlack = 1e-9;
    return wa >= -kSlack && wb >= -kSlack && wc >= -kSlack;
  };
  constexpr int kSamples = 64;
  double t_prev = 0, f_prev = f(0);
  for (int k = 1; k <= kSamples; ++k) {
    const double t = double(k) / kSamples;
    const double ft = f(t);
    if (f_prev == 0 && inside(t_prev)) return true;
    if ((f_prev < 0) != (ft < 0) || ft == 0) {
      double lo = t_prev, hi = t, flo = f_prev;
      for (int it = 0; it < 60; ++it) {
        const double mid = 0.5 * (lo + hi);
        const double fm = f(mid);
        if ((fm < 0) == (flo < 0) && fm != 0) {
          lo = mid;
          flo = fm;
        } else {
          hi = mid;
        }
      }
      if (inside(0.5 * (lo + hi))) return true;
    }
    t_prev = t;
    f_prev = ft;
  }
  return false;
}

struct ThrowResult {
  int first_crossing_step = -1;  // -1: never crossed
  double final_z = 0;
  double final_speed = 0;
  double energy_start = 0, energy_end = 0;  // the body's ½mv² + mgz (translation)
};

// Shapes of about the ball's size (8 cm), each in a tilted orientation so that its edges and
// corners, not its flat faces, meet the sheet first.
Shape thrown_shape(ShapeType type) {
  switch (type) {
    case ShapeType::Sphere: return Shape::sphere(0.08);
    case ShapeType::Capsule: return Shape::capsule(0.04, 0.08);
    case ShapeType::Box: return Shape::box(Vec3(0.08, 0.06, 0.04));
    case ShapeType::Ellipsoid: return Shape::ellipsoid(Vec3(0.1, 0.07, 0.05));
    case ShapeType::Convex: {
      // An irregular octahedron.
      std::string error;
      std::optional<ConvexHull> hull = build_convex_hull(
          {Vec3(0.09, 0, 0), Vec3(-0.07, 0.01, 0), Vec3(0, 0.08, 0.01), Vec3(0.01, -0.06, 0),
           Vec3(0, 0, 0.07), Vec3(0.01, 0.02, -0.08)},
          &error);
      EXPECT_TRUE(hull.has_value()) << error;
      return Shape::convex(std::make_shared<const ConvexHull>(std::move(*hull)));
    }
    default: break;
  }
  ADD_FAILURE() << "no thrown shape of this type";
  return Shape::sphere(0.08);
}

ThrowResult throw_at_cloth(ShapeType type, double speed, int steps) {
  WorldDef def;
  def.dt = 1.0 / 240.0;
  def.threads = 1;
  def.sleep = false;
  World world(def);
  const double cloth_z = 1.0;
  BodyDef body;
  body.name = "thrown";
  body.shape = thrown_shape(type);
  body.mass = 0.2;
  // Slightly off the centre, tilted, started 0.15 m above the sheet.
  body.position = Vec3(0.013, 0.021, cloth_z + 0.15);
  body.orientation = Quat(Eigen::AngleAxisd(0.5, Vec3(1, 2, 0.5).normalized()));
  body.linear_velocity = Vec3(0, 0, -speed);
  const BodyId id = world.create_body(body);
  // The benchmark scenes' cloth material, on a 1.2 m 32 × 32 grid pinned at two opposite corners.
  const SceneLoadResult bench =
      load_scene_file(std::string(IMPETUS_SOURCE_DIR) + "/scenes/bench/cloth_drape_sphere.json");
  EXPECT_TRUE(bench.ok()) << bench.error;
  ClothDef cloth;
  static_cast<ClothCommonDef&>(cloth) = bench.scene->cloths.at(0);  // no attachments
  cloth.grid_size = {1.2, 1.2};
  cloth.grid_resolution = {32, 32};
  cloth.grid_center = Vec3(0, 0, cloth_z);
  cloth.grid_orientation = Quat::Identity();
  cloth.pin = {0, 33 * 33 - 1};
  world.create_cloth(cloth);

  const std::vector<std::array<int, 3>>& tris = world.cloth_triangles(0);
  ThrowResult r;
  for (int k = 0; k < steps; ++k) {
    const std::vector<Vec3> x0 = world.cloth_positions(0);
    const Vec3 p0 = world.body_state(id).position;
    world.step();
    EXPECT_EQ(world.status(), WorldStatus::Ok) << world.divergence_message();
    if (world.status() != WorldStatus::Ok) break;
    const std::vector<Vec3>& x1 = world.cloth_positions(0);
    const Vec3 p1 = world.body_state(id).position;
    Aabb path;
    path.grow(p0);
    path.grow(p1);
    for (const auto& t : tris) {
      Aabb box;
      for (int v : t) {
        box.grow(x0[v]);
        box.grow(x1[v]);
      }
      if (!box.overlaps(path)) continue;
      if (point_crosses_triangle(p0, p1, x0[t[0]], x0[t[1]], x0[t[2]], x1[t[0]], x1[t[1]], x1[t[2]])) {
        r.first_crossing_step = k;
        break;
      }
    }
    if (r.first_crossing_step >= 0) break;
  }
  r.final_z = world.body_state(id).position.z();
  r.final_speed = world.body_state(id).linear_velocity.norm();
  const double m = 0.2, g = 9.81;
  r.energy_start = 0.5 * m * speed * speed + m * g * body.position.z();
  r.energy_end = 0.5 * m * r.final_speed * r.final_speed + m * g * r.final_z;
  return r;
}

void expect_caught(ShapeType type, const std::vector<double>& speeds) {
  for (double speed : speeds) {
    const ThrowResult r = throw_at_cloth(type, speed, 100);
    std::printf("%-9s %4.0f m/s: %s (final z %.3f m, speed %.2f m/s)\n", shape_type_name(type), speed,
                r.first_crossing_step < 0 ? "caught" : ("THROUGH at step " + std::to_string(r.first_crossing_step)).c_str(),
                r.final_z, r.final_speed);
    EXPECT_LT(r.first_crossing_step, 0) << shape_type_name(type) << " at " << speed
                                        << " m/s crossed the cloth at step " << r.first_crossing_step;
    // The sheet may give back some of the energy it took, never more.
    EXPECT_LT(r.energy_end, r.energy_start) << shape_type_name(type) << " at " << speed << " m/s";
  }
}

TEST(ClothCatchesBodies, CrossingCheckSeesABodyThroughAStillSheet) {
  // The reference itself: a point through the middle of a triangle crosses, one beside it or
  // one stopping short does not.
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  EXPECT_TRUE(point_crosses_triangle(Vec3(0.2, 0.2, 1), Vec3(0.2, 0.2, -1), a, b, c, a, b, c));
  EXPECT_FALSE(point_crosses_triangle(Vec3(0.8, 0.8, 1), Vec3(0.8, 0.8, -1), a, b, c, a, b, c));
  EXPECT_FALSE(point_crosses_triangle(Vec3(0.2, 0.2, 1), Vec3(0.2, 0.2, 0.01), a, b, c, a, b, c));
  // The triangle sweeping through a still point.
  const Vec3 up(0, 0, 2);
  EXPECT_TRUE(point_crosses_triangle(Vec3(0.2, 0.2, 1), Vec3(0.2, 0.2, 1), a, b, c, a + up, b + up, c + up));
}

const std::vector<double> kSpeeds = {1, 2, 5, 10, 15, 20, 30, 40, 50};

TEST(ClothCatchesBodies, Sphere) { expect_caught(ShapeType::Sphere, kSpeeds); }
TEST(ClothCatchesBodies, Capsule) { expect_caught(ShapeType::Capsule, kSpeeds); }
TEST(ClothCatchesBodies, Box) { expect_caught(ShapeType::Box, kSpeeds); }
TEST(ClothCatchesBodies, Ellipsoid) { expect_caught(ShapeType::Ellipsoid, kSpeeds); }
TEST(ClothCatchesBodies, ConvexHull) { expect_caught(ShapeType::Convex, kSpeeds); }

}  // namespace
}  // namespace impetus
