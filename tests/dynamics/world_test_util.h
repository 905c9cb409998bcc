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

inline BodyDef ground_plane() {
  return make_body("ground", Shape::plane(Vec3::UnitZ(), 0.0), Vec3::Zero(), MotionType::Static);
}

}  // namespace impetus::test
