#ifndef RETCON_TESTS_DELAY_RELAY_HPP
#define RETCON_TESTS_DELAY_RELAY_HPP

// A fixed one-way delay between one UDP client and a server on loopback, pumped by the test's
// own loop: the in-process cousin of retcon-relay (tools/udp_relay, docs/cli.md#retcon-relay)
// for tests that need a real round trip without a second process. The client sends to port();
// the server sees the relay's upstream socket (bound to @p upstream_source) as the client.
// No reordering (each direction keeps its order); loss only as an outage the test switches on
// and off (set_outage). POSIX only.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace retcon::test {

/// One client's datagrams to and from a server on 127.0.0.1, each held for a fixed delay.
class delay_relay {
public:
    /// Listens on 127.0.0.1 (ephemeral port); forwards to 127.0.0.1 : @p server_port from
    /// @p upstream_source (ephemeral port). ok() says whether both sockets were bound.
    delay_relay(std::uint16_t server_port, std::uint64_t one_way_us, const std::string &upstream_source)
        : delay_us_{one_way_us} {
        server_.sin_family = AF_INET;
        server_.sin_port = htons(server_port);
        server_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sockaddr_in listen{};
        listen.sin_family = AF_INET;
        listen.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sockaddr_in up{};
        up.sin_family = AF_INET;
        listen_fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
        up_fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
        ok_ = listen_fd_ >= 0 && up_fd_ >= 0 &&
              ::bind(listen_fd_, reinterpret_cast<const sockaddr *>(&listen), sizeof listen) == 0 &&
              ::inet_pton(AF_INET, upstream_source.c_str(), &up.sin_addr) == 1 &&
              ::bind(up_fd_, reinterpret_cast<const sockaddr *>(&up), sizeof up) == 0;
        socklen_t len = sizeof listen;
        if (ok_ && ::getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&listen), &len) == 0)
            port_ = ntohs(listen.sin_port);
        ok_ = ok_ && port_ != 0;
    }
    ~delay_relay() {
        if (listen_fd_ >= 0) ::close(listen_fd_);
        if (up_fd_ >= 0) ::close(up_fd_);
    }
    delay_relay(const delay_relay &) = delete;
    delay_relay &operator=(const delay_relay &) = delete;

    [[nodiscard]] bool ok() const { return ok_; }
    /// The port the client sends to (on 127.0.0.1).
    [[nodiscard]] std::uint16_t port() const { return port_; }

    /// While @p on, every datagram taken in, either way, is dropped (held ones still go out).
    void set_outage(bool on) { outage_ = on; }
    /// Datagrams dropped by outages so far.
    [[nodiscard]] std::uint64_t dropped() const { return dropped_; }

    /// At @p now_us (any monotonic microsecond clock): takes in what arrived on both sides and
    /// sends on what has been held for the delay.
    void pump(std::uint64_t now_us) {
        std::array<char, 2048> buf{};
        for (;;) { // from the client
            sockaddr_in from{};
            socklen_t len = sizeof from;
            const ssize_t n =
                ::recvfrom(listen_fd_, buf.data(), buf.size(), 0, reinterpret_cast<sockaddr *>(&from), &len);
            if (n < 0) break;
            client_ = from;
            have_client_ = true;
            if (outage_) {
                ++dropped_;
                continue;
            }
            upstream_.push_back({now_us + delay_us_, {buf.data(), buf.data() + n}});
        }
        for (;;) { // from the server
            const ssize_t n = ::recv(up_fd_, buf.data(), buf.size(), 0);
            if (n < 0) break;
            if (outage_) {
                ++dropped_;
                continue;
            }
            downstream_.push_back({now_us + delay_us_, {buf.data(), buf.data() + n}});
        }
        while (!upstream_.empty() && upstream_.front().due_us <= now_us) {
            const auto &d = upstream_.front().data;
            ::sendto(up_fd_, d.data(), d.size(), 0, reinterpret_cast<const sockaddr *>(&server_), sizeof server_);
            upstream_.pop_front();
        }
        while (have_client_ && !downstream_.empty() && downstream_.front().due_us <= now_us) {
            const auto &d = downstream_.front().data;
            ::sendto(listen_fd_, d.data(), d.size(), 0, reinterpret_cast<const sockaddr *>(&client_), sizeof client_);
            downstream_.pop_front();
        }
    }

private:
    struct held {
        std::uint64_t due_us;
        std::vector<char> data;
    };
    std::uint64_t delay_us_;
    int listen_fd_ = -1;
    int up_fd_ = -1;
    std::uint16_t port_ = 0;
    bool ok_ = false;
    sockaddr_in server_{};
    sockaddr_in client_{};
    bool have_client_ = false;
    bool outage_ = false;
    std::uint64_t dropped_ = 0;
    std::deque<held> upstream_;
    std::deque<held> downstream_;
};

} // namespace retcon::test

#endif
