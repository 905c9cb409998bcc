#include "engine/json_text.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <vector>

#include "engine/input_limits.h"
#include "engine/json_reader.h"

namespace impetus {

using nlohmann::json;

namespace {

// Thrown from the parser callback when a limit is exceeded: stops parsing at once.
struct LimitExceeded {
  std::string problem;
};

// Follows the parser's events to know the JSON path of the value being read, so that problems
// the DOM cannot show afterwards (a repeated key, a number overflowing to infinity) are reported
// with their path.
class PathTracker {
 public:
  bool on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        // Checked before the frame (and its path) exists: a 100,000-deep document costs 64
        // frames, not 100,000 ever longer paths.
        if (frames_.size() >= static_cast<std::size_t>(limits::kMaxJsonDepth)) {
          throw LimitExceeded{element_path() + ": arrays and objects nested deeper than " +
                              std::to_string(limits::kMaxJsonDepth) + " levels (the limit)"};
        }
        frames_.push_back(Frame{event == json::parse_event_t::array_start, -1, {}, element_path(), {}});
        break;
      case json::parse_event_t::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (top.key.size() > limits::kMaxJsonStringBytes) {
          top.key = top.key.substr(0, 20) + "...";
          throw LimitExceeded{json_key_path(top.path, top.key) + ": key longer than " +
                              std::to_string(limits::kMaxJsonStringBytes) + " bytes (the limit)"};
        }
        if (!top.keys.insert(top.key).second && duplicate_.empty()) {
          duplicate_ = json_key_path(top.path, top.key);
        }
        break;
      }
      case json::parse_event_t::value:
        if (parsed.is_string() && parsed.get_ref<const std::string&>().size() >
                                      limits::kMaxJsonStringBytes) {
          throw LimitExceeded{string_path() + ": string longer than " +
                              std::to_string(limits::kMaxJsonStringBytes) +
                              " bytes (the limit)"};
        }
        if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        break;
    }
    return true;
  }
  /// Path of the value the parser is reading now (after a key, or the next array element).
  std::string current_path() const {
    if (frames_.empty()) return {};
    const Frame& top = frames_.back();
    return top.is_array ? json_index_path(top.path, static_cast<std::size_t>(top.index + 1))
                        : json_key_path(top.path, top.key);
  }
  /// Path of the scalar value just read (before its array index is counted).
  std::string string_path() const {
    if (frames_.empty()) return "(document)";
    return current_path();
  }
  /// Path of the first repeated key, or empty.
  const std::string& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    bool is_array;
    long long index;  // last element seen (arrays)
    std::string key;  // last key seen (objects)
    std::string path;
    std::set<std::string> keys;
  };
  // Path of a container that starts now, counted as an element of its parent.
  std::string element_path() {
    if (frames_.empty()) return {};
    Frame& top = frames_.back();
    if (top.is_array) return json_index_path(top.path, static_cast<std::size_t>(++top.index));
    return json_key_path(top.path, top.key);
  }
  std::vector<Frame> frames_;
  std::string duplicate_;
};

// 1-based line and column of the byte at 1-based offset `byte` (nlohmann's parse_error::byte).
std::string line_column(const std::string& text, std::size_t byte) {
  std::size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// nlohmann's message minus its "[json.exception.parse_error.101] " tag and, for parse errors,
// its "parse error at line 3, column 5: " position (we give our own).
std::string parse_reason(const std::string& what) {
  std::string reason = what;
  if (!reason.empty() && reason[0] == '[') {
    std::size_t close = reason.find("] ");
    if (close != std::string::npos) reason = reason.substr(close + 2);
  }
  if (reason.rfind("parse error", 0) == 0) {
    std::size_t colon = reason.find(": ");
    if (colon != std::string::npos) reason = reason.substr(colon + 2);
  }
  return reason;
}

}  // namespace

std::string json_size_problem(std::uintmax_t bytes) {
  return "document of " + std::to_string(bytes) + " bytes is larger than " +
         std::to_string(limits::kMaxJsonBytes) + " bytes (the limit)";
}

std::optional<json> parse_json_text(const std::string& text, std::string* error) {
  PathTracker tracker;
  std::string problem;
  if (text.size() > limits::kMaxJsonBytes) {
    if (error != nullptr) *error = json_size_problem(text.size());
    return std::nullopt;
  }
  try {
    json doc = json::parse(text, [&tracker](int, json::parse_event_t event, json& parsed) {
      return tracker.on_event(event, parsed);
    });
    if (tracker.duplicate().empty()) return doc;
    problem = tracker.duplicate() + ": duplicate key";
  } catch (const LimitExceeded& e) {
    problem = e.problem;
  } catch (const json::parse_error& e) {
    problem = "malformed JSON at " + line_column(text, e.byte) + ": " + parse_reason(e.what());
  } catch (const json::exception& e) {
    // E.g. out_of_range.406 for 1e999: the number cannot be held, so it is not finite.
    std::string where = tracker.current_path();
    problem = (where.empty() ? "" : where + ": ") + "must be a finite number (" +
              parse_reason(e.what()) + ")";
  } catch (const std::exception& e) {
    problem = std::string("cannot parse JSON: ") + e.what();
  }
  if (error != nullptr) *error = problem;
  return std::nullopt;
}

std::optional<json> read_json_file(const std::string& path, const std::string& what,
                                   std::string* error) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    *error = path + ": cannot open " + what + " (no such file)";
    return std::nullopt;
  }
  // The size first: a huge file is refused before a byte of it is read into memory.
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > limits::kMaxJsonBytes) {
    *error = path + ": " + json_size_problem(size);
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in) {
    *error = path + ": cannot read " + what;
    return std::nullopt;
  }
  std::optional<json> doc = parse_json_text(buffer.str(), error);
  if (!doc) *error = path + ": " + *error;
  return doc;
}

}  // namespace impetus
