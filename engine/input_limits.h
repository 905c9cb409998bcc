#pragma once
// Limits on what impetus reads (scene files, query documents, OBJ meshes), documented in
// tools/docs/scene-format.md and query-format.md under "Limits". Each is checked before the
// memory it bounds is allocated, so that a hostile or broken file is rejected in milliseconds
// with the usual "FILE: JSON.PATH: problem" line instead of exhausting memory or time. They are
// far above anything a real scene needs (the largest benchmark scene has 1,000 bodies).
#include <cstddef>

namespace impetus::limits {

/// Bytes of one JSON document (scene file, query input).
inline constexpr std::size_t kMaxJsonBytes = std::size_t{16} << 20;  // 16 MiB
/// Nesting depth of JSON arrays and objects (the document itself is level 1). The deepest
/// structure of either format is 5 levels (a mesh's triangle inside a shape inside a body).
inline constexpr int kMaxJsonDepth = 64;
/// Bytes of one JSON string or object key.
inline constexpr std::size_t kMaxJsonStringBytes = 4096;
/// Bytes of a name (bodies, arrays, materials, cloths): array names are copied into up to
/// kMaxBodies generated names.
inline constexpr std::size_t kMaxNameBytes = 256;
/// Bodies in one scene, `bodies` and every `arrays` entry's expansion together.
inline constexpr long long kMaxBodies = 1'000'000;
/// Cloth vertices in one scene, all cloths together; quads per side of one cloth grid.
inline constexpr long long kMaxClothVertices = 1'000'000;
inline constexpr long long kMaxClothGridResolution = 1000;
/// settings.substeps, settings.solver_iterations, settings.threads.
inline constexpr long long kMaxSubsteps = 1000;
inline constexpr long long kMaxSolverIterations = 100'000;
inline constexpr long long kMaxThreads = 4096;

/// Bytes of one OBJ file; its `v` statements; the triangles its faces fan into.
inline constexpr std::size_t kMaxObjBytes = std::size_t{128} << 20;  // 128 MiB
inline constexpr std::size_t kMaxObjVertices = 1'000'000;
inline constexpr std::size_t kMaxObjTriangles = 2'000'000;

}  // namespace impetus::limits
