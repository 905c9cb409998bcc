#include "tools/viewer/gltf_writer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "collision/base/math.h"
#include "tools/viewer/file_output.h"

namespace impetus::viewer {

namespace {

using nlohmann::json;

static_assert(std::endian::native == std::endian::little, "glTF buffers are little-endian");

// glTF 2.0 constants (Khronos glTF 2.0 specification, accessors and buffer views).
constexpr int kFloat = 5126;
constexpr int kUnsignedInt = 5125;
constexpr int kArrayBuffer = 34962;
constexpr int kElementArrayBuffer = 34963;

// The binary chunk and the bufferViews/accessors that describe it.
class BinaryBuilder {
 public:
  // A float accessor of `components` per element; min/max when `bounds` (required for POSITION
  // and animation inputs), computed from the float values so the validator finds them exact.
  int add_floats(const std::vector<float>& values, int components, const char* type, bool bounds,
                 bool vertex_attribute) {
    const int view = add_view(values.data(), values.size() * sizeof(float),
                              vertex_attribute ? kArrayBuffer : 0);
    json accessor = {{"bufferView", view},
                     {"componentType", kFloat},
                     {"count", values.size() / static_cast<std::size_t>(components)},
                     {"type", type}};
    if (bounds) {
      std::vector<float> lo(static_cast<std::size_t>(components), std::numeric_limits<float>::max());
      std::vector<float> hi(static_cast<std::size_t>(components), std::numeric_limits<float>::lowest());
      for (std::size_t i = 0; i < values.size(); ++i) {
        const std::size_t k = i % static_cast<std::size_t>(components);
        lo[k] = std::min(lo[k], values[i]);
        hi[k] = std::max(hi[k], values[i]);
      }
      accessor["min"] = lo;
      accessor["max"] = hi;
    }
    accessors_.push_back(std::move(accessor));
    return static_cast<int>(accessors_.size()) - 1;
  }

  int add_indices(const std::vector<std::uint32_t>& indices) {
    const int view = add_view(indices.data(), indices.size() * sizeof(std::uint32_t),
                              kElementArrayBuffer);
    accessors_.push_back({{"bufferView", view},
                          {"componentType", kUnsignedInt},
                          {"count", indices.size()},
                          {"type", "SCALAR"}});
    return static_cast<int>(accessors_.size()) - 1;
  }

  const std::string& bytes() const { return bytes_; }
  json views() const { return views_; }
  json accessors() const { return accessors_; }

 private:
  int add_view(const void* data, std::size_t size, int target) {
    json view = {{"buffer", 0}, {"byteOffset", bytes_.size()}, {"byteLength", size}};
    if (target != 0) view["target"] = target;
    bytes_.append(static_cast<const char*>(data), size);
    while (bytes_.size() % 4 != 0) bytes_ += '\0';
    views_.push_back(std::move(view));
    return static_cast<int>(views_.size()) - 1;
  }

