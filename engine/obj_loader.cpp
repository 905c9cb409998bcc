#include "engine/obj_loader.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "engine/input_limits.h"

namespace impetus {

namespace {

// Statements that carry nothing a collision or cloth mesh needs: texture coordinates, normals,
// parameter-space vertices, grouping, smoothing, materials, polylines and points.
constexpr std::string_view kIgnored[] = {"vt", "vn", "vp", "g", "o", "s", "usemtl", "mtllib",
                                         "l", "p"};

struct ObjError {
  int line;
  std::string problem;
};

std::vector<std::string_view> split_whitespace(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f' || s[i] == '\v')) ++i;
    std::size_t start = i;
    while (i < s.size() && !(s[i] == ' ' || s[i] == '\t' || s[i] == '\f' || s[i] == '\v')) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

double parse_coordinate(std::string_view token, int line) {
  std::string_view t = token;
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);  // from_chars rejects a leading '+'
  double value = 0;
  std::from_chars_result r = std::from_chars(t.data(), t.data() + t.size(), value);
  if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(value)) {
    throw ObjError{line, "bad vertex coordinate '" + std::string(token) +
                             "' (must be a finite number)"};
  }
  return value;
}

// One face corner "v", "v/vt", "v//vn" or "v/vt/vn": returns the raw position index.
long long parse_corner(std::string_view token, int line) {
  std::string_view v = token.substr(0, token.find('/'));
  if (!v.empty() && v[0] == '+') v.remove_prefix(1);
  long long index = 0;
  std::from_chars_result r = std::from_chars(v.data(), v.data() + v.size(), index);
  if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size()) {
    throw ObjError{line, "bad face corner '" + std::string(token) +
                             "' (expected v, v/vt, v//vn or v/vt/vn with integer v)"};
  }
  if (index == 0) throw ObjError{line, "face index 0 is invalid (OBJ indices start at 1)"};
  return index;
}

struct PendingCorner {
  long long index;  // 0-based once resolved; positive raw indices are checked at the end
  int line;
};

