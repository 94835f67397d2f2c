#include "value_text.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace retcon::internal {

namespace {
template<class T>
T load(const std::byte *p) noexcept {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

std::string number(const char *fmt, auto v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

std::string element(field_kind kind, const std::byte *p, std::size_t size, bool json) {
    switch (kind) {
    case field_kind::boolean: return static_cast<std::uint8_t>(*p) ? "true" : "false";
    case field_kind::i8: return std::to_string(load<std::int8_t>(p));
    case field_kind::i16: return std::to_string(load<std::int16_t>(p));
    case field_kind::i32: return std::to_string(load<std::int32_t>(p));
    // 64-bit integers are JSON strings: parsers that use doubles would round them.
    case field_kind::i64:
        return json ? "\"" + std::to_string(load<std::int64_t>(p)) + "\"" : std::to_string(load<std::int64_t>(p));
    case field_kind::u8: return std::to_string(load<std::uint8_t>(p));
    case field_kind::u16: return std::to_string(load<std::uint16_t>(p));
    case field_kind::u32: return std::to_string(load<std::uint32_t>(p));
    case field_kind::u64:
        return json ? "\"" + std::to_string(load<std::uint64_t>(p)) + "\"" : std::to_string(load<std::uint64_t>(p));
    case field_kind::f32: {
        const float v = load<float>(p);
        if (json && v != v) return "\"nan\"";
        if (json && (v - v) != (v - v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
        return number("%.9g", static_cast<double>(v));
    }
    case field_kind::f64: {
        const double v = load<double>(p);
        if (json && v != v) return "\"nan\"";
        if (json && (v - v) != (v - v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
        return number("%.17g", v);
    }
    case field_kind::entity: {
        const auto e = entity{load<entity_traits::value_type>(p)};
        const std::string s =
            e == null_entity ? "null" : std::to_string(to_index(e)) + "v" + std::to_string(to_version(e));
        return json ? "\"" + s + "\"" : s;
    }
    case field_kind::text:
    case field_kind::record:
    case field_kind::bytes: break;
    }
    std::string hex = json ? "\"" : "0x";
    for (std::size_t i = 0; i < size; ++i) hex += number("%02x", static_cast<unsigned>(p[i]));
    return json ? hex + "\"" : hex;
}
} // namespace

std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) out += number("\\u%04x", static_cast<unsigned>(c));
            else
                out += c;
        }
    }
    return out + "\"";
}

std::string format_value(const schema::field &f, const std::byte *bytes, bool json) {
    if (f.kind == field_kind::text) {
        std::size_t n = 0;
        while (n < f.size && bytes[n] != std::byte{0}) ++n;
        const std::string_view text(reinterpret_cast<const char *>(bytes), n);
        return json ? json_string(text) : "\"" + std::string(text) + "\"";
    }
    const std::size_t each = f.count ? f.size / f.count : f.size;
    if (f.count <= 1) return element(f.kind, bytes, each, json);
    if (f.kind == field_kind::record || f.kind == field_kind::bytes) return element(f.kind, bytes, f.size, json);
    std::string out = "[";
    for (std::size_t i = 0; i < f.count; ++i) out += (i ? ", " : "") + element(f.kind, bytes + i * each, each, json);
    return out + "]";
}

std::string hex64(std::uint64_t v) { return number("%016" PRIx64, v); }

} // namespace retcon::internal
