#include "replay_header.hpp"

#include <retcon/internal/byte_io.hpp>

namespace retcon::internal {

bool settings_in_range(const replay_settings &s) noexcept {
    return s.players >= 1 && s.players <= 256 && s.input_size >= 1 && s.input_size <= 4096 &&
           s.keyframe_interval >= 1 && s.full_keyframe_every >= 1 && s.frames_per_chunk >= 1 &&
           s.frames_per_chunk <= 65536 && static_cast<std::uint8_t>(s.keyframe_codec) <= 1;
}

std::vector<std::byte> encode_replay_fields(const replay_settings &s, std::uint32_t metadata_size) {
    std::vector<std::byte> out;
    byte_writer w{out};
    w.u32(metadata_size);
    w.u32(s.players);
    w.u32(s.input_size);
    w.u32(s.tick_hz);
    w.u32(s.keyframe_interval);
    w.u32(s.full_keyframe_every);
    w.u32(s.frames_per_chunk);
    return out;
}

std::uint32_t decode_replay_fields(std::span<const std::byte, format_fields_size> fields, replay_settings &s) noexcept {
    byte_reader r{fields};
    const auto metadata_size = r.u32();
    s.players = r.u32();
    s.input_size = r.u32();
    s.tick_hz = r.u32();
    s.keyframe_interval = r.u32();
    s.full_keyframe_every = r.u32();
    s.frames_per_chunk = r.u32();
    return metadata_size;
}

std::vector<std::byte> encode_metadata(const std::vector<std::pair<std::string, std::string>> &entries) {
    std::vector<std::byte> out;
    byte_writer w{out};
    w.u32(static_cast<std::uint32_t>(entries.size()));
    for (const auto &[k, v] : entries) {
        w.text32(k);
        w.text32(v);
    }
    return out;
}

result<void> decode_metadata(std::span<const std::byte> block, std::uint64_t offset, const std::string &name,
                             std::vector<std::pair<std::string, std::string>> &out) {
    byte_reader m{block, static_cast<std::size_t>(offset)};
    const auto n = m.u32();
    if (n > max_metadata_entries) return {errc::corrupt, at_byte(name, m.offset()) + "too many metadata entries"};
    for (std::uint32_t i = 0; i < n && m.ok(); ++i) {
        auto k = m.text(m.u32(), max_metadata_text);
        auto v = m.text(m.u32(), max_metadata_text);
        out.emplace_back(std::move(k), std::move(v));
    }
    if (!m.ok() || m.remaining() != 0)
        return {errc::corrupt, at_byte(name, m.offset()) + "metadata block is malformed"};
    return {};
}

} // namespace retcon::internal
