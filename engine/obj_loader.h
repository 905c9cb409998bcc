#pragma once
// Minimal Wavefront OBJ reader for meshes in scenes: `v` positions and `f` faces (any of the
// `v`, `v/vt`, `v//vn`, `v/vt/vn` corner forms, 1-based or negative = relative indices),
// polygons fan-triangulated. Texture, normal, grouping and material statements are ignored;
// anything else is an error, as is a bad number or index. Errors name the file and the line:
//   "meshes/rock.obj:12: face index 40 out of range (the file has 36 vertices)"
// The limits of engine/input_limits.h (file size, vertices, triangles) are checked before the
// memory they bound is allocated.
#include <array>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

struct ObjMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;  // 0-based, in file order (fans in corner order)
  std::vector<int> triangle_lines;            // source line of each triangle's `f` statement
};

struct ObjLoadResult {
  std::optional<ObjMesh> mesh;  // set on success
  std::string error;            // "FILE:LINE: problem" (or "FILE: problem") on failure
  bool ok() const { return mesh.has_value(); }
};

/// Reads an OBJ file; `path` is used as given (resolve relative paths first).
ObjLoadResult load_obj_file(const std::string& path);
/// Reads OBJ text from a stream; `name` stands for the file in messages.
ObjLoadResult parse_obj(std::istream& in, const std::string& name);

}  // namespace impetus
