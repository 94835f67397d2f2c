#ifndef RETCON_CONFIG_HPP
#define RETCON_CONFIG_HPP

/**
 * @file config.hpp
 * @brief Every configuration knob of retcon, in one place (see docs/config.md).
 *
 * A game may inject its own settings by providing `<retcon/ext/config.hpp>`; it is included
 * first, so anything defined there wins over the defaults below.
 */

#if __has_include(<retcon/ext/config.hpp>)
#    include <retcon/ext/config.hpp>
#endif

#include <cstdint>

/// @brief Entries per page of a pool's sparse index (a power of two). Changes no byte of a
/// snapshot (the sparse index is derived data), only memory use and lookup locality.
#ifndef RETCON_SPARSE_PAGE_SIZE
#    define RETCON_SPARSE_PAGE_SIZE 4096
#endif

/// @brief 1 for 64-bit entity handles (a 32-bit index and a 32-bit version, past a million
/// live entities), 0 for the default 32-bit ones (20 + 12 bits). It must be the value the retcon
/// library was compiled with: the CMake option RETCON_ENTITY_64 sets it on retcon::ecs as a
/// PUBLIC definition, so whatever links the target agrees (docs/config.md, "Entity handles").
#ifndef RETCON_ENTITY_64
#    define RETCON_ENTITY_64 0
#endif

/// @brief Internal invariant checks. Active unless NDEBUG (or RETCON_DISABLE_ASSERT) is set.
/// Replace it by defining RETCON_ASSERT(condition, message) before including retcon.
#ifndef RETCON_ASSERT
#    if defined(NDEBUG) || defined(RETCON_DISABLE_ASSERT)
#        define RETCON_ASSERT(condition, message) ((void)0)
#    else
#        define RETCON_ASSERT(condition, message)                                                                      \
            ((condition) ? (void)0 : ::retcon::internal::assert_failed(#condition, message, __FILE__, __LINE__))
#    endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#    define RETCON_LIKELY(x) __builtin_expect(!!(x), 1)
#    define RETCON_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#    define RETCON_LIKELY(x) (x)
#    define RETCON_UNLIKELY(x) (x)
#endif

namespace retcon {

/**
 * @brief Receives API-misuse reports (stale handles, missing components, undeclared types).
 *
 * Misuse is checked in every build. The default handler prints the message to stderr and
 * aborts. A handler may throw (tests do) or log; if it returns normally the program aborts,
 * because the call that was misused cannot continue. Every check runs before any state is
 * changed, so a throwing handler leaves the world as it was.
 */
using misuse_handler = void (*)(const char *message);

/// @brief Installs @p handler (nullptr restores the default) and returns the previous one.
misuse_handler set_misuse_handler(misuse_handler handler) noexcept;

namespace internal {

/// @brief Formats a misuse message (printf style) and hands it to the misuse handler.
[[noreturn]] void misuse(const char *format, ...) noexcept(false)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2), cold))
#endif
    ;

/// @brief Bits of an entity handle in the compiled library (32 or 64).
[[nodiscard]] unsigned library_entity_bits() noexcept;

/// @brief Reports misuse unless @p program_bits (the handle width a program's headers saw) is
/// library_entity_bits(): a program and a library built with different RETCON_ENTITY_64 would
/// read each other's handles wrongly. `world`'s constructor calls it.
void check_entity_bits(unsigned program_bits);

/// @brief Called by RETCON_ASSERT when an internal invariant is broken.
[[noreturn]] void assert_failed(const char *condition, const char *message, const char *file, int line) noexcept;

} // namespace internal
} // namespace retcon

#endif
