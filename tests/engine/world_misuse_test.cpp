// Misuse of the World through its public functions (engine/world.h): every invalid def, id,
// index or non-finite value throws std::invalid_argument naming the function and the problem,
// and leaves the world exactly as it was: a twin world that never saw the misuse, stepped the
// same way afterwards, ends bit-identical. Run under the sanitizer build too (README), which
// proves the rejected calls touch no memory they should not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/world.h"

namespace impetus {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// make_world's body ids: its bodies in creation order, in a world that never destroyed one.
constexpr BodyId kGround{0, 1}, kBall{1, 1}, kPlatform{2, 1};

struct Fixture {
  std::unique_ptr<World> world;
  BodyId ground, ball, platform;
};

// Ground plane, a falling ball on a hinge to the world, a kinematic platform, a small cloth
// attached to the ball.
Fixture make_world() {
  WorldDef def;
  def.threads = 1;
  Fixture f;
  f.world = std::make_unique<World>(def);
  BodyDef ground;
  ground.name = "ground";
  ground.motion = MotionType::Static;
  ground.shape = Shape::plane(Vec3::UnitZ(), 0);
  f.ground = f.world->create_body(ground);
  BodyDef ball;
  ball.name = "ball";
  ball.shape = Shape::sphere(0.25);
  ball.position = Vec3(0, 0, 1);
  ball.angular_velocity = Vec3(0, 1, 0);
  f.ball = f.world->create_body(ball);
  BodyDef platform;
  platform.name = "platform";
  platform.motion = MotionType::Kinematic;
  platform.shape = Shape::box(Vec3(0.5, 0.5, 0.05));
  platform.position = Vec3(2, 0, 0.5);
  platform.linear_velocity = Vec3(0, 0.1, 0);
  f.platform = f.world->create_body(platform);
  JointDef hinge;
  hinge.type = JointType::Hinge;
  hinge.body_a = f.ball;
  hinge.anchor = Vec3(0, 0, 1.5);
  hinge.axis = Vec3::UnitY();
  f.world->create_joint(hinge);
  ClothDef cloth;
  cloth.name = "sheet";
  cloth.grid_resolution = {3, 3};
  cloth.grid_center = Vec3(0, 0, 2);
  cloth.attach = {{0, f.ball}};
  f.world->create_cloth(cloth);
  return f;
}

// Every observable state, as raw bytes: equal strings = bit-identical worlds.
std::string snapshot(const World& w) {
  std::string bytes = std::to_string(w.body_count()) + "/" + std::to_string(w.joint_count()) +
                      "/" + std::to_string(w.cloth_count()) + "/" +
                      std::to_string(w.step_count()) + "|";
  auto add = [&bytes](const double* data, int n) {
    bytes.append(reinterpret_cast<const char*>(data), sizeof(double) * n);
  };
  for (int i = 0; i < w.body_count(); ++i) {
    const BodyState s = w.body_state(w.body_id(i));
    add(s.position.data(), 3);
    add(s.orientation.coeffs().data(), 4);
    add(s.linear_velocity.data(), 3);
    add(s.angular_velocity.data(), 3);
    bytes += w.is_asleep(w.body_id(i)) ? 'z' : 'a';
  }
  for (int c = 0; c < w.cloth_count(); ++c) {
    for (const Vec3& p : w.cloth_positions(c)) add(p.data(), 3);
  }
  return bytes;
}

// Expects `call` to throw std::invalid_argument whose message starts "World::<function>: " and
// `subject` (e.g. "body 'bad': ") and contains `problem`.
void expect_misuse(const std::function<void()>& call, const std::string& function,
                   const std::string& problem, const std::string& subject = "") {
  try {
    call();
    ADD_FAILURE() << "World::" << function << " accepted misuse (" << problem << ")";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("World::" + function + ": " + subject, 0), 0u) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what << " (expected: " << problem << ")";
  }
}