ObjMesh parse_obj_or_throw(std::istream& in) {
  ObjMesh mesh;
  // Corners of all triangles, resolved after the whole file is read: positive indices may
  // refer to vertices defined later in the file.
  std::vector<std::array<PendingCorner, 3>> pending;
  std::string raw;
  std::string statement;
  int line_number = 0;
  while (std::getline(in, raw)) {
    ++line_number;
    int statement_line = line_number;
    statement = raw;
    // A trailing backslash continues the statement on the next line.
    auto strip = [](std::string& s) {
      std::size_t hash = s.find('#');
      if (hash != std::string::npos) s.erase(hash);
      while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    };
    strip(statement);
    while (!statement.empty() && statement.back() == '\\' && std::getline(in, raw)) {
      ++line_number;
      statement.pop_back();
      strip(raw);
      statement += ' ';
      statement += raw;
    }
    std::vector<std::string_view> tokens = split_whitespace(statement);
    if (tokens.empty()) continue;
    std::string_view keyword = tokens[0];
    if (keyword == "v") {
      // x y z, optionally followed by w or by an r g b colour: only x y z matter.
      if (tokens.size() != 4 && tokens.size() != 5 && tokens.size() != 7) {
        throw ObjError{statement_line, "'v' needs 3 coordinates (optionally w or r g b), got " +
                                           std::to_string(tokens.size() - 1) + " values"};
      }
      Vec3 p;
      for (int i = 0; i < 3; ++i) p[i] = parse_coordinate(tokens[1 + i], statement_line);
      for (std::size_t i = 4; i < tokens.size(); ++i) parse_coordinate(tokens[i], statement_line);
      if (mesh.vertices.size() == limits::kMaxObjVertices) {
        throw ObjError{statement_line, "more than " + std::to_string(limits::kMaxObjVertices) +
                                           " vertices (the limit)"};
      }
      mesh.vertices.push_back(p);
    } else if (keyword == "f") {
      if (tokens.size() < 4) {
        throw ObjError{statement_line, "a face needs at least 3 corners, got " +
                                           std::to_string(tokens.size() - 1)};
      }
      std::vector<PendingCorner> corners;
      for (std::size_t i = 1; i < tokens.size(); ++i) {
        long long index = parse_corner(tokens[i], statement_line);
        if (index < 0) {
          // Negative = relative to the vertices defined so far (-1 is the latest).
          long long resolved = static_cast<long long>(mesh.vertices.size()) + index;
          if (resolved < 0) {
            throw ObjError{statement_line, "relative face index " + std::to_string(index) +
                                               " reaches before the first vertex (only " +
                                               std::to_string(mesh.vertices.size()) +
                                               " defined so far)"};
          }
          corners.push_back({resolved, statement_line});
        } else {
          corners.push_back({index - 1, statement_line});
        }
      }
      if (pending.size() + (corners.size() - 2) > limits::kMaxObjTriangles) {
        throw ObjError{statement_line, "more than " + std::to_string(limits::kMaxObjTriangles) +
                                           " triangles (the limit)"};
      }
      // Fan triangulation around the first corner keeps the polygon's winding.
      for (std::size_t i = 1; i + 1 < corners.size(); ++i) {
        pending.push_back({corners[0], corners[i], corners[i + 1]});
      }
    } else {
      bool ignored = false;
      for (std::string_view k : kIgnored) ignored = ignored || k == keyword;
      if (!ignored) {
        throw ObjError{statement_line, "unknown statement '" + std::string(keyword) +
                                           "' (this reader knows v and f)"};
      }
    }
  }
  if (in.bad()) throw ObjError{0, "read error"};
  if (mesh.vertices.empty()) throw ObjError{0, "no vertices ('v' statements) found"};

  const long long vertex_count = static_cast<long long>(mesh.vertices.size());
  mesh.triangles.reserve(pending.size());
  mesh.triangle_lines.reserve(pending.size());
  for (const std::array<PendingCorner, 3>& tri : pending) {
    std::array<int, 3> t{};
    for (int c = 0; c < 3; ++c) {
      if (tri[c].index >= vertex_count) {
        throw ObjError{tri[c].line, "face index " + std::to_string(tri[c].index + 1) +
                                        " out of range (the file has " +
                                        std::to_string(vertex_count) + " vertices)"};
      }
      t[c] = static_cast<int>(tri[c].index);
    }
    mesh.triangles.push_back(t);
    mesh.triangle_lines.push_back(tri[0].line);
  }
  return mesh;
}

}  // namespace

ObjLoadResult parse_obj(std::istream& in, const std::string& name) {
  ObjLoadResult result;
  try {
    result.mesh = parse_obj_or_throw(in);
  } catch (const ObjError& e) {
    result.error = e.line > 0 ? name + ":" + std::to_string(e.line) + ": " + e.problem
                              : name + ": " + e.problem;
  } catch (const std::exception& e) {
    // E.g. std::bad_alloc on an absurd file: still a message, never an escaping exception.
    result.error = name + ": " + e.what();
  }
  return result;
}

ObjLoadResult load_obj_file(const std::string& path) {
  std::error_code ec;
  std::ifstream in;
  // A directory opens as a stream on Linux; insist on a regular file.
  if (std::filesystem::is_regular_file(path, ec)) in.open(path, std::ios::binary);
  if (!in.is_open()) {
    ObjLoadResult result;
    result.error = path + ": cannot open OBJ file";
    return result;
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > limits::kMaxObjBytes) {
    ObjLoadResult result;
    result.error = path + ": file of " + std::to_string(size) + " bytes is larger than " +
                   std::to_string(limits::kMaxObjBytes) + " bytes (the limit)";
    return result;
  }
  return parse_obj(in, path);
}

}  // namespace impetus
