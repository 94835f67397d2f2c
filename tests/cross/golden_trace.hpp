#ifndef RETCON_TESTS_CROSS_GOLDEN_TRACE_HPP
#define RETCON_TESTS_CROSS_GOLDEN_TRACE_HPP

// A golden trace: the golden demo match (tests/data/golden_demo.rcr) without compression, for
// the targets of the cross-architecture matrix, which build retcon's ECS and hashing but not
// zstd (docs/determinism.md#the-cross-architecture-matrix). `demo_golden trace` writes it on
// x86-64 after verifying the replay with the host build; `golden_check` reads it on every
// target. Decompressed bytes are what must agree between targets, never compressed files.
//
// Layout, every integer little-endian:
//   u32 magic "RCGT", u32 version 1
//   u32 players, u32 input size, u32 start frame, u32 frame count, u32 checkpoint interval K
//   u32 N, N bytes: the schema block (docs/file-format.md)
//   u64 M, M bytes: the world image at the start frame
//   frame count × (record: players flag bytes + players × input size; u64 world hash after it)
//   u32 C, C × (u32 frame, u32 S, S × u64 section hashes of the world at the start of that
//               frame: entities, each pool, groups, resources)
#include <retcon/internal/byte_io.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace retcon::cross {

inline constexpr std::uint32_t golden_trace_magic = 0x54474352u; // "RCGT" little-endian
inline constexpr std::uint32_t golden_trace_version = 1;

/// @brief Section hashes of the world at the start of one frame.
struct checkpoint {
    std::uint32_t frame = 0;
    std::vector<std::uint64_t> sections; ///< world_hashes::sections(): entities, pools, groups, resources
};

/// @brief One golden match, uncompressed.
struct golden_trace {
    std::uint32_t players = 0;
    std::uint32_t input_size = 0;
    std::uint32_t start_frame = 0;
    std::uint32_t frames = 0;
    std::uint32_t checkpoint_every = 0;
    std::vector<std::byte> schema_block;
    std::vector<std::byte> start_image;
    std::vector<std::byte> records;    ///< frames × record_size()
    std::vector<std::uint64_t> hashes; ///< world hash after each frame
    std::vector<checkpoint> checkpoints;

    [[nodiscard]] std::size_t record_size() const noexcept { return players + std::size_t{players} * input_size; }
    [[nodiscard]] std::span<const std::byte> record(std::uint32_t i) const noexcept {
        return std::span<const std::byte>(records).subspan(i * record_size(), record_size());
    }

    [[nodiscard]] std::vector<std::byte> encode() const {
        std::vector<std::byte> out;
        internal::byte_writer w{out};
        w.u32(golden_trace_magic);
        w.u32(golden_trace_version);
        for (auto v : {players, input_size, start_frame, frames, checkpoint_every}) w.u32(v);
        w.u32(static_cast<std::uint32_t>(schema_block.size()));
        w.bytes(schema_block);
        w.u64(start_image.size());
        w.bytes(start_image);
        for (std::uint32_t i = 0; i < frames; ++i) {
            w.bytes(record(i));
            w.u64(hashes[i]);
        }
        w.u32(static_cast<std::uint32_t>(checkpoints.size()));
        for (const auto &c : checkpoints) {
            w.u32(c.frame);
            w.u32(static_cast<std::uint32_t>(c.sections.size()));
            for (auto h : c.sections) w.u64(h);
        }
        return out;
    }

    /// @brief Parses @p bytes; on failure returns false and says why in @p why.
    [[nodiscard]] bool decode(std::span<const std::byte> bytes, std::string &why) {
        internal::byte_reader r{bytes};
        if (r.u32() != golden_trace_magic || r.u32() != golden_trace_version) {
            why = "not a golden trace (magic or version)";
            return false;
        }
        players = r.u32();
        input_size = r.u32();
        start_frame = r.u32();
        frames = r.u32();
        checkpoint_every = r.u32();
        if (!r.ok() || players == 0 || players > 256 || input_size == 0 || input_size > 4096) {
            why = "bad header";
            return false;
        }
        const auto schema_bytes = r.bytes(r.u32());
        schema_block.assign(schema_bytes.begin(), schema_bytes.end());
        const std::uint64_t image_bytes = r.u64();
        if (!r.ok() || image_bytes > bytes.size() || image_bytes < 64) {
            why = "truncated (schema or image; an image has a 64-byte header at least)";
            return false;
        }
        const auto image = r.bytes(static_cast<std::size_t>(image_bytes));
        start_image.assign(image.begin(), image.end());
        if (frames > bytes.size() / (record_size() + 8)) {
            why = "frame count larger than the file";
            return false;
        }
        records.clear();
        hashes.clear();
        records.reserve(std::size_t{frames} * record_size());
        hashes.reserve(frames);
        for (std::uint32_t i = 0; i < frames && r.ok(); ++i) {
            const auto rec = r.bytes(record_size());
            records.insert(records.end(), rec.begin(), rec.end());
            hashes.push_back(r.u64());
        }
        const std::uint32_t count = r.u32();
        checkpoints.clear();
        for (std::uint32_t i = 0; i < count && r.ok(); ++i) {
            checkpoint c;
            c.frame = r.u32();
            const std::uint32_t sections = r.u32();
            if (sections > 4096 + 3) r.fail();
            for (std::uint32_t k = 0; k < sections && r.ok(); ++k) c.sections.push_back(r.u64());
            checkpoints.push_back(std::move(c));
        }
        if (!r.ok() || r.remaining() != 0) {
            why = r.ok() ? "trailing bytes" : "truncated";
            return false;
        }
        return true;
    }
};

} // namespace retcon::cross

#endif
