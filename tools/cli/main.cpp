// The `impetus` program: dispatches to the commands, owns --help/--version and the last-resort
// catch, so that no exception ever escapes (exit 4, one `error: internal: ...` line).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "tools/cli/batch_mpi.h"
#include "tools/cli/cli_args.h"
#include "tools/cli/commands.h"

namespace {

using namespace impetus::cli;

int dispatch(const std::vector<std::string>& argv) {
  // Options before the command that take a value; anything else there must be a flag.
  std::vector<std::string> leading;
  std::size_t i = 0;
  for (; i < argv.size() && argv[i].size() > 1 && argv[i][0] == '-'; ++i) {
    const std::string& arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(general_help().c_str(), stdout);
      return kExitOk;
    }
    if (arg == "--version") {
      std::puts(batch_mpi_built() ? "impetus " IMPETUS_VERSION " (MPI: mpirun -n K impetus batch)"
                                  : "impetus " IMPETUS_VERSION " (no MPI)");
      return kExitOk;
    }
    if (arg == "--quiet" || arg == "-q" || arg.rfind("--log-level=", 0) == 0) {
      leading.push_back(arg);
    } else if (arg == "--log-level" && i + 1 < argv.size()) {
      leading.push_back(arg);
      leading.push_back(argv[++i]);
    } else {
      print_error("unknown option '" + arg + "' (see 'impetus --help')");
      return kExitInvalid;
    }
  }
  if (i == argv.size()) {
    print_error("no command given (see 'impetus --help')");
    return kExitInvalid;
  }
  const std::string command = argv[i];
  std::vector<std::string> rest = leading;
  rest.insert(rest.end(), argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());

  if (command == "help") {
    if (rest.empty()) {
      std::fputs(general_help().c_str(), stdout);
      return kExitOk;
    }
    std::string text = command_help(rest.front());
    if (text.empty()) {
      print_error("help: unknown command '" + rest.front() + "' (see 'impetus --help')");
      return kExitInvalid;
    }
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  if (command == "run") return command_run(rest);
  if (command == "validate") return command_validate(rest);
  if (command == "query") return command_query(rest);
  if (command == "check") return command_check(rest);
  if (command == "view") return command_view(rest);
  if (command == "batch") return command_batch(rest);
  print_error("unknown command '" + command + "' (see 'impetus --help')");
  return kExitInvalid;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    int status = dispatch(args);
    // Output to a full or closed stdout (`impetus query q.json > /dev/full`) is an error, not
    // a silent loss: stdout is buffered, so the failure shows at the flush.
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      print_error(std::string("cannot write to standard output: ") + std::strerror(errno));
      return kExitOutput;
    }
    return status;
  } catch (const std::exception& e) {
    print_error(std::string("internal: ") + e.what());
  } catch (...) {
    print_error("internal: unknown exception");
  }
  return kExitInternal;
}
