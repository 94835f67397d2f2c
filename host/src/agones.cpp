#include <retcon/host/agones.hpp>

#include <retcon/host/environment.hpp>
#include <retcon/host/match_host.hpp>
#include <retcon/net/protocol.hpp>
#include <retcon/internal/printable.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <thread>

#include <pthread.h>

#include "health_gate.hpp"
#include "room_ledger.hpp"
#include "token_bucket.hpp"

namespace retcon {

namespace {

// What a sidecar that answers too much or changes too fast can make the client spend
// (docs/hosting.md, "Agones"): a GameServer is a few kilobytes and changes a few times a match.
constexpr std::size_t probe_body_limit = 64 * 1024; ///< GET /gameserver's body, read no further
constexpr std::uint32_t watch_updates_per_second = 20, watch_update_burst = 20;
constexpr std::uint32_t change_logs_per_second = 1, change_log_burst = 5;

std::uint64_t now_us() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count());
}

/// Signals belong to the host's ticking thread (docs/hosting.md, "Drain").
void block_signals() {
    sigset_t set;
    sigfillset(&set);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

/// The member of @p j named either way: the gateway writes proto field names (snake_case),
/// and a JSON mapping may use lowerCamelCase.
const nlohmann::json *member(const nlohmann::json &j, const char *snake, const char *camel) {
    if (!j.is_object()) return nullptr;
    if (auto it = j.find(snake); it != j.end()) return &*it;
    if (auto it = j.find(camel); it != j.end()) return &*it;
    return nullptr;
}

/// What the server reads of a GameServer: its state and the allocator's annotation.
struct gameserver_view {
    std::string state;
    std::string last_allocated;
};

std::optional<gameserver_view> read_gameserver(const nlohmann::json &gs) {
    if (!gs.is_object()) return std::nullopt;
    gameserver_view v;
    if (const auto *status = member(gs, "status", "status"))
        if (const auto *state = member(*status, "state", "state"); state && state->is_string())
            v.state = state->get<std::string>();
    if (const auto *meta = member(gs, "object_meta", "objectMeta"))
        if (const auto *ann = member(*meta, "annotations", "annotations"); ann && ann->is_object())
            if (auto it = ann->find("agones.dev/last-allocated"); it != ann->end() && it->is_string())
                v.last_allocated = it->get<std::string>();
    return v;
}

/// The sidecar's answer for the log: its first 200 bytes, escaped (docs/hosting.md, "Logs").
std::string describe(const httplib::Result &res) {
    if (!res) return httplib::to_string(res.error());
    return "HTTP " + std::to_string(res->status) +
           (res->body.empty() ? "" : " " + internal::printable(std::string_view{res->body}.substr(0, 200)));
}

bool ok(const httplib::Result &res) { return res && res->status >= 200 && res->status < 300; }

/// The sidecar refused for good (not a transient failure): its counter errors are plain
/// errors (HTTP 500, code 2) whose message says which.
bool refused_for_good(const httplib::Result &res, std::initializer_list<const char *> phrases) {
    if (!res) return false;
    if (res->status >= 400 && res->status < 500) return true;
    for (const char *p : phrases)
        if (res->body.find(p) != std::string::npos) return true;
    return false;
}

} // namespace

struct agones_orchestrator::impl {
    agones_options opt;
    match_host *host = nullptr;
    std::uint32_t capacity = 0;

    std::atomic<bool> stopping{false};
    std::atomic<bool> terminated{false};
    std::atomic<bool> shutdown_seen{false};

    mutable std::mutex mutex; // guards everything below it
    std::condition_variable wake;
    agones_status st;
    room_ledger ledger;
    int rooms_to_give_back = 0;
    bool counter_enabled = false;
    bool shutdown_wanted = false;
    bool accepting_said = false; // control thread only: the last retcon-accepting label set

    std::mutex watch_mutex;
    httplib::Client *watch_client = nullptr;
    std::atomic<bool> watch_done{false};

    std::thread control, health, watch;

    explicit impl(agones_options o) : opt{std::move(o)}, ledger{std::uint64_t{opt.allocation_timeout_ms} * 1000} {
        if (opt.sdk_port == 0) { // make_orchestrator refuses a malformed variable; here, the default
            const auto port = agones_sdk_port(process_environment());
            opt.sdk_port = port ? *port : 9358;
        }
        if (opt.health_interval_ms > 2000) opt.health_interval_ms = 2000;
    }

