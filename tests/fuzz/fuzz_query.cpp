// libFuzzer target: bytes → an impetus-query/1 document → its answers (the code behind
// `impetus query`, tools/cli/query_document.h). Relative OBJ paths resolve against scenes/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/cli/query_document.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  impetus::cli::QueryAnswers answers =
      impetus::cli::answer_query_document(text, "fuzz.json", IMPETUS_SOURCE_DIR "/scenes");
  // Either a result document, or exactly one error for the document as a whole.
  if (answers.output.empty() && answers.errors.size() != 1) __builtin_trap();
  for (const std::string& e : answers.errors) {
    if (e.rfind("fuzz.json: ", 0) != 0) __builtin_trap();
  }
  return 0;
}
