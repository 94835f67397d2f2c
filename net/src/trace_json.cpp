// The Trace Event Format writer (docs/net.md, "Reading a trace"): JSON object form, written by
// hand so retcon::net needs no JSON library.
#include <retcon/net/trace.hpp>

#include <retcon/snapshot/atomic_file.hpp>
#include <retcon/version.hpp>

#include <bit>
#include <charconv>

namespace retcon {

namespace {

/// Appends @p s as a JSON string: quotes, backslashes and control bytes escaped, and each byte
/// that does not start a valid UTF-8 sequence replaced by U+FFFD (texts may carry what peers sent).
void append_string(std::string &out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            if (c == '"' || c == '\\') {
                out += '\\';
                out += static_cast<char>(c);
            } else if (c < 0x20 || c == 0x7f) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        // The length and the allowed range of the second byte (no overlongs, no surrogates,
        // nothing past U+10FFFF), as RFC 3629's table.
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) len = 2;
        else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            if (c == 0xe0) lo = 0xa0;
            if (c == 0xed) hi = 0x9f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            if (c == 0xf0) lo = 0x90;
            if (c == 0xf4) hi = 0x8f;
        }
        bool ok = len != 0 && i + len <= n && p[i + 1] >= lo && p[i + 1] <= hi;
        for (std::size_t k = 2; ok && k < len; ++k) ok = p[i + k] >= 0x80 && p[i + k] <= 0xbf;
        if (ok) {
            out.append(s.data() + i, len);
            i += len;
        } else {
            out += "\xef\xbf\xbd";
            ++i;
        }
    }
    out += '"';
}

/// Nanoseconds as microseconds with three decimals, exactly.
void append_us(std::string &out, std::uint64_t ns) {
    out += std::to_string(ns / 1000);
    const auto frac = static_cast<unsigned>(ns % 1000);
    out += '.';
    out += static_cast<char>('0' + frac / 100);
    out += static_cast<char>('0' + frac / 10 % 10);
    out += static_cast<char>('0' + frac % 10);
}

void append_double(std::string &out, double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

} // namespace

void internal::trace_data::append_text(std::string &out, const record &r) const {
    const auto start = static_cast<std::uint64_t>(r.a);
    const auto len = static_cast<std::size_t>(r.b);
    if (text_end - start > text.size()) {
        append_string(out, "(overwritten)");
        return;
    }
    std::string t(len, '\0');
    for (std::size_t i = 0; i < len; ++i) t[i] = text[(start + i) % text.size()];
    append_string(out, t);
}

std::string internal::trace_data::json() const {
    std::string out;
    out.reserve(256 + size() * 120);
    const std::string pid_text = std::to_string(pid);
    const auto event_head = [&](trace_name_id name, const char *ph, std::uint64_t ts, trace_track track) {
        out += "{\"name\":";
        append_string(out, name < names.size() ? std::string_view{names[name].name} : std::string_view{"?"});
        out += ",\"cat\":\"retcon\",\"ph\":\"";
        out += ph;
        out += "\",\"ts\":";
        append_us(out, ts);
        out += ",\"pid\":";
        out += pid_text;
        out += ",\"tid\":";
        out += std::to_string(static_cast<unsigned>(track));
    };
    const auto meta = [&](const char *what, unsigned tid, std::string_view arg, std::string_view value) {
        out += "{\"name\":\"";
        out += what;
        out += "\",\"ph\":\"M\",\"pid\":";
        out += pid_text;
        out += ",\"tid\":";
        out += std::to_string(tid);
        out += ",\"args\":{";
        append_string(out, arg);
        out += ':';
        out += value;
        out += "}},\n";
    };

    out += "{\"traceEvents\":[\n";
    std::string quoted;
    append_string(quoted, process.empty() ? std::string_view{"retcon"} : std::string_view{process});
    meta("process_name", 0, "name", quoted);
    static constexpr const char *tracks[] = {"tick", "network", "game"};
    for (unsigned t = 1; t <= 3; ++t) {
        quoted.clear();
        append_string(quoted, tracks[t - 1]);
        meta("thread_name", t, "name", quoted);
        meta("thread_sort_index", t, "sort_index", std::to_string(t));
    }
    const std::size_t n = size();
    const std::size_t first = full ? head : 0;
    for (std::size_t i = 0; i < n; ++i) {
        const record &r = records[(first + i) % records.size()];
        const name_entry *e = r.name < names.size() ? &names[r.name] : nullptr;
        switch (r.ph) {
        case phase::complete:
            event_head(r.name, "X", r.ts, r.track);
            out += ",\"dur\":";
            append_us(out, r.dur);
            out += ",\"args\":{";
            if (e && !e->arg_a.empty()) {
                append_string(out, e->arg_a);
                out += ':';
                out += std::to_string(r.a);
            }
            if (e && !e->arg_b.empty()) {
                if (!e->arg_a.empty()) out += ',';
                append_string(out, e->arg_b);
                out += ':';
                out += std::to_string(r.b);
            }
            out += "}}";
            break;
        case phase::counter:
            event_head(r.name, "C", r.ts, r.track);
            out += ",\"args\":{";
            append_string(out, r.name < names.size() ? std::string_view{names[r.name].name} : std::string_view{"?"});
            out += ':';
            append_double(out, std::bit_cast<double>(r.a));
            out += "}}";
            break;
        case phase::instant:
            event_head(r.name, "i", r.ts, r.track);
            out += ",\"s\":\"p\",\"args\":{\"text\":";
            append_text(out, r);
            out += "}}";
            break;
        }
        out += ",\n";
    }
    if (out.back() == '\n') out.resize(out.size() - 2); // the last comma
    out += "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"retcon\":\"";
    out += std::to_string(RETCON_VERSION_MAJOR) + '.' + std::to_string(RETCON_VERSION_MINOR) + '.' +
           std::to_string(RETCON_VERSION_PATCH);
    out += "\",\"clock\":\"";
    out += injected_clock ? "injected" : "CLOCK_MONOTONIC";
    out += "\",\"records\":" + std::to_string(n) + ",\"overwritten\":" + std::to_string(overwritten) + "}}\n";
    return out;
}

result<void> trace_recorder::write_json(const std::filesystem::path &path) const {
    return write_file_atomic(path, std::string_view{json()});
}

} // namespace retcon
