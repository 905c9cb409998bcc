// Scene loader validation: one test per class of bad input, each checking that the message is
// "FILE: JSON.PATH: problem" with the right file, path and problem; plus the defaults and
// conversions of a small valid scene. Scenes are written to a fresh temp dir and loaded through
// load_scene_file, as `impetus run` does.
#include "engine/scene_loader.h"
#include "engine/scene_loader_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "tests/engine/temp_dir.h"

namespace impetus {
namespace {

using nlohmann::json;

// A closed, outward-oriented tetrahedron (unit legs along x, y, z).
constexpr const char* kTetraObj =
    "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
    "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

json base_scene() {
  return json::parse(R"({
    "format": "impetus-scene/1",
    "name": "base",
    "settings": {"dt": 0.01, "steps": 10},
    "materials": {"rubber": {"density": 1100, "friction": 0.9, "restitution": 0.6}},
    "bodies": [
      {"name": "ground", "motion": "static",
       "shape": {"type": "plane", "normal": [0, 0, 2], "offset": 0}},
      {"name": "ball", "shape": {"type": "sphere", "radius": 0.25}, "position": [0, 0, 2],
       "material": "rubber"},
      {"name": "crate", "shape": {"type": "box", "half_extents": [0.2, 0.2, 0.2]},
       "position": [1, 0, 1]},
      {"name": "tetra", "shape": {"type": "mesh", "mesh": "meshes/tetra.obj"},
       "position": [3, 0, 1]}
    ],
    "arrays": [
      {"name": "pill", "count": [2, 1, 1], "spacing": [1, 1, 1],
       "body": {"shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}}}
    ],
    "joints": [
      {"type": "hinge", "bodies": ["ball", "crate"], "axis": [2, 0, 0], "limits": [-1, 1]},
      {"type": "ball", "bodies": ["ball", "world"], "anchor": [0, 0, 3]}
    ],
    "cloths": [
      {"name": "sheet", "grid": {"size": [1, 1], "resolution": [4, 4]}, "pin": [0, 24],
       "attach": [{"vertex": 4, "body": "crate"}]}
    ],
    "output": {"every": 2}
  })");
}

class SceneLoader : public ::testing::Test {
 protected:
  void SetUp() override { dir_.write("meshes/tetra.obj", kTetraObj); }

  SceneLoadResult load() { return load_text(scene.dump(2)); }
  SceneLoadResult load_text(const std::string& text) {
    file_ = dir_.write("scene.json", text);
    return load_scene_file(file_);
  }
  // The message must be exactly "FILE: PATH: ..." and contain `problem`.
  void expect_error(const SceneLoadResult& r, const std::string& path, const std::string& problem) {
    ASSERT_FALSE(r.ok()) << "loaded although invalid";
    EXPECT_NE(file_.find("scene.json"), std::string::npos);
    const std::string prefix = file_ + ": " + path + ": ";
    EXPECT_EQ(r.error.rfind(prefix, 0), 0u) << "expected prefix '" << prefix << "' in: " << r.error;
    EXPECT_NE(r.error.find(problem), std::string::npos) << "expected '" << problem << "' in: "
                                                        << r.error;
  }
  void expect_error(const std::string& path, const std::string& problem) {
    expect_error(load(), path, problem);
  }

  json scene = base_scene();
  testing::TempDir dir_;
  std::string file_;
};

TEST_F(SceneLoader, BaseSceneLoadsWithDefaults) {
  SceneLoadResult r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  const SceneDef& s = *r.scene;
  EXPECT_EQ(s.name, "base");
  EXPECT_EQ(s.description, "");
  EXPECT_EQ(s.steps, 10);
  EXPECT_EQ(s.output_every, 2);
  EXPECT_EQ(s.world.dt, 0.01);
  EXPECT_EQ(s.world.gravity, Vec3(0, 0, -9.81));  // spec default
  EXPECT_EQ(s.world.substeps, 1);
  EXPECT_TRUE(s.world.auto_substeps);
  EXPECT_EQ(s.world.threads, 0);
  EXPECT_TRUE(s.world.ccd);
  EXPECT_EQ(s.world.seed, 0u);
  // Materials: the engine's "default" first, then the file's.
  ASSERT_EQ(s.world.materials.size(), 2u);
  EXPECT_EQ(s.world.materials[0].name, "default");
  EXPECT_EQ(s.world.materials[0].density, 1000);
  EXPECT_EQ(s.world.materials[0].friction, 0.5);
  EXPECT_EQ(s.world.materials[0].restitution, 0);
  EXPECT_EQ(s.world.materials[1].name, "rubber");
  EXPECT_EQ(s.world.materials[1].restitution, 0.6);

  ASSERT_EQ(s.bodies.size(), 6u);
  const char* names[] = {"ground", "ball", "crate", "tetra", "pill_0_0_0", "pill_1_0_0"};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(s.bodies[i].name, names[i]);
  EXPECT_EQ(s.bodies[0].motion, MotionType::Static);
  EXPECT_EQ(s.bodies[0].shape.type, ShapeType::Plane);
  EXPECT_NEAR((s.bodies[0].shape.normal - Vec3(0, 0, 1)).norm(), 0, 1e-15);  // normalised
  EXPECT_EQ(s.bodies[1].motion, MotionType::Dynamic);
  EXPECT_EQ(s.bodies[1].material, 1);
  EXPECT_EQ(s.bodies[2].material, 0);
  EXPECT_FALSE(s.bodies[2].mass.has_value());
  EXPECT_EQ(s.bodies[2].linear_velocity, Vec3::Zero());
  EXPECT_EQ(s.bodies[2].orientation.coeffs(), Quat::Identity().coeffs());
  ASSERT_EQ(s.bodies[3].shape.type, ShapeType::Mesh);
  EXPECT_EQ(s.bodies[3].shape.mesh->triangles.size(), 4u);
  EXPECT_FALSE(s.bodies[3].shape.mesh->bvh.nodes.empty());
  EXPECT_EQ(s.bodies[4].position, Vec3(0, 0, 0));  // jitter 0: exactly on the lattice
  EXPECT_EQ(s.bodies[5].position, Vec3(1, 0, 0));

  ASSERT_EQ(s.joints.size(), 2u);
  EXPECT_EQ(s.joints[0].type, JointType::Hinge);
  EXPECT_EQ(s.joints[0].body_a, 1);
  EXPECT_EQ(s.joints[0].body_b, 2);
  EXPECT_EQ(s.joints[0].anchor, Vec3(1, 0, 1));  // default: b's origin
  EXPECT_EQ(s.joints[0].axis, Vec3(1, 0, 0));    // normalised
  ASSERT_TRUE(s.joints[0].limits.has_value());
  EXPECT_EQ((*s.joints[0].limits)[0], -1);
  EXPECT_EQ(s.joints[1].body_b, -1);  // "world"
  EXPECT_EQ(s.joints[1].anchor, Vec3(0, 0, 3));
  EXPECT_FALSE(s.joints[1].limits.has_value());

  ASSERT_EQ(s.cloths.size(), 1u);
  const SceneClothDef& c = s.cloths[0];
  EXPECT_TRUE(c.is_grid);
  EXPECT_EQ(c.grid_resolution, (std::array<int, 2>{4, 4}));
  EXPECT_EQ(c.pin, (std::vector<int>{0, 24}));
  ASSERT_EQ(c.attach.size(), 1u);
  EXPECT_EQ(c.attach[0].vertex, 4);
  EXPECT_EQ(c.attach[0].body, 2);
  EXPECT_TRUE(c.self_collision);
}

TEST_F(SceneLoader, DurationRoundsToSteps) {
  scene["settings"] = json::parse(R"({"dt": 0.004166666666666667, "duration": 4.0})");
  SceneLoadResult r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.scene->steps, 960);
  scene["settings"] = json::parse(R"({"dt": 0.3, "duration": 1.0})");  // 3.33 → 3
  r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.scene->steps, 3);
}

TEST_F(SceneLoader, SettingsAndExtensionKeysAreRead) {
  scene["settings"] = json::parse(R"({"gravity": [0, -1, -2], "dt": 0.002, "steps": 5,
      "substeps": 4, "auto_substeps": false, "threads": 3, "ccd": false,
      "seed": 18446744073709551615, "solver": "block", "solver_iterations": 25})");
  SceneLoadResult r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  const WorldDef& w = r.scene->world;
  EXPECT_EQ(w.gravity, Vec3(0, -1, -2));
  EXPECT_EQ(w.substeps, 4);
  EXPECT_FALSE(w.auto_substeps);
  EXPECT_EQ(w.threads, 3);
  EXPECT_FALSE(w.ccd);
  EXPECT_EQ(w.seed, 18446744073709551615ULL);
  EXPECT_EQ(w.solver, SolverType::Block);
  EXPECT_EQ(w.solver_iterations, 25);
  scene["settings"]["solver"] = "sequential_impulse";
  r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.scene->world.solver, SolverType::SequentialImpulse);
}

