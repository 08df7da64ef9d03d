#include "support/run_command.hpp"

#include <sys/wait.h>

#include <cstdio>

namespace mo::test {

CommandResult run_command(const std::string& binary, const std::string& args) {
    std::string cmd = binary + " " + args + " 2>&1";
    CommandResult r{-1, {}};
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace mo::test
