#ifndef RETCON_SNAPSHOT_ERROR_HPP
#define RETCON_SNAPSHOT_ERROR_HPP

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace retcon {

/// @brief What went wrong with a file, an image or an API call that reports instead of aborting.
enum class errc : std::uint8_t {
    ok = 0,
    io,              ///< the operating system refused (open, read, write, rename)
    truncated,       ///< input ends before a declared length
    bad_magic,       ///< not a retcon file / image
    bad_version,     ///< a format version this build does not read
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

/// @brief An error code plus a message that says what was wrong, and where.
struct error {
    errc code = errc::ok;
    std::string message;
};

/**
 * @brief A value or an error (C++20 has no std::expected). Readers of hostile input return it
 * and leave their outputs untouched on failure.
 */
template<class T>
class [[nodiscard]] result {
public:
    result(T value) : v_{std::move(value)} {} // NOLINT(google-explicit-constructor)
    result(error e) : v_{std::move(e)} {}     // NOLINT(google-explicit-constructor)
    result(errc code, std::string message) : v_{error{code, std::move(message)}} {}

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
    [[nodiscard]] const std::string &message() const {
        static const std::string none;
        return ok() ? none : std::get<1>(v_).message;
    }

private:
    std::variant<T, error> v_;
};

/// @brief result<void>: success or an error.
template<>
class [[nodiscard]] result<void> {
public:
    result() = default;
    result(error e) : e_{std::move(e)} {} // NOLINT(google-explicit-constructor)
    result(errc code, std::string message) : e_{error{code, std::move(message)}} {}
    [[nodiscard]] bool ok() const noexcept { return e_.code == errc::ok; }
    explicit operator bool() const noexcept { return ok(); }
    [[nodiscard]] const error &err() const & { return e_; }
    [[nodiscard]] errc code() const noexcept { return e_.code; }
    [[nodiscard]] const std::string &message() const noexcept { return e_.message; }

private:
    error e_;
};

} // namespace retcon

#endif
