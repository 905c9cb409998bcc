// libFuzzer target: bytes → impetus-scene/1 loader → SceneDef → a World built and stepped 5
// steps (exactly what `impetus run` does, without output files). Relative OBJ paths resolve
// against the repo's scenes/ folder, so the seeds' meshes load.
//
// Scenes that load but are merely big (more than kMaxFuzzBodies bodies or kMaxFuzzClothVertices
// cloth vertices) are not stepped, and substeps and solver iterations are capped: such scenes
// are valid input whose cost grows with its numbers, which is not a finding (a hang here means
// more than 1 s for a small input).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/scene_loader.h"
#include "engine/scene_runner.h"

namespace {

// The instrumented build (coverage with comparison tracing + ASan + UBSan) steps cloth about
// 100 times slower than Release: 5 steps of the 273-vertex cloth_flag take ~4 s there. Cloths
// above 30 vertices are loaded but not stepped, so that a 1 s timeout means a real hang.
constexpr std::size_t kMaxFuzzBodies = 200;
constexpr long long kMaxFuzzClothVertices = 30;
constexpr int kMaxFuzzSubsteps = 8;
constexpr int kMaxFuzzSolverIterations = 50;

long long cloth_vertices(const impetus::SceneDef& scene) {
  long long n = 0;
  for (const impetus::SceneClothDef& c : scene.cloths) {
    n += c.is_grid ? static_cast<long long>(c.grid_resolution[0] + 1) * (c.grid_resolution[1] + 1)
                   : static_cast<long long>(c.mesh_vertices.size());
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  impetus::SceneLoadResult loaded =
      impetus::load_scene_text(text, "fuzz.json", IMPETUS_SOURCE_DIR "/scenes");
  if (!loaded.ok()) {
    // Every rejection is one "FILE: ..." line.
    if (loaded.error.rfind("fuzz.json: ", 0) != 0) __builtin_trap();
    return 0;
  }
  impetus::SceneDef& scene = *loaded.scene;
  if (scene.bodies.size() > kMaxFuzzBodies || cloth_vertices(scene) > kMaxFuzzClothVertices) {
    return 0;
  }
  scene.world.substeps = std::min(scene.world.substeps, kMaxFuzzSubsteps);
  scene.world.solver_iterations = std::min(scene.world.solver_iterations, kMaxFuzzSolverIterations);
  impetus::RunOptions options;
  options.scene_file = "fuzz.json";
  options.steps = 5;
  options.threads = 1;
  impetus::RunOutcome outcome = impetus::run_scene(scene, options);
  // 0 (ran), 2 (the World rejected a def the loader passed) or 3 (diverged): anything else,
  // or an exception, is a finding.
  if (outcome.exit_code != 0 && outcome.exit_code != 2 && outcome.exit_code != 3) __builtin_trap();
  return 0;
}
