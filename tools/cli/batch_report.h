#pragma once
// The files a batch writes once every run has reported (tools/docs/batch-format.md):
// DIR/report.json, DIR/report.txt and the JUnit XML file. Runs appear in manifest order,
// whatever order they finished in, so that a serial, a --jobs and an MPI batch write the same
// files apart from timings, the rank column and the `execution` block.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace impetus::cli {

struct BatchLayout {
  int jobs = 1;             // runs at once per process
  int ranks = 1;            // MPI processes
  double wall_seconds = 0;  // the whole batch
};

/// The report.json document for the run entries (manifest order).
nlohmann::ordered_json batch_report(const std::string& manifest_file, const std::string& name,
                                    const std::vector<nlohmann::ordered_json>& entries,
                                    const BatchLayout& layout);

/// report.txt: a headline, one table row per run, then one line per failure.
std::string batch_report_text(const nlohmann::ordered_json& report);

/// JUnit XML (one testsuite, one testcase per run; <failure> for failed checks, <error> for runs
/// that could not run), as Jenkins, GitLab and GitHub test reporters read it.
std::string batch_junit_xml(const nlohmann::ordered_json& report);

/// index.html: one table row per run with its result, status, steps and failure, each run's id
/// linking to its own report page (`<output>/report.html`) when `linked(output)` says the run
/// wrote one. Plain HTML, no script: it opens from file:// like the run reports.
std::string batch_index_html(const nlohmann::ordered_json& report,
                             const std::function<bool(const std::string& output)>& linked);

/// Whether every run passed.
bool batch_passed(const nlohmann::ordered_json& report);

}  // namespace impetus::cli
