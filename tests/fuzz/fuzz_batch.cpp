// libFuzzer target: bytes → an impetus-batch/1 manifest (tools/cli/batch_manifest.h, the code
// behind `impetus batch`) → for the first runs of a manifest that validates, their scenes loaded
// with the runs' overrides applied (engine/scene_overrides.h). The manifest is read as if it
// were scenes/goldens/fuzz.batch.json, so relative scene paths reach the repo's scenes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/scene_overrides.h"
#include "tools/cli/batch_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string file = IMPETUS_SOURCE_DIR "/scenes/goldens/fuzz.batch.json";
  std::string error;
  const std::optional<impetus::cli::BatchManifest> manifest =
      impetus::cli::parse_batch_manifest(text, file, &error);
  if (!manifest) {
    // Refused as a whole: one message naming the file.
    if (error.rfind(file + ": ", 0) != 0) __builtin_trap();
    return 0;
  }
  // A sweep can expand to many runs; loading three is enough to reach the override paths.
  int loaded = 0;
  for (const impetus::cli::BatchRun& run : manifest->runs) {
    if (loaded++ == 3) break;
    if (!impetus::cli::valid_run_id(run.id)) __builtin_trap();
    const impetus::SceneLoadResult scene =
        impetus::load_scene_file(run.scene_path, run.overrides, run.overrides_path);
    if (!scene.ok() && scene.error.empty()) __builtin_trap();
  }
  return 0;
}
