#pragma once
// The `impetus` commands. Each takes the arguments after its name, prints its own errors
// (`error: ...`, one line on stderr) and returns the exit status (see cli_args.h).
#include <string>
#include <vector>

namespace impetus::cli {

int command_run(const std::vector<std::string>& args);
int command_validate(const std::vector<std::string>& args);
int command_query(const std::vector<std::string>& args);
int command_check(const std::vector<std::string>& args);
int command_view(const std::vector<std::string>& args);
int command_batch(const std::vector<std::string>& args);

/// Help texts (stdout): the overview and one per command; empty for an unknown command.
std::string general_help();
std::string command_help(const std::string& command);

}  // namespace impetus::cli
