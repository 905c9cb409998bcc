#pragma once
// One impetus-query/1 document (../shared/spec/query-format.md) in, its result document out:
// the whole of `impetus query` except reading the input and printing. Kept apart from the
// command so that the query fuzz target (tests/fuzz) drives exactly what the CLI runs.
#include <string>
#include <vector>

namespace impetus::cli {

struct QueryAnswers {
  /// The impetus-query-result/1 document for stdout; empty when the document as a whole is
  /// invalid (then `errors` holds its one problem).
  std::string output;
  /// "LABEL: JSON.PATH: problem" per invalid query (or for the invalid document).
  std::vector<std::string> errors;
};

/// Answers the document `text`. `label` names the input in messages ("q.json", "<stdin>");
/// relative OBJ paths resolve against `base_dir`. The JSON is parsed under the limits of
/// engine/input_limits.h. Never throws for bad input.
QueryAnswers answer_query_document(const std::string& text, const std::string& label,
                                   const std::string& base_dir);

}  // namespace impetus::cli
