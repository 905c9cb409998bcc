// `impetus batch MANIFEST`: many runs, their checks, one report (tools/docs/batch-format.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "collision/base/log.h"
#include "engine/atomic_file.h"
#include "tools/cli/batch_manifest.h"
#include "tools/cli/batch_mpi.h"
#include "tools/cli/batch_report.h"
#include "tools/cli/batch_run.h"
#include "tools/cli/batch_schedule.h"
#include "tools/cli/cli_args.h"
#include "tools/cli/commands.h"

namespace impetus::cli {

namespace {

namespace fs = std::filesystem;
using Ordered = nlohmann::ordered_json;

// Through a temporary and a rename (engine/atomic_file.h), so that a batch killed while writing
// (the reports are rewritten while it runs) never leaves a truncated file.
bool write_text_file(const fs::path& path, const std::string& text, std::string* error) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  return write_file_atomically(path.string(), text, error);
}

struct BatchCommandOptions {
  std::string out_dir;
  int jobs = 1;
  std::string junit;
  std::optional<std::regex> only;
  bool update_goldens = false;
  bool write_meshes = true;
  bool write_report = true;  // each run's report.html (and shapes.json), linked from index.html
  double rank_timeout = 60;
  bool quiet = false;
};

// Parses the command line; on failure prints the error and returns nullopt.
std::optional<BatchCommandOptions> read_options(const ParsedArgs& args, bool speak,
                                                std::string* manifest) {
  std::string error;
  auto print_error = [speak](const std::string& message) {
    if (speak) cli::print_error(message);
  };
  BatchCommandOptions o;
  if (!setup_logging(args, &error)) {
    print_error("batch: " + error);
    return std::nullopt;
  }
  // Per-run info lines (one per scene built) would bury the per-run result lines and the bar.
  if (!args.has("--log-level") && logger()->level() < spdlog::level::warn) {
    logger()->set_level(spdlog::level::warn);
  }
  if (args.positionals.size() != 1) {
    print_error(args.positionals.empty() ? "batch: missing MANIFEST (see 'impetus batch --help')"
                                         : "batch: unexpected argument '" + args.positionals[1] + "'");
    return std::nullopt;
  }
  *manifest = args.positionals.front();
  if (std::optional<std::string> text = args.get("--jobs")) {
    std::optional<long long> jobs = parse_integer("--jobs", *text, 1, 4096, &error);
    if (!jobs) {
      print_error("batch: " + error);
      return std::nullopt;
    }
    o.jobs = static_cast<int>(*jobs);
  }
  if (std::optional<std::string> text = args.get("--rank-timeout")) {
    std::optional<double> seconds = parse_non_negative("--rank-timeout", *text, &error);
    if (!seconds || *seconds <= 0) {
      print_error("batch: " + (seconds ? "--rank-timeout: must be positive, got '" + *text + "'" : error));
      return std::nullopt;
    }
    o.rank_timeout = *seconds;
  }
  if (std::optional<std::string> text = args.get("--only")) {
    try {
      o.only = std::regex(*text, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      print_error("batch: --only: invalid regular expression '" + *text + "': " + e.what());
      return std::nullopt;
    }
  }
  for (const char* option : {"--out", "--junit"}) {
    std::optional<std::string> value = args.get(option);
    if (value && value->empty()) {
      print_error(std::string("batch: ") + option + ": must name a path");
      return std::nullopt;
    }
  }
  o.out_dir = args.get("--out").value_or("");
  o.junit = args.get("--junit").value_or("");
  o.update_goldens = args.has("--update-goldens");
  o.write_meshes = !args.has("--no-meshes");
  o.write_report = !args.has("--no-report");
  o.quiet = args.has("--quiet");
  return o;
}

// Writes each run's summary.json over its golden. Returns the number written.
int update_goldens(const BatchManifest& manifest, const std::vector<std::size_t>& selected,
                   const std::vector<std::optional<BatchRunResult>>& results, bool quiet) {
  int written = 0;
  for (std::size_t i : selected) {
    const BatchRun& run = manifest.runs[i];
    if (!run.checks.golden || !results[i] || results[i]->summary_text.empty()) continue;
    std::string error;
    if (!write_text_file(run.checks.golden->path, results[i]->summary_text, &error)) {
      print_error("batch: " + run.id + ": golden " + error);
      continue;
    }
    ++written;
    if (!quiet) std::fprintf(stderr, "golden updated: %s\n", run.checks.golden->path.c_str());
  }
  return written;
}

// The report files for the entries so far (by manifest index); a selected run without an entry
// is listed as an error with `missing_status`. Returns the report; false in `*ok` on an I/O error.
Ordered write_reports(const BatchCommandOptions& options, const BatchManifest& manifest,
                      const std::vector<std::size_t>& selected,
                      const std::vector<std::optional<Ordered>>& by_index,
                      const BatchLayout& layout, const std::string& missing_status,
                      const std::string& missing_why, bool* ok) {
  std::vector<Ordered> entries;
  for (std::size_t i : selected) {
    entries.push_back(by_index[i] ? *by_index[i]
                                  : missing_run_entry(manifest.runs[i], 0, missing_status, missing_why));
  }
  const Ordered report = batch_report(manifest.file, manifest.name, entries, layout);
  const fs::path dir(options.out_dir);
  std::string error;
  auto has_report = [&](const std::string& output) {
    return fs::exists(dir / output / "report.html");
  };
  *ok = write_text_file(dir / "report.json", report.dump(2) + "\n", &error) &&
        write_text_file(dir / "report.txt", batch_report_text(report), &error) &&
        write_text_file(dir / "index.html", batch_index_html(report, has_report), &error) &&
        (options.junit.empty() || write_text_file(options.junit, batch_junit_xml(report), &error));
  if (!*ok) print_error("batch: " + error);
  return report;
}

// While the batch runs, the reports are rewritten every few seconds with the runs still going
// listed as "unfinished" errors, so that a batch that is killed (mpirun ending the job when a
// rank dies, a CI timeout) still leaves reports that say which runs never finished. Writes are
// spaced by at least 2 s and 20 times the last write's duration; the first comes at once.
class ReportCheckpoints {
 public:
  using Clock = std::chrono::steady_clock;
  ReportCheckpoints(const BatchCommandOptions& options, const BatchManifest& manifest,
                    const std::vector<std::size_t>& selected, RunBoard* board, BatchLayout layout)
      : options_(options), manifest_(manifest), selected_(selected), board_(board),
        layout_(layout), start_(Clock::now()), last_(start_ - std::chrono::hours(1)) {}

  void tick() {
    const Clock::time_point now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < std::max(2.0, 20.0 * last_seconds_)) return;
    std::size_t count = 0;
    const std::vector<std::optional<Ordered>> entries = board_->entries(&count);
    if (count == written_count_) return;
    BatchLayout layout = layout_;
    layout.wall_seconds = std::chrono::duration<double>(now - start_).count();
    bool ok = true;
    write_reports(options_, manifest_, selected_, entries, layout, "unfinished",
                  "not finished when this report was written (the batch was still running "
                  "or was stopped)",
                  &ok);
    written_count_ = count;
    last_ = Clock::now();
    last_seconds_ = std::chrono::duration<double>(last_ - now).count();
  }

 private:
  const BatchCommandOptions& options_;
  const BatchManifest& manifest_;
  const std::vector<std::size_t>& selected_;
  RunBoard* board_;
  BatchLayout layout_;
  Clock::time_point start_;
  Clock::time_point last_;
  double last_seconds_ = 0;
  std::size_t written_count_ = static_cast<std::size_t>(-1);  // the first tick writes
};

}  // namespace

