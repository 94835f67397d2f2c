#include <retcon/snapshot/inspect.hpp>

#include <retcon/snapshot/replay.hpp>

#include <cerrno>
#include <cstdio>
#include <string>
#include <string_view>

#include <unistd.h>

#include <retcon/internal/field_kinds.hpp>

#include "file_header.hpp"
#include "fs.hpp"
#include "image_layout.hpp"
#include "value_text.hpp"

namespace retcon {

namespace {

std::string ratio(std::uint64_t raw, std::uint64_t stored) {
    if (stored == 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1fx", static_cast<double>(raw) / static_cast<double>(stored));
    return buf;
}

std::string_view kind_name(field_kind k) {
    const internal::field_kind_row *row = internal::find_field_kind(k);
    return row ? row->printed : "?";
}

std::string describe_type(const schema::type &t) {
    std::string s =
        t.name + " (" + (t.size ? std::to_string(t.size) + " bytes, align " + std::to_string(t.align) : "tag") + ")";
    for (std::size_t i = 0; i < t.fields.size(); ++i) {
        const auto &f = t.fields[i];
        s += (i ? ", " : ": ") + f.name + ":" + std::string{kind_name(f.kind)};
        if (f.count > 1) s += "[" + std::to_string(f.count) + "]";
        s += "@" + std::to_string(f.offset);
    }
    return s;
}

std::string image_summary(const world_image &img, const schema &s) {
    const auto &h = img.header();
    const auto sizes = internal::image_layout::element_sizes_of(s);
    auto v = parse_image(img.bytes(), sizes);
    std::string out =
        "  entities: " + std::to_string(h.alive) + " live of " + std::to_string(h.entity_slots) + " slots\n";
    if (!v) return out + "  (image unreadable: " + v.message() + ")\n";
    for (std::size_t i = 0; i < v->owners.size(); ++i)
        out += "  pool " + s.components()[i].name + ": " + std::to_string(v->owners[i].size()) + " components, " +
               std::to_string(v->owners[i].size_bytes() + v->payloads[i].size()) + " bytes\n";
    for (std::size_t g = 0; g < v->group_lengths.size(); ++g) {
        out += "  group";
        for (auto id : s.groups()[g]) out += " " + s.components()[id].name;
        out += ": " + std::to_string(v->group_lengths[g]) + " packed\n";
    }
    for (std::size_t r = 0; r < s.resources().size(); ++r)
        out +=
            "  resource " + s.resources()[r].name + ": " + (v->resources[r] != std::byte{0} ? "set" : "unset") + "\n";
    return out;
}

} // namespace

std::string format_field(const schema::field &f, const std::byte *bytes) {
    return internal::format_value(f, bytes, false);
}

std::string describe_schema(const schema &s) {
    // Which build can re-simulate the file: one of the same simulation semantics.
    std::string out =
        "schema " + internal::hex64(s.hash()) + " (simulation semantics " + std::to_string(s.semantics()) + ")\n";
    for (std::size_t i = 0; i < s.components().size(); ++i)
        out += "  component " + std::to_string(i) + " " + describe_type(s.components()[i]) + "\n";
    for (std::size_t i = 0; i < s.resources().size(); ++i)
        out += "  resource " + std::to_string(i) + " " + describe_type(s.resources()[i]) + "\n";
    for (const auto &g : s.groups()) {
        out += "  group";
        for (auto id : g) out += " " + s.components()[id].name;
        out += "\n";
    }
    return out;
}

result<file_kind> detect_file_kind(const std::filesystem::path &path) {
    auto file = internal::open_regular_file(path);
    if (!file) return file.err();
    const int fd = file->fd;
    unsigned char m[4] = {};
    std::size_t got = 0;
    while (got < sizeof m) {
        const ssize_t n = ::read(fd, m + got, sizeof m - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (got < sizeof m) return error{errc::truncated, path.string() + ": shorter than 4 bytes"};
    const std::uint32_t magic =
        std::uint32_t{m[0]} | (std::uint32_t{m[1]} << 8) | (std::uint32_t{m[2]} << 16) | (std::uint32_t{m[3]} << 24);
    switch (internal::identify_magic(magic)) {
    case internal::magic_kind::snapshot: return file_kind::snapshot;
    case internal::magic_kind::replay: return file_kind::replay;
    // A retcon file nonetheless: say why it cannot be read rather than "not a retcon file".
    case internal::magic_kind::byte_swapped:
        return error{errc::bad_magic, path.string() + ": " + internal::byte_swapped_note};
    case internal::magic_kind::unknown: break;
    }
    return file_kind::unknown;
}

result<std::string> inspect_file(const std::filesystem::path &path, const read_limits &limits) {
    auto kind = detect_file_kind(path);
    if (!kind) return kind.err();
    if (*kind == file_kind::snapshot) {
        auto f = read_snapshot_file(path, limits);
        if (!f) return f.err();
        std::string out =
            path.string() + ": retcon snapshot file, format " + std::to_string(snapshot_file_version) + "\n";
        out += "  frame: " + std::to_string(f->frame) + "\n";
        out += "  size: " + std::to_string(f->file_bytes) + " bytes on disk, image " + std::to_string(f->image.size()) +
               " bytes, zstd level " + std::to_string(f->level) + ", ratio " +
               ratio(f->image.size(), f->compressed_bytes) + "\n";
        out += image_summary(f->image, f->schema);
        return out + describe_schema(f->schema);
    }
    if (*kind == file_kind::replay) {
        auto r = replay_reader::open(path, limits);
        if (!r) return r.err();
        const auto &st = r->settings();
        std::string out = path.string() + ": retcon replay file, format " + std::to_string(r->format_version()) + "\n";
        out += "  frames: " + std::to_string(r->start_frame()) + ".." + std::to_string(r->end_frame()) + " (" +
               std::to_string(r->frame_count()) + " frames at " + std::to_string(st.tick_hz) + " Hz)\n";
        out +=
            "  players: " + std::to_string(st.players) + ", input " + std::to_string(st.input_size) + " bytes each\n";
        out += std::string("  complete: ") + (r->complete() ? "yes" : "no (" + r->truncation_note() + ")") + "\n";
        std::uint64_t full_raw = 0, full_stored = 0, delta_raw = 0, delta_stored = 0, nfull = 0;
        for (const auto &k : r->keyframes()) {
            (k.full ? full_raw : delta_raw) += k.image_bytes;
            (k.full ? full_stored : delta_stored) += k.stored_bytes;
            nfull += k.full ? 1u : 0u;
        }
        out += "  keyframes: " + std::to_string(r->keyframes().size()) + " (" + std::to_string(nfull) +
               " full, ratio " + ratio(full_raw, full_stored) + "; " + std::to_string(r->keyframes().size() - nfull) +
               " delta, ratio " + ratio(delta_raw, delta_stored) + "), every " + std::to_string(st.keyframe_interval) +
               " frames\n";
        out += "  size: " + std::to_string(r->file_bytes()) + " bytes\n";
        for (const auto &[k, v] : st.metadata) out += "  meta " + k + " = " + v + "\n";
        return out + describe_schema(r->schema());
    }
    return error{errc::bad_magic, path.string() + ": not a retcon snapshot (.rcs) or replay (.rcr) file"};
}

std::string dump_json(const world_image &image, const schema &s) {
    using internal::json_string;
    const auto sizes = internal::image_layout::element_sizes_of(s);
    auto v = parse_image(image.bytes(), sizes);
    if (!v) return "{\"error\":" + json_string(v.message()) + "}";
    const auto &h = v->header;
    std::string out = "{\"frame\":" + std::to_string(h.frame) + ",\"schema_hash\":\"" + internal::hex64(h.schema_hash) +
                      "\",\"alive\":" + std::to_string(h.alive) + ",\"resources\":{";
    const world probe{s};
    bool first = true;
    auto fields = [](const schema::type &t, const std::byte *p) {
        std::string o = "{";
        for (std::size_t i = 0; i < t.fields.size(); ++i)
            o += (i ? "," : "") + json_string(t.fields[i].name) + ":" +
                 internal::format_value(t.fields[i], p + t.fields[i].offset, true);
        return o + "}";
    };
    for (std::size_t r = 0; r < s.resources().size(); ++r) {
        if (v->resources[r] == std::byte{0}) continue;
        out += (first ? "" : ",") + json_string(s.resources()[r].name) + ":" +
               fields(s.resources()[r], v->resources.data() + probe.resource_offsets()[r]);
        first = false;
    }
    out += "},\"entities\":[";
    // Position of each entity in each pool.
    std::vector<std::vector<std::uint32_t>> position(v->owners.size());
    for (std::size_t i = 0; i < v->owners.size(); ++i) {
        position[i].assign(v->entities.size(), ~0u);
        for (std::size_t k = 0; k < v->owners[i].size(); ++k)
            position[i][to_index(v->owners[i][k])] = static_cast<std::uint32_t>(k);
    }
    first = true;
    for (std::size_t idx = 0; idx < v->entities.size(); ++idx) {
        const entity e = v->entities[idx];
        if (to_index(e) != idx) continue;
        out += std::string(first ? "" : ",") + "{\"entity\":" + json_string(retcon::to_string(e)) + ",\"components\":{";
        first = false;
        bool firstc = true;
        for (std::size_t i = 0; i < v->owners.size(); ++i) {
            const auto k = position[i][idx];
            if (k == ~0u) continue;
            const auto &t = s.components()[i];
            out += (firstc ? "" : ",") + json_string(t.name) + ":" +
                   fields(t, v->payloads[i].data() + std::size_t{k} * t.size);
            firstc = false;
        }
        out += "}}";
    }
    return out + "]}";
}

} // namespace retcon
