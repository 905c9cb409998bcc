#pragma once
// Progress of a run on stderr: bar, percentage, steps/s and ETA, redrawn in place at most
// 10 times a second. Only on a terminal, and only for runs expected to last more than ~2 s
// (judged from the pace once 0.2 s have passed), so short runs and logs stay clean.
// A batch counts runs instead of steps: unit "runs", with `scale` sub-units per run so that the
// bar moves while runs are under way.
#include <chrono>
#include <string>

namespace impetus::cli {

class ProgressBar {
 public:
  /// `enabled` = stderr is a terminal and output is not --quiet.
  explicit ProgressBar(bool enabled, std::string unit = "steps", long long scale = 1);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Called after every step; cheap when nothing is redrawn.
  void update(long long done, long long total);
  /// Erases the bar (if it was shown) so that later lines start clean.
  void finish();
  /// Prints `line` (with its newline) on stderr above the bar, which is redrawn below it.
  void print_line(const std::string& line);

 private:
  using Clock = std::chrono::steady_clock;
  void draw(long long done, long long total, double elapsed);

  bool enabled_;
  std::string unit_;
  long long scale_;
  bool shown_ = false;
  long long last_done_ = 0;
  long long last_total_ = 0;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace impetus::cli
