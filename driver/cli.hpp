// The `mo` command line: flags in Model Optimizer's spelling, `--flag value` or `--flag=value`.
// Parsing is separate from main() so tests can check it.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/options.hpp"
#include "core/tool_api.hpp"

namespace mo {

// A bad command line (exit code 2), as opposed to a bad model (exit code 1).
class MO_TOOL_API UsageError : public Error {
public:
    using Error::Error;
};

// --validate: evaluate the IR read back from disk and compare it with reference outputs, or
// without them with the source graph as extracted.
struct ValidationRequest {
    bool enabled = false;
    std::vector<std::string> inputs;   // .npy files, by position or name=file
    std::vector<std::string> outputs;  // reference .npy files, in output order
};

struct CliRequest {
    enum class Action { Convert, Help, Version, ListTransformations, ListOps };
    Action action = Action::Convert;
    ConversionOptions options;
    LogLevel log_level = LogLevel::Warning;
    ValidationRequest validation;
};

// `args` excludes the program name. Throws UsageError.
MO_TOOL_API CliRequest parse_command_line(const std::vector<std::string>& args);
MO_TOOL_API std::string usage_text();

// "[1,3,224,224],[1,10]" -> one shape per bracket group ("(..)" also accepted).
std::vector<PartialShape> parse_shape_list(const std::string& text);
// "a[1,3,?,?],b" -> {a, [1,3,?,?]}, {b, no shape}.
std::vector<InputSpec> parse_input_list(const std::string& text);

}  // namespace mo
