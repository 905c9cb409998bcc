#pragma once
// JSON text → document, with the problems a DOM cannot show afterwards reported by position or
// JSON path: malformed text ("malformed JSON at line 3, column 5: ..."), a key repeated within
// one object ("bodies[1].shape.radius: duplicate key") and a number too large to be finite
// ("settings.dt: must be a finite number (number overflow parsing '1e999')").
// The limits of engine/input_limits.h are enforced while parsing: a document over
// kMaxJsonBytes is refused before the parser sees it, and the first container nested deeper
// than kMaxJsonDepth or the first string longer than kMaxJsonStringBytes stops the parser at
// once, with its JSON path ("bodies[0][0]...[0]: nested deeper than 64 levels").
#include <cstdint>
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
/// "document of N bytes is larger than M bytes (the limit)": for callers that check a file's
/// size before reading it.
std::string json_size_problem(std::uintmax_t bytes);

}  // namespace impetus
