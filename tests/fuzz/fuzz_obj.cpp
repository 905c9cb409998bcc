// libFuzzer target: bytes → the OBJ reader (engine/obj_loader.h). A mesh it accepts must hold
// only in-range triangle indices, whatever the input.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "engine/obj_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  impetus::ObjLoadResult result = impetus::parse_obj(in, "fuzz.obj");
  if (!result.ok()) {
    if (result.error.rfind("fuzz.obj", 0) != 0) __builtin_trap();
    return 0;
  }
  const int n = static_cast<int>(result.mesh->vertices.size());
  if (n == 0) __builtin_trap();
  if (result.mesh->triangle_lines.size() != result.mesh->triangles.size()) __builtin_trap();
  for (const auto& tri : result.mesh->triangles) {
    for (int v : tri) {
      if (v < 0 || v >= n) __builtin_trap();
    }
  }
  return 0;
}