  std::string bytes_;
  json views_ = json::array();
  json accessors_ = json::array();
};

// obj[key], or null when obj is not an object or lacks the key (trajectory records are only
// checked for step, time and bodies).
const json& member(const json& obj, const char* key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

// A JSON number or the fallback (a diverged run's last frame may hold null for NaN).
double number_or(const json& value, double fallback) {
  return value.is_number() ? value.get<double>() : fallback;
}

Vec3 read_vec3(const json& value, const Vec3& fallback) {
  if (!value.is_array() || value.size() != 3) return fallback;
  return Vec3(number_or(value[0], fallback.x()), number_or(value[1], fallback.y()),
              number_or(value[2], fallback.z()));
}

// [w, x, y, z] as in the output files; normalised, and the fallback when unusable.
Quat read_quat(const json& value, const Quat& fallback) {
  if (!value.is_array() || value.size() != 4) return fallback;
  Quat q(number_or(value[0], fallback.w()), number_or(value[1], fallback.x()),
         number_or(value[2], fallback.y()), number_or(value[3], fallback.z()));
  const double n = q.norm();
  if (!std::isfinite(n) || n < 1e-12) return fallback;
  q.coeffs() /= n;
  return q;
}

// sRGB "#rrggbb" to glTF's linear baseColorFactor.
json linear_colour(const std::string& hex) {
  json rgba = json::array();
  for (int k = 0; k < 3; ++k) {
    unsigned value = 128;
    if (hex.size() == 7) value = static_cast<unsigned>(std::stoul(hex.substr(1 + 2 * k, 2), nullptr, 16));
    const double c = value / 255.0;
    rgba.push_back(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
  }
  rgba.push_back(1.0);
  return rgba;
}

struct SurfaceAccessors {
  int position = -1;
  int normal = -1;
  int indices = -1;  // -1: non-indexed
};

// Round surfaces keep their shared vertices with area-weighted normals; faceted ones get three
// vertices per triangle with the face normal, so edges stay sharp in every viewer.
SurfaceAccessors add_surface(BinaryBuilder* bin, const json& surface) {
  std::vector<Vec3> vertices;
  const json& v = surface["vertices"];
  for (std::size_t i = 0; i + 2 < v.size(); i += 3)
    vertices.emplace_back(v[i].get<double>(), v[i + 1].get<double>(), v[i + 2].get<double>());
  std::vector<std::array<std::uint32_t, 3>> triangles;
  const json& t = surface["triangles"];
  for (std::size_t i = 0; i + 2 < t.size(); i += 3) {
    std::array<std::uint32_t, 3> tri = {t[i].get<std::uint32_t>(), t[i + 1].get<std::uint32_t>(),
                                        t[i + 2].get<std::uint32_t>()};
    if (std::max({tri[0], tri[1], tri[2]}) < vertices.size()) triangles.push_back(tri);
  }
  auto face_normal = [&](const std::array<std::uint32_t, 3>& tri) {
    return (vertices[tri[1]] - vertices[tri[0]]).cross(vertices[tri[2]] - vertices[tri[0]]);
  };
  auto unit = [](const Vec3& n) { return n.norm() > 1e-30 ? Vec3(n.normalized()) : Vec3(Vec3::UnitZ()); };
  std::vector<float> positions, normals;
  auto push = [](std::vector<float>* out, const Vec3& p) {
    for (int k = 0; k < 3; ++k) out->push_back(static_cast<float>(p[k]));
  };
  SurfaceAccessors out;
  if (surface.value("smooth", false)) {
    std::vector<Vec3> sum(vertices.size(), Vec3::Zero());
    for (const auto& tri : triangles) {
      const Vec3 n = face_normal(tri);
      for (std::uint32_t i : tri) sum[i] += n;
    }
    for (std::size_t i = 0; i < vertices.size(); ++i) {
      push(&positions, vertices[i]);
      push(&normals, unit(sum[i]));
    }
    std::vector<std::uint32_t> indices;
    for (const auto& tri : triangles) indices.insert(indices.end(), tri.begin(), tri.end());
    out.indices = bin->add_indices(indices);
  } else {
    for (const auto& tri : triangles) {
      const Vec3 n = unit(face_normal(tri));
      for (std::uint32_t i : tri) {
        push(&positions, vertices[i]);
        push(&normals, n);
      }
    }
  }
  out.position = bin->add_floats(positions, 3, "VEC3", true, true);
  out.normal = bin->add_floats(normals, 3, "VEC3", false, true);
  return out;
}

class GltfBuilder {
 public:
  explicit GltfBuilder(const RunResults& results) : r_(results) {}

  std::string build(const std::string& generator) {
    // Frame times: the animation's input, shared by every channel.
    std::vector<float> times;
    for (const json& frame : r_.frames) times.push_back(static_cast<float>(number_or(frame["time"], 0)));
    // Equal float times (a very long run) would break the strictly increasing input rule.
    for (std::size_t i = 1; i < times.size(); ++i)
      times[i] = std::max(times[i], std::nextafter(times[i - 1], std::numeric_limits<float>::max()));
    time_accessor_ = bin_.add_floats(times, 1, "SCALAR", true, false);

    json root_children = json::array();
    for (const json& body : r_.shapes["bodies"]) root_children.push_back(add_body(body));
    for (std::size_t c = 0; c < r_.shapes["cloths"].size(); ++c) root_children.push_back(add_cloth(c));
    // z-up world → y-up glTF: −90° about x.
    const double s = std::sqrt(0.5);
    const json& scene = member(r_.shapes, "scene");
    const std::string scene_name = scene.is_string() ? scene.get<std::string>() : "impetus";
    nodes_.push_back({{"name", scene_name},
                      {"rotation", {-s, 0.0, 0.0, s}},
                      {"children", root_children}});
    const int root = static_cast<int>(nodes_.size()) - 1;

    json doc = json::object();
    doc["asset"] = {{"version", "2.0"}, {"generator", generator}};
    doc["scene"] = 0;
    doc["scenes"] = json::array({{{"name", scene_name}, {"nodes", {root}}}});
    doc["nodes"] = nodes_;
    doc["meshes"] = meshes_;
    doc["materials"] = materials_;
    if (!channels_.empty()) {
      doc["animations"] = json::array(
          {{{"name", "run"}, {"samplers", samplers_}, {"channels", channels_}}});
    }
    doc["accessors"] = bin_.accessors();
    doc["bufferViews"] = bin_.views();
    doc["buffers"] = json::array({{{"byteLength", bin_.bytes().size()}}});
    return glb(doc.dump(-1, ' ', false, json::error_handler_t::replace), bin_.bytes());
  }

 private:
  int material(const std::string& colour, bool double_sided) {
    const std::string key = colour + (double_sided ? "/2" : "/1");
    auto [it, added] = material_index_.emplace(key, static_cast<int>(materials_.size()));
    if (added) {
      json m = {{"name", colour},
                {"pbrMetallicRoughness",
                 {{"baseColorFactor", linear_colour(colour)}, {"metallicFactor", 0.0},
                  {"roughnessFactor", 0.7}}}};
      if (double_sided) m["doubleSided"] = true;
      materials_.push_back(std::move(m));
    }
    return it->second;
  }

  int mesh(int surface, const std::string& colour) {
    const auto key = std::make_pair(surface, colour);
    auto found = mesh_index_.find(key);
    if (found != mesh_index_.end()) return found->second;
    auto acc = surface_accessors_.find(surface);
    if (acc == surface_accessors_.end())
      acc = surface_accessors_.emplace(surface, add_surface(&bin_, r_.shapes["surfaces"][static_cast<std::size_t>(surface)])).first;
    json primitive = {{"attributes", {{"POSITION", acc->second.position}, {"NORMAL", acc->second.normal}}},
                      {"material", material(colour, false)}};
    if (acc->second.indices >= 0) primitive["indices"] = acc->second.indices;
    meshes_.push_back({{"primitives", json::array({primitive})}});
    const int index = static_cast<int>(meshes_.size()) - 1;
    mesh_index_[key] = index;
    return index;
  }

  int add_channel(int node, const char* path, const std::vector<float>& values, int components,
                  const char* type) {
    const int output = bin_.add_floats(values, components, type, false, false);
    samplers_.push_back({{"input", time_accessor_}, {"output", output}, {"interpolation", "LINEAR"}});
    channels_.push_back({{"sampler", samplers_.size() - 1}, {"target", {{"node", node}, {"path", path}}}});
    return output;
  }

  int add_body(const json& body) {
    const std::string name = body.value("name", "");
    Vec3 position = read_vec3(body["position"], Vec3::Zero());
    Quat orientation = read_quat(body["orientation"], Quat::Identity());
    std::vector<float> translations, rotations;
    const bool moving = body.value("motion", "static") != "static";
    if (moving) {
      Quat previous = orientation;
      for (const json& frame : r_.frames) {
        const json& bodies = frame["bodies"];
        auto it = bodies.find(name);
        if (it != bodies.end()) {
          position = read_vec3(member(*it, "position"), position);
          orientation = read_quat(member(*it, "orientation"), orientation);
        }
        // Same hemisphere as the previous key, so interpolation takes the short way round.
        if (previous.coeffs().dot(orientation.coeffs()) < 0) orientation.coeffs() *= -1;
        previous = orientation;
        for (int k = 0; k < 3; ++k) translations.push_back(static_cast<float>(position[k]));
        for (double c : {orientation.x(), orientation.y(), orientation.z(), orientation.w()})
          rotations.push_back(static_cast<float>(c));
      }
    }
    const Vec3 p0 = moving ? Vec3(translations[0], translations[1], translations[2]) : position;
    const std::vector<double> q0 =
        moving ? std::vector<double>(rotations.begin(), rotations.begin() + 4)
               : std::vector<double>{orientation.x(), orientation.y(), orientation.z(), orientation.w()};
    json node = {{"name", name},
                 {"mesh", mesh(body.value("surface", 0), body.value("color", "#888888"))},
                 {"translation", {p0.x(), p0.y(), p0.z()}},
                 {"rotation", q0}};
    nodes_.push_back(std::move(node));
    const int index = static_cast<int>(nodes_.size()) - 1;
    if (moving) {
      add_channel(index, "translation", translations, 3, "VEC3");
      add_channel(index, "rotation", rotations, 4, "VEC4");
    }
    return index;
  }

  // Base shape = the first frame that has an OBJ (else the scene's initial vertices); one morph
  // target per later frame, its weight 1 at that frame and 0 at the others.
  int add_cloth(std::size_t c) {
    const json& cloth = r_.shapes["cloths"][c];
    std::vector<float> base = cloth["vertices"].get<std::vector<float>>();
    const std::vector<std::vector<float>>& frames = r_.cloth_frames[c];
    std::vector<std::vector<float>> positions;  // per frame, the latest OBJ seen
    for (const std::vector<float>& f : frames) {
      if (!f.empty()) positions.push_back(f);
      else positions.push_back(positions.empty() ? base : positions.back());
    }
    const bool animated = std::any_of(frames.begin(), frames.end(), [](const auto& f) { return !f.empty(); });
    if (animated) base = positions.front();
    std::vector<std::uint32_t> indices = cloth["triangles"].get<std::vector<std::uint32_t>>();
    json primitive = {{"attributes", {{"POSITION", bin_.add_floats(base, 3, "VEC3", true, true)}}},
                      {"indices", bin_.add_indices(indices)},
                      {"material", material(cloth.value("color", "#d64f7a"), true)}};
    const std::size_t targets = animated ? positions.size() - 1 : 0;
    json mesh = json::object();
    if (targets > 0) {
      json target_list = json::array();
      for (std::size_t f = 1; f < positions.size(); ++f) {
        std::vector<float> delta(base.size());
        for (std::size_t i = 0; i < base.size(); ++i) delta[i] = positions[f][i] - base[i];
        target_list.push_back({{"POSITION", bin_.add_floats(delta, 3, "VEC3", true, true)}});
      }
      primitive["targets"] = std::move(target_list);
      mesh["weights"] = std::vector<double>(targets, 0.0);
    }
    mesh["primitives"] = json::array({primitive});
    mesh["name"] = cloth.value("name", "");
    meshes_.push_back(std::move(mesh));
    nodes_.push_back({{"name", cloth.value("name", "")}, {"mesh", meshes_.size() - 1}});
    const int index = static_cast<int>(nodes_.size()) - 1;
    if (targets > 0) {
      std::vector<float> weights(positions.size() * targets, 0.0f);
      for (std::size_t f = 1; f < positions.size(); ++f) weights[f * targets + (f - 1)] = 1.0f;
      add_channel(index, "weights", weights, 1, "SCALAR");
    }
    return index;
  }

  static void append_u32(std::string* out, std::uint32_t value) {
    char bytes[4];
    std::memcpy(bytes, &value, 4);
    out->append(bytes, 4);
  }

  // GLB container: 12-byte header, JSON chunk (space-padded), BIN chunk (zero-padded).
  static std::string glb(std::string json_text, std::string bin) {
    while (json_text.size() % 4 != 0) json_text += ' ';
    while (bin.size() % 4 != 0) bin += '\0';
    std::string out;
    append_u32(&out, 0x46546C67u);  // "glTF"
    append_u32(&out, 2);
    append_u32(&out, static_cast<std::uint32_t>(12 + 8 + json_text.size() + 8 + bin.size()));
    append_u32(&out, static_cast<std::uint32_t>(json_text.size()));
    append_u32(&out, 0x4E4F534Au);  // "JSON"
    out += json_text;
    append_u32(&out, static_cast<std::uint32_t>(bin.size()));
    append_u32(&out, 0x004E4942u);  // "BIN"
    out += bin;
    return out;
  }

  const RunResults& r_;
  BinaryBuilder bin_;
  int time_accessor_ = -1;
  json nodes_ = json::array();
  json meshes_ = json::array();
  json materials_ = json::array();
  json samplers_ = json::array();
  json channels_ = json::array();
  std::map<std::string, int> material_index_;
  std::map<std::pair<int, std::string>, int> mesh_index_;
  std::map<int, SurfaceAccessors> surface_accessors_;
};

}  // namespace

std::string gltf_binary(const RunResults& results, const std::string& generator) {
  return GltfBuilder(results).build(generator);
}

bool write_gltf(const RunResults& results, const std::string& path, const std::string& generator,
                std::string* error) {
  return write_text_file(path, gltf_binary(results, generator), error);
}

}  // namespace impetus::viewer
