#include "core/error.hpp"

namespace mo {

static std::string format_error(const std::string& what, const std::string& where, const std::string& hint) {
    std::string s;
    if (!where.empty()) s += where + ": ";
    s += what;
    if (!hint.empty()) s += "\n  hint: " + hint;
    return s;
}

Error::Error(std::string what, std::string where, std::string hint)
    : std::runtime_error(format_error(what, where, hint)),
      what_(std::move(what)), where_(std::move(where)), hint_(std::move(hint)) {}

Error Error::with_context(const std::string& outer) const {
    return Error(what_, where_.empty() ? outer : outer + ": " + where_, hint_);
}

namespace detail {
void assert_failed(const char* expr, const char* file, int line, const std::string& msg) {
    throw std::logic_error(concat("internal error (please report): ", expr, " failed at ", file, ":", line,
                                  msg.empty() ? "" : ": ", msg));
}
}  // namespace detail

}  // namespace mo
