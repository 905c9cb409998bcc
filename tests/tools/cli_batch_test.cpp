// End-to-end tests of `impetus batch` (tools/docs/batch-format.md): manifest errors, sweeps and
// overrides against closed forms and against edited scene files, failures that do not stop the
// others, report.json / report.txt / JUnit, goldens, --jobs, --only.
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/cli_test_util.h"

namespace impetus::test {
namespace {

// A report without what may differ between two batches of the same runs.
json without_timings(json report) {
  report.erase("execution");
  for (json& run : report.at("runs")) {
    run.erase("timings");
    run.erase("rank");
  }
  return report;
}

json summary_without_timings(json summary) {
  for (const char* key : {"wall_seconds", "ms_per_step", "ms_per_step_by_phase"}) {
    summary.at("stats").erase(key);
  }
  return summary;
}

// trajectory.jsonl with each frame's wall-clock phase times removed (everything else must match
// byte for byte).
std::string trajectory_without_timings(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    json frame = json::parse(line);
    frame.erase("ms_per_step_by_phase");
    out += frame.dump() + "\n";
  }
  return out;
}

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (std::size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

// One sphere in empty space, no gravity: it moves at constant velocity, x(t) = x0 + v t.
json free_flight_scene() {
  return json::parse(R"({
    "format": "impetus-scene/1", "name": "flight",
    "settings": { "gravity": [0, 0, 0], "dt": 0.01, "duration": 0.5, "threads": 1 },
    "bodies": [ { "name": "probe", "shape": { "type": "sphere", "radius": 0.1 },
                  "position": [1, 2, 3], "linear_velocity": [0, 0, 0] } ]
  })");
}

class BatchTest : public CliTest {
 protected:
  // Writes the manifest and runs `impetus batch` on it with `options`.
  CommandResult batch(const json& manifest, const std::string& options = "") {
    write_text(path("manifest.json"), manifest.dump(2));
    return cli("batch " + quoted("manifest.json") + " --out " + quoted("out") + " " + options);
  }
  json report() { return read_json(path("out/report.json")); }
};

// ---- invalid manifests: one error line with file and JSON path, nothing written ----------------

TEST_F(BatchTest, InvalidManifestsExitTwoNamingFileAndPathAndWriteNothing) {
  write_text(path("scene.json"), free_flight_scene().dump());
  const json run = {{"id", "a"}, {"scene", "scene.json"}};
  struct Case {
    json manifest;
    std::string where;
  };
  std::vector<Case> cases = {
      {{{"format", "impetus-batch/1"}, {"runz", json::array({run})}}, "runz: unknown key"},
      {{{"format", "impetus-batch/2"}, {"runs", json::array({run})}}, "format: must be"},
      {{{"format", "impetus-batch/1"}}, "no runs"},
      {{{"format", "impetus-batch/1"}, {"runs", json::array({run, run})}}, "runs[1]: duplicate run id \"a\""},
      {{{"format", "impetus-batch/1"},
        {"runs", json::array({{{"id", "a/b"}, {"scene", "scene.json"}}})}}, "runs[0].id"},
      {{{"format", "impetus-batch/1"},
        {"runs", json::array({{{"id", "a"}, {"scene", "scene.json"},
                               {"checks", {{"stats", {{"max_penetration", {{"maximum", 1}}}}}}}}})}},
       "runs[0].checks.stats.max_penetration.maximum: unknown key"},
      {{{"format", "impetus-batch/1"},
        {"runs", json::array({{{"id", "a"}, {"scene", "scene.json"},
                               {"overrides", {{"joints", json::object()}}}}})}},
       "runs[0].overrides.joints: unknown key"},
      {{{"format", "impetus-batch/1"},
        {"sweeps", json::array({{{"id", "s"}, {"scene", "scene.json"},
                                 {"parameters", {{"v", {1, 2}}}},
                                 {"overrides", {{"settings", {{"seed", "${w}"}}}}}}})}},
       "sweeps[0].overrides.settings.seed: \"${w}\" names no parameter"},
      {{{"format", "impetus-batch/1"},
        {"sweeps", json::array({{{"id", "s${v}"}, {"scene", "scene.json"},
                                 {"parameters", {{"v", {1, 2}}, {"w", {1, 2}}}}}})}},
       "duplicate run id \"s1\""},
  };
  for (const Case& c : cases) {
    fs::remove_all(path("out"));
    CommandResult r = batch(c.manifest);
    EXPECT_EQ(r.exit_code, 2) << c.manifest.dump();
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_CONTAINS(r.err, path("manifest.json").string() + ": ");
    EXPECT_CONTAINS(r.err, c.where);
    EXPECT_FALSE(fs::exists(path("out"))) << c.where;
  }
  write_text(path("broken.json"), "{\"format\": \"impetus-batch/1\",\n  \"runs\": [}");
  CommandResult r = cli("batch " + quoted("broken.json") + " --out " + quoted("out"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "line 2");
  EXPECT_FALSE(fs::exists(path("out")));
  r = cli("batch " + quoted("none.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "none.json: cannot open");
}

// ---- sweeps and overrides ---------------------------------------------------------------------

TEST_F(BatchTest, SweepExpandsToReadableIdsAndAppliesEachCombination) {
  write_text(path("flight.json"), free_flight_scene().dump());
  const json manifest = json::parse(R"({
    "format": "impetus-batch/1",
    "sweeps": [ { "id": "fly", "scene": "flight.json",
                  "parameters": { "v": [0.5, -2], "steps": [10, 35] },
                  "overrides": { "settings": { "steps": "${steps}" },
                                 "bodies": { "probe": { "linear_velocity": ["${v}", 0, 1] } } } } ]
  })");
  CommandResult r = batch(manifest);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rep = report();
  const std::vector<std::string> ids = {"fly-steps=10-v=0.5", "fly-steps=10-v=-2",
                                        "fly-steps=35-v=0.5", "fly-steps=35-v=-2"};
  ASSERT_EQ(rep.at("runs").size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const json& run = rep.at("runs")[i];
    EXPECT_EQ(run.at("id"), ids[i]);
    EXPECT_EQ(run.at("result"), "passed");
    const double v = run.at("parameters").at("v");
    const long long n = run.at("parameters").at("steps");
    // Constant velocity from the override, for the overridden number of steps (the scene gives
    // a duration of 50 steps instead): x = x0 + v n dt.
    const json summary = read_json(path("out/" + ids[i] + "/summary.json"));
    EXPECT_EQ(summary.at("steps"), n);
    EXPECT_EQ(run.at("steps"), n);
    EXPECT_EQ(run.at("state_hash"), summary.at("state_hash"));
    const json& p = summary.at("bodies").at("probe").at("position");
    EXPECT_NEAR(p[0].get<double>(), 1 + v * n * 0.01, 1e-12);
    EXPECT_NEAR(p[1].get<double>(), 2, 1e-12);
    EXPECT_NEAR(p[2].get<double>(), 3 + 1.0 * n * 0.01, 1e-12);
    EXPECT_TRUE(fs::exists(path("out/" + ids[i] + "/trajectory.jsonl")));
  }
  // One progress line per finished run.
  EXPECT_EQ(count_of(r.err, "] fly-"), 4) << r.err;
}

TEST_F(BatchTest, OverridesGiveTheRunOfTheEditedSceneFile) {
  json scene = pile_scene();
  scene["settings"].erase("steps");
  scene["settings"]["duration"] = 2.0;  // the override of steps must replace it
  write_text(path("pile.json"), scene.dump());
  const json overrides = json::parse(R"({
    "settings": { "steps": 80, "solver": "sequential_impulse", "seed": 11 },
    "materials": { "default": { "friction": 0.2 } },
    "bodies": { "crate": { "position": [0.5, 0.5, 1.5], "mass": 3 } },
    "arrays": { "s": { "jitter": 0.05,
                       "body": { "shape": { "type": "box", "half_extents": [0.1, 0.15, 0.2], "radius": null } } } }
  })");  // a merge patch: null removes the sphere's radius
  json edited = scene;
  edited["settings"].erase("duration");
  edited["settings"]["steps"] = 80;
  edited["settings"]["solver"] = "sequential_impulse";
  edited["settings"]["seed"] = 11;
  edited["materials"]["default"]["friction"] = 0.2;
  edited["bodies"][2]["position"] = {0.5, 0.5, 1.5};
  edited["bodies"][2]["mass"] = 3;
  edited["arrays"][0]["jitter"] = 0.05;
  edited["arrays"][0]["body"]["shape"] = {{"type", "box"}, {"half_extents", {0.1, 0.15, 0.2}}};
  write_text(path("edited.json"), edited.dump());
  ASSERT_EQ(cli("run " + quoted("edited.json") + " --out " + quoted("edited_out")).exit_code, 0);
  ASSERT_EQ(cli("run " + quoted("pile.json") + " --out " + quoted("plain_out")).exit_code, 0);
  const std::string expected = read_json(path("edited_out/summary.json")).at("state_hash");
  const std::string plain = read_json(path("plain_out/summary.json")).at("state_hash");
  ASSERT_NE(expected, plain);  // the overrides change the run, so equality below means something

  json manifest = {{"format", "impetus-batch/1"},
                   {"runs", json::array({{{"id", "over"}, {"scene", "pile.json"}, {"overrides", overrides}}})}};
  CommandResult r = batch(manifest);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(report().at("runs")[0].at("state_hash"), expected);
  EXPECT_EQ(read_json(path("out/over/summary.json")).at("state_hash"), expected);
}

// ---- failures, errors, reports ----------------------------------------------------------------

TEST_F(BatchTest, FailingDivergingAndInvalidRunsAreReportedAndOthersStillRun) {
  write_text(path("pile.json"), pile_scene().dump());
  const json manifest = json::parse(R"({
    "format": "impetus-batch/1", "name": "mixed",
    "runs": [
      { "id": "good", "scene": "pile.json",
        "checks": { "stats": { "max_penetration": { "max": 0.05 } },
                    "bodies": { "*": { "position": { "min": [null, null, 0] } } } } },
      { "id": "diverges", "scene": "pile.json",
        "overrides": { "bodies": { "ball": { "linear_velocity": [2e4, 0, 0] } } } },
      { "id": "no_such_body", "scene": "pile.json",
        "overrides": { "bodies": { "nobody": { "mass": 1 } } } },
      { "id": "bound_fails", "scene": "pile.json",
        "checks": { "stats": { "contacts_max": { "max": 0 } },
                    "bodies": { "*": { "position": { "max": [null, null, 0.3] } } } } },
      { "id": "missing_scene", "scene": "nowhere.json" },
      { "id": "diverged_expected", "scene": "pile.json", "checks": { "status": "diverged" },
        "overrides": { "bodies": { "ball": { "linear_velocity": [2e4, 0, 0] } } } }
    ]
  })");
  CommandResult r = batch(manifest, "--junit " + quoted("junit.xml"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json rep = report();
  EXPECT_EQ(rep.at("format"), "impetus-batch-report/1");
  EXPECT_EQ(rep.at("totals"), json::parse(R"({"runs": 6, "passed": 2, "failed": 2, "errors": 2})"));
  const json& runs = rep.at("runs");
  EXPECT_EQ(runs[0].at("result"), "passed");
  for (const json& c : runs[0].at("checks")) EXPECT_TRUE(c.at("passed").get<bool>()) << c;

  EXPECT_EQ(runs[1].at("result"), "failed");
  EXPECT_EQ(runs[1].at("status"), "diverged");
  EXPECT_EQ(runs[1].at("steps"), 1);
  EXPECT_EQ(runs[1].at("failure").at("check"), "status");
  EXPECT_CONTAINS(runs[1].at("error").get<std::string>(), "ball");

  EXPECT_EQ(runs[2].at("result"), "error");
  EXPECT_EQ(runs[2].at("status"), "invalid");
  EXPECT_CONTAINS(runs[2].at("error").get<std::string>(), "runs[2].overrides.bodies.nobody");
  EXPECT_FALSE(fs::exists(path("out/no_such_body")));

  const json& failed = runs[3];
  EXPECT_EQ(failed.at("result"), "failed");
  const json& contacts = failed.at("checks")[1];
  EXPECT_EQ(contacts.at("check"), "stats.contacts_max");
  EXPECT_FALSE(contacts.at("passed").get<bool>());
  const json pile_summary = read_json(path("out/bound_fails/summary.json"));
  EXPECT_EQ(contacts.at("measured"), pile_summary.at("stats").at("contacts_max"));
  EXPECT_EQ(contacts.at("max"), 0);
  // Bodies above z = 0.3 at the end, from the summary itself, worst first.
  const json& above = failed.at("checks")[2];
  EXPECT_FALSE(above.at("passed").get<bool>());
  std::string highest;
  double top = 0.3;
  int outside = 0;
  for (const auto& [name, body] : pile_summary.at("bodies").items()) {
    const double z = body.at("position")[2];
    if (z > 0.3) ++outside;
    if (z > top) {
      top = z;
      highest = name;
    }
  }
  ASSERT_GT(outside, 0);
  EXPECT_EQ(above.at("measured").at("outside"), outside);
  EXPECT_EQ(above.at("worst")[0].at("name"), highest);
  EXPECT_NEAR(above.at("worst")[0].at("excess").get<double>(), top - 0.3, 1e-12);

  EXPECT_EQ(runs[4].at("result"), "error");
  EXPECT_CONTAINS(runs[4].at("error").get<std::string>(), "nowhere.json");
  EXPECT_EQ(runs[5].at("result"), "passed");

  // index.html: a row per run; the runs that wrote results link their own report page.
  const std::string index = read_text(path("out/index.html"));
  EXPECT_EQ(count_of(index, "<tr><td>"), 6);
  for (const char* id : {"good", "diverges", "bound_fails", "diverged_expected"}) {
    EXPECT_TRUE(fs::exists(path(std::string("out/") + id + "/report.html"))) << id;
    EXPECT_CONTAINS(index, std::string("<a href=\"") + id + "/report.html\">" + id + "</a>");
  }
  EXPECT_CONTAINS(index, "<tr><td>missing_scene</td><td class=\"error\">");
  EXPECT_CONTAINS(index, "6 runs: 2 passed, 2 failed, 2 errors");

  // report.txt: one row per run and the failures.
  const std::string text = read_text(path("out/report.txt"));
  EXPECT_CONTAINS(text, "6 runs, 2 passed, 2 failed, 2 errors");
  EXPECT_TRUE(std::regex_search(text, std::regex("\\nbound_fails +failed +ok +120 ")));
  EXPECT_CONTAINS(text, "bound_fails: stats.contacts_max: ");

  // JUnit: one testcase per run, <failure> for checks, <error> for runs that could not run.
  const std::string xml = read_text(path("junit.xml"));
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mixed\" tests=\"6\" failures=\"2\" errors=\"2\"", 0), 0u) << xml;
  EXPECT_EQ(count_of(xml, "<testcase "), 6);
  EXPECT_EQ(count_of(xml, "<failure "), 2);
  EXPECT_EQ(count_of(xml, "<error "), 2);
  EXPECT_EQ(count_of(xml, "</testcase>"), 4);
  EXPECT_CONTAINS(xml, "<failure type=\"stats.contacts_max\" message=\"stats.contacts_max: ");
  EXPECT_CONTAINS(xml, highest + ": [2] ");  // the worst body of the failed position bound
  EXPECT_CONTAINS(xml, "&quot;nobody&quot;");  // escaped
  EXPECT_EQ(count_of(xml, "<testsuite "), 1);
  EXPECT_CONTAINS(xml, "</testsuite>\n</testsuites>\n");
}

TEST_F(BatchTest, GoldensAreWrittenByUpdateAndCompared) {
  write_text(path("pile.json"), pile_scene().dump());
  json manifest = json::parse(R"({
    "format": "impetus-batch/1",
    "runs": [ { "id": "pile", "scene": "pile.json",
                "checks": { "golden": { "file": "goldens/pile.json", "tol": 1e-9 } } },
              { "id": "pile_exact", "scene": "pile.json",
                "checks": { "golden": { "file": "goldens/pile_exact.json", "exact": true } } } ]
  })");
  CommandResult r = batch(manifest);
  EXPECT_EQ(r.exit_code, 1);  // no goldens yet
  EXPECT_CONTAINS(report().at("runs")[0].at("failure").at("message").get<std::string>(), "goldens/pile.json");

