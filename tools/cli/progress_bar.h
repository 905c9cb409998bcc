#pragma once
// Progress of a run on stderr: bar, percentage, steps/s and ETA, redrawn in place at most
// 10 times a second. Only on a terminal, and only for runs expected to last more than ~2 s
// (judged from the pace once 0.2 s have passed), so short runs and logs stay clean.
#include <chrono>

namespace impetus::cli {

class ProgressBar {
 public:
  /// `enabled` = stderr is a terminal and output is not --quiet.
  explicit ProgressBar(bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Called after every step; cheap when nothing is redrawn.
  void update(long long done, long long total);
  /// Erases the bar (if it was shown) so that later lines start clean.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void draw(long long done, long long total, double elapsed);

  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace impetus::cli
