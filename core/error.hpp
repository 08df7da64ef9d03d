// One error type for everything a user can act on: what went wrong, where, and what to do.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include "api.hpp"

namespace mo {

// Thrown for bad models, bad flags and unsupported features. `where` names the file,
// node or op; `hint` tells the user what to do. Invariant violations use MO_ASSERT.
class MO_API Error : public std::runtime_error {
public:
    Error(std::string what, std::string where = {}, std::string hint = {});

    const std::string& what_part() const { return what_; }
    const std::string& where() const { return where_; }
    const std::string& hint() const { return hint_; }

    // A copy of this error with more context prepended to `where` ("pass X: node Y").
    Error with_context(const std::string& outer) const;

private:
    std::string what_, where_, hint_;
};

// Runs `body` and returns what it returns; an Error it throws that names no place is rethrown
// as at `where`. A value's own check (byte_size, Dimension arithmetic) knows nothing of the
// tensor or node it was asked about; its caller does.
template <typename Body>
decltype(auto) located(const std::string& where, Body&& body) {
    try {
        return body();
    } catch (const Error& e) {
        if (e.where().empty()) throw e.with_context(where);
        throw;
    }
}

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
    std::ostringstream os;
    (os << ... << args);
    return os.str();
}
[[noreturn]] MO_API void assert_failed(const char* expr, const char* file, int line, const std::string& msg);
}  // namespace detail

}  // namespace mo

// Internal invariant: a bug in mo, not in the user's model.
#define MO_ASSERT(cond, ...)                                                             \
    do {                                                                                 \
        if (!(cond)) ::mo::detail::assert_failed(#cond, __FILE__, __LINE__,              \
                                                 ::mo::detail::concat("" __VA_OPT__(, ) __VA_ARGS__)); \
    } while (0)
