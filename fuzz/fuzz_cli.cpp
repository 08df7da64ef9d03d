// Fuzz target: mo's command line (arguments separated by NUL bytes), parsed only: a parsed
// command is not run, since it could name any file to read or write.
#include "core/error.hpp"
#include "fuzz/fuzz_support.hpp"
#include "driver/cli.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> args(1);
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == 0)
            args.emplace_back();
        else
            args.back() += static_cast<char>(data[i]);
    }
    try {
        mo::parse_command_line(args);
    } catch (const mo::Error&) {
    }
    return 0;
}
