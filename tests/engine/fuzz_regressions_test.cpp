// Replays, in every normal build, the inputs the fuzz targets (tests/fuzz) were seeded with and
// every input with which they found a bug (tests/fuzz/regressions/<target>/), through the same
// code the targets drive: each must be accepted or rejected with one "FILE: ..." message as the
// table below says, never crash (the sanitizer build catches memory errors too).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/obj_loader.h"
#include "engine/scene_loader.h"
#include "engine/scene_runner.h"
#include "tests/fuzz/fuzz_inputs.h"

namespace impetus {
namespace {

namespace fs = std::filesystem;

using test::files_in;
const fs::path kFuzzDir = test::fuzz_dir();

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Loads `text` as fuzz_scene does and, when it loads, runs 5 steps on one thread. Returns the
// error ("" when the scene loaded and ran, or diverged).
std::string load_and_step(const std::string& text, const std::string& name) {
  const std::string scenes_dir = (fs::path(IMPETUS_SOURCE_DIR) / "scenes").string();
  SceneLoadResult loaded = load_scene_text(text, name, scenes_dir);
  if (!loaded.ok()) return loaded.error;
  RunOptions options;
  options.scene_file = name;
  options.steps = 5;
  options.threads = 1;
  RunOutcome outcome = run_scene(*loaded.scene, options);
  EXPECT_TRUE(outcome.exit_code == 0 || outcome.exit_code == 2 || outcome.exit_code == 3)
      << name << ": exit " << outcome.exit_code;
  return outcome.exit_code == 2 ? outcome.error : "";
}

// What each committed scene finding must give: "" = loads and steps; otherwise a substring of
// the one-line error.
const std::map<std::string, std::string> kSceneFindings = {
    // Issue 14's nested `bodies` (1,000 levels here; the 100,000 took 25-30 s and
    // O(depth^2) memory): refused at level 65.
    {"deep_bodies_1000.json", "nested deeper than 64 levels (the limit)"},
};

// The same for OBJ findings.
const std::map<std::string, std::string> kObjFindings = {
};

TEST(FuzzRegressions, SceneSeedsLoadAndStep) {
  // fuzz_scene's seeds are the repo's scenes (every .json of scenes/ and scenes/bench/).
  std::vector<fs::path> seeds;
  for (const char* dir : {"scenes", "scenes/bench"}) {
    for (const fs::path& file : files_in(fs::path(IMPETUS_SOURCE_DIR) / dir)) {
      if (file.extension() == ".json") seeds.push_back(file);
    }
  }
  ASSERT_GE(seeds.size(), 20u);
  for (const fs::path& seed : seeds) {
    EXPECT_EQ(load_and_step(read_file(seed), seed.filename().string()), "") << seed;
  }
}

TEST(FuzzRegressions, SceneFindingsGiveTheirExpectedOutcome) {
  const std::vector<fs::path> findings = files_in(kFuzzDir / "regressions" / "scene");
  EXPECT_EQ(findings.size(), kSceneFindings.size()) << "every finding needs its expectation";
  for (const fs::path& finding : findings) {
    const std::string name = finding.filename().string();
    auto expected = kSceneFindings.find(name);
    ASSERT_NE(expected, kSceneFindings.end()) << name << " has no expectation";
    const std::string error = load_and_step(read_file(finding), name);
    if (expected->second.empty()) {
      EXPECT_EQ(error, "") << name;
    } else {
      EXPECT_EQ(error.rfind(name + ": ", 0), 0u) << error;
      EXPECT_NE(error.find(expected->second), std::string::npos) << error;
      EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
  }
}

TEST(FuzzRegressions, ObjSeedsAndFindingsGiveTheirExpectedOutcome) {
  std::vector<fs::path> seeds = files_in(kFuzzDir / "corpus" / "obj");
  for (const fs::path& mesh : files_in(fs::path(IMPETUS_SOURCE_DIR) / "scenes" / "meshes")) {
    seeds.push_back(mesh);
  }
  ASSERT_GE(seeds.size(), 4u);
  for (const fs::path& seed : seeds) {
    std::istringstream in(read_file(seed));
    EXPECT_TRUE(parse_obj(in, seed.filename().string()).ok()) << seed;
  }
  const std::vector<fs::path> findings = files_in(kFuzzDir / "regressions" / "obj");
  EXPECT_EQ(findings.size(), kObjFindings.size()) << "every finding needs its expectation";
  for (const fs::path& finding : findings) {
    const std::string name = finding.filename().string();
    auto expected = kObjFindings.find(name);
    ASSERT_NE(expected, kObjFindings.end()) << name << " has no expectation";
    std::istringstream in(read_file(finding));
    ObjLoadResult r = parse_obj(in, name);
    if (expected->second.empty()) {
      EXPECT_TRUE(r.ok()) << r.error;
    } else {
      EXPECT_NE(r.error.find(expected->second), std::string::npos) << r.error;
    }
  }
}

}  // namespace
}  // namespace impetus
