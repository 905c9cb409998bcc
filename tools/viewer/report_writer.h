#pragma once
// DIR/report.html: a page that plays the run back in 3D and plots its figures against time,
// readable offline from file:// (tools/docs/output-format.md, "report.html"). The page and its
// libraries go to DIR/report_files/, the run's data to DIR/report_files/data.js (a script, since
// browsers do not let a file:// page fetch its neighbours).
#include <string>

#include "tools/viewer/run_results.h"

namespace impetus::viewer {

/// Writes DIR/report.html and DIR/report_files/; false with `error` when the files cannot be
/// written or the program was built without the page's libraries.
bool write_report(const RunResults& results, const std::string& dir, std::string* error);

/// file:// URL of DIR/report.html (absolute, percent-encoded where needed).
std::string report_url(const std::string& dir);

}  // namespace impetus::viewer
