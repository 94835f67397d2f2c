#ifndef RETCON_ECS_ERROR_HPP
#define RETCON_ECS_ERROR_HPP

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace retcon {

/// @brief What went wrong with a file, an image, a packet or an API call that reports instead
/// of aborting. One enum for every layer (docs/frames.md#errors).
enum class errc : std::uint8_t {
    ok = 0,
    io,              ///< the operating system refused (open, read, write, rename)
    truncated,       ///< input ends before a declared length
    bad_magic,       ///< not a retcon file / image / message
    bad_version,     ///< a format or protocol version this build does not read
    schema_mismatch, ///< saved with another schema than the world's
    checksum,        ///< a checksum does not match the bytes
    too_large,       ///< a declared size exceeds the configured limit (decompression bombs)
    corrupt,         ///< structurally inconsistent (indices out of range, cycles, bad counts)
    decompress,      ///< zstd refused the compressed bytes
    not_found,       ///< a requested frame or item is not present
    invalid_argument ///< the caller asked for something impossible
};

/// @brief Short stable name of an error code ("checksum", "truncated", ...).
[[nodiscard]] const char *to_string(errc code) noexcept;

/**
 * @brief An error: a code, a static description, where in the input it was found, and an
 * optional context.
 *
 * Hot paths that reject hostile input (packet decoders) build errors from a string literal and
 * an offset only, so a flood of bad packets allocates nothing; the text is put together when
 * someone reads `message()`. File-level readers may add a formatted context (a path, the
 * sizes that disagree), which is allowed to allocate.
 */
struct error {
    /// @brief `offset` when the error is not tied to a position in the input.
    static constexpr std::uint64_t no_offset = ~std::uint64_t{0};

    errc code = errc::ok;
    const char *what = "";            ///< static description; never owned, never freed
    std::uint64_t offset = no_offset; ///< byte offset in the input where it went wrong
    std::string context;              ///< formatted detail (empty on hot paths)

    error() = default;
    /// @brief The allocation-free form: a code, a string literal and (optionally) an offset.
    constexpr error(errc c, const char *static_what, std::uint64_t at = no_offset) noexcept
        : code{c}, what{static_what}, offset{at} {}
    /// @brief The formatted form (files, tools): @p text becomes the context.
    error(errc c, std::string text) : code{c}, context{std::move(text)} {}

    /// @brief The whole text: "what at byte N: context" (parts that are absent are left out).
    [[nodiscard]] std::string message() const;
};

/**
 * @brief A value or an error (C++20 has no std::expected). Everything that reads untrusted
 * input returns one and leaves its outputs untouched on failure.
 */
template<class T>
class [[nodiscard]] result {
public:
    result(T value) : v_{std::move(value)} {} // NOLINT(google-explicit-constructor)
    result(error e) : v_{std::move(e)} {}     // NOLINT(google-explicit-constructor)
    result(errc code, std::string message) : v_{error{code, std::move(message)}} {}
    result(errc code, const char *static_what, std::uint64_t offset) : v_{error{code, static_what, offset}} {}

    [[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }
    /// @brief The value. @warning Only when ok().
    [[nodiscard]] T &value() & { return std::get<0>(v_); }
    [[nodiscard]] const T &value() const & { return std::get<0>(v_); }
    [[nodiscard]] T &&value() && { return std::get<0>(std::move(v_)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }
    /// @brief The error. @warning Only when !ok().
    [[nodiscard]] const error &err() const & { return std::get<1>(v_); }
    [[nodiscard]] errc code() const noexcept { return ok() ? errc::ok : std::get<1>(v_).code; }
    /// @brief The error's text (empty when ok()); formatted on each call.
    [[nodiscard]] std::string message() const { return ok() ? std::string{} : std::get<1>(v_).message(); }

private:
    std::variant<T, error> v_;
};

/// @brief result<void>: success or an error.
template<>
class [[nodiscard]] result<void> {
public:
    result() = default;
    result(error e) : e_{std::move(e)} {} // NOLINT(google-explicit-constructor)
    result(errc code, std::string message) : e_{code, std::move(message)} {}
    result(errc code, const char *static_what, std::uint64_t offset) : e_{code, static_what, offset} {}
    [[nodiscard]] bool ok() const noexcept { return e_.code == errc::ok; }
    explicit operator bool() const noexcept { return ok(); }
    [[nodiscard]] const error &err() const & { return e_; }
    [[nodiscard]] errc code() const noexcept { return e_.code; }
    /// @brief The error's text (empty when ok()); formatted on each call.
    [[nodiscard]] std::string message() const { return ok() ? std::string{} : e_.message(); }

private:
    error e_;
};

} // namespace retcon

#endif
