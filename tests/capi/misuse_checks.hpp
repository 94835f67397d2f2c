#ifndef RETCON_TESTS_CAPI_MISUSE_CHECKS_HPP
#define RETCON_TESTS_CAPI_MISUSE_CHECKS_HPP

// What every C API misuse test checks (docs/c-api.md, "Conventions"): the status, a message that
// says what was wrong, and that retcon's process-wide misuse handler, which belongs to the game,
// was neither called nor replaced.
#include <retcon.h>
#include <retcon/config.hpp>

#include <catch2/catch.hpp>

#include <string>

namespace retcon::capi_test {

using Catch::Matchers::Contains;

// ------------------------------------------------------------------ the process-wide handler

inline int misuse_calls = 0;
inline void count_misuse(const char *) { ++misuse_calls; }

/// Installs the counting handler for one case; check() proves it was neither called nor replaced.
class handler_guard {
public:
    handler_guard() : previous_{retcon::set_misuse_handler(&count_misuse)} { misuse_calls = 0; }
    ~handler_guard() { retcon::set_misuse_handler(previous_); }
    handler_guard(const handler_guard &) = delete;
    handler_guard &operator=(const handler_guard &) = delete;
    void check() const {
        CHECK(misuse_calls == 0);
        const retcon::misuse_handler current = retcon::set_misuse_handler(&count_misuse);
        CHECK(current == &count_misuse);
    }

private:
    retcon::misuse_handler previous_;
};

// ------------------------------------------------------------------ assertions

inline std::string text_of(const char *message) {
    return message ? std::string{message} : std::string{"(NULL message)"};
}

/// Runs @p call, requires status @p expected (compared by name, so failures read well) and a
/// message, read after the call from @p message, containing @p text (case-insensitive).
#define REQUIRE_FAILS(call, expected, message, text)                                                                   \
    do {                                                                                                               \
        const rc_status status_ = (call);                                                                              \
        INFO(#call);                                                                                                   \
        REQUIRE(std::string{rc_status_name(status_)} == std::string{rc_status_name(expected)});                        \
        const std::string message_ = text_of(message);                                                                 \
        REQUIRE_THAT(message_, Contains(text, Catch::CaseSensitive::No));                                              \
    } while (0)

/// REQUIRE_FAILS that goes on after a failure (for loops over many inputs).
#define CHECK_FAILS(call, expected, message, text)                                                                     \
    do {                                                                                                               \
        const rc_status status_ = (call);                                                                              \
        INFO(#call);                                                                                                   \
        CHECK(std::string{rc_status_name(status_)} == std::string{rc_status_name(expected)});                          \
        CHECK_THAT(text_of(message), Contains(text, Catch::CaseSensitive::No));                                        \
    } while (0)

#define REQUIRE_OK(call, message)                                                                                      \
    do {                                                                                                               \
        const rc_status status_ = (call);                                                                              \
        INFO(#call << ": " << text_of(message));                                                                       \
        REQUIRE(std::string{rc_status_name(status_)} == "RC_OK");                                                      \
    } while (0)

} // namespace retcon::capi_test

#endif
