#include "metrics_server.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "connection_pool.hpp"

namespace retcon {

namespace {

using clock_type = std::chrono::steady_clock;

constexpr int listen_backlog = 128; ///< connections the kernel holds before the page accepts them

/// One connection's bytes, under the page's limits: cpp-httplib's own socket stream times out
/// each read separately and reads a header line of any length, so a caller trickling bytes or
/// sending endless headers would hold a thread and memory. This one gives the whole request one
/// deadline and one byte budget, and the whole answer one deadline.
class limited_stream final : public httplib::Stream {
public:
    limited_stream(int fd, const metrics_page_limits &limits, std::function<void()> on_answer)
        : fd_{fd}, limits_{limits}, read_until_{clock_type::now() + std::chrono::milliseconds(limits.request_ms)},
          on_answer_{std::move(on_answer)} {}

    bool is_readable() const override { return wait(POLLIN, read_until_); }
    bool is_writable() const override { return !answering_ || wait(POLLOUT, write_until_); }

    ssize_t read(char *ptr, std::size_t size) override {
        if (pos_ == len_) {
            if (received_ >= limits_.request_bytes || !wait(POLLIN, read_until_)) return -1;
            const auto room = std::min(sizeof buf_, limits_.request_bytes - received_);
            const auto n = ::recv(fd_, buf_, room, 0);
            if (n <= 0) return n;
            received_ += static_cast<std::size_t>(n);
            pos_ = 0;
            len_ = static_cast<std::size_t>(n);
        }
        const auto n = std::min(size, len_ - pos_);
        std::copy_n(buf_ + pos_, n, ptr);
        pos_ += n;
        return static_cast<ssize_t>(n);
    }

    ssize_t write(const char *ptr, std::size_t size) override {
        if (!answering_) {
            answering_ = true;
            write_until_ = clock_type::now() + std::chrono::milliseconds(limits_.response_ms);
            on_answer_();
        }
        if (!wait(POLLOUT, write_until_)) return -1;
        return ::send(fd_, ptr, size, MSG_NOSIGNAL);
    }

    void get_remote_ip_and_port(std::string &ip, int &port) const override { address(::getpeername, ip, port); }
    void get_local_ip_and_port(std::string &ip, int &port) const override { address(::getsockname, ip, port); }
    socket_t socket() const override { return fd_; }

private:
    [[nodiscard]] bool wait(short events, clock_type::time_point until) const {
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - clock_type::now()).count();
            if (left <= 0) return false;
            pollfd p{fd_, events, 0};
            const int r = ::poll(&p, 1, static_cast<int>(left));
            if (r > 0) return true;
            if (r == 0 || errno != EINTR) return false;
        }
    }

    template<class Get>
    void address(Get get, std::string &ip, int &port) const {
        sockaddr_storage a{};
        socklen_t n = sizeof a;
        ip.clear();
        port = 0;
        if (get(fd_, reinterpret_cast<sockaddr *>(&a), &n) != 0) return;
        char text[INET6_ADDRSTRLEN] = {};
        if (a.ss_family == AF_INET) {
            const auto *v4 = reinterpret_cast<const sockaddr_in *>(&a);
            ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
            port = ntohs(v4->sin_port);
        } else if (a.ss_family == AF_INET6) {
            const auto *v6 = reinterpret_cast<const sockaddr_in6 *>(&a);
            ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
            port = ntohs(v6->sin6_port);
        }
        ip = text;
    }

    int fd_;
    metrics_page_limits limits_;
    clock_type::time_point read_until_, write_until_{};
    std::function<void()> on_answer_;
    bool answering_ = false;
    std::size_t received_ = 0, pos_ = 0, len_ = 0;
    char buf_[2048];
};

/// cpp-httplib's server with its connection handling replaced: one request per connection read
/// through limited_stream, on the bounded connection_pool (docs/hosting.md, "Metrics").
class guarded_server final : public httplib::Server {
public:
    explicit guarded_server(const metrics_page_limits &limits) : limits_{limits} {
        new_task_queue = [this] {
            auto *q = new internal::connection_pool(limits_.workers, limits_.queued, counts_);
            pool_.store(q);
            return q;
        };
    }

