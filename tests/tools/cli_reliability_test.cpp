// `impetus` under hostile conditions (issue 14): input over the limits of scene-format.md and
// query-format.md, output folders that cannot be written, a full disk (simulated by pointing
// the temporary file at /dev/full), stdout on /dev/full, and SIGINT/SIGTERM during a run.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "tests/tools/cli_test_util.h"

namespace impetus::test {
namespace {

std::string deep_scene(int depth) {
  return R"({"format": "impetus-scene/1", "settings": {"dt": 0.01, "steps": 1}, "bodies": )" +
         std::string(depth, '[') + std::string(depth, ']') + "}";
}

// ---- limits ----------------------------------------------------------------------------------

TEST_F(CliTest, TheHundredThousandDeepSceneIsOneErrorLineForValidateAndRun) {
  write_text(path("deep.json"), deep_scene(100000));
  for (const std::string& command : {std::string("validate"), "run --out " + quoted("out")}) {
    CommandResult r = cli(command + " " + quoted("deep.json"));
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_CONTAINS(r.err, "error: " + path("deep.json").string() + ": bodies[0][0]");
    EXPECT_CONTAINS(r.err, "nested deeper than 64 levels (the limit)");
    EXPECT_FALSE(fs::exists(path("out")));
  }
}

TEST_F(CliTest, QueryInputIsUnderTheSameLimits) {
  write_text(path("deep.json"), R"({"format": "impetus-query/1", "queries": )" +
                                    std::string(1000, '[') + std::string(1000, ']') + "}");
  CommandResult r = cli("query " + quoted("deep.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_CONTAINS(r.err, ": queries[0][0]");
  EXPECT_CONTAINS(r.err, "nested deeper than 64 levels (the limit)");
  EXPECT_EQ(r.out, "");

  // stdin has no size to ask for: it is read up to the limit and refused past it.
  const fs::path big = path("big.json");
  write_text(big, "");
  fs::resize_file(big, (16u << 20) + 10);
  r = cli("query -", big.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "error: <stdin>: document of");
  EXPECT_CONTAINS(r.err, "is larger than 16777216 bytes (the limit)");
  r = cli("query " + quoted("big.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "larger than 16777216 bytes (the limit)");
}

// ---- unwritable and full destinations -------------------------------------------------------

// The run must fail with exit 4, one `error:` line naming the problem, and no summary.json.
void expect_output_failure(const CommandResult& r, const std::string& what) {
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_CONTAINS(r.err, what);
}

TEST_F(CliTest, AnOutFolderThatCannotBeCreatedIsExit4) {
  write_text(path("scene.json"), pile_scene().dump());
  write_text(path("file"), "a regular file");
  // Tests run as root, so permissions cannot make a folder unwritable: a path below a regular
  // file, and /proc (no files can be created there), can never be written.
  CommandResult r = cli("run " + quoted("scene.json") + " --out " + quoted("file") + "/sub");
  expect_output_failure(r, "cannot create output directory");
  r = cli("run " + quoted("scene.json") + " --out /proc/impetus_cli_test_out");
  expect_output_failure(r, "/proc/impetus_cli_test_out");
  r = cli("run " + quoted("scene.json") + " --out /proc");
  expect_output_failure(r, "/proc/trajectory.jsonl: cannot write");
  EXPECT_FALSE(fs::exists("/proc/summary.json"));
}

TEST_F(CliTest, AFullDiskIsExit4AndLeavesNoSummaryNorTemporary) {
  write_text(path("scene.json"), pile_scene().dump());
  // The writer creates NAME.tmp and renames it when complete: a NAME.tmp that is a link to
  // /dev/full makes every write of that file fail with ENOSPC, as a full disk does.
  for (const char* file : {"trajectory.jsonl", "summary.json"}) {
    const fs::path out = path(std::string("out_") + file);
    fs::create_directories(out);
    fs::create_symlink("/dev/full", out / (std::string(file) + ".tmp"));
    CommandResult r = cli("run " + quoted("scene.json") + " --out '" + out.string() + "'");
    expect_output_failure(r, (out / file).string() + ": cannot write: No space left on device");
    EXPECT_FALSE(fs::exists(out / "summary.json")) << file;
    EXPECT_FALSE(fs::exists(out / "summary.json.tmp")) << file;
    EXPECT_FALSE(fs::is_symlink(out / (std::string(file) + ".tmp"))) << file;
  }
}

TEST_F(CliTest, StdoutOnAFullDeviceIsExit4) {
  write_text(path("q.json"), R"({"format": "impetus-query/1", "queries": [
      {"id": 1, "type": "distance",
       "a": {"shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0]},
       "b": {"shape": {"type": "sphere", "radius": 1}, "position": [3, 0, 0]}}]})");
  const std::string err = path("err.txt").string();
  for (const std::string& args : {"query " + quoted("q.json"), std::string("--help")}) {
    const std::string command =
        std::string("'") + IMPETUS_CLI + "' " + args + " >/dev/full 2>'" + err + "'";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 4) << args;
    const std::string text = read_text(err);
    EXPECT_EQ(text, "error: cannot write to standard output: No space left on device\n") << args;
  }
}

// ---- SIGINT / SIGTERM ------------------------------------------------------------------------

// Starts `impetus run` on a scene of 10^9 steps, waits until it steps (its trajectory
// temporary exists), sends `signal_number`, and returns the exit status.
int interrupt_run(const fs::path& scene, const fs::path& out, int signal_number) {
  const pid_t pid = fork();
  if (pid == 0) {
    // Quiet, so that a signal never lands inside a progress-bar write.
    execl(IMPETUS_CLI, IMPETUS_CLI, "run", scene.c_str(), "--out", out.c_str(), "--quiet",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(out / "trajectory.jsonl.tmp") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Let a few steps happen.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(pid, signal_number);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(CliTest, SigintAndSigtermFinishTheStepAndWriteAnInterruptedSummary) {
  json scene = pile_scene();
  scene["settings"]["steps"] = 1000000000;
  scene["output"]["every"] = 1000000;  // so the last frame is the one the interrupt writes
  write_text(path("long.json"), scene.dump());
  for (const auto& [signal_number, code] : {std::pair{SIGINT, 130}, std::pair{SIGTERM, 143}}) {
    const fs::path out = path("out_" + std::to_string(signal_number));
    EXPECT_EQ(interrupt_run(path("long.json"), out, signal_number), code);
    ASSERT_TRUE(fs::exists(out / "summary.json"));
    const json summary = read_json(out / "summary.json");
    EXPECT_EQ(summary.at("status"), "interrupted");
    const long long steps = summary.at("steps").get<long long>();
    EXPECT_GT(steps, 0);
    EXPECT_LT(steps, 1000000000);
    EXPECT_NEAR(summary.at("time").get<double>(), steps * 0.01, 1e-9 * steps);
    expect_body_states(summary.at("bodies"));
    // The trajectory is complete too: its last frame is the state the summary reports.
    const std::string trajectory = read_text(out / "trajectory.jsonl");
    ASSERT_FALSE(trajectory.empty());
    const std::string last = trajectory.substr(trajectory.rfind('\n', trajectory.size() - 2) + 1);
    const json frame = json::parse(last);
    EXPECT_EQ(frame.at("step").get<long long>(), steps);
    EXPECT_EQ(frame.at("bodies"), summary.at("bodies"));
    EXPECT_FALSE(fs::exists(out / "summary.json.tmp"));
    EXPECT_FALSE(fs::exists(out / "trajectory.jsonl.tmp"));
  }
}

}  // namespace
}  // namespace impetus::test