TEST_F(SceneLoader, QuaternionsAreNormalisedOnLoad) {
  scene["bodies"][1]["orientation"] = {2, 0, 0, 0};
  scene["bodies"][2]["orientation"] = {1, 1, 0, 0};
  scene["cloths"][0]["grid"]["orientation"] = {0, 0, 0, -3};
  SceneLoadResult r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  const Quat& a = r.scene->bodies[1].orientation;
  EXPECT_NEAR(a.w(), 1, 1e-15);
  EXPECT_NEAR(a.vec().norm(), 0, 1e-15);
  const Quat& b = r.scene->bodies[2].orientation;  // [w, x, y, z] order, not Eigen's coeffs()
  EXPECT_NEAR(b.w(), std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(b.x(), std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(b.y(), 0, 1e-15);
  EXPECT_NEAR(b.norm(), 1, 1e-15);
  // A quarter turn about x maps y to z.
  EXPECT_NEAR((b * Vec3(0, 1, 0) - Vec3(0, 0, 1)).norm(), 0, 1e-12);
  EXPECT_NEAR(r.scene->cloths[0].grid_orientation.z(), -1, 1e-15);
}

TEST_F(SceneLoader, NameDefaultsToFileStemAndMaterialsKeepDefault) {
  scene.erase("name");
  scene["materials"]["default"] = {{"friction", 0.25}};
  SceneLoadResult r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.scene->name, "scene");
  EXPECT_EQ(r.scene->world.materials[0].name, "default");
  EXPECT_EQ(r.scene->world.materials[0].friction, 0.25);
  EXPECT_EQ(r.scene->world.materials[0].density, 1000);  // unset fields keep their default
}

// ---- one test per class of bad input ---------------------------------------------------------

TEST_F(SceneLoader, UnknownKeyAtTopLevel) {
  scene["colour"] = "red";
  expect_error("colour", "unknown key \"colour\"");
}

TEST_F(SceneLoader, UnknownKeyInSettings) {
  scene["settings"]["dtt"] = 0.1;
  expect_error("settings.dtt", "unknown key");
}

TEST_F(SceneLoader, UnknownKeyInMaterial) {
  scene["materials"]["rubber"]["desnity"] = 1;
  expect_error("materials.rubber.desnity", "unknown key");
}

TEST_F(SceneLoader, UnknownKeyInBody) {
  scene["bodies"][2]["velocity"] = {0, 0, 0};
  expect_error("bodies[2].velocity", "unknown key");
}

TEST_F(SceneLoader, UnknownKeyInShapeDependsOnType) {
  scene["bodies"][2]["shape"]["radius"] = 0.1;  // fine on a sphere, unknown on a box
  expect_error("bodies[2].shape.radius", "unknown key");
}

TEST_F(SceneLoader, UnknownKeyInArray) {
  scene["arrays"][0]["spacin"] = {1, 1, 1};
  expect_error("arrays[0].spacin", "unknown key");
}

TEST_F(SceneLoader, NameOrPositionInArrayBody) {
  scene["arrays"][0]["body"]["name"] = "x";
  expect_error("arrays[0].body.name", "not allowed in an array's body");
  scene["arrays"][0]["body"].erase("name");
  scene["arrays"][0]["body"]["position"] = {0, 0, 0};
  expect_error("arrays[0].body.position", "not allowed in an array's body");
}

TEST_F(SceneLoader, UnknownKeyInJoint) {
  scene["joints"][0]["axes"] = {1, 0, 0};
  expect_error("joints[0].axes", "unknown key");
}

TEST_F(SceneLoader, LimitsOnlyOnHingeAndSlider) {
  scene["joints"][1]["limits"] = {0, 1};
  expect_error("joints[1].limits", "unknown key");
}

TEST_F(SceneLoader, UnknownKeyInCloth) {
  scene["cloths"][0]["stifness"] = 1;
  expect_error("cloths[0].stifness", "unknown key");
}

TEST_F(SceneLoader, UnknownKeyInClothGridAndAttach) {
  scene["cloths"][0]["grid"]["centre"] = {0, 0, 0};
  expect_error("cloths[0].grid.centre", "unknown key");
  scene["cloths"][0]["grid"].erase("centre");
  scene["cloths"][0]["attach"][0]["bodyy"] = "crate";
  expect_error("cloths[0].attach[0].bodyy", "unknown key");
}

TEST_F(SceneLoader, UnknownKeyInOutput) {
  scene["output"]["each"] = 3;
  expect_error("output.each", "unknown key");
}

TEST_F(SceneLoader, WrongJsonType) {
  scene["bodies"][1]["shape"]["radius"] = "big";
  expect_error("bodies[1].shape.radius", "must be a positive number, got \"big\"");
  scene = base_scene();
  scene["settings"]["ccd"] = 1;
  expect_error("settings.ccd", "must be true or false, got 1");
  scene = base_scene();
  scene["bodies"] = json::object();
  expect_error("bodies", "must be an array");
  scene = base_scene();
  scene["arrays"][0]["count"] = {2, 1.5, 1};
  expect_error("arrays[0].count[1]", "must be a positive integer, got 1.5");
  scene = base_scene();
  scene["bodies"][1]["position"] = {0, 0};
  expect_error("bodies[1].position", "exactly 3 elements");
}

TEST_F(SceneLoader, NonFiniteNumberInFile) {
  // nlohmann cannot hold 1e999: the loader reports it at its path.
  std::string text = scene.dump(2);
  std::string needle = "\"dt\": 0.01";
  ASSERT_NE(text.find(needle), std::string::npos);
  text.replace(text.find(needle), needle.size(), "\"dt\": 1e999");
  expect_error(load_text(text), "settings.dt", "finite");
  text = base_scene().dump();
  needle = "\"position\":[0,0,2]";
  ASSERT_NE(text.find(needle), std::string::npos);
  text.replace(text.find(needle), needle.size(), "\"position\":[0,0,-1e400]");
  expect_error(load_text(text), "bodies[1].position[2]", "finite");
}

TEST_F(SceneLoader, NonFiniteNumberInDocument) {
  scene["bodies"][1]["position"][2] = std::numeric_limits<double>::infinity();
  SceneLoadResult r = load_scene_json(scene, "doc.json", dir_.path());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("doc.json: bodies[1].position[2]: ", 0), 0u) << r.error;
  EXPECT_NE(r.error.find("finite"), std::string::npos) << r.error;
  scene = base_scene();
  scene["settings"]["dt"] = std::nan("");
  r = load_scene_json(scene, "doc.json", dir_.path());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("doc.json: settings.dt: ", 0), 0u) << r.error;
}

