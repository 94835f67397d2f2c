#include "metrics_server.hpp"

#include <httplib.h>

#include <chrono>
#include <csignal>
#include <thread>

#include <pthread.h>

namespace retcon {

struct metrics_server::impl {
    httplib::Server server;
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
                                             std::function<std::string()> render) {
    auto p = std::make_unique<impl>();
    p->server.Get("/metrics", [render = std::move(render)](const httplib::Request &, httplib::Response &res) {
        res.set_content(render(), "text/plain; version=0.0.4; charset=utf-8");
    });
    const int bound = port == 0 ? p->server.bind_to_any_port(bind) : (p->server.bind_to_port(bind, port) ? port : -1);
    if (bound <= 0)
        return result<metrics_server>{errc::io, "metrics page: cannot listen on " + bind + ":" + std::to_string(port) +
                                                    " (address in use or not local?)"};
    p->port = static_cast<std::uint16_t>(bound);
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

} // namespace retcon
