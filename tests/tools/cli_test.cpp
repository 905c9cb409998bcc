// End-to-end tests of the `impetus` program (IMPETUS_CLI), part 1: --version/--help, command-line
// and scene errors (exit 2, one `error:` line naming file and JSON path, nothing written),
// `validate` and `query`. Runs, determinism and `check` are in cli_run_test.cpp.
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
  EXPECT_TRUE(std::regex_match(version.out, std::regex("impetus [0-9]+\\.[0-9]+\\.[0-9]+\n")))
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

// ---- query ------------------------------------------------------------------------------------

TEST_F(CliTest, QueryDistanceMatchesClosedFormAndReportsBadSlots) {
  const json queries = json::parse(R"({
    "format": "impetus-query/1",
    "queries": [
      { "id": "apart", "type": "distance",
        "a": { "shape": { "type": "sphere", "radius": 0.5 }, "position": [0, 0, 0] },
        "b": { "shape": { "type": "sphere", "radius": 0.25 }, "position": [2, 1, 0],
               "orientation": [0, 0, 1, 0] } },
      { "id": "bad", "type": "distance",
        "a": { "shape": { "type": "sphere", "radius": -1 } },
        "b": { "shape": { "type": "sphere", "radius": 1 } } },
      { "id": 7, "type": "mcd", "a": {}, "b": {} },
      { "id": "overlap", "type": "distance",
        "a": { "shape": { "type": "sphere", "radius": 1 }, "position": [1, 1, 1] },
        "b": { "shape": { "type": "sphere", "radius": 1 }, "position": [1, 1, 2.5] } }
    ]
  })");
  write_text(path("q.json"), queries.dump(2));
  CommandResult r = cli("query " + quoted("q.json"));
  EXPECT_EQ(r.exit_code, 2);
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc.at("format"), "impetus-query-result/1");
  const json& results = doc.at("results");
  ASSERT_EQ(results.size(), 4u);

  // Separated spheres: d = |c_b − c_a| − r_a − r_b, witnesses on the centre line.
  const json& apart = results[0];
  EXPECT_EQ(apart.at("id"), "apart");
  const double len = std::sqrt(5.0);
  const double n[3] = {2 / len, 1 / len, 0};
  EXPECT_NEAR(apart.at("distance").get<double>(), len - 0.75, 1e-12);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(apart.at("normal")[k].get<double>(), n[k], 1e-12);
    EXPECT_NEAR(apart.at("point_a")[k].get<double>(), 0.5 * n[k], 1e-12);
    const double cb[3] = {2, 1, 0};
    EXPECT_NEAR(apart.at("point_b")[k].get<double>(), cb[k] - 0.25 * n[k], 1e-12);
  }

  EXPECT_EQ(results[1].at("id"), "bad");
  EXPECT_CONTAINS(results[1].at("error").get<std::string>(), "queries[1].a.shape.radius");
  EXPECT_EQ(results[2].at("id"), 7);
  EXPECT_CONTAINS(results[2].at("error").get<std::string>(), "query type 'mcd' is not implemented yet");

  // Overlapping spheres: negative distance, and point_b − point_a = distance · normal.
  const json& overlap = results[3];
  EXPECT_EQ(overlap.at("id"), "overlap");
  EXPECT_NEAR(overlap.at("distance").get<double>(), -0.5, 1e-12);
  EXPECT_NEAR(overlap.at("normal")[2].get<double>(), 1.0, 1e-12);
  for (int k = 0; k < 3; ++k) {
    const double diff =
        overlap.at("point_b")[k].get<double>() - overlap.at("point_a")[k].get<double>();
    EXPECT_NEAR(diff, -0.5 * overlap.at("normal")[k].get<double>(), 1e-12);
  }
  EXPECT_FALSE(results[0].contains("error"));
  EXPECT_FALSE(results[3].contains("error"));
}

TEST_F(CliTest, QueryFromStdinAndInvalidDocuments) {
  write_text(path("q.json"), R"({"format": "impetus-query/1", "queries": [
    {"id": 1, "type": "distance",
     "a": {"shape": {"type": "box", "half_extents": [1, 1, 1]}},
     "b": {"shape": {"type": "plane", "normal": [0, 0, 1], "offset": -3}}}]})");
  CommandResult r = cli("query -", path("q.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.at("results").size(), 1u);
  // The box's lowest face (z = −1) is 2 above the plane's surface (z = −3, solid below).
  EXPECT_NEAR(doc.at("results")[0].at("distance").get<double>(), 2.0, 1e-12);

  write_text(path("notjson.json"), "{\"format\": ");
  write_text(path("wrongformat.json"), R"({"format": "impetus-scene/1", "queries": []})");
  for (const char* file : {"notjson.json", "wrongformat.json", "absent.json"}) {
    CommandResult bad = cli(std::string("query ") + quoted(file));
    EXPECT_EQ(bad.exit_code, 2) << file;
    EXPECT_TRUE(bad.out.empty()) << bad.out;
    EXPECT_EQ(count_lines(bad.err), 1) << bad.err;
    EXPECT_CONTAINS(bad.err, file);
  }
}

}  // namespace
}  // namespace impetus::test