TEST_F(SceneLoader, NonPositiveSize) {
  scene["bodies"][1]["shape"]["radius"] = -1;
  expect_error("bodies[1].shape.radius", "must be a positive number, got -1");
  scene = base_scene();
  scene["arrays"][0]["body"]["shape"]["half_extents"][1] = 0;
  expect_error("arrays[0].body.shape.half_extents[1]", "must be a positive number, got 0");
  scene = base_scene();
  scene["bodies"][2]["mass"] = 0;
  expect_error("bodies[2].mass", "positive");
  scene = base_scene();
  scene["cloths"][0]["grid"]["size"][0] = -2;
  expect_error("cloths[0].grid.size[0]", "positive");
  scene = base_scene();
  scene["arrays"][0]["count"][2] = 0;
  expect_error("arrays[0].count[2]", "positive integer, got 0");
}

TEST_F(SceneLoader, NonPositiveDt) {
  scene["settings"]["dt"] = 0;
  expect_error("settings.dt", "must be a positive number, got 0");
  scene["settings"]["dt"] = -0.01;
  expect_error("settings.dt", "got -0.01");
}

TEST_F(SceneLoader, DurationAndStepsBothOrNeither) {
  scene["settings"]["duration"] = 1.0;
  expect_error("settings", "exactly one of \"duration\" or \"steps\"");
  scene["settings"].erase("duration");
  scene["settings"].erase("steps");
  expect_error("settings", "missing \"duration\" or \"steps\"");
  scene["settings"]["duration"] = 0.001;  // less than half a step
  expect_error("settings.duration", "rounds to 0 steps");
}