    void log(const std::string &line) const {
        if (host) host->log("agones: " + line);
    }

    // Watch thread only: its state changes and allocations are logged within a budget, the
    // rest counted into the next line logged.
    internal::token_bucket change_log{change_logs_per_second, change_log_burst};
    std::uint64_t changes_unlogged = 0;

    void log_change(const std::string &line) {
        if (!change_log.take(now_us())) {
            ++changes_unlogged;
            return;
        }
        log(changes_unlogged == 0 ? line
                                  : line + " (" + std::to_string(changes_unlogged) + " earlier changes not logged)");
        changes_unlogged = 0;
    }

    /// GET /gameserver as a probe: its status says whether the sidecar answers. The body is not
    /// used, and not read past probe_body_limit.
    static bool probe(httplib::Client &c) {
        int status = 0;
        std::size_t read = 0;
        c.Get(
            "/gameserver",
            [&](const httplib::Response &res) {
                status = res.status;
                return true;
            },
            [&](const char *, std::size_t n) {
                read += n;
                return read <= probe_body_limit;
            });
        return status >= 200 && status < 300;
    }

    [[nodiscard]] httplib::Client client(std::uint32_t read_timeout_ms) const {
        httplib::Client c{opt.sdk_host, opt.sdk_port};
        const auto t = opt.request_timeout_ms;
        c.set_connection_timeout(t / 1000, (t % 1000) * 1000);
        c.set_write_timeout(t / 1000, (t % 1000) * 1000);
        c.set_read_timeout(read_timeout_ms / 1000, (read_timeout_ms % 1000) * 1000);
        return c;
    }

