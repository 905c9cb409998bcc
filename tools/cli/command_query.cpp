// `impetus query FILE|-`: geometric queries (../shared/spec/query-format.md) answered with the
// simulator's own code, one JSON document on stdout. This file reads the input and prints;
// query_document.cpp answers it.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "engine/input_limits.h"
#include "engine/json_text.h"
#include "tools/cli/commands.h"
#include "tools/cli/query_document.h"
#include "tools/cli/scene_command.h"

namespace impetus::cli {

namespace {

// Reads FILE or stdin; false with `error` set.
// At most limits::kMaxJsonBytes + 1 bytes are read, so that an endless stdin or a huge file is
// refused without holding it in memory.
bool read_input(const std::string& file, std::string* text, std::string* error) {
  const std::string label = file == "-" ? "<stdin>" : file;
  std::ifstream in_file;
  if (file != "-") {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) {
      *error = file + ": cannot open file (a directory)";
      return false;
    }
    in_file.open(file, std::ios::binary);
    if (!in_file) {
      *error = file + ": cannot open file";
      return false;
    }
  }
  std::istream& in = file == "-" ? std::cin : in_file;
  text->clear();
  char buffer[65536];
  while (in && text->size() <= limits::kMaxJsonBytes) {
    in.read(buffer, sizeof buffer);
    text->append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) {
    *error = label + ": read error";
    return false;
  }
  if (text->size() > limits::kMaxJsonBytes) {
    *error = label + ": " + json_size_problem(text->size()) + " (read so far)";
    return false;
  }
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
  QueryAnswers answers = answer_query_document(text, label, base_dir);
  for (const std::string& e : answers.errors) print_error(e);
  if (answers.output.empty()) return kExitInvalid;
  std::fputs(answers.output.c_str(), stdout);
  return answers.errors.empty() ? kExitOk : kExitInvalid;
}

}  // namespace impetus::cli