TEST_F(SceneLoader, OtherRangeChecks) {
  scene["materials"]["rubber"]["friction"] = -0.1;
  expect_error("materials.rubber.friction", "non-negative");
  scene = base_scene();
  scene["materials"]["rubber"]["restitution"] = 1.5;
  expect_error("materials.rubber.restitution", "must be in [0, 1], got 1.5");
  scene = base_scene();
  scene["settings"]["substeps"] = 0;
  expect_error("settings.substeps", "positive integer, got 0");
  scene = base_scene();
  scene["settings"]["threads"] = -1;
  expect_error("settings.threads", "non-negative integer, got -1");
  scene = base_scene();
  scene["settings"]["seed"] = -3;
  expect_error("settings.seed", "non-negative");
  scene = base_scene();
  scene["settings"]["solver"] = "magic";
  expect_error("settings.solver", "unknown solver \"magic\"");
  scene = base_scene();
  scene["arrays"][0]["jitter"] = -0.1;
  expect_error("arrays[0].jitter", "non-negative");
  scene = base_scene();
  scene["output"]["every"] = 0;
  expect_error("output.every", "positive integer");
  scene = base_scene();
  scene["format"] = "impetus-scene/2";
  expect_error("format", "must be \"impetus-scene/1\"");
  scene = base_scene();
  scene["bodies"][1]["motion"] = "floating";
  expect_error("bodies[1].motion", "unknown motion");
  scene = base_scene();
  scene["bodies"][1]["shape"]["type"] = "cube";
  expect_error("bodies[1].shape.type", "unknown shape type \"cube\"");
  scene = base_scene();
  scene["bodies"][1]["shape"].erase("radius");
  expect_error("bodies[1].shape.radius", "missing required key");
}

