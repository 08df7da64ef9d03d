// Runs a command line in a shell as a user would, capturing stdout and stderr together.
#pragma once

#include <string>

namespace mo::test {

struct CommandResult {
    int exit_code;       // -1 when the command did not exit normally
    std::string output;  // stdout and stderr
};

CommandResult run_command(const std::string& binary, const std::string& args);

}  // namespace mo::test
