// Errors, statuses and the ABI version: what every entry point shares (docs/c-api.md).
#include "handles.hpp"

#include <cstring>

namespace retcon::capi {

std::string &thread_error() noexcept {
    thread_local std::string message;
    return message;
}

rc_status fail(std::string &where, rc_status status, const char *format, ...) noexcept {
    char text[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    try {
        where = text;
    } catch (...) {
        where.clear(); // out of memory for the message itself: the status still says what
    }
    return status;
}

rc_status status_of(errc code) noexcept {
    switch (code) {
    case errc::ok: return RC_OK;
    case errc::io: return RC_ERR_IO;
    case errc::schema_mismatch: return RC_ERR_SCHEMA_MISMATCH;
    case errc::not_found: return RC_ERR_NOT_FOUND;
    case errc::invalid_argument: return RC_ERR_ARGUMENT;
    case errc::truncated:
    case errc::bad_magic:
    case errc::bad_version:
    case errc::checksum:
    case errc::too_large:
    case errc::corrupt:
    case errc::decompress: return RC_ERR_CORRUPT;
    }
    return RC_ERR_INTERNAL;
}

rc_status fail_with(std::string &where, const error &e) noexcept {
    return fail(where, status_of(e.code), "%s", e.message().c_str());
}

rc_status bad_frame(std::string &where, const char *what, rc_frame frame) noexcept {
    return fail(where, RC_ERR_ARGUMENT, "%s: frame %llu is beyond retcon's last frame (%u)", what,
                static_cast<unsigned long long>(frame), max_frame);
}

rc_status check_struct_size(std::string &where, std::uint32_t struct_size, std::size_t expected, const char *what,
                            const char *name) noexcept {
    if (struct_size >= expected) return RC_OK;
    return fail(where, RC_ERR_ARGUMENT, "%s: %s struct_size is %u, expected at least %zu", what, name, struct_size,
                expected);
}

rc_status copy_out(std::string &where, const void *bytes, std::size_t size, void *buffer, std::size_t capacity,
                   std::size_t *needed, const char *what) noexcept {
    if (!needed) return fail(where, RC_ERR_NULL, "%s: needed is NULL (it receives the size)", what);
    *needed = size;
    if (capacity < size)
        return fail(where, RC_ERR_BUFFER_TOO_SMALL, "%s: the buffer holds %zu bytes, %zu are needed", what, capacity,
                    size);
    if (size && !buffer) return fail(where, RC_ERR_NULL, "%s: buffer is NULL but capacity is %zu", what, capacity);
    if (size) std::memcpy(buffer, bytes, size);
    return RC_OK;
}

} // namespace retcon::capi

using namespace retcon::capi;

extern "C" {

uint32_t rc_abi_version(void) { return RC_ABI_VERSION; }

const char *rc_last_error(void) { return thread_error().c_str(); }

const char *rc_status_name(rc_status status) {
    switch (status) {
    case RC_OK: return "RC_OK";
    case RC_ERR_NULL: return "RC_ERR_NULL";
    case RC_ERR_ARGUMENT: return "RC_ERR_ARGUMENT";
    case RC_ERR_STALE_ENTITY: return "RC_ERR_STALE_ENTITY";
    case RC_ERR_NO_COMPONENT: return "RC_ERR_NO_COMPONENT";
    case RC_ERR_ALREADY_PRESENT: return "RC_ERR_ALREADY_PRESENT";
    case RC_ERR_SIZE: return "RC_ERR_SIZE";
    case RC_ERR_BUFFER_TOO_SMALL: return "RC_ERR_BUFFER_TOO_SMALL";
    case RC_ERR_SCHEMA_MISMATCH: return "RC_ERR_SCHEMA_MISMATCH";
    case RC_ERR_IO: return "RC_ERR_IO";
    case RC_ERR_CORRUPT: return "RC_ERR_CORRUPT";
    case RC_ERR_NOT_FOUND: return "RC_ERR_NOT_FOUND";
    case RC_ERR_INTERNAL: return "RC_ERR_INTERNAL";
    }
    return "unknown status";
}

} // extern "C"
