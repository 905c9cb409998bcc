#pragma once
// The files of the report page, compiled into the program (tools/viewer/CMakeLists.txt): the
// page itself (report.html, viewer.js, viewer.css from this folder) and the libraries it runs on
// (three.js r111 with its OrbitControls and Chart.js 3, from Debian's libjs-three and
// libjs-chart.js, installed by tools/setup.sh). A build configured without those packages has
// no library assets; the report writer then says so instead of writing a page that cannot run.
#include <string_view>
#include <vector>

namespace impetus::viewer {

struct ViewerAsset {
  std::string_view name;   // file name under DIR/report_files/ (report.html goes to DIR/)
  std::string_view bytes;
};

/// Every embedded file.
const std::vector<ViewerAsset>& viewer_assets();

/// Empty when every file the page loads is embedded; otherwise which are missing and why.
std::string_view viewer_assets_missing();

}  // namespace impetus::viewer
