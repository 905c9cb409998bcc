// The batch-manifest fuzz target's inputs (tests/fuzz/fuzz_batch.cpp), replayed in every build
// through the same parser: each seed is a valid manifest whose runs' scenes load with their
// overrides, and each finding (tests/fuzz/regressions/batch/) is refused with one message that
// names the file, or accepted, as its expectation says.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "engine/scene_overrides.h"
#include "tests/fuzz/fuzz_inputs.h"
#include "tools/cli/batch_manifest.h"

namespace impetus::test {
namespace {

namespace fs = std::filesystem;

const std::string kFile = std::string(IMPETUS_SOURCE_DIR) + "/scenes/goldens/fuzz.batch.json";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(BatchManifestFuzzInputs, SeedsAreValidAndTheirScenesLoadWithTheirOverrides) {
  const std::vector<fs::path> seeds = files_in(fuzz_dir() / "corpus" / "batch");
  ASSERT_GE(seeds.size(), 2u);
  for (const fs::path& seed : seeds) {
    std::string error;
    const auto manifest = cli::parse_batch_manifest(read_text(seed), kFile, &error);
    ASSERT_TRUE(manifest) << seed << ": " << error;
    EXPECT_GE(manifest->runs.size(), 2u) << seed;
    for (const cli::BatchRun& run : manifest->runs) {
      const SceneLoadResult scene = load_scene_file(run.scene_path, run.overrides, run.overrides_path);
      EXPECT_TRUE(scene.ok()) << seed << ": run " << run.id << ": " << scene.error;
    }
  }
}

TEST(BatchManifestFuzzInputs, MalformedManifestsAreRefusedWithTheFileAndPath) {
  // Hand-made neighbours of the seeds, each with the message it must give.
  const std::map<std::string, std::string> cases = {
      {"{", "malformed JSON"},
      {R"({"format": "impetus-batch/1", "runs": [{"id": "a", "scene": "../box_stack.json",
           "overrides": {"bodies": {"box_4": {"linear_velocity": [1, 0]}}}}]})",
       ""},  // validated when the run loads its scene, not here
      {R"({"format": "impetus-batch/1", "runs": [{"id": "../up", "scene": "../box_stack.json"}]})",
       "runs[0].id"},
      {R"({"format": "impetus-batch/1", "sweeps": [{"id": "s${p}", "scene": "../box_stack.json",
           "parameters": {"p": []}}]})",
       "sweeps[0].parameters.p"},
  };
  for (const auto& [text, expected] : cases) {
    std::string error;
    const auto manifest = cli::parse_batch_manifest(text, kFile, &error);
    if (expected.empty()) {
      EXPECT_TRUE(manifest) << text << ": " << error;
      continue;
    }
    ASSERT_FALSE(manifest) << text;
    EXPECT_EQ(error.rfind(kFile + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(expected), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace impetus::test
