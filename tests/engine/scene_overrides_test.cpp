// engine/scene_overrides.h: overrides are JSON merge patches on the scene document, checked by
// the loader afterwards like values written in the file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/scene_loader.h"
#include "engine/scene_loader_json.h"
#include "engine/scene_overrides.h"

namespace impetus {
namespace {

using nlohmann::json;

json small_scene() {
  return json::parse(R"({
    "format": "impetus-scene/1",
    "settings": {"dt": 0.01, "duration": 1.0},
    "materials": {"rubber": {"density": 1100, "friction": 0.9}},
    "bodies": [
      {"name": "ball", "shape": {"type": "sphere", "radius": 0.25}, "material": "rubber"},
      {"name": "crate", "shape": {"type": "box", "half_extents": [0.2, 0.2, 0.2]}, "position": [1, 0, 1]}
    ],
    "arrays": [{"name": "row", "count": [3, 1, 1], "spacing": [1, 1, 1],
                "body": {"shape": {"type": "sphere", "radius": 0.1}}}]
  })");
}

SceneDef load(const json& doc) {
  SceneLoadResult r = load_scene_json(doc, "scene.json", ".");
  EXPECT_TRUE(r.ok()) << r.error;
  return r.ok() ? *r.scene : SceneDef{};
}

TEST(SceneOverrides, MergeIntoSettingsMaterialsBodiesAndArrays) {
  json doc = small_scene();
  const json overrides = json::parse(R"({
    "settings": {"steps": 7, "gravity": [0, 0, -1]},
    "materials": {"default": {"friction": 0.1}, "rubber": {"restitution": 0.5}},
    "bodies": {"crate": {"position": [4, 5, 6], "mass": 2}},
    "arrays": {"row": {"count": [2, 2, 1], "body": {"shape": {"radius": 0.3}}}}
  })");
  std::string error;
  ASSERT_TRUE(check_scene_overrides(overrides, "o", &error)) << error;
  ASSERT_TRUE(apply_scene_overrides(&doc, overrides, "o", &error)) << error;
  EXPECT_FALSE(doc["settings"].contains("duration"));  // steps replaces the scene's duration
  const SceneDef scene = load(doc);
  EXPECT_EQ(scene.steps, 7);
  EXPECT_EQ(scene.world.gravity.z(), -1);
  EXPECT_EQ(scene.world.dt, 0.01);  // untouched values stay
  EXPECT_EQ(scene.world.materials[0].friction, 0.1);  // "default" created: it was not in the file
  ASSERT_EQ(scene.world.materials.size(), 2u);
  EXPECT_EQ(scene.world.materials[1].restitution, 0.5);
  EXPECT_EQ(scene.world.materials[1].friction, 0.9);  // merged, not replaced
  ASSERT_EQ(scene.bodies.size(), 2u + 4u);
  EXPECT_EQ(scene.bodies[1].position, Vec3(4, 5, 6));
  ASSERT_TRUE(scene.bodies[1].mass.has_value());
  EXPECT_EQ(*scene.bodies[1].mass, 2);
  EXPECT_EQ(scene.bodies[0].position, Vec3::Zero());
  EXPECT_EQ(scene.bodies[5].name, "row_1_1_0");
  EXPECT_EQ(scene.bodies[5].shape.radius, 0.3);
}

TEST(SceneOverrides, DurationReplacesStepsAndNullRemovesAKey) {
  json doc = small_scene();
  doc["settings"].erase("duration");
  doc["settings"]["steps"] = 3;
  std::string error;
  ASSERT_TRUE(apply_scene_overrides(&doc, json::parse(R"({"settings": {"duration": 0.5}})"), "o", &error));
  EXPECT_EQ(load(doc).steps, 50);
  ASSERT_TRUE(apply_scene_overrides(
      &doc, json::parse(R"({"bodies": {"crate": {"position": null}}})"), "o", &error));
  EXPECT_EQ(load(doc).bodies[1].position, Vec3::Zero());
}

TEST(SceneOverrides, NamesTheSceneLacksAreErrorsWithTheirPath) {
  std::string error;
  json doc = small_scene();
  EXPECT_FALSE(apply_scene_overrides(&doc, json::parse(R"({"bodies": {"row_0_0_0": {"mass": 1}}})"),
                                     "runs[1].overrides", &error));
  EXPECT_EQ(error.rfind("runs[1].overrides.bodies.row_0_0_0: no body named", 0), 0u) << error;
  EXPECT_FALSE(apply_scene_overrides(&doc, json::parse(R"({"materials": {"steel": {"density": 1}}})"),
                                     "o", &error));
  EXPECT_EQ(error.rfind("o.materials.steel: no material named", 0), 0u) << error;
  EXPECT_FALSE(apply_scene_overrides(&doc, json::parse(R"({"arrays": {"rows": {"jitter": 1}}})"),
                                     "o", &error));
  EXPECT_EQ(error.rfind("o.arrays.rows: no array named", 0), 0u) << error;
  EXPECT_EQ(doc, small_scene());  // nothing merged: each override held only the failing name
}

TEST(SceneOverrides, ShapeOfTheOverridesIsChecked) {
  std::string error;
  EXPECT_FALSE(check_scene_overrides(json::parse(R"({"joints": {}})"), "o", &error));
  EXPECT_EQ(error.rfind("o.joints: unknown key", 0), 0u) << error;
  EXPECT_FALSE(check_scene_overrides(json::parse(R"({"settings": 3})"), "o", &error));
  EXPECT_EQ(error.rfind("o.settings: must be an object", 0), 0u) << error;
  EXPECT_FALSE(check_scene_overrides(json::parse(R"({"bodies": {"ball": 1}})"), "o", &error));
  EXPECT_EQ(error.rfind("o.bodies.ball: must be an object", 0), 0u) << error;
  EXPECT_TRUE(check_scene_overrides(json::object(), "o", &error));
}

TEST(SceneOverrides, OverriddenValuesAreValidatedByTheLoader) {
  json doc = small_scene();
  std::string error;
  ASSERT_TRUE(apply_scene_overrides(&doc, json::parse(R"({"bodies": {"ball": {"shape": {"radius": -1}}}})"),
                                    "o", &error));
  SceneLoadResult r = load_scene_json(doc, "scene.json", ".");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("scene.json: bodies[0].shape.radius: must be a positive number, got -1", 0), 0u)
      << r.error;
}

}  // namespace
}  // namespace impetus
