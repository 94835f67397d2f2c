#include <retcon/config.hpp>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace retcon {
namespace {
std::atomic<misuse_handler> current_handler{nullptr};
} // namespace

misuse_handler set_misuse_handler(misuse_handler handler) noexcept { return current_handler.exchange(handler); }

namespace internal {

void misuse(const char *format, ...) noexcept(false) {
    char message[512];
    std::va_list args;
    va_start(args, format);
    std::vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (const misuse_handler handler = current_handler.load()) handler(message);
    std::fprintf(stderr, "retcon: API misuse: %s\n", message);
    std::abort();
}

void assert_failed(const char *condition, const char *message, const char *file, int line) noexcept {
    std::fprintf(stderr, "%s:%d: retcon internal assertion failed: %s (%s)\n", file, line, message, condition);
    std::abort();
}

} // namespace internal
} // namespace retcon
