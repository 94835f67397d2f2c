// retcon-relay (target retcon_relay, installed beside `retcon`; docs/cli.md#retcon-relay): a
// seeded userspace network impairment proxy (no root, no netem). Clients send to the relay's
// port; each client gets its own upstream socket toward the server, so the server sees
// distinct peers. Each direction adds delay ± jitter, loss, duplication and reordering.
//   retcon-relay --listen 7778 --server 127.0.0.1:7777 --delay 40 --jitter 10 --loss 0.05 --seed 1
// (round-trip delay is twice --delay). Prints packet counts every --report seconds.
#include <CLI/CLI.hpp>
#include <cli_ranges.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <queue>
#include <random>
#include <vector>

namespace {

std::atomic<bool> stop{false};
extern "C" void on_signal(int) { stop = true; }

std::uint64_t now_us() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count());
}

struct impairment {
    double delay_ms = 0, jitter_ms = 0, loss = 0, duplicate = 0, reorder = 0;
};

struct pending {
    std::uint64_t due_us;
    std::uint64_t seq;
    int fd;
    sockaddr_in to;
    std::vector<char> data;
    bool operator>(const pending &o) const { return due_us != o.due_us ? due_us > o.due_us : seq > o.seq; }
};

struct client_link {
    sockaddr_in addr; // the client's address, as seen by the listening socket
    int upstream_fd;  // our socket toward the server for this client
};

int udp_socket(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) return -1;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

} // namespace

