// Replays through the built `impetus query` the query seeds of the fuzz target (tests/fuzz) and
// every query input with which it found a bug (tests/fuzz/regressions/query/): each must give
// exit 0 or 2, a result document on stdout (or one error line for a document refused as a
// whole), `error:` lines only on stderr, and the outcome the table below records.
#include <map>

#include "tests/fuzz/fuzz_inputs.h"
#include "tests/tools/cli_test_util.h"

namespace impetus::test {
namespace {

const fs::path kFuzzDir = fuzz_dir();

// Finding → expected exit status and a substring of stderr ("" = no error output).
const std::map<std::string, std::pair<int, std::string>> kQueryFindings = {
    // A message quoting a long non-ASCII string was cut inside a UTF-8 character, and dumping
    // the result slot threw: exit 4 "internal: [json.exception.type_error.316]" before.
    {"utf8_cut_in_message.json", {2, "queries[0].a.shape.radius: must be a positive number"}},
};

class CliFuzzRegressions : public CliTest {
 protected:
  // Runs `impetus query` on a copy of `input` beside a link to scenes/meshes (relative OBJ
  // paths resolve against scenes/ in the fuzz target) and checks the shape of its answer.
  CommandResult run_query(const fs::path& input) {
    if (!fs::exists(path("meshes"))) {
      fs::create_directory_symlink(fs::path(IMPETUS_SOURCE_DIR) / "scenes" / "meshes",
                                   path("meshes"));
    }
    fs::copy_file(input, path("q.json"), fs::copy_options::overwrite_existing);
    CommandResult r = cli("query " + quoted("q.json"));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << input << ": exit " << r.exit_code;
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_EQ(line.rfind("error: ", 0), 0u) << input << ": " << line;
    }
    if (!r.out.empty()) {
      const json doc = json::parse(r.out);
      EXPECT_EQ(doc.at("format"), "impetus-query-result/1");
    } else {
      EXPECT_EQ(count_lines(r.err), 1) << input << ": " << r.err;
    }
    return r;
  }
};

TEST_F(CliFuzzRegressions, QuerySeedsAreAnswered) {
  const std::vector<fs::path> seeds = files_in(kFuzzDir / "corpus" / "query");
  ASSERT_GE(seeds.size(), 2u);
  for (const fs::path& seed : seeds) {
    CommandResult r = run_query(seed);
    EXPECT_EQ(r.exit_code, 0) << seed << ": " << r.err;
  }
}

TEST_F(CliFuzzRegressions, QueryFindingsGiveTheirExpectedOutcome) {
  const std::vector<fs::path> findings = files_in(kFuzzDir / "regressions" / "query");
  EXPECT_EQ(findings.size(), kQueryFindings.size()) << "every finding needs its expectation";
  for (const fs::path& finding : findings) {
    auto expected = kQueryFindings.find(finding.filename().string());
    ASSERT_NE(expected, kQueryFindings.end()) << finding << " has no expectation";
    CommandResult r = run_query(finding);
    EXPECT_EQ(r.exit_code, expected->second.first) << finding << ": " << r.err;
    if (expected->second.second.empty()) {
      EXPECT_EQ(r.err, "") << finding;
    } else {
      EXPECT_CONTAINS(r.err, expected->second.second);
    }
  }
}

}  // namespace
}  // namespace impetus::test