  r = batch(manifest, "--update-goldens");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(path("goldens/pile.json")), read_text(path("out/pile/summary.json")));
  EXPECT_TRUE(report().at("runs")[0].at("checks")[1].at("updated").get<bool>());

  r = batch(manifest);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(report().at("runs")[0].at("checks")[1].at("measured"), 0.0);

  // A changed run fails both goldens; the report names the worst body (the pushed one).
  manifest["runs"][0]["overrides"] = {{"bodies", {{"crate", {{"linear_velocity", {0, 0.3, 0}}}}}}};
  manifest["runs"][1]["overrides"] = manifest["runs"][0]["overrides"];
  r = batch(manifest, "--junit " + quoted("junit.xml"));
  EXPECT_EQ(r.exit_code, 1);
  const json runs = report().at("runs");
  const json& golden = runs[0].at("checks")[1];
  EXPECT_FALSE(golden.at("passed").get<bool>());
  EXPECT_GT(golden.at("measured").get<double>(), 1e-9);
  EXPECT_EQ(golden.at("worst_bodies")[0].at("name"), "crate");
  EXPECT_EQ(runs[1].at("checks")[1].at("expected"),
            read_json(path("goldens/pile_exact.json")).at("state_hash"));
  const std::string xml = read_text(path("junit.xml"));
  EXPECT_CONTAINS(xml, "<failure type=\"golden\" message=\"golden: max error ");
  EXPECT_CONTAINS(xml, "(worst body crate)");
  EXPECT_CONTAINS(xml, "    crate: position ");
}

