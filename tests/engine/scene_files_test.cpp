// Every scene shipped in scenes/ and every shared benchmark scene loads, with the counts their
// descriptions state; array naming, order and SplitMix64 jitter match an independent
// re-implementation of scene-format.md's formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "engine/scene_loader.h"
#include "tests/engine/temp_dir.h"

namespace impetus {
namespace {

namespace fs = std::filesystem;

struct Expected {
  std::size_t bodies, joints, cloths;
  long long steps;
};

// Counts as the scenes' descriptions and READMEs state them (not read back from the loader).
const std::map<std::string, Expected>& expected_counts() {
  static const std::map<std::string, Expected> table = {
      // /work/shared/scenes (README table): statics + dynamic bodies, duration / dt.
      {"capsule_chain_50", {51, 50, 0, 2000}},
      {"cloth_drape_sphere", {2, 0, 1, 720}},
      {"cloth_hang_64", {1, 0, 1, 480}},
      {"ellipsoids_500", {505, 0, 0, 720}},
      {"newton_cradle", {5, 5, 0, 2000}},
      {"pile_boxes_1k", {1005, 0, 0, 720}},
      {"pile_spheres_1k", {1005, 0, 0, 720}},
      {"ragdolls_20", {1 + 20 * 11, 20 * 10, 0, 960}},
      {"stack_boxes_10", {11, 0, 0, 960}},
      // scenes/ (scenes/README.md).
      {"showcase", {7 + 75 + 3 * 11 + 12 + 2 + 1, 3 * 10 + 12, 1, 960}},
      {"sphere_pile", {5 + 75 + 64, 0, 0, 960}},
      {"box_pile", {5 + 75 + 64, 0, 0, 960}},
      {"box_stack", {6, 0, 0, 720}},
      {"ellipsoids", {5 + 36 + 12, 0, 0, 960}},
      {"mesh_terrain", {2 + 16 + 9, 0, 0, 960}},
      {"ragdolls", {1 + 4 * 11, 4 * 10, 0, 1200}},
  };
  return table;
}

std::vector<std::string> scene_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Structural invariants every loaded scene must satisfy.
void check_invariants(const SceneDef& s, const std::string& file) {
  SCOPED_TRACE(file);
  ASSERT_FALSE(s.world.materials.empty());
  EXPECT_EQ(s.world.materials[0].name, "default");
  EXPECT_GT(s.steps, 0);
  EXPECT_GT(s.world.dt, 0);
  std::set<std::string> names;
  for (const BodyDef& b : s.bodies) {
    EXPECT_TRUE(names.insert(b.name).second) << "duplicate " << b.name;
    EXPECT_NEAR(b.orientation.norm(), 1.0, 1e-14) << b.name;
    EXPECT_GE(b.material, 0);
    EXPECT_LT(b.material, static_cast<int>(s.world.materials.size()));
    if (b.shape.type == ShapeType::Plane) {
      EXPECT_EQ(b.motion, MotionType::Static) << b.name;
    }
    if (b.shape.type == ShapeType::Convex) {
      ASSERT_TRUE(b.shape.hull) << b.name;
    }
    if (b.shape.type == ShapeType::Mesh) {
      ASSERT_TRUE(b.shape.mesh) << b.name;
    }
  }
  const int n = static_cast<int>(s.bodies.size());
  for (const SceneJointDef& j : s.joints) {
    EXPECT_GE(j.body_a, 0);
    EXPECT_LT(j.body_a, n);
    EXPECT_GE(j.body_b, -1);
    EXPECT_LT(j.body_b, n);
    EXPECT_NEAR(j.axis.norm(), 1.0, 1e-14);
  }
}

void load_all_in(const std::string& dir, std::set<std::string>& seen) {
  std::vector<std::string> files = scene_files(dir);
  ASSERT_FALSE(files.empty()) << dir;
  for (const std::string& file : files) {
    SceneLoadResult r = load_scene_file(file);
    ASSERT_TRUE(r.ok()) << r.error;
    check_invariants(*r.scene, file);
    seen.insert(r.scene->name);
    EXPECT_EQ(r.scene->name, fs::path(file).stem().string()) << "name should match the file";
    auto it = expected_counts().find(r.scene->name);
    if (it == expected_counts().end()) continue;  // a scene added later: invariants only
    SCOPED_TRACE(file);
    EXPECT_EQ(r.scene->bodies.size(), it->second.bodies);
    EXPECT_EQ(r.scene->joints.size(), it->second.joints);
    EXPECT_EQ(r.scene->cloths.size(), it->second.cloths);
    EXPECT_EQ(r.scene->steps, it->second.steps);
  }
}

TEST(SceneFiles, SharedBenchmarkScenesLoad) {
  std::set<std::string> seen;
  load_all_in(std::string(IMPETUS_BENCH_SCENES_DIR), seen);
  for (const char* name : {"pile_spheres_1k", "pile_boxes_1k", "stack_boxes_10",
                           "capsule_chain_50", "ragdolls_20", "ellipsoids_500", "newton_cradle",
                           "cloth_hang_64", "cloth_drape_sphere"}) {
    EXPECT_TRUE(seen.count(name)) << name;
  }
}

TEST(SceneFiles, RepositoryScenesLoad) {
  std::set<std::string> seen;
  load_all_in(std::string(IMPETUS_SOURCE_DIR) + "/scenes", seen);
  for (const char* name : {"showcase", "sphere_pile", "box_pile", "box_stack", "ellipsoids",
                           "mesh_terrain", "ragdolls"}) {
    EXPECT_TRUE(seen.count(name)) << name;
  }
}

TEST(SceneFiles, SharedSceneDetails) {
  const std::string dir = std::string(IMPETUS_BENCH_SCENES_DIR) + "/";
  SceneLoadResult cradle = load_scene_file(dir + "newton_cradle.json");
  ASSERT_TRUE(cradle.ok()) << cradle.error;
  // Only "steel" is defined: the engine supplies "default" in front of it.
  ASSERT_EQ(cradle.scene->world.materials.size(), 2u);
  EXPECT_EQ(cradle.scene->world.materials[1].name, "steel");
  EXPECT_EQ(cradle.scene->world.materials[1].restitution, 1.0);
  EXPECT_EQ(cradle.scene->bodies[2].material, 1);
  EXPECT_EQ(cradle.scene->joints[2].body_b, -1);
  EXPECT_EQ(cradle.scene->joints[2].anchor, Vec3(0, 0, 2));

  SceneLoadResult hang = load_scene_file(dir + "cloth_hang_64.json");
  ASSERT_TRUE(hang.ok()) << hang.error;
  ASSERT_EQ(hang.scene->world.materials.size(), 1u);
  const SceneClothDef& c = hang.scene->cloths[0];
  EXPECT_EQ(c.name, "sheet");
  EXPECT_TRUE(c.is_grid);
  EXPECT_EQ(c.grid_resolution, (std::array<int, 2>{64, 64}));
  EXPECT_EQ(c.grid_center, Vec3(0, 0, 3));
  EXPECT_EQ(c.pin, (std::vector<int>{0, 64}));
  EXPECT_EQ(c.stretch_stiffness, 5000);
  EXPECT_EQ(c.bend_stiffness, 0.001);

  SceneLoadResult rag = load_scene_file(dir + "ragdolls_20.json");
  ASSERT_TRUE(rag.ok()) << rag.error;
  int hinges = 0;
  for (const SceneJointDef& j : rag.scene->joints) {
    if (j.type != JointType::Hinge) continue;
    ++hinges;
    ASSERT_TRUE(j.limits.has_value());
    EXPECT_LE((*j.limits)[0], (*j.limits)[1]);
  }
  EXPECT_EQ(hinges, 20 * 4);  // elbows and knees

  SceneLoadResult boxes = load_scene_file(dir + "pile_boxes_1k.json");
  ASSERT_TRUE(boxes.ok()) << boxes.error;
  const Quat& q = boxes.scene->bodies[5].orientation;  // the array's tilt, normalised
  EXPECT_NEAR(q.norm(), 1, 1e-15);
  EXPECT_NEAR(q.w(), 0.984726539, 1e-8);
  EXPECT_NEAR(q.x(), 0.123113045, 1e-8);
}

// ---- arrays: naming, order and jitter ---------------------------------------------------------

// scene-format.md's generator, written out independently of the loader.
class ReferenceSplitMix {
 public:
  explicit ReferenceSplitMix(std::uint64_t seed) : s_(seed) {}
  double next_unit() {
    s_ = s_ + 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = s_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z = z ^ (z >> 31);
    return static_cast<double>(z >> 11) / 9007199254740992.0;  // 2^53
  }

