#ifndef RETCON_TESTS_CONNECT_FORGER_HPP
#define RETCON_TESTS_CONNECT_FORGER_HPP

// Forged ENet CONNECTs: the attack of docs/net.md, "Security model" ("A spoofer cannot keep a
// joiner out"). A spoofer sends CONNECT datagrams from addresses that are not its own and never
// sees an answer; on loopback, sockets bound to 127.0.0.0/8 addresses stand in for the spoofed
// sources (Linux routes all of 127/8 to lo) and are never read, so the server's answers are lost
// as they would be. Each datagram is exactly what enet_host_connect sends (ENet 1.3 protocol,
// <enet/protocol.h>, all fields big-endian): a 4-byte protocol header for peer ID 0xFFF with the
// sent-time flag, then ENetProtocolConnect (52 bytes) with a random connect ID. POSIX only.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rng.hpp"

namespace retcon::test {

/// Sends forged CONNECTs to one UDP port, round robin from several source addresses.
class connect_forger {
public:
    /// One socket per address in @p sources (each bound to an ephemeral port), toward
    /// 127.0.0.1 : @p port. @p seed drives the connect IDs. ok() says whether all were bound.
    connect_forger(const std::vector<std::string> &sources, std::uint16_t port, std::uint64_t seed) : rng_{seed} {
        to_.sin_family = AF_INET;
        to_.sin_port = htons(port);
        to_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        for (const std::string &source : sources) {
            sockaddr_in from{};
            from.sin_family = AF_INET;
            const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
            if (fd < 0 || ::inet_pton(AF_INET, source.c_str(), &from.sin_addr) != 1 ||
                ::bind(fd, reinterpret_cast<const sockaddr *>(&from), sizeof from) != 0) {
                if (fd >= 0) ::close(fd);
                ok_ = false;
                continue;
            }
            fds_.push_back(fd);
        }
        ok_ = ok_ && !fds_.empty();
    }
    ~connect_forger() {
        for (const int fd : fds_) ::close(fd);
    }
    connect_forger(const connect_forger &) = delete;
    connect_forger &operator=(const connect_forger &) = delete;

    [[nodiscard]] bool ok() const { return ok_; }
    /// CONNECTs sent so far (a full socket buffer drops some silently, as a network would).
    [[nodiscard]] std::uint64_t sent() const { return sent_; }

    /// Sends @p count CONNECTs, each from the next source, with data word @p data (0: no cookie;
    /// anything else: a guess at one).
    void send(std::size_t count, std::uint32_t data = 0) {
        for (std::size_t i = 0; i < count && !fds_.empty(); ++i) {
            const auto datagram = connect_datagram(static_cast<std::uint32_t>(rng_.next()), data);
            const int fd = fds_[next_++ % fds_.size()];
            if (::sendto(fd, datagram.data(), datagram.size(), 0, reinterpret_cast<const sockaddr *>(&to_),
                         sizeof to_) == static_cast<ssize_t>(datagram.size()))
                ++sent_;
        }
    }

    /// The 56 bytes of an ENet 1.3 CONNECT for 3 channels with @p connect_id and @p data.
    static std::array<std::byte, 56> connect_datagram(std::uint32_t connect_id, std::uint32_t data) {
        std::array<std::byte, 56> d{};
        std::size_t at = 0;
        const auto u8 = [&](std::uint32_t v) { d[at++] = static_cast<std::byte>(v & 0xFF); };
        const auto u16 = [&](std::uint32_t v) { u8(v >> 8), u8(v); };
        const auto u32 = [&](std::uint32_t v) { u16(v >> 16), u16(v); };
        u16(0x8000u | 0x0FFFu); // ENetProtocolHeader.peerID: sent-time flag, no peer yet (0xFFF)
        u16(0x1234);            // .sentTime
        u8(0x80u | 2u);         // ENetProtocolCommandHeader.command: CONNECT, acknowledge
        u8(0xFF);               // .channelID: none
        u16(1);                 // .reliableSequenceNumber
        u16(0);                 // ENetProtocolConnect.outgoingPeerID
        u8(0xFF);               // .incomingSessionID
        u8(0xFF);               // .outgoingSessionID
        u32(1392);              // .mtu (ENet's default)
        u32(32768);             // .windowSize
        u32(3);                 // .channelCount (retcon's wire::channel_count)
        u32(0);                 // .incomingBandwidth
        u32(0);                 // .outgoingBandwidth
        u32(5000);              // .packetThrottleInterval
        u32(2);                 // .packetThrottleAcceleration
        u32(2);                 // .packetThrottleDeceleration
        u32(connect_id);        // .connectID
        u32(data);              // .data
        return d;
    }

private:
    rng rng_;
    sockaddr_in to_{};
    std::vector<int> fds_;
    std::size_t next_ = 0;
    std::uint64_t sent_ = 0;
    bool ok_ = true;
};

} // namespace retcon::test

#endif