int main(int argc, char **argv) {
    std::uint16_t listen_port = 7778;
    std::string server = "127.0.0.1:7777";
    impairment up, down;
    double delay = 0, jitter = 0, loss = 0, duplicate = 0, reorder = 0;
    std::uint64_t seed = 1;
    double duration = 0, report = 0;
    CLI::App app{"retcon-relay: seeded UDP impairment proxy (delay, jitter, loss, duplication, reordering)"};
    app.add_option("--listen", listen_port, "local port clients connect to")->capture_default_str();
    app.add_option("--server", server, "server HOST:PORT (IPv4)")->capture_default_str();
    app.add_option("--delay", delay, "one-way delay in ms, each direction")
        ->check(retcon::tools::finite_range(0, 60000));
    app.add_option("--jitter", jitter, "uniform extra delay 0..J ms")->check(retcon::tools::finite_range(0, 60000));
    app.add_option("--loss", loss, "drop probability per packet")->check(retcon::tools::finite_range(0, 1));
    app.add_option("--duplicate", duplicate, "duplication probability")->check(retcon::tools::finite_range(0, 1));
    app.add_option("--reorder", reorder, "probability of an extra 1..2×jitter delay (arrives late)")
        ->check(retcon::tools::finite_range(0, 1));
    app.add_option("--seed", seed, "random seed")->capture_default_str();
    app.add_option("--duration", duration, "exit after this many seconds (0: until SIGINT/SIGTERM)")
        ->check(retcon::tools::finite_range(0, 1e7));
    app.add_option("--report", report, "print counters every N seconds (0: only at exit)")
        ->check(retcon::tools::finite_range(0, 86400));
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success &e) { // --help
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        (void)app.exit(e);
        return 2; // usage error, as for `retcon` (docs/cli.md#exit-codes)
    }
    up = down = impairment{delay, jitter, loss, duplicate, reorder};

    const auto colon = server.rfind(':');
    sockaddr_in server_addr{};
    server_addr.sin_family = AF_INET;
    if (colon == std::string::npos ||
        ::inet_pton(AF_INET, server.substr(0, colon).c_str(), &server_addr.sin_addr) != 1) {
        std::fprintf(stderr, "retcon-relay: --server wants IPv4:PORT, got '%s'\n", server.c_str());
        return 2;
    }
    server_addr.sin_port = htons(static_cast<std::uint16_t>(std::stoi(server.substr(colon + 1))));
    const int listen_fd = udp_socket(listen_port);
    if (listen_fd < 0) {
        std::fprintf(stderr, "retcon-relay: cannot bind 127.0.0.1:%u: %s\n", listen_port, std::strerror(errno));
        return 2;
    }
    // The port clients connect to: --listen 0 takes a free one, and scripts read it from here.
    sockaddr_in bound{};
    socklen_t bound_len = sizeof bound;
    if (::getsockname(listen_fd, reinterpret_cast<sockaddr *>(&bound), &bound_len) == 0)
        listen_port = ntohs(bound.sin_port);
    std::printf("retcon-relay: listening on UDP port %u\n", static_cast<unsigned>(listen_port));
    std::fflush(stdout);
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);

    std::mt19937_64 rng{seed};
    auto uniform = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
    std::priority_queue<pending, std::vector<pending>, std::greater<>> queue;
    std::map<std::uint64_t, client_link> clients; // key: client ip:port
    std::uint64_t seq = 0, forwarded = 0, dropped = 0, duplicated = 0;
    const std::uint64_t start = now_us();
    std::uint64_t last_report = start;

    auto schedule = [&](int fd, const sockaddr_in &to, const char *data, std::size_t n, const impairment &im) {
        if (uniform() < im.loss) {
            ++dropped;
            return;
        }
        const int copies = uniform() < im.duplicate ? 2 : 1;
        duplicated += static_cast<std::uint64_t>(copies - 1);
        for (int k = 0; k < copies; ++k) {
            double d = im.delay_ms + uniform() * im.jitter_ms;
            if (uniform() < im.reorder) d += im.jitter_ms * (1.0 + uniform());
            queue.push(pending{now_us() + static_cast<std::uint64_t>(d * 1000.0), ++seq, fd, to,
                               std::vector<char>(data, data + n)});
        }
    };

    std::vector<pollfd> fds;
    std::vector<const client_link *> polled; // fds[i + 1] is polled[i]'s upstream socket (map nodes stay put)
    std::vector<char> buf(65536);
    while (!stop) {
        const std::uint64_t now = now_us();
        if (duration > 0 && static_cast<double>(now - start) >= duration * 1e6) break;
        while (!queue.empty() && queue.top().due_us <= now) {
            const auto &p = queue.top();
            ::sendto(p.fd, p.data.data(), p.data.size(), 0, reinterpret_cast<const sockaddr *>(&p.to), sizeof p.to);
            ++forwarded;
            queue.pop();
        }
        if (report > 0 && static_cast<double>(now - last_report) >= report * 1e6) {
            last_report = now;
            std::printf("retcon-relay: %zu clients, %llu forwarded, %llu dropped, %llu duplicated\n", clients.size(),
                        static_cast<unsigned long long>(forwarded), static_cast<unsigned long long>(dropped),
                        static_cast<unsigned long long>(duplicated));
            std::fflush(stdout);
        }
        fds.clear();
        polled.clear();
        fds.push_back(pollfd{listen_fd, POLLIN, 0});
        for (const auto &[key, c] : clients) {
            fds.push_back(pollfd{c.upstream_fd, POLLIN, 0});
            polled.push_back(&c);
        }
        int timeout = 1;
        if (!queue.empty())
            timeout = static_cast<int>(
                std::min<std::uint64_t>(1, (queue.top().due_us - std::min(queue.top().due_us, now)) / 1000));
        if (::poll(fds.data(), fds.size(), timeout) <= 0) continue;
        if (fds[0].revents & POLLIN) { // client -> server
            sockaddr_in from{};
            socklen_t len = sizeof from;
            const ssize_t n =
                ::recvfrom(listen_fd, buf.data(), buf.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr *>(&from), &len);
            if (n > 0) {
                const std::uint64_t key = (std::uint64_t{from.sin_addr.s_addr} << 16) | from.sin_port;
                auto it = clients.find(key);
                if (it == clients.end()) {
                    const int fd = udp_socket(0);
                    if (fd < 0) continue;
                    it = clients.emplace(key, client_link{from, fd}).first;
                }
                schedule(it->second.upstream_fd, server_addr, buf.data(), static_cast<std::size_t>(n), up);
            }
        }
        // Server -> client, by what was polled: a client added just above is not in fds, and
        // walking the map instead would pair a socket's readiness with its neighbour's socket and
        // block in recv on one the server has not answered yet, holding every queued datagram.
        for (std::size_t i = 0; i < polled.size(); ++i) {
            if ((fds[i + 1].revents & POLLIN) == 0) continue;
            const ssize_t n = ::recv(polled[i]->upstream_fd, buf.data(), buf.size(), MSG_DONTWAIT);
            if (n > 0) schedule(listen_fd, polled[i]->addr, buf.data(), static_cast<std::size_t>(n), down);
        }
    }
    std::printf("retcon-relay: done: %zu clients, %llu forwarded, %llu dropped, %llu duplicated\n", clients.size(),
                static_cast<unsigned long long>(forwarded), static_cast<unsigned long long>(dropped),
                static_cast<unsigned long long>(duplicated));
    return 0;
}
