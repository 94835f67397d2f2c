#ifndef RETCON_TESTS_MISUSE_HPP
#define RETCON_TESTS_MISUSE_HPP

#include <retcon/config.hpp>

#include <stdexcept>
#include <string>

namespace retcon::test {

/// @brief Thrown by the test misuse handler; carries retcon's message.
struct misuse_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// @brief Installs a misuse handler that throws misuse_error for its lifetime.
class throwing_misuse_handler {
public:
    throwing_misuse_handler() noexcept;
    ~throwing_misuse_handler();
    throwing_misuse_handler(const throwing_misuse_handler &) = delete;
    throwing_misuse_handler &operator=(const throwing_misuse_handler &) = delete;

private:
    misuse_handler previous_;
};

} // namespace retcon::test

/// @brief Asserts that @p expr is reported as misuse with a message containing @p text.
#define REQUIRE_MISUSE(expr, text)                                                                                     \
    do {                                                                                                               \
        ::retcon::test::throwing_misuse_handler retcon_handler_;                                                       \
        REQUIRE_THROWS_WITH(expr, Catch::Contains(text));                                                              \
    } while (0)

#endif
