#include <retcon/host/orchestrator.hpp>

#include <retcon/host/match_host.hpp>

#include <atomic>
#include <csignal>

namespace retcon {

namespace {

class plain_orchestrator final : public orchestrator {
public:
    [[nodiscard]] std::string_view name() const noexcept override { return "plain"; }
    void start(match_host &) override {}
    void terminate() noexcept override {}
    int finish(int status) override { return status; }
};

// The process's one served host, for the signal handlers.
std::atomic<match_host *> served_host{nullptr};
std::atomic<orchestrator *> served_orchestrator{nullptr};

// SIGTERM drains (running matches may finish within the grace); Ctrl-C ends them at once,
// still with complete replays (docs/hosting.md, "Drain").
extern "C" void on_sigterm(int) {
    if (auto *h = served_host.load()) h->request_drain();
    if (auto *o = served_orchestrator.load()) o->terminate();
}
extern "C" void on_sigint(int) {
    if (auto *h = served_host.load()) {
        h->request_drain();
        h->request_drain();
    }
    if (auto *o = served_orchestrator.load()) o->terminate();
}

} // namespace

std::unique_ptr<orchestrator> make_plain_orchestrator() { return std::make_unique<plain_orchestrator>(); }

int serve(match_host &host, orchestrator &orch, const serve_options &options) {
    struct sigaction previous_term {
    }, previous_int{};
    if (options.handle_signals) {
        served_host = &host;
        served_orchestrator = &orch;
        struct sigaction sa {};
        sigemptyset(&sa.sa_mask);
        sa.sa_handler = on_sigterm;
        sigaction(SIGTERM, &sa, &previous_term);
        sa.sa_handler = on_sigint;
        sigaction(SIGINT, &sa, &previous_int);
    }
    // However serve leaves (an exception from run too), the handlers are put back as they were,
    // flags and all, and nothing points at this host any more.
    struct restore_signals {
        bool active;
        struct sigaction term, intr;
        ~restore_signals() {
            if (!active) return;
            sigaction(SIGTERM, &term, nullptr);
            sigaction(SIGINT, &intr, nullptr);
            served_host = nullptr;
            served_orchestrator = nullptr;
        }
    } restore{options.handle_signals, previous_term, previous_int};
    host.log("orchestrator: " + std::string{orch.name()});
    orch.start(host);
    int status = 1;
    try {
        status = host.run();
    } catch (...) {
        orch.finish(1); // its threads stop before the host can go away
        throw;
    }
    return orch.finish(status);
}

} // namespace retcon
