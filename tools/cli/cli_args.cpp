#include "tools/cli/cli_args.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "collision/base/log.h"

namespace impetus::cli {

std::optional<std::string> ParsedArgs::get(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::optional<ParsedArgs> parse_args(const std::string& command,
                                     const std::vector<std::string>& args,
                                     std::vector<OptionSpec> specs, std::string* error) {
  specs.push_back({"--help", false, "-h"});
  specs.push_back({"--log-level", true, ""});
  specs.push_back({"--quiet", false, "-q"});
  const std::string hint = " (see 'impetus " + command + " --help')";

  ParsedArgs parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    // "-" alone is a positional (stdin for `query`); "--" ends the options.
    if (arg == "--") {
      for (++i; i < args.size(); ++i) parsed.positionals.push_back(args[i]);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      parsed.positionals.push_back(arg);
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (std::size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& candidate : specs) {
      if (candidate.name == name || (!candidate.alias.empty() && candidate.alias == name)) {
        spec = &candidate;
      }
    }
    if (!spec) {
      *error = command + ": unknown option '" + name + "'" + hint;
      return std::nullopt;
    }
    if (!spec->takes_value) {
      if (inline_value) {
        *error = command + ": option '" + spec->name + "' takes no value" + hint;
        return std::nullopt;
      }
      parsed.values[spec->name] = "";
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) {
        *error = command + ": option '" + spec->name + "' needs a value" + hint;
        return std::nullopt;
      }
      inline_value = args[++i];
    }
    parsed.values[spec->name] = *inline_value;
  }
  return parsed;
}

std::optional<long long> parse_integer(const std::string& option, const std::string& text,
                                       long long min, long long max, std::string* error) {
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max) {
    *error = option + ": must be an integer in [" + std::to_string(min) + ", " +
             std::to_string(max) + "], got '" + text + "'";
    return std::nullopt;
  }
  return value;
}

std::optional<double> parse_non_negative(const std::string& option, const std::string& text,
                                         std::string* error) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) || value < 0) {
    *error = option + ": must be a finite non-negative number, got '" + text + "'";
    return std::nullopt;
  }
  return value;
}

bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

bool setup_logging(const ParsedArgs& args, std::string* error) {
  spdlog::level::level_enum level = stderr_is_tty() ? spdlog::level::info : spdlog::level::warn;
  if (std::optional<std::string> name = args.get("--log-level")) {
    static const std::pair<const char*, spdlog::level::level_enum> kLevels[] = {
        {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
        {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
        {"error", spdlog::level::err},   {"off", spdlog::level::off}};
    bool found = false;
    for (const auto& [text, value] : kLevels) {
      if (*name == text) {
        level = value;
        found = true;
      }
    }
    if (!found) {
      *error = "--log-level: must be one of trace, debug, info, warn, error, off, got '" +
               *name + "'";
      return false;
    }
  }
  if (args.has("--quiet") && level < spdlog::level::err) level = spdlog::level::err;
  logger()->set_level(level);
  return true;
}

void print_error(const std::string& message) {
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::fprintf(stderr, "error: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace impetus::cli
