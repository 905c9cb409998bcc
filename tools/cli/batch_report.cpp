#include "tools/cli/batch_report.h"

#include <algorithm>
#include <cstdio>

namespace impetus::cli {

namespace {

using Ordered = nlohmann::ordered_json;

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

// Text for XML attributes and content: the five entities escaped, characters XML 1.0 forbids
// (other control characters) dropped.
std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') break;
        out += c;
    }
  }
  return out;
}

std::string string_or(const Ordered& object, const char* key, const std::string& fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

double run_seconds(const Ordered& entry) {
  auto it = entry.find("timings");
  if (it == entry.end()) return 0;
  return it->value("wall_seconds", 0.0);
}

}  // namespace

Ordered batch_report(const std::string& manifest_file, const std::string& name,
                     const std::vector<Ordered>& entries, const BatchLayout& layout) {
  int passed = 0, failed = 0, errors = 0;
  for (const Ordered& e : entries) {
    const std::string result = string_or(e, "result", "error");
    passed += result == "passed";
    failed += result == "failed";
    errors += result == "error";
  }
  Ordered report = Ordered::object();
  report["format"] = "impetus-batch-report/1";
  report["manifest"] = manifest_file;
  report["name"] = name;
  report["engine"] = {{"version", IMPETUS_VERSION}};
  report["totals"] = {{"runs", entries.size()}, {"passed", passed}, {"failed", failed},
                      {"errors", errors}};
  report["runs"] = entries;
  report["execution"] = {{"jobs", layout.jobs}, {"ranks", layout.ranks},
                         {"wall_seconds", layout.wall_seconds}};
  return report;
}

std::string batch_index_html(const Ordered& report,
                             const std::function<bool(const std::string& output)>& linked) {
  const Ordered& totals = report["totals"];
  const std::string name = xml_escape(report["name"].get<std::string>());
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>impetus batch " +
      name +
      "</title>\n<style>body{font:14px system-ui,sans-serif;margin:1.5em}"
      "table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;"
      "text-align:left}td.n{text-align:right}.passed{color:#17803d}.failed,.error{color:#c0262d;"
      "font-weight:600}</style></head>\n<body>\n<h1>impetus batch " + name + "</h1>\n<p>" +
      std::to_string(totals["runs"].get<int>()) + " runs: " +
      std::to_string(totals["passed"].get<int>()) + " passed, " +
      std::to_string(totals["failed"].get<int>()) + " failed, " +
      std::to_string(totals["errors"].get<int>()) + " errors. Also: <a href=\"report.txt\">report.txt</a>, "
      "<a href=\"report.json\">report.json</a>.</p>\n<table>\n<tr><th>run</th><th>result</th>"
      "<th>status</th><th>steps</th><th>problem</th></tr>\n";
  for (const Ordered& e : report["runs"]) {
    const std::string id = xml_escape(e["id"].get<std::string>());
    const std::string output = string_or(e, "output", "");
    const std::string result = string_or(e, "result", "error");
    std::string cell = id;
    if (!output.empty() && linked(output)) {
      cell = "<a href=\"" + xml_escape(output) + "/report.html\">" + id + "</a>";
    }
    std::string problem;
    if (e.contains("failure")) problem = xml_escape(string_or(e["failure"], "message", ""));
    html += "<tr><td>" + cell + "</td><td class=\"" + xml_escape(result) + "\">" +
            xml_escape(result) + "</td><td>" + xml_escape(string_or(e, "status", "-")) +
            "</td><td class=\"n\">" +
            (e.contains("steps") ? std::to_string(e["steps"].get<long long>()) : "-") +
            "</td><td>" + problem + "</td></tr>\n";
  }
  return html + "</table>\n</body></html>\n";
}

bool batch_passed(const Ordered& report) {
  const Ordered& totals = report["totals"];
  return totals["failed"].get<int>() == 0 && totals["errors"].get<int>() == 0;
}

std::string batch_report_text(const Ordered& report) {
  const Ordered& totals = report["totals"];
  std::string text = "impetus batch " + report["name"].get<std::string>() + ": " +
                     std::to_string(totals["runs"].get<int>()) + " runs, " +
                     std::to_string(totals["passed"].get<int>()) + " passed, " +
                     std::to_string(totals["failed"].get<int>()) + " failed, " +
                     std::to_string(totals["errors"].get<int>()) + " errors\n\n";
  const std::vector<std::string> header = {"id", "result", "status", "steps", "state_hash",
                                           "checks", "wall_s", "rank"};
  std::vector<std::vector<std::string>> rows;
  for (const Ordered& e : report["runs"]) {
    int checks = 0, checks_passed = 0;
    for (const Ordered& c : e["checks"]) {
      ++checks;
      checks_passed += c["passed"].get<bool>();
    }
    rows.push_back({e["id"].get<std::string>(), string_or(e, "result", "error"),
                    string_or(e, "status", "-"),
                    e.contains("steps") ? std::to_string(e["steps"].get<long long>()) : "-",
                    string_or(e, "state_hash", "-"),
                    std::to_string(checks_passed) + "/" + std::to_string(checks),
                    fixed(run_seconds(e), 2), std::to_string(e.value("rank", 0))});
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  // Numbers right-aligned, text left-aligned.
  const std::vector<bool> right = {false, false, false, true, false, true, true, true};
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      out += right[c] ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : "");
      if (c + 1 < cells.size()) out += "  ";
    }
    return out + "\n";
  };
  text += line(header);
  for (const auto& row : rows) text += line(row);
  bool any = false;
  for (const Ordered& e : report["runs"]) {
    if (!e.contains("failure")) continue;
    if (!any) text += "\nfailures:\n";
    any = true;
    text += "  " + e["id"].get<std::string>() + ": " + e["failure"]["message"].get<std::string>() + "\n";
  }
  return text;
}

std::string batch_junit_xml(const Ordered& report) {
  const Ordered& totals = report["totals"];
  const std::string name = xml_escape(report["name"].get<std::string>());
  double total_seconds = 0;
  for (const Ordered& e : report["runs"]) total_seconds += run_seconds(e);
  const std::string counts = " tests=\"" + std::to_string(totals["runs"].get<int>()) +
                             "\" failures=\"" + std::to_string(totals["failed"].get<int>()) +
                             "\" errors=\"" + std::to_string(totals["errors"].get<int>()) + "\"";
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites name=\"" + name + "\"" + counts + " time=\"" + fixed(total_seconds, 3) + "\">\n";
  xml += "  <testsuite name=\"" + name + "\"" + counts + " skipped=\"0\" time=\"" +
         fixed(total_seconds, 3) + "\">\n";
  for (const Ordered& e : report["runs"]) {
    xml += "    <testcase classname=\"" + name + "\" name=\"" + xml_escape(e["id"].get<std::string>()) +
           "\" time=\"" + fixed(run_seconds(e), 3) + "\"";
    if (!e.contains("failure")) {
      xml += "/>\n";
      continue;
    }
    const Ordered& f = e["failure"];
    const bool is_error = f["type"] == "error";
    const std::string tag = is_error ? "error" : "failure";
    const std::string type = is_error ? string_or(e, "status", "error") : string_or(f, "check", "check");
    xml += ">\n      <" + tag + " type=\"" + xml_escape(type) + "\" message=\"" +
           xml_escape(f["message"].get<std::string>()) + "\">" +
           xml_escape("scene: " + e["scene"].get<std::string>() + "\n" +
                      string_or(f, "details", "")) +
           "</" + tag + ">\n    </testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace impetus::cli
