#include "tools/cli/interrupt.h"

namespace impetus::cli {

namespace {

volatile std::sig_atomic_t g_interrupt_signal = 0;

// Async-signal-safe: stores the number and restores the default action (sigaction is safe).
extern "C" void on_interrupt(int signal_number) {
  if (g_interrupt_signal == 0) g_interrupt_signal = signal_number;
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, nullptr);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupt_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: output writes interrupted by the signal resume instead of failing.
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

const volatile std::sig_atomic_t* InterruptGuard::flag() const { return &g_interrupt_signal; }

}  // namespace impetus::cli
