// `impetus query FILE|-`: geometric queries (../shared/spec/query-format.md) answered with the
// simulator's own code, one JSON document on stdout. This file reads the document and fills the
// result slots; each query type is answered in its own query_<type>.cpp (query_types.h).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli/commands.h"
#include "tools/cli/query_types.h"
#include "tools/cli/scene_command.h"

namespace impetus::cli {

namespace {

struct QueryType {
  const char* name;
  OrderedJson (*answer)(const Json& query, const std::string& path, const std::string& base_dir);
};

// In the order of query-format.md's table.
constexpr QueryType kQueryTypes[] = {
    {"closest_approach", answer_closest_approach},
    {"distance", answer_distance},
    {"mcd", answer_mcd},
    {"plane_toi", answer_plane_toi},
    {"phong_distance", answer_phong_distance},
};

// One slot of the results: {"id": ..., fields...} or {"id": ..., "error": "..."}.
OrderedJson answer_query(const Json& query, std::size_t index, const std::string& base_dir,
                         std::string* error) {
  const std::string path = "queries[" + std::to_string(index) + "]";
  OrderedJson slot = OrderedJson::object();
  slot["id"] = nullptr;
  try {
    if (!query.is_object()) throw QueryError{path + ": must be an object"};
    auto id = query.find("id");
    if (id != query.end()) {
      if (!id->is_string() && !id->is_number()) {
        throw QueryError{path + ".id: must be a string or a number"};
      }
      slot["id"] = OrderedJson::parse(id->dump());
    } else {
      throw QueryError{path + ": missing key 'id'"};
    }
    auto type = query.find("type");
    if (type == query.end()) throw QueryError{path + ": missing key 'type'"};
    if (!type->is_string()) throw QueryError{path + ".type: must be a string"};
    const std::string name = type->get<std::string>();
    const QueryType* found = nullptr;
    std::string names;
    for (const QueryType& t : kQueryTypes) {
      if (name == t.name) found = &t;
      names += std::string(names.empty() ? "" : ", ") + t.name;
    }
    if (found == nullptr) {
      throw QueryError{path + ".type: unknown query type '" + name + "' (" + names + ")"};
    }
    OrderedJson fields = found->answer(query, path, base_dir);
    for (auto& [key, value] : fields.items()) slot[key] = value;
  } catch (const QueryError& e) {
    *error = e.message;
    slot["error"] = e.message;
  } catch (const Json::exception& e) {
    // Every value is type-checked before use, so this is a last resort that keeps the other
    // slots answered.
    *error = path + ": " + e.what();
    slot["error"] = *error;
  }
  return slot;
}

// Reads FILE or stdin; false with `error` set.
bool read_input(const std::string& file, std::string* text, std::string* error) {
  if (file == "-") {
    text->assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    *error = file + ": cannot open file";
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *text = buffer.str();
  return true;
}

}  // namespace

int command_query(const std::vector<std::string>& args) {
  std::string error;
  std::optional<ParsedArgs> parsed = parse_args("query", args, {}, &error);
  if (!parsed) {
    print_error(error);
    return kExitInvalid;
  }
  if (parsed->has("--help")) {
    std::fputs(command_help("query").c_str(), stdout);
    return kExitOk;
  }
  if (!setup_logging(*parsed, &error)) {
    print_error("query: " + error);
    return kExitInvalid;
  }
  if (parsed->positionals.size() != 1) {
    print_error(parsed->positionals.empty()
                    ? "query: missing FILE or - (see 'impetus query --help')"
                    : "query: unexpected argument '" + parsed->positionals[1] + "'");
    return kExitInvalid;
  }
  const std::string& file = parsed->positionals.front();
  const std::string label = file == "-" ? "<stdin>" : file;
  // Relative OBJ paths in shapes resolve against the query file's folder (stdin: the cwd).
  const std::string base_dir =
      file == "-" ? std::string(".") : std::filesystem::path(file).parent_path().string();

  std::string text;
  if (!read_input(file, &text, &error)) {
    print_error(error);
    return kExitInvalid;
  }
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    print_error(label + ": invalid JSON: " + what.substr(what.find(' ') + 1));
    return kExitInvalid;
  }
  if (!doc.is_object()) {
    print_error(label + ": (root): must be an object");
    return kExitInvalid;
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "format" && key != "queries") {
      print_error(label + ": " + key + ": unknown key");
      return kExitInvalid;
    }
  }
  auto format = doc.find("format");
  if (format == doc.end() || *format != "impetus-query/1") {
    print_error(label + ": format: must be \"impetus-query/1\"");
    return kExitInvalid;
  }
  auto queries = doc.find("queries");
  if (queries == doc.end() || !queries->is_array()) {
    print_error(label + ": queries: must be an array");
    return kExitInvalid;
  }

  // Each result on its own line: readable, and still one JSON document.
  bool any_error = false;
  std::string out = "{\"format\": \"impetus-query-result/1\", \"results\": [";
  for (std::size_t i = 0; i < queries->size(); ++i) {
    std::string slot_error;
    OrderedJson slot = answer_query((*queries)[i], i, base_dir, &slot_error);
    if (!slot_error.empty()) {
      any_error = true;
      print_error(label + ": " + slot_error);
    }
    out += (i == 0 ? "\n  " : ",\n  ") + slot.dump();
  }
  out += queries->empty() ? "]}\n" : "\n]}\n";
  std::fputs(out.c_str(), stdout);
  return any_error ? kExitInvalid : kExitOk;
}

}  // namespace impetus::cli