// Runs `misuse` on one world and nothing on its twin, then steps both: they must agree bit for
// bit before and after.
void expect_world_unchanged(const std::function<void(Fixture&)>& misuse) {
  Fixture used = make_world();
  Fixture twin = make_world();
  for (int i = 0; i < 5; ++i) {
    used.world->step();
    twin.world->step();
  }
  misuse(used);
  EXPECT_TRUE(snapshot(*used.world) == snapshot(*twin.world)) << "the misuse changed the world";
  for (int i = 0; i < 30; ++i) {
    used.world->step();
    twin.world->step();
  }
  EXPECT_TRUE(snapshot(*used.world) == snapshot(*twin.world)) << "the worlds differ 30 steps on";
}

TEST(WorldMisuse, InvalidWorldDefs) {
  auto bad = [](const std::function<void(WorldDef&)>& change, const std::string& problem) {
    WorldDef def;
    change(def);
    expect_misuse([&] { World w(def); }, "World", problem);
  };
  bad([](WorldDef& d) { d.dt = 0; }, "dt must be positive");
  bad([](WorldDef& d) { d.dt = kNaN; }, "dt must be positive");
  bad([](WorldDef& d) { d.dt = kInf; }, "dt must be positive");
  bad([](WorldDef& d) { d.substeps = 0; }, "substeps");
  bad([](WorldDef& d) { d.threads = -1; }, "threads");
  bad([](WorldDef& d) { d.threads = 1 << 30; }, "threads");
  bad([](WorldDef& d) { d.solver_iterations = 0; }, "solver_iterations");
  bad([](WorldDef& d) { d.gravity.z() = kNaN; }, "gravity");
  bad([](WorldDef& d) { d.sleep_speed = kNaN; }, "sleep_speed");
  bad([](WorldDef& d) { d.sleep_delay = -1; }, "sleep_delay");
  bad([](WorldDef& d) { d.materials.clear(); }, "at least one material");
  bad([](WorldDef& d) { d.materials[0].density = 0; }, "material 'default'");
  bad([](WorldDef& d) { d.materials[0].friction = kNaN; }, "material 'default'");
  bad([](WorldDef& d) { d.materials[0].restitution = 1.5; }, "material 'default'");
}

TEST(WorldMisuse, InvalidBodyDefsLeaveTheWorldUnchanged) {
  auto mesh = std::make_shared<TriangleMesh>();
  mesh->vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  mesh->triangles = {{0, 1, 7}};
  const std::vector<std::pair<std::function<void(BodyDef&)>, std::string>> cases = {
      {[](BodyDef& b) { b.shape = Shape::sphere(0); }, "sphere radius"},
      {[](BodyDef& b) { b.shape = Shape::sphere(kNaN); }, "sphere radius"},
      {[](BodyDef& b) { b.shape = Shape::capsule(0.1, kInf); }, "capsule"},
      {[](BodyDef& b) { b.shape = Shape::box(Vec3(1, -1, 1)); }, "box half_extents"},
      {[](BodyDef& b) { b.shape = Shape::ellipsoid(Vec3(1, 1, kNaN)); }, "ellipsoid radii"},
      {[](BodyDef& b) { b.shape = Shape::convex(nullptr); }, "convex shape"},
      {[](BodyDef& b) { b.shape = Shape::triangle_mesh(nullptr); }, "mesh shape"},
      {[mesh](BodyDef& b) {
         b.motion = MotionType::Static;
         b.shape = Shape::triangle_mesh(mesh);
       },
       "mesh triangle index out of range"},
      {[](BodyDef& b) {
         b.motion = MotionType::Static;
         b.shape = Shape::plane(Vec3::UnitZ(), 0);
         b.shape.normal = Vec3(0, 0, 2);  // Shape::plane normalises; a def filled by hand may not
       },
       "plane needs a unit normal"},
      {[](BodyDef& b) { b.position.x() = kNaN; }, "non-finite pose or velocity"},
      {[](BodyDef& b) { b.linear_velocity.y() = kInf; }, "non-finite pose or velocity"},
      {[](BodyDef& b) { b.angular_velocity.z() = kNaN; }, "non-finite pose or velocity"},
      {[](BodyDef& b) { b.orientation = Quat(kNaN, 0, 0, 0); }, "non-finite pose or velocity"},
      {[](BodyDef& b) { b.orientation = Quat(2, 0, 0, 0); }, "unit quaternion"},
      {[](BodyDef& b) { b.shape = Shape::plane(Vec3::UnitZ(), 0); }, "a plane may only be static"},
      {[](BodyDef& b) { b.material = -1; }, "material index out of range"},
      {[](BodyDef& b) { b.material = 1; }, "material index out of range"},
      {[](BodyDef& b) { b.mass = 0.0; }, "mass must be positive"},
      {[](BodyDef& b) { b.mass = kNaN; }, "mass must be positive"},
  };
  for (const auto& entry : cases) {
    // Named copies: clang 14 cannot capture structured bindings.
    const auto& change = entry.first;
    const std::string& problem = entry.second;
    expect_world_unchanged([&change, &problem](Fixture& f) {
      BodyDef body;
      body.name = "bad";
      body.shape = Shape::sphere(0.1);
      change(body);
      expect_misuse([&] { f.world->create_body(body); }, "create_body", problem, "body 'bad': ");
    });
  }
}

