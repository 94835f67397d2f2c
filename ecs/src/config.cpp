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

unsigned library_entity_bits() noexcept { return RETCON_ENTITY_64 ? 64u : 32u; }

void check_entity_bits(unsigned program_bits) {
    const unsigned library_bits = library_entity_bits();
    if (RETCON_UNLIKELY(program_bits != library_bits))
        misuse("retcon was built with %u-bit entity handles, this program with %u-bit: define RETCON_ENTITY_64=%d",
               library_bits, program_bits, library_bits == 64u ? 1 : 0);
}

void assert_failed(const char *condition, const char *message, const char *file, int line) noexcept {
    std::fprintf(stderr, "%s:%d: retcon internal assertion failed: %s (%s)\n", file, line, message, condition);
    std::abort();
}

} // namespace internal
} // namespace retcon
