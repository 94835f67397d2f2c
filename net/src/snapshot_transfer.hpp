#ifndef RETCON_NET_SRC_SNAPSHOT_TRANSFER_HPP
#define RETCON_NET_SRC_SNAPSHOT_TRANSFER_HPP

#include <retcon/net/protocol.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace retcon::internal {

/// @brief Reassembles one snapshot transfer (a `.rcs` file in `snapshot_chunk` messages on the
/// reliable snapshots channel: the server's join and resync snapshots, a client's forensic
/// upload) and refuses anything inconsistent (docs/protocol.md, "Snapshot transfers").
class snapshot_receiver {
public:
    /// @brief A receiver that accepts transfers of at most @p max_bytes.
    explicit snapshot_receiver(std::size_t max_bytes) : max_{max_bytes} {}

    /// @brief Adds a chunk; false if it is inconsistent with the transfer so far (which is then
    /// abandoned) or larger than the limit. A chunk at offset 0 starts a new transfer. Chunks
    /// arrive in order (reliable channel).
    bool add(const wire::snapshot_chunk_msg &m) {
        if (m.total > max_ || m.total == 0) return active_ = false, false;
        if (m.offset == 0) {
            transfer_ = m.transfer;
            frame_ = m.frame;
            total_ = m.total;
            bytes_.clear();
            active_ = true;
        }
        if (!active_ || m.transfer != transfer_ || m.frame != frame_ || m.total != total_ || m.offset != bytes_.size())
            return active_ = false, false;
        bytes_.insert(bytes_.end(), m.bytes.begin(), m.bytes.end());
        return true;
    }
    /// @brief True once every byte of the current transfer arrived.
    [[nodiscard]] bool complete() const noexcept { return active_ && bytes_.size() == total_; }
    /// @brief The frame the transfer is tagged with.
    [[nodiscard]] frame_t frame() const noexcept { return frame_; }
    /// @brief The bytes received so far (the whole file once `complete`).
    [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }
    /// @brief Abandons the transfer, keeping the buffer's capacity.
    void reset() noexcept {
        active_ = false;
        bytes_.clear();
    }

private:
    std::size_t max_;
    std::uint32_t transfer_ = 0;
    frame_t frame_ = 0;
    std::uint32_t total_ = 0;
    bool active_ = false;
    std::vector<std::byte> bytes_;
};

/// @brief Splits @p file into `snapshot_chunk` messages of at most `wire::limits::snapshot_chunk`
/// bytes each, tagged with @p transfer and @p frame, and hands each encoded message to @p send.
template<class Send>
void send_snapshot_chunks(std::uint32_t transfer, frame_t frame, std::span<const std::byte> file, Send &&send) {
    wire::snapshot_chunk_msg m;
    m.transfer = transfer;
    m.frame = frame;
    m.total = static_cast<std::uint32_t>(file.size());
    std::vector<std::byte> out;
    for (std::size_t off = 0; off < file.size(); off += wire::limits::snapshot_chunk) {
        const std::size_t n = std::min<std::size_t>(wire::limits::snapshot_chunk, file.size() - off);
        m.offset = static_cast<std::uint32_t>(off);
        m.bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(off),
                       file.begin() + static_cast<std::ptrdiff_t>(off + n));
        wire::encode(m, out);
        send(std::span<const std::byte>(out));
    }
}

} // namespace retcon::internal

#endif