TEST_F(SceneLoader, ZeroQuaternion) {
  scene["bodies"][1]["orientation"] = {0, 0, 0, 0};
  expect_error("bodies[1].orientation", "non-zero quaternion");
}

TEST_F(SceneLoader, ZeroDirection) {
  scene["bodies"][0]["shape"]["normal"] = {0, 0, 0};
  expect_error("bodies[0].shape.normal", "non-zero");
  scene = base_scene();
  scene["joints"][0]["axis"] = {0, 0, 0};
  expect_error("joints[0].axis", "non-zero");
}

TEST_F(SceneLoader, DuplicateOrReservedBodyName) {
  scene["bodies"][2]["name"] = "ball";
  expect_error("bodies[2].name", "duplicate body name \"ball\"");
  scene = base_scene();
  scene["bodies"][2]["name"] = "pill_1_0_0";  // collides with a generated array name
  expect_error("arrays[0].name", "duplicate body name \"pill_1_0_0\"");
  scene = base_scene();
  scene["bodies"][2]["name"] = "world";
  expect_error("bodies[2].name", "reserved");
}

TEST_F(SceneLoader, DuplicateKeyInFile) {
  std::string text = scene.dump();
  std::string needle = "\"radius\":0.25";
  ASSERT_NE(text.find(needle), std::string::npos);
  text.replace(text.find(needle), needle.size(), "\"radius\":0.25,\"radius\":0.5");
  expect_error(load_text(text), "bodies[1].shape.radius", "duplicate key");
}

