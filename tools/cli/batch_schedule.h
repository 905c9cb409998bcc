#pragma once
// Running the runs of a batch: the order they are handed out in, the worker threads of one
// process (--jobs N, one engine thread per run), and the progress shown while they run.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tools/cli/batch_manifest.h"
#include "tools/cli/batch_run.h"
#include "tools/cli/progress_bar.h"

namespace impetus::cli {

/// The order in which `selected` runs (manifest indices) are handed out: longest first where a
/// cost is known (the run's `cost` in the manifest, else its wall time in an earlier
/// OUT/report.json), runs of unknown cost first of all, in manifest order (they may be long).
std::vector<std::size_t> schedule_order(const std::vector<BatchRun>& runs,
                                        const std::vector<std::size_t>& selected,
                                        const std::string& out_dir);

/// One line per finished run on stderr, and an overall bar with ETA on a terminal. Workers call
/// step() and finished() from their threads; the coordinating thread calls wait_and_draw().
class BatchProgress {
 public:
  BatchProgress(std::size_t total_runs, int slots, bool quiet);
  /// A run on `slot` has done `done` of `total` steps (cheap: two relaxed stores).
  void step(int slot, long long done, long long total);
  /// A run finished (locally or on another rank): queues its line.
  void finished(const nlohmann::ordered_json& entry);
  /// Waits up to `wait` for a finished run, prints the queued lines and redraws the bar.
  /// Returns the number of runs finished so far.
  std::size_t wait_and_draw(std::chrono::milliseconds wait = std::chrono::milliseconds(100));
  /// Erases the bar.
  void finish();

 private:
  struct Slot {
    std::atomic<long long> done{0};
    std::atomic<long long> total{0};
  };
  std::size_t total_runs_;
  bool quiet_;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> pending_lines_;
  std::size_t finished_ = 0;
  ProgressBar bar_;
};

/// The runs still to hand out, in schedule order, and the results gathered so far (by manifest
/// index). Thread-safe: worker threads of this process and, under MPI, rank 0's hand-out loop
/// share one board.
class RunBoard {
 public:
  RunBoard(std::vector<std::size_t> order, std::size_t manifest_runs, BatchProgress* progress);
  /// The next run to start, or nullopt when every run has been handed out.
  std::optional<std::size_t> take();
  /// A run's result (its progress line is printed); a second result for a run is ignored.
  void store(std::size_t index, BatchRunResult result);
  /// Whether every handed-out-or-not run has a result.
  bool all_finished();
  /// The results, by manifest index (empty for runs not selected).
  std::vector<std::optional<BatchRunResult>> release();
  /// A copy of the report entries so far, by manifest index, and how many there are.
  std::vector<std::optional<nlohmann::ordered_json>> entries(std::size_t* count);

 private:
  std::mutex mutex_;
  std::vector<std::size_t> order_;
  std::size_t next_ = 0;
  std::size_t finished_ = 0;
  std::vector<std::optional<BatchRunResult>> results_;
  BatchProgress* progress_;
};

/// Runs with `jobs` threads in this process until `take` returns nullopt; each finished run is
/// handed to `give` (from the worker's thread). Returns when every thread is done.
void run_worker_threads(int jobs, const BatchManifest& manifest, const BatchRunSettings& settings,
                        const std::function<std::optional<std::size_t>()>& take,
                        const std::function<void(std::size_t, BatchRunResult)>& give,
                        BatchProgress* progress);

}  // namespace impetus::cli