TEST(WorldMisuse, InvalidJointDefsLeaveTheWorldUnchanged) {
  const std::vector<std::pair<std::function<void(JointDef&)>, std::string>> cases = {
      {[](JointDef& j) { j.body_a = BodyId{}; }, "two different existing bodies"},
      {[](JointDef& j) { j.body_a = BodyId{3, 1}; }, "two different existing bodies"},
      {[](JointDef& j) { j.body_b = BodyId{0, 2}; }, "two different existing bodies"},
      {[](JointDef& j) { j.body_b = kBall; }, "two different existing bodies"},
      {[](JointDef& j) { j.anchor.x() = kNaN; }, "anchor and axis must be finite"},
      {[](JointDef& j) { j.axis = Vec3(kInf, 0, 0); }, "anchor and axis must be finite"},
      {[](JointDef& j) { j.axis = Vec3::Zero(); }, "axis must be non-zero"},
      {[](JointDef& j) { j.limits = std::array<double, 2>{1, -1}; }, "limits"},
      {[](JointDef& j) { j.limits = std::array<double, 2>{kNaN, 1}; }, "limits"},
      {[](JointDef& j) {
         j.body_a = kPlatform;
         j.body_b = kGround;
       },
       "at least one of its bodies must be dynamic"},
  };
  for (const auto& entry : cases) {
    // Named copies: clang 14 cannot capture structured bindings.
    const auto& change = entry.first;
    const std::string& problem = entry.second;
    expect_world_unchanged([&change, &problem](Fixture& f) {
      JointDef joint;
      joint.type = JointType::Hinge;
      joint.body_a = f.ball;
      change(joint);
      expect_misuse([&] { f.world->create_joint(joint); }, "create_joint", problem);
    });
  }
}