TEST_F(SceneLoader, UnknownBodyNameInJoint) {
  scene["joints"][0]["bodies"][1] = "nobody";
  expect_error("joints[0].bodies[1]", "unknown body name \"nobody\"");
  scene = base_scene();
  scene["joints"][0]["bodies"][0] = "world";
  expect_error("joints[0].bodies[0]", "\"world\" is not allowed");
  scene = base_scene();
  scene["cloths"][0]["attach"][0]["body"] = "nobody";
  expect_error("cloths[0].attach[0].body", "unknown body name");
}

TEST_F(SceneLoader, OtherJointErrors) {
  scene["joints"][0].erase("axis");
  expect_error("joints[0].axis", "missing required key");
  scene = base_scene();
  scene["joints"][0]["limits"] = {1, -1};
  expect_error("joints[0].limits", "lower limit 1 exceeds upper limit -1");
  scene = base_scene();
  scene["joints"][0]["bodies"] = {"ball", "ball"};
  expect_error("joints[0].bodies", "two different bodies");
  scene = base_scene();
  scene["joints"][0]["type"] = "weld";
  expect_error("joints[0].type", "unknown joint type");
  scene = base_scene();
  scene["joints"][0]["bodies"] = {"ground", "world"};
  expect_error("joints[0].bodies", "dynamic");
}

TEST_F(SceneLoader, UnknownMaterial) {
  scene["bodies"][1]["material"] = "rubbr";
  expect_error("bodies[1].material", "unknown material \"rubbr\"");
}

TEST_F(SceneLoader, MissingObjFile) {
  scene["bodies"][3]["shape"]["mesh"] = "meshes/missing.obj";
  expect_error("bodies[3].shape.mesh", "OBJ file \"meshes/missing.obj\" not found");
}

TEST_F(SceneLoader, BadObjFileNamesFileAndLine) {
  dir_.write("meshes/bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n");
  scene["bodies"][3]["shape"]["mesh"] = "meshes/bad.obj";
  expect_error("bodies[3].shape.mesh", "bad.obj:4: face index 7 out of range");
}

TEST_F(SceneLoader, MalformedJson) {
  SceneLoadResult r = load_text("{\n  \"format\": \"impetus-scene/1\",\n  \"name\": ,\n}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind(file_ + ": ", 0), 0u) << r.error;
  EXPECT_NE(r.error.find("malformed JSON at line 3, column"), std::string::npos) << r.error;
  r = load_text("");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("malformed JSON at line 1"), std::string::npos) << r.error;
}

TEST_F(SceneLoader, MissingSceneFile) {
  SceneLoadResult r = load_scene_file(dir_.path() + "/none.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("none.json"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("cannot open"), std::string::npos) << r.error;
}

TEST_F(SceneLoader, PlaneNotStatic) {
  scene["bodies"][0].erase("motion");  // defaults to dynamic
  expect_error("bodies[0].motion", "a plane may only be static");
  scene["bodies"][0]["motion"] = "kinematic";
  expect_error("bodies[0].motion", "a plane may only be static");
}

TEST_F(SceneLoader, DynamicMeshMustBeClosed) {
  // Three of the tetrahedron's four faces: an open surface.
  dir_.write("meshes/open.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\n");
  scene["bodies"][3]["shape"]["mesh"] = "meshes/open.obj";
  expect_error("bodies[3].shape", "must be closed");
  scene["bodies"][3]["motion"] = "static";  // a static open mesh is fine
  SceneLoadResult r = load();
  EXPECT_TRUE(r.ok()) << r.error;
}

TEST_F(SceneLoader, InlineMeshIndicesAndDegenerateTriangles) {
  json mesh = json::parse(R"({"type": "mesh", "vertices": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]],
      "triangles": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]})");
  scene["bodies"][3]["shape"] = mesh;
  SceneLoadResult r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.scene->bodies[3].shape.mesh->vertices.size(), 4u);
  scene["bodies"][3]["shape"]["triangles"][2][1] = 4;
  expect_error("bodies[3].shape.triangles[2][1]", "vertex index 4 out of range");
  scene["bodies"][3]["shape"] = mesh;
  scene["bodies"][3]["shape"]["triangles"][1] = {0, 1, 1};
  expect_error("bodies[3].shape.triangles[1]", "degenerate");
  scene["bodies"][3]["shape"] = mesh;
  scene["bodies"][3]["shape"]["mesh"] = "meshes/tetra.obj";
  expect_error("bodies[3].shape", "not both");
}

