#ifndef RETCON_TESTS_COUNTING_TRANSPORT_HPP
#define RETCON_TESTS_COUNTING_TRANSPORT_HPP

// A transport that counts what is sent through it, per peer and channel, and hands everything
// to the transport it wraps: the packet counts behind the traffic figures of docs/benchmarks.md
// ("Netcode"), which the simulated network's byte counters alone do not give.
#include <retcon/net/protocol.hpp>
#include <retcon/net/transport.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace retcon::test {

/// @brief Wraps a transport and counts what is sent through it, per peer and channel.
class counting_transport final : public transport {
public:
    /// @brief Packets and payload bytes sent.
    struct counts {
        std::uint64_t packets = 0, bytes = 0;
    };
    explicit counting_transport(transport &inner) : inner_{inner} {}
    void send(peer_id peer, wire::channel ch, std::span<const std::byte> data) override {
        if (peer >= sent_.size()) sent_.resize(peer + 1u);
        auto &c = sent_[peer][static_cast<std::size_t>(ch)];
        ++c.packets;
        c.bytes += data.size();
        inner_.send(peer, ch, data);
    }
    void disconnect(peer_id peer) override { inner_.disconnect(peer); }
    void admit(peer_id peer) override { inner_.admit(peer); }
    bool reconnect() override { return inner_.reconnect(); }
    void poll(std::uint64_t now_ms, transport_handler &h) override { inner_.poll(now_ms, h); }
    void flush() override { inner_.flush(); }
    bool wait(std::chrono::microseconds timeout) override { return inner_.wait(timeout); }
    [[nodiscard]] transport_peer_stats peer_stats(peer_id p) const override { return inner_.peer_stats(p); }
    [[nodiscard]] std::string peer_address(peer_id p) const override { return inner_.peer_address(p); }
    [[nodiscard]] std::uint16_t local_port() const override { return inner_.local_port(); }
    /// @brief What was sent to @p peer on @p ch.
    [[nodiscard]] counts sent(peer_id peer, wire::channel ch) const {
        return peer < sent_.size() ? sent_[peer][static_cast<std::size_t>(ch)] : counts{};
    }

private:
    transport &inner_;
    std::vector<std::array<counts, wire::channel_count>> sent_;
};

} // namespace retcon::test

#endif
