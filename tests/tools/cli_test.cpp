// End-to-end tests of the `impetus` program (IMPETUS_CLI), part 1: --version/--help, command-line
// and scene errors (exit 2, one `error:` line naming file and JSON path, nothing written) and
// `validate`. Runs, determinism and `check` are in cli_run_test.cpp; `query` is tested in
// cli_query_*_test.cpp.
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "tests/tools/cli_test_util.h"

namespace impetus::test {
namespace {

// ---- version, help, command line ------------------------------------------------------------

TEST_F(CliTest, VersionAndHelp) {
  CommandResult version = cli("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(std::regex_match(version.out, std::regex("impetus [0-9]+\\.[0-9]+\\.[0-9]+ \\((no MPI|MPI: .+)\\)\n")))
      << version.out;

  for (const char* args : {"--help", "help", "-h"}) {
    CommandResult help = cli(args);
    EXPECT_EQ(help.exit_code, 0) << args;
    for (const char* command : {"run", "validate", "query", "check"}) {
      EXPECT_CONTAINS(help.out, command) << args;
    }
  }
  for (const char* command : {"run", "validate", "query", "check"}) {
    CommandResult a = cli(std::string(command) + " --help");
    CommandResult b = cli(std::string("help ") + command);
    EXPECT_EQ(a.exit_code, 0) << command;
    EXPECT_EQ(b.exit_code, 0) << command;
    EXPECT_CONTAINS(a.out, std::string("usage: impetus ") + command);
    EXPECT_EQ(a.out, b.out);
  }
}

TEST_F(CliTest, UnknownCommandAndOptionsAreOneErrorLine) {
  write_text(path("scene.json"), pile_scene().dump());
  struct Case {
    std::string args;
    std::string mentions;
  };
  const std::vector<Case> cases = {
      {"frobnicate", "frobnicate"},
      {"--bogus", "--bogus"},
      {"run " + quoted("scene.json") + " --out " + quoted("out") + " --bogus", "--bogus"},
      {"run " + quoted("scene.json") + " --out " + quoted("out") + " --steps -3", "--steps"},
      {"run " + quoted("scene.json") + " --out " + quoted("out") + " --threads x", "--threads"},
      {"run " + quoted("scene.json") + " --out " + quoted("out") + " --log-level loud",
       "--log-level"},
      {"run " + quoted("scene.json") + " --out", "--out"},
      {"run " + quoted("scene.json"), "--out"},
      {"check " + quoted("scene.json") + " --exact --tol 1e-3 --golden " + quoted("g.json"),
       "--exact"},
  };
  for (const Case& c : cases) {
    CommandResult r = cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_CONTAINS(r.err, c.mentions);
    EXPECT_FALSE(fs::exists(path("out"))) << c.args;
  }
}

// ---- invalid scenes: one error line with file and JSON path, nothing written ------------------

TEST_F(CliTest, InvalidScenesWriteNothing) {
  json unknown_key = pile_scene();
  unknown_key["bodies"][1]["shape"] = {{"type", "sphere"}, {"radiuss", 0.25}};
  json bad_value = pile_scene();
  bad_value["bodies"][1]["shape"]["radius"] = -1;
  json bad_setting = pile_scene();
  bad_setting["settings"]["dt"] = "fast";
  write_text(path("unknown_key.json"), unknown_key.dump(2));
  write_text(path("bad_value.json"), bad_value.dump(2));
  write_text(path("bad_setting.json"), bad_setting.dump(2));
  write_text(path("malformed.json"), "{ \"format\": \"impetus-scene/1\", \"bodies\": [ }");

  struct Case {
    std::string file;
    std::vector<std::string> mentions;
  };
  const std::vector<Case> cases = {
      {"unknown_key.json", {"bodies[1].shape", "radiuss"}},
      {"bad_value.json", {"bodies[1].shape.radius"}},
      {"bad_setting.json", {"settings.dt"}},
      {"malformed.json", {}},
      {"missing.json", {}},
  };
  for (const Case& c : cases) {
    for (const char* command : {"run", "validate", "check"}) {
      std::string args = std::string(command) + " " + quoted(c.file);
      if (std::string(command) == "run") args += " --out " + quoted("out");
      if (std::string(command) == "check") {
        write_text(path("golden.json"),
                   R"({"format": "impetus-summary/1", "status": "ok", "steps": 1,
                       "state_hash": "0123456789abcdef", "bodies": {}})");
        args += " --golden " + quoted("golden.json") + " --out " + quoted("out");
      }
      CommandResult r = cli(args);
      EXPECT_EQ(r.exit_code, 2) << args;
      EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
      EXPECT_EQ(count_lines(r.err), 1) << r.err;
      EXPECT_CONTAINS(r.err, c.file);
      for (const std::string& m : c.mentions) EXPECT_CONTAINS(r.err, m) << args;
      EXPECT_FALSE(fs::exists(path("out"))) << args;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
}

TEST_F(CliTest, ValidatePrintsCounts) {
  write_text(path("scene.json"), pile_scene().dump());
  CommandResult r = cli("validate " + quoted("scene.json"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 1) << r.out;
  EXPECT_CONTAINS(r.out, "ok");
  EXPECT_CONTAINS(r.out, "8 bodies");
  EXPECT_CONTAINS(r.out, "120 steps");
}

}  // namespace
}  // namespace impetus::test