int command_batch(const std::vector<std::string>& args) {
  std::string error;
  std::optional<ParsedArgs> parsed = parse_args(
      "batch", args,
      {{"--out", true, ""}, {"--jobs", true, "-j"}, {"--junit", true, ""}, {"--only", true, ""},
       {"--update-goldens", false, ""}, {"--no-meshes", false, ""}, {"--no-report", false, ""}, {"--rank-timeout", true, ""}},
      &error);
  if (!parsed) {
    print_error(error);
    return kExitInvalid;
  }
  if (parsed->has("--help")) {
    std::fputs(command_help("batch").c_str(), stdout);
    return kExitOk;
  }
  // Under mpirun every rank parses the same command line and manifest and reaches the same
  // verdict, so an invalid one ends every rank the same way; only rank 0 says why.
  const bool mpi = batch_mpi_launched();
  const MpiWorld world = mpi ? batch_mpi_init() : MpiWorld{};
  const bool root = world.rank == 0;
  auto finish = [&](int code) {
    if (mpi) batch_mpi_finish(false, code);
    return code;
  };
  std::string manifest_file;
  std::optional<BatchCommandOptions> options;
  options = read_options(*parsed, root, &manifest_file);
  if (!options) return finish(kExitInvalid);
  std::optional<BatchManifest> manifest = load_batch_manifest(manifest_file, &error);
  if (!manifest) {
    if (root) print_error(error);
    return finish(kExitInvalid);
  }
  if (options->out_dir.empty()) options->out_dir = (fs::path("results") / "batch" / manifest->name).string();

  std::vector<std::size_t> selected;
  for (std::size_t i = 0; i < manifest->runs.size(); ++i) {
    if (!options->only || std::regex_search(manifest->runs[i].id, *options->only)) selected.push_back(i);
  }
  if (selected.empty()) {
    if (root) print_error("batch: --only: no run id of " + manifest_file + " matches");
    return finish(kExitInvalid);
  }
  if (root) {
    std::error_code ec;
    fs::create_directories(options->out_dir, ec);
    if (!fs::is_directory(options->out_dir)) {
      print_error("batch: " + options->out_dir + ": cannot create output directory");
      return finish(kExitInvalid);
    }
  }

  BatchRunSettings settings;
  settings.out_dir = options->out_dir;
  settings.write_meshes = options->write_meshes;
  settings.write_report = options->write_report;
  settings.update_goldens = options->update_goldens;
  settings.rank = world.rank;
  const std::vector<std::size_t> order = schedule_order(manifest->runs, selected, options->out_dir);
  const auto start = std::chrono::steady_clock::now();
  BatchProgress progress(selected.size(), options->jobs, options->quiet || !root);
  RunBoard board(order, manifest->runs.size(), &progress);
  BatchLayout layout;
  layout.jobs = options->jobs;
  layout.ranks = world.size;
  ReportCheckpoints checkpoints(*options, *manifest, selected, &board, layout);
  bool rank_lost = false;
  if (mpi) {
    rank_lost = run_batch_mpi(world, *manifest, &board, settings, options->jobs,
                              options->rank_timeout, &progress, [&] { checkpoints.tick(); });
    if (!root) {
      batch_mpi_finish(rank_lost, kExitOk);
      return kExitOk;
    }
  } else {
    std::thread workers([&] {
      run_worker_threads(
          options->jobs, *manifest, settings, [&board] { return board.take(); },
          [&board](std::size_t index, BatchRunResult result) { board.store(index, std::move(result)); },
          &progress);
    });
    while (progress.wait_and_draw() < selected.size()) checkpoints.tick();
    workers.join();
  }
  progress.finish();
  const std::vector<std::optional<BatchRunResult>> results = board.release();

  layout.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<std::optional<Ordered>> by_index(results.size());
  for (std::size_t i : selected) {
    if (results[i]) by_index[i] = results[i]->entry;
  }
  bool written = true;
  const Ordered report = write_reports(*options, *manifest, selected, by_index, layout, "lost",
                                       "the run never reported", &written);
  const std::string text = batch_report_text(report);
  int status = batch_passed(report) ? kExitOk : kExitCheckFailed;
  if (!written) status = kExitInvalid;
  const fs::path dir(options->out_dir);
  if (options->update_goldens) update_goldens(*manifest, selected, results, options->quiet);
  if (!options->quiet) {
    std::fputs(text.c_str(), stdout);
    std::printf("report: %s\n", (dir / "report.json").string().c_str());
  }
  if (mpi) batch_mpi_finish(rank_lost, status);
  return status;
}

}  // namespace impetus::cli