    /// Waits @p ms before a retry (only stopping cuts it short); false when stopping.
    bool pause(std::uint32_t ms) {
        std::unique_lock lock{mutex};
        ++st.control_retries;
        wake.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopping.load(); });
        return !stopping.load();
    }

    /// Waits up to @p ms for work (a room to give back, the shutdown) or for stopping.
    void wait_for_work(std::uint32_t ms) {
        std::unique_lock lock{mutex};
        wake.wait_for(lock, std::chrono::milliseconds(ms), [&] {
            return stopping.load() || rooms_to_give_back > 0 || (shutdown_wanted && !st.shutdown_sent);
        });
    }

    void give_back(int rooms) {
        if (rooms <= 0) return;
        {
            std::lock_guard lock{mutex};
            if (counter_enabled) rooms_to_give_back += rooms;
        }
        wake.notify_all();
    }

    // ------------------------------------------------------------------ control thread

    /// Sends one request until the sidecar takes it (or stopping); false when stopping. A
    /// request the sidecar refuses as invalid (4xx: a label Kubernetes would not accept) is
    /// logged and skipped when @p skippable: nothing a retry could change.
    template<class Send>
    bool until_taken(const char *what, Send &&send, bool skippable = false) {
        bool complained = false;
        while (!stopping.load()) {
            const auto res = send();
            if (ok(res)) return true;
            if (skippable && res && res->status >= 400 && res->status < 500) {
                log(std::string{what} + " refused (" + describe(res) + "); skipped");
                return true;
            }
            if (!complained) log(std::string{what} + " failed (" + describe(res) + "); retrying");
            complained = true;
            if (!pause(opt.retry_ms)) return false;
        }
        return false;
    }

    void control_loop() {
        block_signals();
        auto c = client(opt.request_timeout_ms);
        // The sidecar may start after the server: retry until it answers.
        const auto t0 = now_us();
        bool said = false;
        while (!stopping.load()) {
            if (probe(c)) break;
            if (!said) log("waiting for the SDK sidecar on " + opt.sdk_host + ":" + std::to_string(opt.sdk_port));
            said = true;
            if (!pause(opt.retry_ms) && stopping.load()) return;
        }
        if (stopping.load()) return;
        {
            std::lock_guard lock{mutex};
            st.sidecar_answered = true;
        }
        log("sidecar answered after " + std::to_string((now_us() - t0) / 1000) + " ms");

        auto labels = opt.labels;
        labels.emplace_back("retcon-protocol", std::to_string(wire::protocol_version));
        const bool accepting = host->admitting(); // one reading: the label and what it says agree
        labels.emplace_back("retcon-accepting", accepting ? "true" : "false");
        for (const auto &[key, value] : labels)
            if (!set_metadata(c, "/metadata/label", key, value)) return;
        for (const auto &[key, value] : opt.annotations)
            if (!set_metadata(c, "/metadata/annotation", key, value)) return;
        accepting_said = accepting;
        if (!opt.rooms_counter.empty()) set_capacity(c);
        if (!until_taken("ready", [&] { return c.Post("/ready", "{}", "application/json"); })) return;
        {
            std::lock_guard lock{mutex};
            st.ready_sent = true;
        }
        log("ready");

        const std::string counter_path = "/v1beta1/counters/" + opt.rooms_counter;
        bool complained = false;
        while (!stopping.load()) {
            // A host that opens no new match (draining, or its match limit served) says so
            // before it gives back rooms, so the allocator's selector stops choosing it.
            if (accepting_said && !host->admitting()) {
                if (!set_metadata(c, "/metadata/label", "retcon-accepting", "false")) return;
                accepting_said = false;
                log("no longer accepting matches: label retcon-accepting=false");
            }
            bool release = false, shut = false;
            {
                std::lock_guard lock{mutex};
                const int expired = ledger.expire(now_us()); // always: the ledger stays bounded
                rooms_to_give_back += counter_enabled ? expired : 0;
                release = rooms_to_give_back > 0;
                shut = shutdown_wanted && !st.shutdown_sent;
            }
            if (release) { // rooms first: a server that shuts down still gives back what it holds
                const auto res = c.Patch(counter_path, R"({"countDiff":"-1"})", "application/json");
                if (ok(res)) {
                    std::lock_guard lock{mutex};
                    --rooms_to_give_back;
                    ++st.rooms_released;
                    complained = false;
                    continue;
                }
                if (refused_for_good(res, {"out of range", "not found"})) {
                    // The allocator clamps its increments, so the count can be lower than the
                    // rooms this server holds: nothing is left to give back.
                    log("giving back a room refused (" + describe(res) + "); dropped");
                    std::lock_guard lock{mutex};
                    --rooms_to_give_back;
                    continue;
                }
                if (!complained) log("giving back a room failed (" + describe(res) + "); retrying");
                complained = true;
            }
            if (shut) { // even while a room is refused: a server that is done must say so
                if (auto res = c.Post("/shutdown", "{}", "application/json"); ok(res)) {
                    std::lock_guard lock{mutex};
                    st.shutdown_sent = true;
                    log("shutdown sent");
                    continue;
                } else if (!complained) {
                    log("shutdown failed (" + describe(res) + "); retrying");
                    complained = true;
                }
            }
            // A failed request waits a retry period; an idle loop waits for work (and expires
            // unused allocations once a second).
            if (release || shut) pause(opt.retry_ms);
            else
                wait_for_work(1000);
        }
    }

    /// PUTs a label or an annotation until taken (one the sidecar refuses is skipped).
    bool set_metadata(httplib::Client &c, const char *path, const std::string &key, const std::string &value) {
        // Invalid UTF-8 is replaced, not thrown: a label's bytes must never end the process.
        const auto body = nlohmann::json{{"key", key}, {"value", value}}.dump(-1, ' ', false,
                                                                              nlohmann::json::error_handler_t::replace);
        const std::string what = std::string{"setting "} + (path[10] == 'l' ? "label " : "annotation ") + key;
        return until_taken(
            what.c_str(), [&] { return c.Put(path, body, "application/json"); }, true);
    }

    /// The rooms counter's capacity, once: the most matches the host will run at once. The
    /// count is the allocator's.
    void set_capacity(httplib::Client &c) {
        const auto body = nlohmann::json{{"capacity", std::to_string(capacity)}}.dump();
        const std::string path = "/v1beta1/counters/" + opt.rooms_counter;
        int refusals = 0; // answers that refuse without a reason we know: after ten, go on without
        while (!stopping.load()) {
            const auto res = c.Patch(path, body, "application/json");
            if (ok(res)) {
                std::lock_guard lock{mutex};
                counter_enabled = true;
                log("counter '" + opt.rooms_counter + "' capacity " + std::to_string(capacity));
                return;
            }
            // Not a high-density fleet: no such counter, or the CountsAndLists feature is off.
            if (res && (refused_for_good(res, {"not found", "not enabled", "disabled"}) || ++refusals >= 10)) {
                log("counter '" + opt.rooms_counter + "' unavailable (" + describe(res) +
                    "); rooms are not counted (docs/hosting.md, \"High density\")");
                return;
            }
            // A sidecar that does not answer is waited for, however long.
            log("setting counter '" + opt.rooms_counter + "' capacity failed (" + describe(res) + "); retrying");
            if (!pause(opt.retry_ms)) return;
        }
    }

    // ------------------------------------------------------------------ health thread

    void health_loop() {
        block_signals();
        auto c = client(opt.request_timeout_ms);
        health_gate gate{std::uint64_t{opt.heartbeat_window_ms} * 1000};
        std::uint64_t next_report = 0;
        bool withheld = false, failing = false;
        while (!stopping.load()) {
            const auto now = now_us();
            const bool alive = gate.healthy(host->heartbeat(), now);
            if (now >= next_report) {
                next_report = now + std::uint64_t{opt.health_interval_ms} * 1000;
                if (alive) {
                    if (withheld) log("the host's thread moves again; health resumed");
                    withheld = false;
                    const auto res = c.Post("/health", "{}", "application/json");
                    std::lock_guard lock{mutex};
                    if (ok(res)) {
                        ++st.health_sent;
                        failing = false;
                    } else if (!failing) {
                        failing = true;
                        log("health failed (" + describe(res) + "); the matches go on");
                    }
                } else {
                    if (!withheld)
                        log("the host's thread has not moved for " + std::to_string(opt.heartbeat_window_ms) +
                            " ms; health withheld");
                    withheld = true;
                    std::lock_guard lock{mutex};
                    ++st.health_withheld;
                }
            }
            // Sample the heartbeat ten times a window: a move is dated at the sample that sees it.
            std::unique_lock lock{mutex};
            wake.wait_for(lock, std::chrono::milliseconds(std::max<std::uint32_t>(10, opt.heartbeat_window_ms / 10)),
                          [&] { return stopping.load(); });
        }
    }

    // ------------------------------------------------------------------ watch thread

    void on_gameserver(const gameserver_view &gs, std::string &last_allocated, std::string &last_state) {
        bool allocation = false;
        if (!gs.last_allocated.empty() && gs.last_allocated != last_allocated) {
            last_allocated = gs.last_allocated;
            allocation = true;
        } else if (gs.last_allocated.empty() && last_allocated.empty() && gs.state == "Allocated" &&
                   last_state != "Allocated") {
            allocation = true; // an allocator that does not annotate: the move to Allocated
        }
        if (gs.state != last_state && !gs.state.empty()) log_change("GameServer is " + internal::printable(gs.state));
        if (!gs.state.empty()) last_state = gs.state;
        int rooms = 0;
        {
            std::lock_guard lock{mutex};
            ++st.watch_updates;
            st.state = last_state;
            if (allocation) {
                ++st.allocations;
                rooms = ledger.allocated(now_us());
            }
        }
        if (allocation)
            log_change("allocated (" +
                       (last_allocated.empty() ? std::string{"state"} : internal::printable(last_allocated)) + ")");
        give_back(rooms);
        if (gs.state == "Shutdown") shutdown_seen.store(true);
    }

    /// Waits for the watch's parsing budget (the stream is read no faster meanwhile, so a
    /// sidecar streaming faster is held back by TCP); false when stopping.
    bool watch_budget(internal::token_bucket &budget) {
        for (;;) {
            const auto wait = budget.wait_us(now_us());
            if (wait == 0 && budget.take(now_us())) return !stopping.load();
            std::unique_lock lock{mutex};
            if (wake.wait_for(lock, std::chrono::microseconds(std::max<std::uint64_t>(wait, 1000)),
                              [&] { return stopping.load(); }))
                return false;
        }
    }

    void watch_loop() {
        block_signals();
        std::string last_allocated, last_state;
        internal::token_bucket budget{watch_updates_per_second, watch_update_burst};
        while (!stopping.load()) {
            auto c = client(opt.watch_timeout_ms);
            {
                std::lock_guard lock{watch_mutex};
                watch_client = &c;
            }
            std::string pending;
            c.Get(
                "/watch/gameserver",
                [&](const httplib::Response &res) {
                    if (res.status != 200) return false;
                    std::lock_guard lock{mutex};
                    ++st.watch_opened;
                    return !stopping.load();
                },
                [&](const char *data, std::size_t n) {
                    pending.append(data, n);
                    // One JSON object a line, each {"result": GameServer} (an "error" member on failure).
                    for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
                        if (!watch_budget(budget)) return false;
                        const auto line = pending.substr(0, nl);
                        pending.erase(0, nl + 1);
                        const auto j = nlohmann::json::parse(line, nullptr, false);
                        if (j.is_discarded()) continue;
                        const auto *gs = member(j, "result", "result");
                        if (auto v = read_gameserver(gs ? *gs : j)) on_gameserver(*v, last_allocated, last_state);
                    }
                    return !stopping.load() && pending.size() < (1u << 20);
                });
            {
                std::lock_guard lock{watch_mutex};
                watch_client = nullptr;
            }
            if (stopping.load()) break;
            // The stream ended or failed (a restarting sidecar): open it again.
            std::unique_lock lock{mutex};
            wake.wait_for(lock, std::chrono::milliseconds(opt.retry_ms), [&] { return stopping.load(); });
        }
        watch_done.store(true);
    }

    void stop_threads() {
        {
            std::lock_guard lock{mutex}; // under the lock: a waiter between its check and its wait still wakes
            stopping.store(true);
        }
        wake.notify_all();
        // The watch may sit in a read for watch_timeout_ms: shut its socket until it notices.
        while (watch.joinable() && !watch_done.load()) {
            {
                std::lock_guard lock{watch_mutex};
                if (watch_client) watch_client->stop();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        for (auto *t : {&control, &health, &watch})
            if (t->joinable()) t->join();
    }
};

agones_orchestrator::agones_orchestrator(agones_options options) : impl_{std::make_unique<impl>(std::move(options))} {}

agones_orchestrator::~agones_orchestrator() { impl_->stop_threads(); }

void agones_orchestrator::start(match_host &host) {
    impl *p = impl_.get();
    if (p->host != nullptr) return; // started already: once is the contract
    p->host = &host;
    const auto &ho = host.options();
    p->capacity = ho.match_limit != 0 ? std::min(ho.max_matches, ho.match_limit) : ho.max_matches;
    host.on_match_opened([p](const std::string &id, const match_params &) {
        std::lock_guard lock{p->mutex};
        p->ledger.opened(id, now_us());
    });
    host.on_result([p](const match_result &r) {
        int rooms = 0;
        {
            std::lock_guard lock{p->mutex};
            rooms = p->ledger.ended(r.match_id);
        }
        p->give_back(rooms);
    });
    p->control = std::thread{[p] { p->control_loop(); }};
    p->health = std::thread{[p] { p->health_loop(); }};
    p->watch = std::thread{[p] { p->watch_loop(); }};
}

void agones_orchestrator::terminate() noexcept { impl_->terminated.store(true); }

int agones_orchestrator::finish(int status) {
    impl *p = impl_.get();
    if (p->host == nullptr) return status; // never started: nothing was told, nothing to wait for
    {
        std::lock_guard lock{p->mutex};
        p->shutdown_wanted = true;
    }
    p->wake.notify_all();
    // Agones deletes the pod once it sees Shutdown (SIGTERM, then the grace period): wait for
    // the watch to show it, bounded. After SIGTERM the pod is going anyway: wait only until
    // the control thread has said shutdown (and given back its rooms before that), within a
    // couple of request timeouts, so the GameServer is not left Allocated.
    const auto started = now_us();
    const auto until = started + std::uint64_t{p->opt.shutdown_wait_ms} * 1000;
    std::uint64_t said_by = 0; // set when SIGTERM is seen
    const auto said = [&] {
        std::lock_guard lock{p->mutex};
        return p->st.shutdown_sent;
    };
    for (;;) {
        const auto now = now_us();
        if (p->shutdown_seen.load() || now >= until) break;
        if (p->terminated.load()) {
            if (said_by == 0) said_by = now + (2 * std::uint64_t{p->opt.request_timeout_ms} + p->opt.retry_ms) * 1000;
            if (said() || now >= said_by) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    p->log(p->shutdown_seen.load() ? "the GameServer is Shutdown; exiting"
           : p->terminated.load()
               ? (said() ? "SIGTERM, shutdown sent; exiting" : "SIGTERM, the sidecar did not take shutdown; exiting")
               : "no Shutdown seen within " + std::to_string(p->opt.shutdown_wait_ms) + " ms; exiting");
    p->stop_threads();
    return status;
}

agones_status agones_orchestrator::status() const {
    std::lock_guard lock{impl_->mutex};
    return impl_->st;
}

} // namespace retcon
