#include "tools/bench/peer_bullet_ratio.h"

#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace impetus::bench {

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace

void add_bullet_peer_ratios(const BenchOptions& options, const std::vector<std::string>& scenes,
                            BenchReport& report) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path peer = self.parent_path() / "impetus-peer-bullet";
  if (error || !std::filesystem::exists(peer)) {
    report.notes.push_back("peer_bullet: impetus-peer-bullet not built (tools/setup.sh --peers, then "
                           "rebuild): no Bullet ratios");
    return;
  }
  std::string only;
  for (const std::string& s : scenes) only += (only.empty() ? "" : ",") + s;
  std::string command = shell_quote(peer.string()) + " --json --no-impetus --scenes " +
                        shell_quote(options.scenes_dir) + " --only " + shell_quote(only);
  if (options.quick) command += " --quick";
  command += " 2>/dev/null";
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, n);
    const int status = pclose(pipe);
    if (status != 0) text.clear();
  }
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.contains("figures") || !doc["figures"].is_object()) {
    report.notes.push_back("peer_bullet: " + peer.string() + " gave no figures");
    return;
  }
  const nlohmann::json& figures = doc["figures"];
  for (const std::string& s : scenes) {
    const auto peer_ms = figures.find(s + ".ms_per_step");
    if (peer_ms == figures.end() || !peer_ms->is_number()) continue;
    const double bullet = peer_ms->get<double>();
    report.figures[s + ".peer_bullet.ms_per_step"] = bullet;
    const auto depth = figures.find(s + ".max_penetration");
    if (depth != figures.end() && depth->is_number())
      report.figures[s + ".peer_bullet.max_penetration"] = depth->get<double>();
    const auto ours = report.figures.find(s + ".ms_per_step.threads_1");
    if (ours != report.figures.end() && bullet > 0)
      report.figures[s + ".over_peer_bullet"] = ours->second / bullet;
  }
  std::string peer_name = "Bullet";
  if (doc.contains("machine") && doc["machine"].contains("peer") && doc["machine"]["peer"].is_string())
    peer_name = doc["machine"]["peer"].get<std::string>();
  report.notes.push_back("peer_bullet: " + peer_name + ", run once per scene by " + peer.filename().string() +
                         " in this process's folder; <scene>.over_peer_bullet = impetus's 1-thread "
                         "median ms/step over Bullet's mean (< 1: impetus faster)");
}

}  // namespace impetus::bench
