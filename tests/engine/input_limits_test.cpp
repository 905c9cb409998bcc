// The input limits of engine/input_limits.h (scene-format.md "Limits"): each one rejects its
// input with "FILE: JSON.PATH: problem" before the memory it bounds is allocated, and the
// value just inside each limit is still accepted.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/input_limits.h"
#include "engine/json_text.h"
#include "engine/obj_loader.h"
#include "engine/scene_loader.h"
#include "tests/engine/temp_dir.h"

namespace impetus {
namespace {

using nlohmann::json;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

json small_scene() {
  return json::parse(R"({
    "format": "impetus-scene/1",
    "settings": {"dt": 0.01, "steps": 10},
    "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.5}}]
  })");
}

SceneLoadResult load(const json& scene) { return load_scene_text(scene.dump(), "s.json", ""); }

// `depth` nested arrays: "[[[...]]]".
std::string nested_arrays(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(InputLimits, TheHundredThousandDeepBodiesFileIsRejectedAtDepth64WithItsPath) {
  // The file of the issue: `bodies` nested 100,000 arrays deep (200 KB).
  const std::string text =
      R"({"format": "impetus-scene/1", "settings": {"dt": 0.01, "steps": 1}, "bodies": )" +
      nested_arrays(100000) + "}";
  SceneLoadResult r = load_scene_text(text, "deep.json", "");
  ASSERT_FALSE(r.ok());
  // The document is level 1 and `bodies` level 2, so the 64th level is bodies[0]...[0] with 62
  // indices, and the container that would be level 65 is the one named.
  std::string path = "bodies";
  for (int i = 0; i < 63; ++i) path += "[0]";
  EXPECT_EQ(r.error, "deep.json: " + path + ": arrays and objects nested deeper than 64 levels "
                                            "(the limit)");
}

TEST(InputLimits, DepthSixtyFourIsTheLastAcceptedLevel) {
  std::string error;
  EXPECT_TRUE(parse_json_text(nested_arrays(limits::kMaxJsonDepth), &error).has_value()) << error;
  EXPECT_FALSE(parse_json_text(nested_arrays(limits::kMaxJsonDepth + 1), &error).has_value());
  EXPECT_CONTAINS(error, "nested deeper than 64 levels");
  // Objects count as levels too.
  std::string objects;
  for (int i = 0; i <= limits::kMaxJsonDepth; ++i) objects += R"({"k":)";
  objects += '1';
  objects.append(limits::kMaxJsonDepth + 1, '}');
  EXPECT_FALSE(parse_json_text(objects, &error).has_value());
  EXPECT_CONTAINS(error, "k.k.k");
}

TEST(InputLimits, StringsAndKeysLongerThanTheLimitAreRejectedWithTheirPath) {
  json scene = small_scene();
  scene["description"] = std::string(limits::kMaxJsonStringBytes, 'd');
  EXPECT_TRUE(load(scene).ok()) << load(scene).error;
  scene["description"] = std::string(limits::kMaxJsonStringBytes + 1, 'd');
  EXPECT_EQ(load(scene).error, "s.json: description: string longer than 4096 bytes (the limit)");

  scene = small_scene();
  scene["materials"] = {{std::string(limits::kMaxJsonStringBytes + 1, 'm'), json::object()}};
  SceneLoadResult r = load(scene);
  ASSERT_FALSE(r.ok());
  EXPECT_CONTAINS(r.error, "s.json: materials.mmmmm");
  EXPECT_CONTAINS(r.error, "key longer than 4096 bytes (the limit)");
}

TEST(InputLimits, NamesLongerThan256BytesAreRejected) {
  json scene = small_scene();
  scene["bodies"][0]["name"] = std::string(limits::kMaxNameBytes, 'n');
  EXPECT_TRUE(load(scene).ok());
  scene["bodies"][0]["name"] = std::string(limits::kMaxNameBytes + 1, 'n');
  EXPECT_EQ(load(scene).error,
            "s.json: bodies[0].name: name of 257 bytes is longer than 256 bytes (the limit)");
}

TEST(InputLimits, AnArrayAskingForABillionBodiesIsRejectedBeforeAnyBodyIsMade) {
  json scene = small_scene();
  scene["arrays"] = json::parse(R"([{"name": "b", "count": [1000000000, 1, 1],
      "spacing": [1, 1, 1], "body": {"shape": {"type": "sphere", "radius": 0.1}}}])");
  EXPECT_EQ(load(scene).error, "s.json: arrays[0].count[0]: must be at most 1000000, got 1000000000");
  // Each factor allowed, the product not: 10^9 bodies.
  scene["arrays"][0]["count"] = {1000, 1000, 1000};
  EXPECT_EQ(load(scene).error,
            "s.json: arrays[0].count: the scene would have more than 1000000 bodies (the limit)");
  // 10^6 from the array plus the one in `bodies` is one too many.
  scene["arrays"][0]["count"] = {1000, 1000, 1};
  EXPECT_EQ(load(scene).error,
            "s.json: arrays[0].count: the scene would have more than 1000000 bodies (the limit)");
}

