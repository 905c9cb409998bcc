#pragma once
// impetus-bench harness (../shared/spec/bench-format.md). Each suite lives in its own file
// suite_<name>.cpp and fills a BenchReport; bench_main.cpp prints it as a table or as JSON.
// The machine block and the printers are shared with the peer programs (tools/peers/), which
// link this file as the library impetus_bench_support.
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace impetus::bench {

struct BenchOptions {
  bool json = false;
  bool quick = false;          // reduced sizes for CI smoke tests
  std::string scenes_dir;      // benchmark scene files (scenes/bench), resolved by bench_main
  std::string source_dir;      // repository root
};

struct BenchReport {
  std::map<std::string, double> figures;  // flat dotted names -> numbers (medians for times)
  std::vector<std::string> skipped;       // parts that could not run, with the reason
  std::vector<std::string> notes;         // free text shown in the table output only
};

using SuiteFn = std::function<int(const BenchOptions&, BenchReport&)>;

/// Median of a non-empty sample (copied).
double median(std::vector<double> values);

/// The `machine` block of an impetus-bench/1 document.
struct Machine {
  std::string cpu = "unknown";
  int threads = 1;
  std::string build = "unspecified";
  std::string commit = "unknown";
  std::map<std::string, std::string> extra;  // more machine.* strings (a peer's version ...)
};

/// The CPU's model name from /proc/cpuinfo, or "unknown".
std::string cpu_model();

/// The short hash of the source tree's HEAD now (a configure-time hash goes stale after the next
/// commit); outside the source tree, the hash at configure time.
std::string git_commit();

/// cpu_model(), git_commit() and the build type of this build, with `threads` as given.
Machine machine_info(int threads);

/// Prints one impetus-bench/1 JSON document on stdout: format, suite, machine (with its extra
/// strings), figures (non-finite ones as null), skipped, and the notes when `with_notes`.
void print_json(const std::string& suite, const Machine& machine, const BenchReport& report,
                bool with_notes);

/// Prints on stdout "machine: CPU, N threads, BUILD build, commit HASH" ("1 thread"), one
/// "  key: value" line per extra string, then a blank line.
void print_machine(const Machine& machine);

/// Prints on stdout the figure/value table, then the skipped parts and the notes if any.
void print_figures(const BenchReport& report);

}  // namespace impetus::bench
