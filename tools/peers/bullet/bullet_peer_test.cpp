// Tests of the Bullet peer's scene translation and of the shared SceneProbe, each against an
// independent reference: brute-force pair counts, closed-form free fall, hand-made states.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cloth/cloth_mesh.h"
#include "cloth/triangle_intersection.h"
#include "tools/peers/bullet/bullet_cloth_world.h"
#include "tools/peers/bullet/bullet_rigid_world.h"
#include "tools/peers/bullet/impetus_side_run.h"
#include "tools/peers/bullet/peer_harness.h"
#include "tools/peers/bullet/scene_probe.h"
#include "tools/peers/peer_test_support.h"

namespace impetus::peers {
namespace {

int parse(std::vector<std::string> args, PeerOptions& options) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return parse_peer_options(static_cast<int>(argv.size()), argv.data(), "peer", "scenes", options);
}

TEST(PeerOptions, RepeatTakesAPositiveCountAndRefusesOthers) {
  PeerOptions options;
  EXPECT_EQ(parse({"peer"}, options), 0);
  EXPECT_EQ(options.repeat, 1);
  EXPECT_EQ(parse({"peer", "--repeat", "5"}, options), 0);
  EXPECT_EQ(options.repeat, 5);
  for (const char* bad : {"0", "-2", "3x", "", "1001"}) {
    PeerOptions refused;
    EXPECT_EQ(parse({"peer", "--repeat", bad}, refused), 2) << bad;
  }
  PeerOptions missing;
  EXPECT_EQ(parse({"peer", "--repeat"}, missing), 2);
}

// A one-ball scene file in a fresh folder, for the scene loop (it loads scenes by name).
std::filesystem::path write_ball_scene() {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("impetus_peer_repeat_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ball.json") << R"({"format": "impetus-scene/1", "name": "ball",
    "settings": {"gravity": [0, 0, -9.81], "dt": 0.01, "duration": 0.2},
    "bodies": [{"name": "ground", "motion": "static", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}},
               {"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "position": [0, 0, 0.5]}]})";
  return dir;
}

TEST(PeerSceneLoop, RepeatAlternatesTheEnginesAndReportsMediansOfTheRuns) {
  const std::filesystem::path dir = write_ball_scene();
  PeerOptions options;
  options.scenes_dir = dir.string();
  options.repeat = 3;
  PeerReport report;
  // The peer's three runs take 4, 3 and 1 ms a step: their median is 3, where their mean is 8/3
  // and the last run's figure 1.
  const std::vector<double> peer_times = {4.0, 3.0, 1.0};
  int calls = 0;
  run_peer_scenes("fake", {"ball"}, options, report, [&](const SceneDef& scene, long long steps) {
    // Alternation: before each peer run after the first, impetus has run once more.
    EXPECT_EQ(report.figures.count("ball.impetus.ms_per_step") ? 1 : 0, calls > 0 ? 1 : 0);
    EXPECT_EQ(steps, scene.steps);
    report.figures["ball.ms_per_step"] = peer_times[calls];
    return peer_times[calls++];
  });
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(report.skipped.empty());
  EXPECT_EQ(report.figures.at("ball.runs"), 3.0);
  EXPECT_EQ(report.figures.at("ball.ms_per_step"), 3.0);
  const double low = report.figures.at("ball.impetus_over_peer_min");
  const double mid = report.figures.at("ball.impetus_over_peer");
  const double high = report.figures.at("ball.impetus_over_peer_max");
  EXPECT_GT(low, 0.0);
  EXPECT_LE(low, mid);
  EXPECT_LE(mid, high);
  EXPECT_GT(report.figures.at("ball.impetus.ms_per_step"), 0.0);
  std::filesystem::remove_all(dir);
}

TEST(PeerSceneLoop, OneRunLeavesTheFiguresAsThePeerWroteThem) {
  const std::filesystem::path dir = write_ball_scene();
  PeerOptions options;
  options.scenes_dir = dir.string();
  options.impetus = false;
  PeerReport report;
  int calls = 0;
  run_peer_scenes("fake", {"ball"}, options, report, [&](const SceneDef&, long long) {
    ++calls;
    report.figures["ball.ms_per_step"] = 2.5;
    return 2.5;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(report.figures.at("ball.ms_per_step"), 2.5);
  EXPECT_EQ(report.figures.count("ball.runs"), 0u);
  EXPECT_EQ(report.figures.count("ball.impetus.ms_per_step"), 0u);
  std::filesystem::remove_all(dir);
}

TEST(SelfIntersectionSweep, MatchesAllPairsOnCrumpledGrids) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (int trial = 0; trial < 6; ++trial) {
    ClothMesh mesh = make_grid_cloth({1.0, 1.0}, {8, 8}, Vec3::Zero(), Quat::Identity());
    // Fold the sheet onto itself and shake it so that many triangles cross.
    double amplitude = 0.02 + 0.04 * trial;
    for (Vec3& x : mesh.vertices) {
      double fold = x.x() > 0 ? -x.x() : x.x();
      x = Vec3(fold, x.y(), 0.1 * std::abs(x.x())) +
          amplitude * Vec3(noise(rng), noise(rng), noise(rng));
    }
    int reference = count_self_intersections_brute_force(mesh.vertices, mesh.triangles);
    EXPECT_EQ(count_cloth_self_intersections(mesh.vertices, mesh.triangles), reference);
    if (trial == 5) {
      EXPECT_GT(reference, 0);  // the test exercises real crossings
    }
  }
}

TEST(SelfIntersectionSweep, TwoCrossingTrianglesAndTouchingOnes) {
  std::vector<Vec3> x = {Vec3(0, 0, 0),    Vec3(1, 0, 0),   Vec3(0, 1, 0),
                         Vec3(0.2, 0.2, -1), Vec3(0.2, 0.2, 1), Vec3(0.3, 0.5, 0)};
  std::vector<std::array<int, 3>> t = {{0, 1, 2}, {3, 4, 5}};
  EXPECT_EQ(count_cloth_self_intersections(x, t), 1);
  // Lift the second triangle entirely above the first: no crossing.
  for (int i = 3; i < 6; ++i) x[i].z() += 2.0;
  EXPECT_EQ(count_cloth_self_intersections(x, t), 0);
  // Touching at a single point counts (closed triangles): vertex 3 on the first's plane.
  x[3] = Vec3(0.2, 0.2, 0.0);
  EXPECT_EQ(count_cloth_self_intersections(x, t), 1);
}

TEST(BulletRigidWorld, FreeFallMatchesSemiImplicitEulerClosedForm) {
  SceneDef scene = free_fall_scene();
  BulletRigidWorld world(scene);
  const int n = 50;
  for (int i = 0; i < n; ++i) world.step();
  std::vector<ProbeBodyState> states;
  world.read_states(states);
  expect_semi_implicit_euler_free_fall(scene, n, states[0]);
}

TEST(BulletRigidWorld, HingeAngleIsThatOfBodyARelativeToBodyB) {
  SceneDef scene;
  scene.name = "hinge";
  scene.world.gravity = Vec3::Zero();
  scene.bodies.push_back(dynamic_body("a", Shape::box(Vec3(0.1, 0.2, 0.3)), Vec3(1, 0, 0)));
  scene.bodies.push_back(dynamic_body("b", Shape::box(Vec3(0.2, 0.1, 0.1)), Vec3(0, 0, 0)));
  scene.bodies[1].orientation = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()));
  SceneJointDef hinge;
  hinge.type = JointType::Hinge;
  hinge.body_a = 0;
  hinge.body_b = 1;
  hinge.anchor = Vec3(0.5, 0, 0);
  hinge.axis = Vec3(0, 1, 1).normalized();
  hinge.limits = std::array<double, 2>{-1.0, 1.0};
  scene.joints.push_back(hinge);
  BulletRigidWorld world(scene);
  auto& c = static_cast<btHingeConstraint&>(world.constraint(0));
  EXPECT_NEAR(c.getHingeAngle(), 0.0, 1e-12);
  // Turn a by +0.3 rad about the hinge axis through the anchor: the scene's angle is +0.3.
  const double angle = 0.3;
  Quat turn(Eigen::AngleAxisd(angle, hinge.axis));
  Pose a{turn * (scene.bodies[0].position - hinge.anchor) + hinge.anchor,
         turn * scene.bodies[0].orientation};
  world.body(0).setCenterOfMassTransform(to_bullet(a));
  EXPECT_NEAR(c.getHingeAngle(), angle, 1e-9);
}

TEST(BulletClothWorld, NodesFollowImpetusGridNumberingAndPinsHold) {
  SceneDef scene;
  scene.name = "cloth";
  scene.world.dt = 1.0 / 240.0;
  SceneClothDef cloth;
  cloth.grid_size = {1.0, 0.5};
  cloth.grid_resolution = {6, 3};
  cloth.grid_center = Vec3(0, 0, 2);
  cloth.areal_density = 0.3;
  cloth.pin = {0, 6};
  scene.cloths.push_back(cloth);
  BulletClothWorld world(scene, BulletClothSettings{});
  ClothMesh mesh = make_grid_cloth(cloth.grid_size, cloth.grid_resolution, cloth.grid_center,
                                   cloth.grid_orientation);
  std::vector<Vec3> x;
  world.read_cloth(0, x);
  ASSERT_EQ(x.size(), mesh.vertices.size());
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], mesh.vertices[i]) << i;
  for (int s = 0; s < 60; ++s) world.step();
  world.read_cloth(0, x);
  EXPECT_EQ(x[0], mesh.vertices[0]);
  EXPECT_EQ(x[6], mesh.vertices[6]);
  // The free far corner has fallen under gravity.
  EXPECT_LT(x.back().z(), mesh.vertices.back().z() - 0.05);
}

