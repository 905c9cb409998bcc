// Tests of the SceneDef → MJCF translation, against closed forms and the scene format's own
// definitions (joint anchors, angle signs, plane placement, restitution).
#include <gtest/gtest.h>

#include <cmath>

#include "tools/peers/bullet/scene_probe.h"
#include "tools/peers/mujoco/mjcf_writer.h"
#include "tools/peers/mujoco/mujoco_world.h"
#include "tools/peers/peer_test_support.h"

namespace impetus::peers {
namespace {

// Exit/entry speed of a unit-mass spring–damper contact x'' = −2ζω x' − ω² x entered at
// speed 1, integrated finely until it separates (x back to 0): an independent reference for
// the restitution the damping ratio gives.
double simulated_restitution(double zeta) {
  const double omega = 50.0;
  const double h = 1e-6;
  double x = 0;
  double v = -1;
  do {
    double a = -2.0 * zeta * omega * v - omega * omega * x;
    v += h * a;
    x += h * v;
  } while (x < 0);
  return v;
}

TEST(MjcfWriter, RestitutionDampingRatioBouncesBackE) {
  EXPECT_EQ(restitution_damping_ratio(1.0), 0.0);
  for (double e : {0.2, 0.5, 0.9}) {
    EXPECT_NEAR(simulated_restitution(restitution_damping_ratio(e)), e, 2e-3) << e;
  }
}

TEST(MujocoWorld, FreeFallMatchesSemiImplicitEulerClosedForm) {
  SceneDef scene = free_fall_scene();
  MujocoWorld world(scene);
  const int n = 50;
  for (int i = 0; i < n; ++i) world.step();
  world.update_kinematics();
  std::vector<ProbeBodyState> states;
  world.read_states(states);
  expect_semi_implicit_euler_free_fall(scene, n, states[0]);
}

TEST(MujocoWorld, BallJointChainKeepsItsAnchorsExactly) {
  SceneDef scene;
  scene.name = "chain";
  scene.world.dt = 0.002;
  Quat horizontal(Eigen::AngleAxisd(kPi / 2, Vec3::UnitY()));
  for (int i = 0; i < 4; ++i) {
    BodyDef b = dynamic_body("link_" + std::to_string(i), Shape::capsule(0.03, 0.07),
                             Vec3(0.1 + 0.2 * i, 0, 2));
    b.orientation = horizontal;
    scene.bodies.push_back(b);
    SceneJointDef j;
    j.body_a = i;
    j.body_b = i - 1;
    j.anchor = Vec3(0.2 * i, 0, 2);
    scene.joints.push_back(j);
  }
  MujocoWorld world(scene);
  EXPECT_EQ(world.mjcf().tree_joints, 4);
  EXPECT_EQ(world.model().nv, 12);
  SceneProbe probe(scene);
  std::vector<ProbeBodyState> states;
  for (int s = 0; s < 300; ++s) {
    world.step();
    world.update_kinematics();
    world.read_states(states);
    probe.observe(s * scene.world.dt, states, 0.0);
  }
  EXPECT_LT(probe.joint_error_max(), 1e-9);
  // The chain really swung (its free end dropped well below its start at z = 2).
  EXPECT_LT(states[3].pose.position.z(), 1.8);
}

TEST(MujocoWorld, HingeAngleSignAndLimitsFollowTheScene) {
  SceneDef scene;
  scene.name = "hinge";
  scene.world.gravity = Vec3::Zero();
  Vec3 axis = Vec3(0, 1, 1).normalized();
  scene.bodies.push_back(dynamic_body("a", Shape::box(Vec3(0.1, 0.2, 0.3)), Vec3(1, 0, 0)));
  scene.bodies.push_back(dynamic_body("c", Shape::box(Vec3(0.1, 0.1, 0.1)), Vec3(2, 0, 0)));
  scene.bodies[0].orientation = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()));
  SceneJointDef to_world;  // a hangs from the world: a is the child
  to_world.type = JointType::Hinge;
  to_world.body_a = 0;
  to_world.anchor = Vec3(0.5, 0, 0);
  to_world.axis = axis;
  to_world.limits = std::array<double, 2>{-0.2, 0.7};
  SceneJointDef flipped;  // a already has its parent, so c becomes a's child: sign reverses
  flipped.type = JointType::Hinge;
  flipped.body_a = 0;
  flipped.body_b = 1;
  flipped.anchor = Vec3(1.5, 0, 0);
  flipped.axis = Vec3::UnitZ();
  flipped.limits = std::array<double, 2>{-0.1, 0.3};
  scene.joints = {to_world, flipped};
  MujocoWorld world(scene);
  const mjModel& m = world.model();
  ASSERT_EQ(m.njnt, 2);
  EXPECT_NEAR(m.jnt_range[0], -0.2, 1e-12);
  EXPECT_NEAR(m.jnt_range[1], 0.7, 1e-12);
  EXPECT_NEAR(m.jnt_range[2], -0.3, 1e-12);
  EXPECT_NEAR(m.jnt_range[3], 0.1, 1e-12);
  // qpos = +0.3 on the first hinge turns a by +0.3 about the axis through the anchor.
  mjData& d = world.data();
  d.qpos[m.jnt_qposadr[0]] = 0.3;
  world.update_kinematics();
  std::vector<ProbeBodyState> states;
  world.read_states(states);
  Quat turn(Eigen::AngleAxisd(0.3, axis));
  Vec3 expected = turn * (scene.bodies[0].position - to_world.anchor) + to_world.anchor;
  EXPECT_NEAR((states[0].pose.position - expected).norm(), 0.0, 1e-9);
  EXPECT_NEAR(states[0].pose.orientation.angularDistance(turn * scene.bodies[0].orientation), 0.0,
              1e-9);
}

TEST(MujocoWorld, SphereRestsOnAnOffsetTiltedPlane) {
  SceneDef scene;
  scene.name = "rest";
  scene.world.dt = 0.002;
  Vec3 n = Vec3(0.2, 0.0, 1.0).normalized();
  scene.world.gravity = -9.81 * n;  // straight into the plane: no sliding
  BodyDef ground;
  ground.name = "ground";
  ground.motion = MotionType::Static;
  ground.shape = Shape::plane(n, 0.5);
  scene.bodies.push_back(ground);
  scene.bodies.push_back(dynamic_body("ball", Shape::sphere(0.1), 0.62 * n + Vec3(0, 1, 0)));
  MujocoWorld world(scene);
  for (int s = 0; s < 1000; ++s) world.step();
  world.update_kinematics();
  std::vector<ProbeBodyState> states;
  world.read_states(states);
  // Resting: centre at offset + r along the normal, to within MuJoCo's soft-contact sag.
  EXPECT_NEAR(states[1].pose.position.dot(n), 0.6, 2e-3);
  EXPECT_LT(states[1].linear_velocity.norm(), 1e-2);
}

}  // namespace
}  // namespace impetus::peers
