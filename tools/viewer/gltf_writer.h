#pragma once
// A run as binary glTF 2.0 (.glb) for Blender and any glTF viewer: one node per body with its
// shape's mesh and colour, one animation with translation and rotation channels sampled at the
// trajectory's frames (linear interpolation between them), and each cloth as one mesh whose
// morph targets are its OBJ frames, switched by a weights channel. The scene's z-up world
// hangs under a root node that turns it into glTF's y-up. Joints are not exported.
#include <string>

#include "tools/viewer/run_results.h"

namespace impetus::viewer {

/// The .glb file's bytes.
std::string gltf_binary(const RunResults& results, const std::string& generator);

/// Writes gltf_binary to `path`; false with `error` when it cannot be written.
bool write_gltf(const RunResults& results, const std::string& path, const std::string& generator,
                std::string* error);

}  // namespace impetus::viewer
