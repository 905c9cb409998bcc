// The `settings.sleep` scene key (an extension of scene-format.md) and the sleeping statistics
// of summary.json: the key reaches WorldDef::sleep, a non-boolean is rejected with its JSON
// path, and a run writes bodies_asleep / sleeping_body_steps that match the world's own count.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/scene_loader.h"
#include "engine/scene_runner.h"
#include "tests/engine/temp_dir.h"

namespace impetus {
namespace {

// One box resting on a plane for `steps` steps of 1/240 s.
std::string box_scene(const std::string& sleep_setting, int steps) {
  return R"({"format": "impetus-scene/1",
    "settings": {"dt": 0.004166666666666667, "steps": )" + std::to_string(steps) + sleep_setting + R"(},
    "bodies": [
      {"name": "ground", "motion": "static", "shape": {"type": "plane", "normal": [0, 0, 1]}},
      {"name": "box", "shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]},
       "position": [0, 0, 0.1]}]})";
}

TEST(SleepSetting, DefaultsOnAndTheKeyTurnsItOff) {
  testing::TempDir dir;
  SceneLoadResult on = load_scene_file(dir.write("on.json", box_scene("", 1)));
  ASSERT_TRUE(on.ok()) << on.error;
  EXPECT_TRUE(on.scene->world.sleep);
  SceneLoadResult off = load_scene_file(dir.write("off.json", box_scene(R"(, "sleep": false)", 1)));
  ASSERT_TRUE(off.ok()) << off.error;
  EXPECT_FALSE(off.scene->world.sleep);
}

TEST(SleepSetting, NonBooleanIsRejectedWithItsPath) {
  testing::TempDir dir;
  const std::string file = dir.write("bad.json", box_scene(R"(, "sleep": 1)", 1));
  SceneLoadResult r = load_scene_file(file);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("settings.sleep"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(file), std::string::npos) << r.error;
}

// A resting box sleeps after sleep_delay = 0.5 s = 120 steps and stays asleep: over 240 steps
// it is asleep for between 240 − 130 and 240 − 120 of them (the summary's count), and with the
// key off for none.
TEST(SleepSetting, SummaryCountsSleepingBodies) {
  for (bool sleep : {true, false}) {
    testing::TempDir dir;
    SceneLoadResult r = load_scene_file(
        dir.write("s.json", box_scene(sleep ? "" : R"(, "sleep": false)", 240)));
    ASSERT_TRUE(r.ok()) << r.error;
    RunOptions options;
    options.out_dir = dir.path() + "/out";
    options.threads = 1;
    RunOutcome outcome = run_scene(*r.scene, options);
    ASSERT_EQ(outcome.exit_code, 0) << outcome.error;
    std::ifstream in(options.out_dir + "/summary.json");
    nlohmann::json summary = nlohmann::json::parse(in);
    const nlohmann::json& stats = summary.at("stats");
    if (sleep) {
      EXPECT_EQ(stats.at("bodies_asleep").get<int>(), 1);
      EXPECT_GE(stats.at("sleeping_body_steps").get<long long>(), 240 - 130);
      EXPECT_LE(stats.at("sleeping_body_steps").get<long long>(), 240 - 120);
      // Asleep means exactly at rest.
      for (double v : summary.at("bodies").at("box").at("linear_velocity")) EXPECT_EQ(v, 0.0);
    } else {
      EXPECT_EQ(stats.at("bodies_asleep").get<int>(), 0);
      EXPECT_EQ(stats.at("sleeping_body_steps").get<long long>(), 0);
    }
  }
}

}  // namespace
}  // namespace impetus