TEST(WorldMisuse, InvalidClothDefsLeaveTheWorldUnchanged) {
  const std::vector<std::pair<std::function<void(ClothDef&)>, std::string>> cases = {
      {[](ClothDef& c) { c.grid_resolution = {0, 3}; }, "grid size and resolution"},
      {[](ClothDef& c) { c.grid_size = {kNaN, 1}; }, "grid size and resolution"},
      {[](ClothDef& c) { c.grid_size = {kInf, 1}; }, "grid size and resolution"},
      {[](ClothDef& c) { c.grid_center.x() = kNaN; }, "grid center"},
      {[](ClothDef& c) { c.grid_orientation = Quat(0, 0, 0, 0); }, "orientation"},
      {[](ClothDef& c) {
         c.is_grid = false;
         c.mesh_vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
         c.mesh_triangles = {{0, 1, 3}};
       },
       "mesh triangle index out of range"},
      {[](ClothDef& c) {
         c.is_grid = false;
         c.mesh_vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
       },
       "needs at least one triangle"},
      {[](ClothDef& c) {
         c.is_grid = false;
         c.mesh_vertices = {Vec3(0, 0, 0), Vec3(1, 0, kNaN), Vec3(0, 1, 0)};
         c.mesh_triangles = {{0, 1, 2}};
       },
       "mesh vertices must be finite"},
      {[](ClothDef& c) { c.areal_density = 0; }, "areal_density"},
      {[](ClothDef& c) { c.thickness = kNaN; }, "thickness"},
      {[](ClothDef& c) { c.friction = -1; }, "friction"},
      {[](ClothDef& c) { c.bend_stiffness = kInf; }, "bend_stiffness"},
      {[](ClothDef& c) { c.pin = {16}; }, "pin index out of range"},
      {[](ClothDef& c) { c.pin = {-1}; }, "pin index out of range"},
      {[](ClothDef& c) { c.attach = {{16, kBall}}; }, "attachment vertex out of range"},
      {[](ClothDef& c) { c.attach = {{0, BodyId{3, 1}}}; },
       "attachment body {index 3, generation 1} is not a live body"},
      {[](ClothDef& c) { c.attach = {{0, BodyId{}}}; },
       "attachment body {index 0, generation 0} is not a live body"},
  };
  for (const auto& entry : cases) {
    // Named copies: clang 14 cannot capture structured bindings.
    const auto& change = entry.first;
    const std::string& problem = entry.second;
    expect_world_unchanged([&change, &problem](Fixture& f) {
      ClothDef cloth;
      cloth.name = "bad";
      cloth.grid_resolution = {3, 3};
      change(cloth);
      expect_misuse([&] { f.world->create_cloth(cloth); }, "create_cloth", problem,
                    "cloth 'bad': ");
    });
  }
}

TEST(WorldMisuse, InvalidIdsAndIndicesAreReportedByEveryFunction) {
  expect_world_unchanged([](Fixture& f) {
    World& w = *f.world;
    // A null id, one past the end, a foreign generation.
    for (BodyId id : {BodyId{}, BodyId{3, 1}, BodyId{0, 2}, BodyId{4000000000u, 1}}) {
      EXPECT_FALSE(w.is_valid(id));
      const std::string problem = "invalid body id {index " + std::to_string(id.index) +
                                  ", generation " + std::to_string(id.generation) +
                                  "} (the world has 3 bodies)";
      expect_misuse([&] { w.body_name(id); }, "body_name", problem);
      expect_misuse([&] { w.body_motion(id); }, "body_motion", problem);
      expect_misuse([&] { w.body_mass(id); }, "body_mass", problem);
      expect_misuse([&] { w.body_state(id); }, "body_state", problem);
      expect_misuse([&] { w.set_body_state(id, BodyState{}); }, "set_body_state", problem);
      expect_misuse([&] { w.apply_impulse(id, Vec3::UnitX(), Vec3::Zero()); }, "apply_impulse",
                    problem);
      expect_misuse([&] { w.is_asleep(id); }, "is_asleep", problem);
      expect_misuse([&] { w.wake_body(id); }, "wake_body", problem);
    }
    for (int index : {-1, 3}) {
      expect_misuse([&] { w.body_id(index); }, "body_id",
                    "index " + std::to_string(index) + " out of range (the world has 3 bodies)");
    }
    for (int cloth : {-1, 1}) {
      const std::string problem =
          "cloth index " + std::to_string(cloth) + " out of range (the world has 1 cloths)";
      expect_misuse([&] { w.cloth_name(cloth); }, "cloth_name", problem);
      expect_misuse([&] { w.cloth_positions(cloth); }, "cloth_positions", problem);
      expect_misuse([&] { w.cloth_triangles(cloth); }, "cloth_triangles", problem);
      expect_misuse([&] { w.cloth_self_intersections(cloth); }, "cloth_self_intersections",
                    problem);
    }
  });
}

