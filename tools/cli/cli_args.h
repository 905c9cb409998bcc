#pragma once
// Command-line parsing shared by the `impetus` commands: `--name value`, `--name=value`, flags,
// positionals in any order, and the options every command accepts (--help, --log-level,
// --quiet). Errors are one line for `error: ...` on stderr; they never throw.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace impetus::cli {

/// Exit statuses of the program (output-format.md, plus 1 for a failed check, 4 for a bug).
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitInvalid = 2;
inline constexpr int kExitDiverged = 3;
inline constexpr int kExitInternal = 4;
/// Also 4: an output (a file under --out, stdout) cannot be written (output-format.md).
inline constexpr int kExitOutput = 4;

struct OptionSpec {
  std::string name;   // "--out"
  bool takes_value;   // false = flag
  std::string alias;  // "-q" or empty
};

struct ParsedArgs {
  std::vector<std::string> positionals;
  std::map<std::string, std::string> values;  // option name -> value ("" for flags); last wins

  bool has(const std::string& name) const { return values.count(name) > 0; }
  std::optional<std::string> get(const std::string& name) const;
};

/// Parses `args` (without the program and command names) against `specs` plus the common
/// options. On failure returns nullopt and sets `error` (without the "error: " prefix).
std::optional<ParsedArgs> parse_args(const std::string& command,
                                     const std::vector<std::string>& args,
                                     std::vector<OptionSpec> specs, std::string* error);

/// Strict integer option: the whole text must be a base-10 integer in [min, max].
std::optional<long long> parse_integer(const std::string& option, const std::string& text,
                                       long long min, long long max, std::string* error);
/// Strict finite non-negative number.
std::optional<double> parse_non_negative(const std::string& option, const std::string& text,
                                         std::string* error);

/// Sets the "impetus" logger's level from --log-level / --quiet: default info when stderr is a
/// terminal, warn otherwise; --quiet keeps only errors. Returns false with `error` on a bad level.
bool setup_logging(const ParsedArgs& args, std::string* error);

/// Whether stderr is a terminal (progress bar and default log level depend on it).
bool stderr_is_tty();

/// Prints "error: <message>" as one line on stderr (newlines in `message` become spaces).
void print_error(const std::string& message);

}  // namespace impetus::cli
