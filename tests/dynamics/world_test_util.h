#pragma once
// Small helpers for building worlds in tests without JSON.
#include "engine/world.h"

namespace impetus::test {

inline BodyDef make_body(const std::string& name, const Shape& shape, const Vec3& position,
                         MotionType motion = MotionType::Dynamic) {
  BodyDef def;
  def.name = name;
  def.shape = shape;
  def.position = position;
  def.motion = motion;
  return def;
}

/// An open bin of static boxes: inside [-half, half]² from z = 0, walls `wall` thick (half
/// extent) and 2 `height` tall.
inline void static_bin(World& world, double half, double wall, double height) {
  world.create_body(make_body("floor", Shape::box(Vec3(half + 2 * wall, half + 2 * wall, wall)),
                              Vec3(0, 0, -wall), MotionType::Static));
  const Vec3 wall_x(wall, half + 2 * wall, height), wall_y(half, wall, height);
  world.create_body(make_body("wpx", Shape::box(wall_x), Vec3(half + wall, 0, height), MotionType::Static));
  world.create_body(make_body("wnx", Shape::box(wall_x), Vec3(-half - wall, 0, height), MotionType::Static));
  world.create_body(make_body("wpy", Shape::box(wall_y), Vec3(0, half + wall, height), MotionType::Static));
  world.create_body(make_body("wny", Shape::box(wall_y), Vec3(0, -half - wall, height), MotionType::Static));
}

inline BodyDef ground_plane() {
  return make_body("ground", Shape::plane(Vec3::UnitZ(), 0.0), Vec3::Zero(), MotionType::Static);
}

}  // namespace impetus::test