TEST(WorldMisuse, NonFiniteStatesAndImpulsesAreRejected) {
  auto with_state = [](const std::function<void(BodyState&)>& change, const std::string& problem) {
    expect_world_unchanged([&](Fixture& f) {
      BodyState s = f.world->body_state(f.ball);
      change(s);
      expect_misuse([&] { f.world->set_body_state(f.ball, s); }, "set_body_state", problem);
    });
  };
  with_state([](BodyState& s) { s.position.z() = kNaN; }, "non-finite state");
  with_state([](BodyState& s) { s.linear_velocity.x() = kInf; }, "non-finite state");
  with_state([](BodyState& s) { s.angular_velocity.y() = -kInf; }, "non-finite state");
  with_state([](BodyState& s) { s.orientation = Quat(0, 0, 0, 0); }, "zero orientation");
  with_state([](BodyState& s) { s.orientation = Quat(kNaN, 0, 0, 0); }, "non-finite state");
  expect_world_unchanged([](Fixture& f) {
    expect_misuse([&] { f.world->set_body_state(f.ground, BodyState{}); }, "set_body_state",
                  "body 'ground' is static");
    expect_misuse([&] { f.world->apply_impulse(f.ball, Vec3(kNaN, 0, 0), Vec3::Zero()); },
                  "apply_impulse", "must be finite");
    expect_misuse([&] { f.world->apply_impulse(f.ball, Vec3::UnitX(), Vec3(0, kInf, 0)); },
                  "apply_impulse", "must be finite");
  });
}

// The twin comparison can fail: a valid call on one world shows as a difference.
TEST(WorldMisuse, TheTwinComparisonSeesARealChange) {
  Fixture used = make_world();
  Fixture twin = make_world();
  used.world->apply_impulse(used.ball, Vec3(1e-9, 0, 0), Vec3(0, 0, 1));
  EXPECT_FALSE(snapshot(*used.world) == snapshot(*twin.world));
}

// Driving bodies (issue 15): bad ids, static or dynamic bodies where a moving or kinematic one
// is needed, non-finite vectors, zero quaternions.
TEST(WorldMisuse, DrivingRejectsBadArguments) {
  expect_world_unchanged([](Fixture& f) {
    World& w = *f.world;
    for (BodyId id : {BodyId{}, BodyId{3, 1}, BodyId{0, 7}}) {
      const std::string problem = "invalid body id";
      expect_misuse([&] { w.set_linear_velocity(id, Vec3::UnitX()); }, "set_linear_velocity", problem);
      expect_misuse([&] { w.set_angular_velocity(id, Vec3::UnitX()); }, "set_angular_velocity", problem);
      expect_misuse([&] { w.apply_force(id, Vec3::UnitX(), Vec3::Zero()); }, "apply_force", problem);
      expect_misuse([&] { w.apply_torque(id, Vec3::UnitX()); }, "apply_torque", problem);
      expect_misuse([&] { w.set_kinematic_target(id, Vec3::Zero(), Quat::Identity()); },
                    "set_kinematic_target", problem);
    }
    expect_misuse([&] { w.set_linear_velocity(f.ground, Vec3::UnitX()); }, "set_linear_velocity",
                  "body 'ground' is static");
    expect_misuse([&] { w.set_angular_velocity(f.ground, Vec3::UnitX()); },
                  "set_angular_velocity", "body 'ground' is static");
    expect_misuse([&] { w.set_linear_velocity(f.ball, Vec3(kNaN, 0, 0)); }, "set_linear_velocity",
                  "velocity must be finite");
    expect_misuse([&] { w.set_angular_velocity(f.platform, Vec3(0, kInf, 0)); },
                  "set_angular_velocity", "velocity must be finite");
    expect_misuse([&] { w.apply_force(f.ball, Vec3(kNaN, 0, 0), Vec3::Zero()); }, "apply_force",
                  "force and point must be finite");
    expect_misuse([&] { w.apply_force(f.ball, Vec3::UnitX(), Vec3(0, 0, kInf)); }, "apply_force",
                  "force and point must be finite");
    expect_misuse([&] { w.apply_torque(f.ball, Vec3(0, kNaN, 0)); }, "apply_torque",
                  "torque must be finite");
    for (BodyId id : {f.ground, f.ball}) {
      expect_misuse([&] { w.set_kinematic_target(id, Vec3::Zero(), Quat::Identity()); },
                    "set_kinematic_target", "is not kinematic");
    }
    expect_misuse([&] { w.set_kinematic_target(f.platform, Vec3(kNaN, 0, 0), Quat::Identity()); },
                  "set_kinematic_target", "position must be finite");
    expect_misuse([&] { w.set_kinematic_target(f.platform, Vec3::Zero(), Quat(0, 0, 0, 0)); },
                  "set_kinematic_target", "non-zero quaternion");
  });
}