TEST_F(SceneLoader, ConvexFromPointsAndFromObj) {
  scene["bodies"][2]["shape"] = json::parse(
      R"({"type": "convex", "vertices": [[0,0,0],[1,0,0],[0,1,0],[0,0,1],[0.1,0.1,0.1]]})");
  scene["bodies"][3]["shape"] = {{"type", "convex"}, {"mesh", "meshes/tetra.obj"}};
  SceneLoadResult r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.scene->bodies[2].shape.type, ShapeType::Convex);
  EXPECT_EQ(r.scene->bodies[2].shape.hull->vertices.size(), 4u);  // the interior point is dropped
  EXPECT_EQ(r.scene->bodies[3].shape.hull->vertices.size(), 4u);
  // Coplanar points have no hull.
  scene["bodies"][2]["shape"]["vertices"] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  expect_error("bodies[2].shape.vertices", "convex hull");
  scene["bodies"][2]["shape"]["vertices"] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  expect_error("bodies[2].shape.vertices", "at least 4 points");
}

TEST_F(SceneLoader, PinIndexOutOfRange) {
  scene["cloths"][0]["pin"][1] = 25;  // a 4 x 4 grid has 25 vertices: 0..24
  expect_error("cloths[0].pin[1]", "vertex index 25 out of range (the cloth has 25 vertices)");
  scene = base_scene();
  scene["cloths"][0]["attach"][0]["vertex"] = -1;
  expect_error("cloths[0].attach[0].vertex", "non-negative integer");
}

TEST_F(SceneLoader, ClothGridXorMesh) {
  scene["cloths"][0].erase("grid");
  expect_error("cloths[0]", "exactly one of \"grid\" or \"mesh\"");
  // An OBJ cloth: a unit square of two triangles, 4 vertices.
  dir_.write("meshes/square.obj", "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nf 1 2 3 4\n");
  scene["cloths"][0]["mesh"] = "meshes/square.obj";
  scene["cloths"][0]["pin"] = {0, 3};
  scene["cloths"][0]["attach"] = json::array();
  SceneLoadResult r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.scene->cloths[0].is_grid);
  EXPECT_EQ(r.scene->cloths[0].mesh_vertices.size(), 4u);
  EXPECT_EQ(r.scene->cloths[0].mesh_triangles.size(), 2u);
  scene["cloths"][0]["pin"] = {4};
  expect_error("cloths[0].pin[0]", "the cloth has 4 vertices");
}

TEST_F(SceneLoader, ParseShapeJsonReportsPathWithoutFile) {
  std::string error;
  std::optional<Shape> s = parse_shape_json(json::parse(R"({"type": "capsule", "radius": 0.1,
      "half_length": -2})"), "a.shape", "", &error);
  EXPECT_FALSE(s.has_value());
  EXPECT_EQ(error, "a.shape.half_length: must be a positive number, got -2");
  s = parse_shape_json(json::parse(R"({"type": "ellipsoid", "radii": [1, 2, 3]})"), "a.shape", "",
                       &error);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->radii, Vec3(1, 2, 3));
  s = parse_shape_json(json::parse("[1, 2]"), "b", "", &error);
  EXPECT_FALSE(s.has_value());
  EXPECT_EQ(error.rfind("b: ", 0), 0u) << error;
}