    /// cpp-httplib listens with a backlog of 5: a burst of connections overflows it and a
    /// scraper's SYN is dropped (its connect retries a second later, then two...). The kernel
    /// holds these, not the process; listen() again on the bound socket deepens the queue.
    void deepen_backlog() { ::listen(svr_sock_, listen_backlog); }

    [[nodiscard]] std::uint64_t refused() const { return counts_.refused.load(); }
    [[nodiscard]] std::uint64_t evicted() const { return counts_.evicted.load(); }

private:
    bool process_and_close_socket(socket_t sock) override {
        if (internal::connection_pool::refusing()) {
            ::close(sock);
            return false;
        }
        auto *pool = pool_.load();
        const auto ticket = pool->begin(sock);
        bool ok = false;
        {
            limited_stream strm{sock, limits_, [&] { pool->answering(ticket); }};
            bool closed = false;
            ok = process_request(strm, /*close_connection=*/true, closed, nullptr);
        }
        pool->end(ticket);
        ::shutdown(sock, SHUT_RDWR);
        ::close(sock);
        return ok;
    }

    metrics_page_limits limits_;
    internal::connection_pool::counters counts_;
    std::atomic<internal::connection_pool *> pool_{nullptr}; // alive while its tasks run
};

/// The page answers one thing; anything else is refused before a body could be read.
httplib::Server::HandlerResponse screen(const httplib::Request &req, httplib::Response &res) {
    if (req.method != "GET") {
        res.status = 405;
        res.set_header("Allow", "GET");
    } else if (req.path != "/metrics") {
        res.status = 404;
    } else if (req.has_header("Transfer-Encoding") ||
               (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0")) {
        res.status = 413;
    } else {
        return httplib::Server::HandlerResponse::Unhandled;
    }
    return httplib::Server::HandlerResponse::Handled;
}

} // namespace

struct metrics_server::impl {
    explicit impl(const metrics_page_limits &limits) : server{limits} {}

    guarded_server server;
    std::thread thread;
    std::uint16_t port = 0;

    ~impl() {
        // stop() before the thread began listening would be lost and join() would wait forever.
        for (int i = 0; i < 2000 && thread.joinable() && !server.is_running(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        server.stop();
        if (thread.joinable()) thread.join();
    }
};

result<metrics_server> metrics_server::start(const std::string &bind, std::uint16_t port,
                                             std::function<std::string()> render, metrics_page_limits limits) {
    auto p = std::make_unique<impl>(limits);
    p->server.set_pre_routing_handler(screen);
    p->server.set_payload_max_length(0);
    p->server.set_keep_alive_max_count(1);
    p->server.set_read_timeout(std::chrono::milliseconds(limits.request_ms));
    p->server.set_write_timeout(std::chrono::milliseconds(limits.response_ms));
    p->server.Get("/metrics", [render = std::move(render)](const httplib::Request &, httplib::Response &res) {
        res.set_content(render(), "text/plain; version=0.0.4; charset=utf-8");
    });
    const int bound = port == 0 ? p->server.bind_to_any_port(bind) : (p->server.bind_to_port(bind, port) ? port : -1);
    if (bound <= 0)
        return result<metrics_server>{errc::io, "metrics page: cannot listen on " + bind + ":" + std::to_string(port) +
                                                    " (address in use or not local?)"};
    p->port = static_cast<std::uint16_t>(bound);
    p->server.deepen_backlog();
    p->thread = std::thread{[raw = p.get()] {
        sigset_t set; // signals belong to the ticking thread (docs/hosting.md, "Drain")
        sigfillset(&set);
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
        raw->server.listen_after_bind();
    }};
    return metrics_server{std::move(p)};
}

metrics_server::metrics_server(std::unique_ptr<impl> p) : impl_{std::move(p)} {}
metrics_server::metrics_server(metrics_server &&) noexcept = default;
metrics_server &metrics_server::operator=(metrics_server &&) noexcept = default;
metrics_server::~metrics_server() = default;
std::uint16_t metrics_server::port() const noexcept { return impl_ ? impl_->port : 0; }
std::uint64_t metrics_server::refused() const noexcept { return impl_ ? impl_->server.refused() : 0; }
std::uint64_t metrics_server::evicted() const noexcept { return impl_ ? impl_->server.evicted() : 0; }

} // namespace retcon