// Queries (issue 15): non-finite vectors, zero quaternions, invalid or unsupported shapes.
TEST(WorldMisuse, QueriesRejectBadArguments) {
  expect_world_unchanged([](Fixture& f) {
    World& w = *f.world;
    const Quat id = Quat::Identity();
    expect_misuse([&] { w.ray_cast(Vec3(kNaN, 0, 0), Vec3::UnitX()); }, "ray_cast",
                  "origin and translation must be finite");
    expect_misuse([&] { w.ray_cast(Vec3::Zero(), Vec3(0, kInf, 0)); }, "ray_cast",
                  "origin and translation must be finite");
    expect_misuse([&] { w.ray_cast_all(Vec3::Zero(), Vec3(0, 0, kNaN), {}, [](const RayHit&) {}); },
                  "ray_cast_all", "origin and translation must be finite");
    expect_misuse([&] { w.ray_cast_all(Vec3::Zero(), Vec3::UnitZ(), {}, nullptr); }, "ray_cast_all",
                  "the callback is empty");
    expect_misuse([&] { w.overlap(Shape::sphere(0), Vec3::Zero(), id); }, "overlap",
                  "invalid shape: sphere radius");
    expect_misuse([&] { w.overlap(Shape::box(Vec3(1, kNaN, 1)), Vec3::Zero(), id); }, "overlap",
                  "invalid shape: box half_extents");
    expect_misuse([&] { w.overlap(Shape::sphere(1), Vec3(kInf, 0, 0), id); }, "overlap",
                  "position must be finite");
    expect_misuse([&] { w.overlap(Shape::sphere(1), Vec3::Zero(), Quat(0, 0, 0, 0)); }, "overlap",
                  "non-zero quaternion");
    expect_misuse([&] { w.shape_cast(Shape::plane(Vec3::UnitZ(), 0), Vec3::Zero(), id, Vec3::UnitX()); },
                  "shape_cast", "a plane cannot be cast");
    expect_misuse([&] { w.shape_cast(Shape::convex(nullptr), Vec3::Zero(), id, Vec3::UnitX()); },
                  "shape_cast", "invalid shape: convex shape needs a hull");
    expect_misuse([&] { w.shape_cast(Shape::sphere(1), Vec3::Zero(), id, Vec3(kNaN, 0, 0)); },
                  "shape_cast", "position and translation must be finite");
    expect_misuse([&] { w.shape_cast(Shape::sphere(1), Vec3::Zero(), Quat(kNaN, 0, 0, 1), Vec3::UnitX()); },
                  "shape_cast", "non-zero quaternion");
  });
}

// Forces and torques on static and kinematic bodies are ignored, as impulses are.
TEST(WorldMisuse, ForcesOnBodiesThatCannotTakeThemChangeNothing) {
  expect_world_unchanged([](Fixture& f) {
    f.world->apply_force(f.ground, Vec3::UnitX(), Vec3::Zero());
    f.world->apply_force(f.platform, Vec3::UnitX(), Vec3::Zero());
    f.world->apply_torque(f.platform, Vec3::UnitZ());
  });
}

}  // namespace
}  // namespace impetus
