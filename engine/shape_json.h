#pragma once
// Scene-loader internals: shape objects and OBJ references of impetus-scene/1. Failures throw
// JsonError (engine/json_reader.h); the public entry point is parse_shape_json in
// engine/scene_loader_json.h.
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "collision/shape/shape.h"
#include "engine/obj_loader.h"

namespace impetus {

/// Hulls and meshes already built from OBJ files during one load, keyed by resolved path, so
/// that bodies naming the same file share one immutable hull or mesh.
struct ShapeFileCache {
  std::map<std::string, std::shared_ptr<const ConvexHull>> hulls;
  std::map<std::string, std::shared_ptr<const TriangleMesh>> meshes;
};

/// `file` resolved against `base_dir` unless absolute.
std::string resolve_scene_path(const std::string& base_dir, const std::string& file);

/// Reads the OBJ file named by the string `v` (at JSON path `path`), relative to `base_dir`.
/// `resolved` (optional) receives the resolved path.
ObjMesh read_obj_reference(const nlohmann::json& v, const std::string& path,
                           const std::string& base_dir, std::string* resolved = nullptr);

/// Reads one shape object at `path`. `cache` may be null.
Shape read_shape(const nlohmann::json& v, const std::string& path, const std::string& base_dir,
                 ShapeFileCache* cache);

}  // namespace impetus
