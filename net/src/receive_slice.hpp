#ifndef RETCON_NET_SRC_RECEIVE_SLICE_HPP
#define RETCON_NET_SRC_RECEIVE_SLICE_HPP

#include <retcon/net/protocol.hpp>
#include <retcon/net/trace.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace retcon::internal {

/// @brief The `receive` slice of one packet on the network track (args bytes and the message
/// kind, docs/protocol.md), from the start of its handler to the end of the scope, so every
/// return of the handler closes it (docs/net.md, "Reading a trace"). A null recorder makes it a
/// no-op: one test at each end.
class receive_slice {
public:
    receive_slice(trace_recorder *recorder, std::span<const std::byte> packet) noexcept : r_{recorder} {
        if (!r_) return;
        start_ = r_->now();
        bytes_ = static_cast<std::int64_t>(packet.size());
        kind_ = wire::peek_kind(packet);
    }
    receive_slice(const receive_slice &) = delete;
    receive_slice &operator=(const receive_slice &) = delete;
    ~receive_slice() {
        if (r_) r_->complete(trace_id(trace_name::receive), start_, r_->now(), trace_track::network, bytes_, kind_);
    }

private:
    trace_recorder *r_;
    std::uint64_t start_ = 0;
    std::int64_t bytes_ = 0;
    std::int64_t kind_ = 0;
};

} // namespace retcon::internal

#endif
