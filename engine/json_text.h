#pragma once
// JSON text → document, with the problems a DOM cannot show afterwards reported by position or
// JSON path: malformed text ("malformed JSON at line 3, column 5: ..."), a key repeated within
// one object ("bodies[1].shape.radius: duplicate key") and a number too large to be finite
// ("settings.dt: must be a finite number (number overflow parsing '1e999')").
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace impetus {

/// Parses `text`; on failure returns nullopt and sets `error` (no file name in it). Never throws
/// nlohmann exceptions.
std::optional<nlohmann::json> parse_json_text(const std::string& text, std::string* error);

/// Reads and parses the file `path`; on failure returns nullopt and sets `error` to
/// "FILE: problem" ("cannot open <what> (no such file)", a parse_json_text problem, ...).
std::optional<nlohmann::json> read_json_file(const std::string& path, const std::string& what,
                                             std::string* error);

}  // namespace impetus