TEST(SceneProbe, JointErrorDriftAndCradleTransferFromHandMadeStates) {
  SceneDef scene;
  scene.name = "newton_cradle_probe";
  scene.world.gravity = Vec3(0, 0, -9.81);
  scene.bodies.push_back(dynamic_body("ball_0", Shape::sphere(0.1), Vec3(-0.2, 0, 1.1)));
  scene.bodies.push_back(dynamic_body("ball_1", Shape::sphere(0.1), Vec3(0.0, 0, 1)));
  for (int i = 0; i < 2; ++i) {
    SceneJointDef j;
    j.body_a = i;
    j.body_b = -1;
    j.anchor = scene.bodies[i].position + Vec3(0, 0, 1);
    scene.joints.push_back(j);
  }
  SceneProbe probe(scene);
  std::vector<ProbeBodyState> s(2);
  s[0].pose.position = scene.bodies[0].position;
  s[1].pose.position = scene.bodies[1].position + Vec3(0.003, 0.004, 0);  // 5 mm off its anchor
  s[0].linear_velocity = Vec3(2.0, 0, 0);
  s[1].linear_velocity = Vec3(-0.5, 0, 0);
  probe.observe(0.1, s, 0.001);
  s[0].linear_velocity = Vec3(0.1, 0, 0);
  s[1].linear_velocity = Vec3(1.5, 0, 0);
  s[1].pose.position.z() += 0.025;  // rises a quarter of ball_0's 0.1 m release height
  probe.observe(0.6, s, 0.0);
  // After 0.6 periods (T = 2π√(1/9.81) ≈ 2.006 s) the window is closed: ignored.
  s[1].linear_velocity = Vec3(9.0, 0, 0);
  s[1].pose.position.z() += 0.05;
  probe.observe(1.3, s, 0.0);
  // ball_1's anchor offset stays 5 mm horizontally until it rises: then √(5² + 25²) mm, and
  // √(5² + 75²) mm after the window (joint error is not windowed).
  EXPECT_NEAR(probe.joint_error_max(), std::sqrt(0.005 * 0.005 + 0.075 * 0.075), 1e-12);
  EXPECT_NEAR(probe.peak_speed_ratio(), 1.5 / 2.0, 1e-12);
  EXPECT_NEAR(probe.momentum_transfer(), std::sqrt(0.025 / 0.1), 1e-12);
  // The top body is the highest dynamic one at t = 0: ball_0, which never moved.
  EXPECT_NEAR(probe.top_drift(), 0.0, 1e-12);
  std::map<std::string, double> figures;
  probe.add_figures("x", figures);
  EXPECT_DOUBLE_EQ(figures.at("x.max_penetration"), 0.001);
  EXPECT_NEAR(figures.at("x.joint_error_max_mm"), 1e3 * probe.joint_error_max(), 1e-9);
  EXPECT_NEAR(figures.at("x.momentum_transfer"), 0.5, 1e-12);
}

}  // namespace
}  // namespace impetus::peers
