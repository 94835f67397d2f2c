#include <retcon/ecs/error.hpp>

namespace retcon {

const char *to_string(errc code) noexcept {
    switch (code) {
    case errc::ok: return "ok";
    case errc::io: return "io";
    case errc::truncated: return "truncated";
    case errc::bad_magic: return "bad_magic";
    case errc::bad_version: return "bad_version";
    case errc::schema_mismatch: return "schema_mismatch";
    case errc::checksum: return "checksum";
    case errc::too_large: return "too_large";
    case errc::corrupt: return "corrupt";
    case errc::decompress: return "decompress";
    case errc::not_found: return "not_found";
    case errc::invalid_argument: return "invalid_argument";
    }
    return "unknown";
}

std::string error::message() const {
    std::string s = what ? what : "";
    if (offset != no_offset) s += (s.empty() ? "at byte " : " at byte ") + std::to_string(offset);
    if (!context.empty()) s += (s.empty() ? "" : ": ") + context;
    if (s.empty() && code != errc::ok) s = to_string(code);
    return s;
}

} // namespace retcon
