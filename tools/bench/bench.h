#pragma once
// impetus-bench harness (../shared/spec/bench-format.md). Each suite lives in its own file
// suite_<name>.cpp and fills a BenchReport; bench_main.cpp prints it as a table or as JSON.
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace impetus::bench {

struct BenchOptions {
  bool json = false;
  bool quick = false;          // reduced sizes for CI smoke tests
  std::string shared_dir;      // ../shared (benchmark scenes), resolved by bench_main
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

}  // namespace impetus::bench