TEST_F(BatchTest, JobsGiveByteIdenticalResultsToASerialBatch) {
  setenv("IMPETUS_IGNORE_LOAD", "1", 1);
  write_text(path("pile.json"), pile_scene().dump());
  const json manifest = json::parse(R"({
    "format": "impetus-batch/1",
    "sweeps": [ { "id": "pile", "scene": "pile.json",
                  "parameters": { "friction": [0.1, 0.9], "seed": [1, 2, 3] },
                  "overrides": { "materials": { "default": { "friction": "${friction}" } },
                                 "settings": { "seed": "${seed}" },
                                 "arrays": { "s": { "jitter": 0.02 } } } } ]
  })");
  write_text(path("manifest.json"), manifest.dump());
  ASSERT_EQ(cli("batch " + quoted("manifest.json") + " --out " + quoted("serial")).exit_code, 0);
  ASSERT_EQ(cli("batch " + quoted("manifest.json") + " --out " + quoted("jobs") + " --jobs 3").exit_code, 0);
  const json serial = read_json(path("serial/report.json"));
  const json jobs = read_json(path("jobs/report.json"));
  EXPECT_EQ(jobs.at("execution").at("jobs"), 3);
  EXPECT_EQ(without_timings(serial), without_timings(jobs));
  std::vector<std::string> hashes;
  for (const json& run : serial.at("runs")) {
    const std::string id = run.at("id");
    hashes.push_back(run.at("state_hash"));
    EXPECT_EQ(summary_without_timings(read_json(path("serial/" + id + "/summary.json"))),
              summary_without_timings(read_json(path("jobs/" + id + "/summary.json"))))
        << id;
    EXPECT_EQ(trajectory_without_timings(read_text(path("serial/" + id + "/trajectory.jsonl"))),
              trajectory_without_timings(read_text(path("jobs/" + id + "/trajectory.jsonl"))))
        << id;
  }
  std::sort(hashes.begin(), hashes.end());
  EXPECT_EQ(std::unique(hashes.begin(), hashes.end()), hashes.end());  // the sweep varies the runs
}

TEST_F(BatchTest, OnlySelectsRunsById) {
  write_text(path("flight.json"), free_flight_scene().dump());
  const json manifest = json::parse(R"({
    "format": "impetus-batch/1",
    "runs": [ { "id": "alpha", "scene": "flight.json" }, { "id": "beta", "scene": "flight.json" },
              { "id": "alphabet", "scene": "flight.json" } ]
  })");
  CommandResult r = batch(manifest, "--only '^alpha'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json runs = report().at("runs");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("id"), "alpha");
  EXPECT_EQ(runs[1].at("id"), "alphabet");
  EXPECT_FALSE(fs::exists(path("out/beta")));
  fs::remove_all(path("out"));
  r = batch(manifest, "--only gamma");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--only");
  EXPECT_FALSE(fs::exists(path("out")));
  r = batch(manifest, "--only '('");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "invalid regular expression");
}

}  // namespace
}  // namespace impetus::test
