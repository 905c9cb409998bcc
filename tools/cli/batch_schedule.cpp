#include "tools/cli/batch_schedule.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

#include "engine/json_text.h"
#include "tools/cli/cli_args.h"

namespace impetus::cli {

namespace {

constexpr long long kScale = 1000;  // progress sub-units per run

// Wall times of an earlier batch written to the same folder, by run id.
std::map<std::string, double> earlier_timings(const std::string& out_dir) {
  std::map<std::string, double> seconds;
  const std::string path = (std::filesystem::path(out_dir) / "report.json").string();
  std::string error;
  std::optional<nlohmann::json> report = read_json_file(path, "report", &error);
  if (!report || !report->is_object() || !report->contains("runs") || !(*report)["runs"].is_array()) {
    return seconds;
  }
  for (const nlohmann::json& run : (*report)["runs"]) {
    if (!run.is_object() || !run.contains("id") || !run["id"].is_string()) continue;
    auto t = run.find("timings");
    if (t == run.end() || !t->is_object() || !t->contains("wall_seconds")) continue;
    const nlohmann::json& w = (*t)["wall_seconds"];
    if (w.is_number() && w.get<double>() > 0) seconds[run["id"].get<std::string>()] = w.get<double>();
  }
  return seconds;
}

}  // namespace

std::vector<std::size_t> schedule_order(const std::vector<BatchRun>& runs,
                                        const std::vector<std::size_t>& selected,
                                        const std::string& out_dir) {
  const std::map<std::string, double> earlier = earlier_timings(out_dir);
  std::vector<std::size_t> unknown;
  std::vector<std::pair<double, std::size_t>> known;
  for (std::size_t i : selected) {
    const BatchRun& run = runs[i];
    if (run.cost) {
      known.emplace_back(*run.cost, i);
    } else if (auto it = earlier.find(run.id); it != earlier.end()) {
      known.emplace_back(it->second, i);
    } else {
      unknown.push_back(i);
    }
  }
  std::stable_sort(known.begin(), known.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::size_t> order = unknown;
  for (const auto& k : known) order.push_back(k.second);
  return order;
}

BatchProgress::BatchProgress(std::size_t total_runs, int slots, bool quiet)
    : total_runs_(total_runs), quiet_(quiet), slots_(static_cast<std::size_t>(std::max(1, slots))),
      bar_(!quiet && stderr_is_tty(), "runs", kScale) {}

void BatchProgress::step(int slot, long long done, long long total) {
  Slot& s = slots_[static_cast<std::size_t>(slot) % slots_.size()];
  s.done.store(done, std::memory_order_relaxed);
  s.total.store(total, std::memory_order_relaxed);
}

void BatchProgress::finished(const nlohmann::ordered_json& entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++finished_;
  const std::string result = entry.value("result", std::string("error"));
  char head[64];
  std::snprintf(head, sizeof head, "[%zu/%zu] ", finished_, total_runs_);
  std::string line = head + entry["id"].get<std::string>() + ": " + result;
  if (entry.contains("failure")) line += ": " + entry["failure"]["message"].get<std::string>();
  if (entry.contains("timings")) {
    char time[32];
    std::snprintf(time, sizeof time, " (%.2f s", entry["timings"].value("wall_seconds", 0.0));
    line += time;
    line += entry.value("rank", 0) > 0 ? ", rank " + std::to_string(entry.value("rank", 0)) + ")" : ")";
  }
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  pending_lines_.push_back(line + "\n");
  changed_.notify_all();
}

std::size_t BatchProgress::wait_and_draw(std::chrono::milliseconds wait) {
  std::vector<std::string> lines;
  std::size_t finished = 0;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, wait,
                      [this] { return !pending_lines_.empty(); });
    lines.swap(pending_lines_);
    finished = finished_;
  }
  if (!quiet_) {
    for (const std::string& line : lines) bar_.print_line(line);
  }
  long long done = static_cast<long long>(finished) * kScale;
  for (const Slot& s : slots_) {
    const long long total = s.total.load(std::memory_order_relaxed);
    if (total > 0) done += s.done.load(std::memory_order_relaxed) * kScale / total;
  }
  const long long all = static_cast<long long>(total_runs_) * kScale;
  bar_.update(std::min(done, all), all);
  return finished;
}

void BatchProgress::finish() { bar_.finish(); }

RunBoard::RunBoard(std::vector<std::size_t> order, std::size_t manifest_runs,
                   BatchProgress* progress)
    : order_(std::move(order)), results_(manifest_runs), progress_(progress) {}

std::optional<std::size_t> RunBoard::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (next_ == order_.size()) return std::nullopt;
  return order_[next_++];
}

void RunBoard::store(std::size_t index, BatchRunResult result) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (results_[index]) return;
    ++finished_;
    results_[index] = std::move(result);
  }
  if (progress_ != nullptr) progress_->finished(results_[index]->entry);
}

bool RunBoard::all_finished() {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_ == order_.size();
}

std::vector<std::optional<nlohmann::ordered_json>> RunBoard::entries(std::size_t* count) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::optional<nlohmann::ordered_json>> out(results_.size());
  for (std::size_t i = 0; i < results_.size(); ++i) {
    if (results_[i]) out[i] = results_[i]->entry;
  }
  *count = finished_;
  return out;
}

std::vector<std::optional<BatchRunResult>> RunBoard::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::move(results_);
}

void run_worker_threads(int jobs, const BatchManifest& manifest, const BatchRunSettings& settings,
                        const std::function<std::optional<std::size_t>()>& take,
                        const std::function<void(std::size_t, BatchRunResult)>& give,
                        BatchProgress* progress) {
  auto worker = [&](int slot) {
    while (std::optional<std::size_t> index = take()) {
      std::function<void(long long, long long)> on_step;
      if (progress != nullptr) {
        on_step = [progress, slot](long long done, long long total) { progress->step(slot, done, total); };
      }
      BatchRunResult result = execute_batch_run(manifest.runs[*index], settings, on_step);
      if (progress != nullptr) progress->step(slot, 0, 0);
      give(*index, std::move(result));
    }
  };
  std::vector<std::thread> threads;
  for (int slot = 0; slot < std::max(1, jobs); ++slot) threads.emplace_back(worker, slot);
  for (std::thread& t : threads) t.join();
}

}  // namespace impetus::cli