// Extension keys `filter` and `is_sensor` (tools/docs/scene-format.md): 64-bit masks as exact
// integers or hex strings, a signed 32-bit group; defaults where absent.
TEST_F(SceneLoader, FilterAndSensorAreRead) {
  scene["bodies"][1]["filter"] =
      json::parse(R"({"category": 2, "mask": 18446744073709551615, "group": -3})");
  scene["bodies"][3]["filter"] = json::parse(R"({"category": "0x4", "mask": "0xFFFF0000ffff0000"})");
  scene["bodies"][3]["is_sensor"] = true;
  scene["bodies"][2]["is_sensor"] = false;
  scene["arrays"][0]["body"]["filter"] = json::parse(R"({"group": 2147483647, "mask": 9007199254740993})");
  scene["arrays"][0]["body"]["is_sensor"] = true;
  SceneLoadResult r = load();
  ASSERT_TRUE(r.ok()) << r.error;
  const std::vector<BodyDef>& b = r.scene->bodies;
  EXPECT_EQ(b[0].filter, Filter{});  // defaults: category 1, every mask bit, no group
  EXPECT_EQ(b[0].filter.category, 1u);
  EXPECT_EQ(b[0].filter.mask, ~std::uint64_t{0});
  EXPECT_FALSE(b[0].is_sensor);
  EXPECT_EQ(b[1].filter.category, 2u);
  EXPECT_EQ(b[1].filter.mask, 18446744073709551615u);
  EXPECT_EQ(b[1].filter.group, -3);
  EXPECT_FALSE(b[1].is_sensor);
  EXPECT_EQ(b[2].filter, Filter{});
  EXPECT_FALSE(b[2].is_sensor);
  EXPECT_EQ(b[3].filter.category, 4u);
  EXPECT_EQ(b[3].filter.mask, 0xFFFF0000FFFF0000u);
  EXPECT_EQ(b[3].filter.group, 0);
  EXPECT_TRUE(b[3].is_sensor);
  for (int i : {4, 5}) {
    EXPECT_EQ(b[i].filter.category, 1u);
    EXPECT_EQ(b[i].filter.mask, 9007199254740993u);  // 2^53 + 1: no trip through a double
    EXPECT_EQ(b[i].filter.group, 2147483647);
    EXPECT_TRUE(b[i].is_sensor);
  }
}

TEST_F(SceneLoader, FilterAndSensorErrors) {
  const std::string bits = "must be an integer in [0, 2^64 - 1] or a hex string";
  auto bad_filter = [&](const char* filter, const std::string& path, const std::string& problem) {
    scene = base_scene();
    scene["bodies"][1]["filter"] = json::parse(filter);
    expect_error(path, problem);
  };
  bad_filter(R"({"mask": -1})", "bodies[1].filter.mask", "must be a non-negative integer, got -1");
  bad_filter(R"({"category": 1.5})", "bodies[1].filter.category", bits + " \"0x...\", got 1.5");
  bad_filter(R"({"category": 1e3})", "bodies[1].filter.category", bits);
  bad_filter(R"({"mask": 18446744073709551616})", "bodies[1].filter.mask", bits);
  bad_filter(R"({"mask": "12"})", "bodies[1].filter.mask", bits);
  bad_filter(R"({"mask": "0x"})", "bodies[1].filter.mask", bits);
  bad_filter(R"({"mask": "0xG1"})", "bodies[1].filter.mask", bits);
  bad_filter(R"({"mask": "0x10000000000000000"})", "bodies[1].filter.mask", "16 digits");
  bad_filter(R"({"mask": true})", "bodies[1].filter.mask", bits);
  bad_filter(R"({"group": 2147483648})", "bodies[1].filter.group", "must be at most 2147483647");
  bad_filter(R"({"group": -2147483649})", "bodies[1].filter.group", "-2147483649");
  bad_filter(R"({"group": 0.5})", "bodies[1].filter.group", "got 0.5");
  bad_filter(R"({"categories": 1})", "bodies[1].filter.categories", "unknown key");
  bad_filter("3", "bodies[1].filter", "must be an object");
  scene = base_scene();
  scene["bodies"][1]["is_sensor"] = "yes";
  expect_error("bodies[1].is_sensor", "must be true or false, got \"yes\"");
  scene = base_scene();
  scene["arrays"][0]["body"]["filter"] = json::parse(R"({"mask": -2})");
  expect_error("arrays[0].body.filter.mask", "must be a non-negative integer, got -2");
  scene = base_scene();
  scene["arrays"][0]["body"]["is_sensor"] = 1;
  expect_error("arrays[0].body.is_sensor", "must be true or false, got 1");
}

}  // namespace
}  // namespace impetus
