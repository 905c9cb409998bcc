#include "tools/viewer/report_writer.h"

#include <bit>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "tools/viewer/file_output.h"
#include "tools/viewer/viewer_assets.h"

namespace impetus::viewer {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

static_assert(std::endian::native == std::endian::little,
              "data.js stores little-endian float32 arrays, as JavaScript's Float32Array reads them");

std::string base64(const unsigned char* data, std::size_t size) {
  static const char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (std::size_t i = 0; i < size; i += 3) {
    const unsigned a = data[i];
    const unsigned b = i + 1 < size ? data[i + 1] : 0u;
    const unsigned c = i + 2 < size ? data[i + 2] : 0u;
    const unsigned triple = (a << 16) | (b << 8) | c;
    out += kDigits[(triple >> 18) & 63];
    out += kDigits[(triple >> 12) & 63];
    out += i + 1 < size ? kDigits[(triple >> 6) & 63] : '=';
    out += i + 2 < size ? kDigits[triple & 63] : '=';
  }
  return out;
}

// The cloth frames as base64 float32 arrays (a 2,500-vertex cloth over 100 frames is 3 MB this
// way, three times that as JSON numbers); null where a frame has no OBJ.
json cloth_data(const RunResults& results) {
  json cloths = json::array();
  for (std::size_t c = 0; c < results.cloth_frames.size(); ++c) {
    json frames = json::array();
    for (const std::vector<float>& positions : results.cloth_frames[c]) {
      if (positions.empty()) {
        frames.push_back(nullptr);
      } else {
        frames.push_back(base64(reinterpret_cast<const unsigned char*>(positions.data()),
                                positions.size() * sizeof(float)));
      }
    }
    cloths.push_back({{"name", results.shapes["cloths"][c].value("name", "")},
                      {"frames", std::move(frames)}});
  }
  return cloths;
}

}  // namespace

bool write_report(const RunResults& results, const std::string& dir_name, std::string* error) {
  if (!viewer_assets_missing().empty()) {
    *error = "report.html not written: " + std::string(viewer_assets_missing());
    return false;
  }
  const fs::path dir(dir_name);
  const fs::path files = dir / "report_files";
  std::error_code ec;
  fs::create_directories(files, ec);
  if (ec) {
    *error = files.string() + ": cannot create folder: " + ec.message();
    return false;
  }
  std::string_view page;
  for (const ViewerAsset& asset : viewer_assets()) {
    if (asset.name == "report.html") {
      page = asset.bytes;
      continue;
    }
    if (!write_text_file(files / std::string(asset.name), asset.bytes, error)) return false;
  }
  json data = json::object();
  data["summary"] = results.summary;
  data["shapes"] = results.shapes;
  data["frames"] = results.frames;
  data["cloths"] = cloth_data(results);
  // error_handler::replace: a stray invalid UTF-8 byte in a name must not abort the report.
  const std::string script = "window.IMPETUS_REPORT = " +
                             data.dump(-1, ' ', false, json::error_handler_t::replace) + ";\n";
  if (!write_text_file(files / "data.js", script, error)) return false;
  // The page last: it only appears once everything it loads is in place.
  return write_text_file(dir / "report.html", page, error);
}

std::string report_url(const std::string& dir) {
  std::error_code ec;
  fs::path path = fs::absolute(fs::path(dir) / "report.html", ec);
  path = path.lexically_normal();
  std::string url = "file://";
  for (unsigned char c : path.generic_string()) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       (c != 0 && std::strchr("/-._~", c) != nullptr);
    if (plain) {
      url += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789ABCDEF";
      url += '%';
      url += kHex[c >> 4];
      url += kHex[c & 15];
    }
  }
  return url;
}

}  // namespace impetus::viewer
