// The document level of `impetus query`: parse, check the envelope, answer every slot (each
// query type in its own query_<type>.cpp, query_types.h).
#include "tools/cli/query_document.h"

#include <optional>

#include "engine/json_text.h"
#include "tools/cli/query_types.h"

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

}  // namespace

QueryAnswers answer_query_document(const std::string& text, const std::string& label,
                                   const std::string& base_dir) {
  QueryAnswers answers;
  auto fail = [&](const std::string& problem) {
    answers.errors.push_back(label + ": " + problem);
    return answers;
  };
  std::string parse_error;
  std::optional<Json> parsed = parse_json_text(text, &parse_error);
  if (!parsed) return fail(parse_error);
  const Json& doc = *parsed;
  if (!doc.is_object()) {
    return fail("(root): must be an object");
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "format" && key != "queries") {
      return fail(key + ": unknown key");
    }
  }
  auto format = doc.find("format");
  if (format == doc.end() || *format != "impetus-query/1") {
    return fail("format: must be \"impetus-query/1\"");
  }
  auto queries = doc.find("queries");
  if (queries == doc.end() || !queries->is_array()) {
    return fail("queries: must be an array");
  }

  // Each result on its own line: readable, and still one JSON document.
  std::string out = "{\"format\": \"impetus-query-result/1\", \"results\": [";
  for (std::size_t i = 0; i < queries->size(); ++i) {
    std::string slot_error;
    OrderedJson slot = answer_query((*queries)[i], i, base_dir, &slot_error);
    if (!slot_error.empty()) answers.errors.push_back(label + ": " + slot_error);
    // Messages quote parts of the input, which is valid UTF-8; `replace` still guarantees a
    // result document even if a message were not.
    out += (i == 0 ? "\n  " : ",\n  ") +
           slot.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  }
  out += queries->empty() ? "]}\n" : "\n]}\n";
  answers.output = std::move(out);
  return answers;
}

}  // namespace impetus::cli
