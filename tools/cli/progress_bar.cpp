#include "tools/cli/progress_bar.h"

#include <cstdio>
#include <string>
#include <utility>

namespace impetus::cli {

namespace {

constexpr double kDecideAfterSeconds = 0.2;   // pace measured over this long before deciding
constexpr double kShowIfLongerSeconds = 2.0;  // expected runs shorter than this get no bar
constexpr double kRedrawSeconds = 0.1;        // at most ~10 redraws a second
constexpr int kBarWidth = 30;

std::string format_duration(double seconds) {
  long long s = static_cast<long long>(seconds + 0.5);
  char buffer[32];
  if (s >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%lld:%02lld", s / 60, s % 60);
  }
  return buffer;
}

}  // namespace

ProgressBar::ProgressBar(bool enabled, std::string unit, long long scale)
    : enabled_(enabled), unit_(std::move(unit)), scale_(scale > 0 ? scale : 1),
      start_(Clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(long long done, long long total) {
  if (!enabled_ || total <= 0 || done <= 0) return;
  const Clock::time_point now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (!shown_) {
    // The pace can change during a run (a pile settling, contacts appearing), so the estimate
    // is renewed until the bar is shown; past 2 s of elapsed time it always is.
    if (elapsed < kDecideAfterSeconds) return;
    const double expected = elapsed * static_cast<double>(total) / static_cast<double>(done);
    if (expected <= kShowIfLongerSeconds) return;
  } else if (std::chrono::duration<double>(now - last_draw_).count() < kRedrawSeconds) {
    return;
  }
  last_draw_ = now;
  draw(done, total, elapsed);
}

void ProgressBar::draw(long long done, long long total, double elapsed) {
  const double fraction = static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * kBarWidth);
  std::string bar(static_cast<std::size_t>(kBarWidth), ' ');
  for (int i = 0; i < filled && i < kBarWidth; ++i) bar[static_cast<std::size_t>(i)] = '#';
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total - done) / rate : 0.0;
  const double scale = static_cast<double>(scale_);
  // \r returns to the line start, \033[K erases what a longer previous line left behind.
  std::fprintf(stderr, "\r[%s] %3d%%  %lld/%lld %s  %.*f %s/s  ETA %s\033[K", bar.c_str(),
               static_cast<int>(fraction * 100.0), done / scale_, total / scale_, unit_.c_str(),
               scale_ > 1 ? 2 : 0, rate / scale, unit_.c_str(), format_duration(eta).c_str());
  last_done_ = done;
  last_total_ = total;
  std::fflush(stderr);
  shown_ = true;
}

void ProgressBar::print_line(const std::string& line) {
  if (shown_) std::fprintf(stderr, "\r\033[K");
  std::fputs(line.c_str(), stderr);
  if (shown_) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    draw(last_done_, last_total_, elapsed);
  }
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
  enabled_ = false;
}

}  // namespace impetus::cli
