#pragma once
// Helpers shared by the peers' GoogleTest files (bullet/bullet_peer_test.cpp,
// mujoco/mujoco_peer_test.cpp): scene bodies and the closed-form free-fall reference that each
// peer's world is checked against.
#include <gtest/gtest.h>

#include <string>

#include "engine/world_def.h"
#include "tools/peers/bullet/scene_probe.h"

namespace impetus::peers {

/// A dynamic body of the default material at `position`, unrotated and at rest.
inline BodyDef dynamic_body(const std::string& name, const Shape& shape, const Vec3& position) {
  BodyDef b;
  b.name = name;
  b.shape = shape;
  b.position = position;
  return b;
}

/// One ball thrown upwards in the scene's gravity, alone, with dt = 0.01 s.
inline SceneDef free_fall_scene() {
  SceneDef scene;
  scene.name = "fall";
  scene.world.dt = 0.01;
  scene.world.gravity = Vec3(0, 0, -9.81);
  BodyDef ball = dynamic_body("ball", Shape::sphere(0.1), Vec3(0.5, -0.25, 3.0));
  ball.linear_velocity = Vec3(1.0, 0.0, 2.0);
  scene.bodies.push_back(ball);
  return scene;
}

/// Expects `state` to be the first body of `scene` after `n` steps of semi-implicit Euler under
/// gravity alone: v_k = v0 + k h g, x_n = x0 + h Σ_{k=1..n} v_k = x0 + n h v0 + h² g n(n+1)/2.
inline void expect_semi_implicit_euler_free_fall(const SceneDef& scene, int n,
                                                 const ProbeBodyState& state) {
  const BodyDef& body = scene.bodies.front();
  const double h = scene.world.dt;
  const Vec3& g = scene.world.gravity;
  Vec3 position = body.position + n * h * body.linear_velocity + h * h * g * (n * (n + 1) / 2.0);
  Vec3 velocity = body.linear_velocity + n * h * g;
  EXPECT_NEAR((state.pose.position - position).norm(), 0.0, 1e-9);
  EXPECT_NEAR((state.linear_velocity - velocity).norm(), 0.0, 1e-9);
}

}  // namespace impetus::peers