 private:
  std::uint64_t s_;
};

TEST(SceneFiles, PileSpheresArrayMatchesReferenceJitter) {
  SceneLoadResult r =
      load_scene_file(std::string(IMPETUS_BENCH_SCENES_DIR) + "/pile_spheres_1k.json");
  ASSERT_TRUE(r.ok()) << r.error;
  const std::vector<BodyDef>& bodies = r.scene->bodies;
  ASSERT_EQ(bodies.size(), 1005u);
  // From the file: seed 1, count 10^3, spacing 0.22, origin (-0.99, -0.99, 0.3), jitter 0.01.
  ReferenceSplitMix rng(1);
  const double origin[3] = {-0.99, -0.99, 0.3};
  std::size_t b = 5;  // after the 5 bin bodies
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) {
      for (int k = 0; k < 10; ++k, ++b) {
        const std::string name =
            "ball_" + std::to_string(i) + "_" + std::to_string(j) + "_" + std::to_string(k);
        ASSERT_EQ(bodies[b].name, name);
        const int idx[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) {
          double offset = (2.0 * rng.next_unit() - 1.0) * 0.01;
          double expected = origin[a] + idx[a] * 0.22 + offset;
          ASSERT_EQ(bodies[b].position[a], expected) << name << " axis " << a;
          ASSERT_LE(std::abs(offset), 0.01);
        }
        ASSERT_EQ(bodies[b].shape.type, ShapeType::Sphere);
        ASSERT_EQ(bodies[b].shape.radius, 0.1);
      }
    }
  }
  // The first body by hand: SplitMix64(1) first output 0x910a2dec89025cc1 (Vigna's reference).
  double u0 = static_cast<double>(0x910a2dec89025cc1ULL >> 11) / 9007199254740992.0;
  EXPECT_EQ(bodies[5].position.x(), -0.99 + 0 * 0.22 + (2 * u0 - 1) * 0.01);
}