TEST(InputLimits, ClothGridsAreBoundedPerSideAndInTotal) {
  json scene = small_scene();
  scene["cloths"] = json::parse(R"([{"name": "c", "grid": {"size": [1, 1],
      "resolution": [1001, 1]}}])");
  EXPECT_EQ(load(scene).error, "s.json: cloths[0].grid.resolution[0]: must be at most 1000, got 1001");
  // 1001 × 999 = 999,999 vertices fit; a second cloth of 4 more does not.
  scene["cloths"][0]["grid"]["resolution"] = {1000, 998};
  EXPECT_TRUE(load(scene).ok()) << load(scene).error;
  scene["cloths"].push_back(json::parse(R"({"name": "d", "grid": {"size": [1, 1],
      "resolution": [1, 1]}})"));
  EXPECT_EQ(load(scene).error, "s.json: cloths[1]: the scene's cloths would have more than "
                               "1000000 vertices in all (the limit)");
}

TEST(InputLimits, SettingsThatMultiplyTheWorkOfAStepAreBounded) {
  for (const auto& [key, limit] : {std::pair<const char*, long long>{"substeps", limits::kMaxSubsteps},
                                   {"solver_iterations", limits::kMaxSolverIterations},
                                   {"threads", limits::kMaxThreads}}) {
    json scene = small_scene();
    scene["settings"][key] = limit;
    EXPECT_TRUE(load(scene).ok()) << key;
    scene["settings"][key] = limit + 1;
    EXPECT_EQ(load(scene).error, "s.json: settings." + std::string(key) + ": must be at most " +
                                     std::to_string(limit) + ", got " + std::to_string(limit + 1));
  }
}

TEST(InputLimits, FilesOverTheSizeLimitAreRefusedBeforeBeingRead) {
  testing::TempDir dir;
  // Sparse files: the size is there, the bytes are never written (nor read).
  const std::string scene = dir.write("big.json", "");
  std::filesystem::resize_file(scene, limits::kMaxJsonBytes + 1);
  EXPECT_EQ(load_scene_file(scene).error,
            scene + ": document of 16777217 bytes is larger than 16777216 bytes (the limit)");
  const std::string obj = dir.write("big.obj", "");
  std::filesystem::resize_file(obj, limits::kMaxObjBytes + 1);
  EXPECT_EQ(load_obj_file(obj).error,
            obj + ": file of 134217729 bytes is larger than 134217728 bytes (the limit)");
  // The same through parse_json_text (stdin has no size to ask for).
  std::string error;
  EXPECT_FALSE(parse_json_text(std::string(limits::kMaxJsonBytes + 1, ' '), &error));
  EXPECT_EQ(error, "document of 16777217 bytes is larger than 16777216 bytes (the limit)");
}

TEST(InputLimits, ObjFacesFanningIntoTooManyTrianglesStopAtTheirLine) {
  // One polygon of 2,000,003 corners fans into 2,000,001 triangles: rejected on its line
  // before any of them is stored.
  std::string text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf";
  text.reserve(text.size() + 2 * (limits::kMaxObjTriangles + 3));
  for (std::size_t i = 0; i < limits::kMaxObjTriangles + 3; ++i) text += " 1";
  text += "\n";
  std::istringstream in(text);
  EXPECT_EQ(parse_obj(in, "m.obj").error, "m.obj:4: more than 2000000 triangles (the limit)");
}

TEST(InputLimits, ObjVertexCountIsBounded) {
  std::string text;
  text.reserve(8 * (limits::kMaxObjVertices + 1));
  for (std::size_t i = 0; i <= limits::kMaxObjVertices; ++i) text += "v 0 0 0\n";
  std::istringstream in(text);
  EXPECT_EQ(parse_obj(in, "m.obj").error, "m.obj:1000001: more than 1000000 vertices (the limit)");
}

}  // namespace
}  // namespace impetus
