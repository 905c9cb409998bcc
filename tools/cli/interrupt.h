#pragma once
// SIGINT/SIGTERM during `impetus run`: the first one asks the run to stop after the step in
// progress (RunOptions::interrupt) so that it still writes summary.json with status
// "interrupted" and exits 128 + the signal's number (130, 143); a second one ends the program
// at once (the default action is restored when the first arrives).
#include <csignal>

namespace impetus::cli {

/// Installs the handlers for its lifetime and restores the previous ones afterwards.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  /// 0, or the number of the first signal received.
  const volatile std::sig_atomic_t* flag() const;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace impetus::cli