TEST(SceneFiles, ArraysShareOneGeneratorInFileOrder) {
  testing::TempDir dir;
  const std::string file = dir.write("arrays.json", R"({
    "format": "impetus-scene/1",
    "settings": {"dt": 0.01, "steps": 1, "seed": 42},
    "bodies": [{"name": "floor", "motion": "static",
                "shape": {"type": "plane", "normal": [0, 0, 1]}}],
    "arrays": [
      {"name": "a", "count": [2, 1, 3], "spacing": [1, 2, 3],
       "body": {"shape": {"type": "sphere", "radius": 0.1}, "motion": "kinematic"}},
      {"name": "b", "count": [1, 2, 1], "spacing": [0.5, 0.5, 0.5], "origin": [10, 20, 30],
       "jitter": 0.25, "body": {"shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}}}
    ]
  })");
  SceneLoadResult r = load_scene_file(file);
  ASSERT_TRUE(r.ok()) << r.error;
  const std::vector<BodyDef>& bodies = r.scene->bodies;
  ASSERT_EQ(bodies.size(), 1u + 6u + 2u);
  // k fastest, then j, then i.
  const char* names_a[] = {"a_0_0_0", "a_0_0_1", "a_0_0_2", "a_1_0_0", "a_1_0_1", "a_1_0_2"};
  for (int n = 0; n < 6; ++n) {
    EXPECT_EQ(bodies[1 + n].name, names_a[n]);
    EXPECT_EQ(bodies[1 + n].motion, MotionType::Kinematic);
  }
  EXPECT_EQ(bodies[1 + 5].position, Vec3(1, 0, 6));  // jitter 0: exact lattice point
  EXPECT_EQ(bodies[7].name, "b_0_0_0");
  EXPECT_EQ(bodies[8].name, "b_0_1_0");
  // Array a drew 3 values per body although its jitter is 0: b starts at draw 18.
  ReferenceSplitMix rng(42);
  for (int n = 0; n < 18; ++n) rng.next_unit();
  for (int body = 0; body < 2; ++body) {
    const double lattice[3] = {10, 20 + body * 0.5, 30};
    for (int a = 0; a < 3; ++a) {
      double offset = (2.0 * rng.next_unit() - 1.0) * 0.25;
      EXPECT_EQ(bodies[7 + body].position[a], lattice[a] + offset) << body << " " << a;
    }
  }
}

}  // namespace
}  // namespace impetus
