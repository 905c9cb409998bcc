#include "tools/bench/bench.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>

#include <nlohmann/json.hpp>

#include "collision/base/cpu_features.h"

namespace impetus::bench {

double median(std::vector<double> values) {
  std::size_t n = values.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();  // contract breach; shows as null
  std::size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  double upper = values[mid];
  if (n % 2 == 1) return upper;
  // Even count: mean of the two middle values; after nth_element the lower one is the largest
  // element of the first half.
  double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    std::string::size_type colon = line.find(':');
    if (colon == std::string::npos) break;
    std::string::size_type start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "unknown" : line.substr(start);
  }
  return "unknown";
}

std::string git_commit() {
  std::string command =
      std::string("git -C '") + IMPETUS_SOURCE_DIR + "' rev-parse --short HEAD 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string hash;
  if (pipe) {
    char buffer[64];
    while (std::fgets(buffer, sizeof buffer, pipe.get())) hash += buffer;
  }
  while (!hash.empty() && (hash.back() == '\n' || hash.back() == '\r')) hash.pop_back();
  return hash.empty() ? std::string(IMPETUS_GIT_COMMIT) : hash;
}

Machine machine_info(int threads) {
  Machine m;
  m.cpu = cpu_model();
  m.threads = threads;
  std::string build = IMPETUS_BUILD_TYPE;
  if (!build.empty()) m.build = build;
  m.commit = git_commit();
  // Which kernels ran: the AVX2 ones give the same results but not the same times.
  m.extra["kernels"] = cpu_has_avx2() ? "avx2" : "plain";
  return m;
}

void print_json(const std::string& suite, const Machine& machine, const BenchReport& report,
                bool with_notes) {
  nlohmann::ordered_json doc;
  doc["format"] = "impetus-bench/1";
  doc["suite"] = suite;
  doc["machine"] = {{"cpu", machine.cpu}, {"threads", machine.threads}, {"build", machine.build},
                    {"commit", machine.commit}};
  for (const auto& [key, value] : machine.extra) doc["machine"][key] = value;
  // nlohmann writes NaN and infinities as null, which the spec's readers take as "no value".
  doc["figures"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : report.figures) doc["figures"][name] = value;
  doc["skipped"] = report.skipped;
  if (with_notes) doc["notes"] = report.notes;
  std::cout << doc.dump(2) << '\n';
}

void print_machine(const Machine& machine) {
  std::printf("machine: %s, %d %s, %s build, commit %s\n", machine.cpu.c_str(), machine.threads,
              machine.threads == 1 ? "thread" : "threads", machine.build.c_str(),
              machine.commit.c_str());
  for (const auto& [key, value] : machine.extra) {
    std::printf("  %s: %s\n", key.c_str(), value.c_str());
  }
  std::printf("\n");
}

void print_figures(const BenchReport& report) {
  std::size_t width = 6;
  for (const auto& [name, value] : report.figures) width = std::max(width, name.size());
  std::printf("%-*s  %s\n", static_cast<int>(width), "figure", "value");
  for (const auto& [name, value] : report.figures) {
    std::printf("%-*s  %.6g\n", static_cast<int>(width), name.c_str(), value);
  }
  if (!report.skipped.empty()) {
    std::printf("\nskipped:\n");
    for (const std::string& s : report.skipped) std::printf("  - %s\n", s.c_str());
  }
  if (!report.notes.empty()) {
    std::printf("\nnotes:\n");
    for (const std::string& s : report.notes) std::printf("  - %s\n", s.c_str());
  }
}

}  // namespace impetus::bench
