// retcon_attack_load: starts a real demo_server, attacks it over ENet through retcon's public API
// (make_enet_client, the retcon::wire encoders and decoders, client_session for the honest
// players) and measures what the attack costs: the server's CPU and memory from /proc, the bytes
// it sends the attackers, whether two honest bots stay in sync, and (lockout) how long a new and a
// returning player take to join. The server's promises are docs/net.md, "Security model"; the
// figures are quoted in docs/benchmarks.md, "Under attack".
//
//   retcon_attack_load --server build/release/demo_server/demo_server --attack resync [--seconds 20]
//
// The server runs on CPU 0, this tool on CPU 1: a run in which the tool saturates its own core
// measured the generator, not the server, and the report says so.
#include <retcon/net.hpp>
#include <retcon_demo/game.hpp>

#include <CLI/CLI.hpp>

#include "load_common.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace retcon;

using load::mib;
using load::now_ms;
using load::proc_sample;
using load::read_proc;

std::string rate_text(double bytes_per_s) {
    char buf[64];
    if (bytes_per_s >= 1e6) std::snprintf(buf, sizeof buf, "%.1f MB/s", bytes_per_s / 1e6);
    else if (bytes_per_s >= 1e3)
        std::snprintf(buf, sizeof buf, "%.1f kB/s", bytes_per_s / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f B/s", bytes_per_s);
    return buf;
}

// ------------------------------------------------------------------------------ settings

enum class attack_kind : std::uint8_t { none, resync, resync_players, upload, lockout };

struct settings {
    std::string server;
    std::string attack = "none";
    double seconds = 20;    // attack phase
    double baseline_s = 5;  // baseline phase
    std::uint16_t port = 0; // 0: a free one
    int players = 0;        // server slots; 0: what the attack needs
    int attackers = 0;      // 0: the attack's default
    int spectators = 40;    // lockout: idle spectators
    int half_open = 60;     // lockout: half-open ENet connections
    std::uint32_t reopen_ms =
        2000; // lockout: a half-open connection is replaced this often (the server's handshake deadline)
    std::uint32_t chunk_rate = 300; // upload: chunks per second per attacker (under the flood limit)
    std::string server_log;         // demo_server's output, written here
    bool verbose = false;           // the joining players' events, as they happen
};

// ------------------------------------------------------------------------------ /proc

struct cpu_figures {
    double mean = 0, max = 0;
};

cpu_figures cpu_of(const std::vector<proc_sample> &v) {
    cpu_figures f;
    if (v.size() < 2) return f;
    f.mean = load::cpu_percent(v.front(), v.back());
    for (std::size_t i = 1; i < v.size(); ++i) f.max = std::max(f.max, load::cpu_percent(v[i - 1], v[i]));
    return f;
}

/// One measured span: samples of the server and of this tool, and what happened in it.
struct phase_record {
    std::string name;
    std::vector<proc_sample> server, self;
    std::uint64_t attacker_bytes_start = 0, attacker_bytes_end = 0;
    std::map<std::string, std::uint64_t> events;  // server events by kind
    std::map<std::string, std::uint64_t> reasons; // "kind: reason" for drops and refusals
    [[nodiscard]] double seconds() const {
        return server.size() < 2 ? 0.0 : static_cast<double>(server.back().at_ms - server.front().at_ms) / 1000.0;
    }
};

// ------------------------------------------------------------------------------ the server

/// demo_server as a child process on one CPU; its output is read line by line.
class server_process {
public:
    bool start(const std::string &path, const std::vector<std::string> &args, int cpu, std::string &error) {
        return child_.start(path, args, cpu, error);
    }

    void log_to(const std::string &path) {
        if (!path.empty()) log_.open(path);
    }

    /// Reads what the server printed; events count towards @p phase (none: not counted).
    void drain(phase_record *phase) {
        child_.read_lines([&](const std::string &line) { handle_line(line, phase); });
    }

    void interrupt() { child_.signal(SIGINT); }
    /// True once the process has ended (reaped; status() is then its wait status).
    bool exited() { return child_.exited(); }
    [[nodiscard]] pid_t pid() const noexcept { return child_.pid(); }
    [[nodiscard]] bool listening() const noexcept { return port_ != 0; }
    /// The UDP port the server said it listens on (0: not yet).
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] const std::string &summary() const noexcept { return summary_; }
    [[nodiscard]] const std::vector<std::string> &other_lines() const noexcept { return other_; }
    [[nodiscard]] int status() const noexcept { return child_.status(); }

private:
    // "[frame 12] disconnected slot -1 disconnected: packet flood (spectator from 127.0.0.1:5)"
    void handle_line(const std::string &line, phase_record *phase) {
        if (log_.is_open()) log_ << line << '\n';
        static constexpr std::string_view listening = "demo_server: listening on UDP port ";
        if (line.rfind(listening, 0) == 0)
            port_ = static_cast<std::uint16_t>(std::strtoul(line.c_str() + listening.size(), nullptr, 10));
        else if (line.rfind("demo_server: match over", 0) == 0)
            summary_ = line;
        else if (const auto event_at = line.find("[frame ");
                 event_at != std::string::npos) { // "match=ID [frame N] ..."
            const auto close = line.find("] ", event_at);
            if (close == std::string::npos || !phase) return;
            std::istringstream in{line.substr(close + 2)};
            std::string kind, slot_word, slot;
            in >> kind >> slot_word >> slot;
            if (slot_word != "slot") return; // the per-second statistics line
            std::string text;
            std::getline(in, text);
            if (!text.empty() && text.front() == ' ') text.erase(0, 1);
            std::uint64_t count = 1;
            if (kind == "connection_refused") {
                // Rate-limited (docs/net.md, "Security model"): "HOST:PORT: why (and N more refused
                // since the last report)", or "N more connections refused since the last report".
                std::uint64_t more = 0;
                if (const auto at = text.find(" (and "); at != std::string::npos) {
                    more = std::strtoull(text.c_str() + at + 6, nullptr, 10);
                    text.erase(at);
                } else if (text.find(" more connections refused") != std::string::npos) {
                    more = std::strtoull(text.c_str(), nullptr, 10);
                    count = 0;
                    text.clear();
                }
                if (const auto colon = text.find(": "); colon != std::string::npos && text.find(':') < colon)
                    text.erase(0, colon + 2);
                if (more != 0) {
                    phase->events[kind] += more;
                    phase->reasons[kind + ": (reason not reported: counted in a later summary)"] += more;
                }
            } else if (kind == "disconnected" || kind == "desync_unverified") {
                // Who it was is in the last parentheses; the reason is what counts here.
                if (!text.empty() && text.back() == ')')
                    if (const auto who = text.rfind(" ("); who != std::string::npos) text.erase(who);
            } else {
                text.clear();
            }
            if (count != 0) phase->events[kind] += count;
            if (!text.empty() && count != 0) {
                // Numbers vary from line to line (frames, counts): keep the reason's shape only.
                std::string shape;
                for (const char ch : text) {
                    if (ch >= '0' && ch <= '9') {
                        if (shape.empty() || shape.back() != 'N') shape += 'N';
                    } else {
                        shape += ch;
                    }
                }
                phase->reasons[kind + ": " + shape] += count;
            }
        } else if (!line.empty()) {
            other_.push_back(line);
        }
    }

    load::child_process child_;
    std::uint16_t port_ = 0;
    std::string summary_;
    std::vector<std::string> other_;
    std::ofstream log_;
};

using load::pin_self;

// ------------------------------------------------------------------------------ clients

/// Where the server is and what a hello must say to be accepted (the demo game's build).
struct target {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
    wire::hello_msg hello;
    std::size_t input_size = 0;
};

/// What all attackers together did and got.
struct attack_counters {
    std::uint64_t bytes_in = 0; // payload bytes received (all channels, no ENet/UDP headers)
    std::uint64_t connects = 0; // transports opened
    std::uint64_t welcomes = 0;
    std::uint64_t dropped = 0; // connections closed by the server after a welcome
    std::uint64_t gave_up = 0; // no welcome or reject within 3 s
    std::uint64_t claims = 0;  // checksum mismatches claimed
    std::uint64_t asked = 0;   // desync notices asking for an upload
    std::uint64_t uploads_sent = 0, upload_bytes = 0, uploads_cut = 0;
    std::uint64_t rejoins = 0;   // upload attackers that left their slot to come back with a fresh quota
    std::uint64_t half_open = 0; // half-open connections opened
    std::map<std::string, std::uint64_t> rejects;
};

/// Upload attackers share what they learn about the largest upload the server accepts.
struct upload_sizing {
    std::uint32_t next = wire::limits::max_snapshot; // start at the protocol's limit: 64 MiB
    std::uint32_t accepted = 0;                      // largest upload the server took in whole
    std::uint32_t refused = 0;                       // smallest total it dropped us for
    void update() {
        constexpr std::uint32_t close_enough = 8u << 10;
        if (refused == 0) next = std::max(next, accepted * 2u);
        else if (accepted == 0)
            next = refused / 2u;
        else
            next = refused - accepted > close_enough ? accepted + (refused - accepted) / 2u : accepted;
        next = std::max<std::uint32_t>(next, 1024u);
    }
    void refused_at(std::uint32_t total) {
        refused = refused == 0 ? total : std::min(refused, total);
        update();
    }
    void accepted_at(std::uint32_t total) {
        accepted = std::max(accepted, total);
        update();
    }
};

/**
 * A hostile client speaking the wire protocol by hand: it joins (as a spectator or a player),
 * acknowledges confirmed frames like a real client, and then either claims a checksum mismatch
 * for every new confirmed frame (claim), does that and uploads junk when asked (upload), or only
 * acknowledges (idle). When the server drops or refuses it, it comes back: claimants with their
 * reconnect token, uploaders as a new player, since the upload quota stays with the slot's token;
 * an uploader whose quota is used up leaves its slot and rejoins to get a fresh one.
 */
class raw_client final : public transport_handler {
public:
    enum class behaviour : std::uint8_t { claim, upload, idle };

    raw_client(const target &t, std::string bind_host, bool spectator, behaviour b, attack_counters &counters,
               upload_sizing *sizing, std::uint32_t chunk_rate, std::uint64_t seed)
        : target_{t}, bind_{std::move(bind_host)}, spectator_{spectator},
          behaviour_{b}, counters_{counters}, sizing_{sizing}, chunk_rate_{chunk_rate}, seed_{seed | 1u} {}
    raw_client(const raw_client &) = delete;
    raw_client &operator=(const raw_client &) = delete;
    ~raw_client() override = default;

    void step(std::uint64_t now) {
        if (!net_) {
            if (now >= retry_at_) open(now);
            if (!net_) return;
        }
        net_->poll(now, *this);
        if (closed_ || (!welcomed_ && now - opened_at_ >= 3000)) {
            if (!closed_ && !rejected_) ++counters_.gave_up;
            if (welcomed_) ++counters_.dropped;
            if (uploading_ && !upload_done_ && sizing_) { // dropped mid-upload: that size is refused
                sizing_->refused_at(upload_total_);
                ++counters_.uploads_cut;
            }
            net_.reset();
            retry_at_ = now + (rejected_ ? (reject_reason_ == wire::reject_reason::spectators ? 1000u : 500u) : 100u);
            return;
        }
        if (!welcomed_) return;
        if (rejoin_) {
            wire::encode(wire::bye_msg{static_cast<std::uint8_t>(wire::bye_reason::leaving)}, out_);
            net_->send(0, wire::channel::control, out_);
            net_.reset(); // flushes the goodbye and disconnects
            ++counters_.rejoins;
            token_ = {};
            retry_at_ = now + 100;
            return;
        }
        if (now >= next_send_) {
            next_send_ = now + 16;
            send_feedback(now);
        }
        if (uploading_ && !upload_done_) send_chunks(now);
        net_->flush();
    }

    void on_connect(peer_id) override {
        wire::hello_msg h = target_.hello;
        h.spectator = spectator_;
        // A player coming back with its token keeps its slot's upload quota; an upload attacker
        // therefore always joins as a new player (docs/net.md, "Security model").
        h.reconnect_token = behaviour_ == behaviour::upload ? retcon::reconnect_token{} : token_;
        h.name = spectator_ ? "watcher" : "claimant";
        wire::encode(h, out_);
        net_->send(0, wire::channel::control, out_);
    }

    void on_disconnect(peer_id) override { closed_ = true; }

    void on_receive(peer_id, wire::channel ch, std::span<const std::byte> data) override {
        counters_.bytes_in += data.size();
        switch (static_cast<wire::message_kind>(wire::peek_kind(data))) {
        case wire::message_kind::welcome: {
            wire::welcome_msg m;
            if (!wire::decode(data, m)) return;
            welcomed_ = true;
            ++counters_.welcomes;
            slot_ = m.slot;
            if (!m.token.empty()) token_ = m.token;
            ack_ = sync_ = m.server_frame;
            return;
        }
        case wire::message_kind::reject: {
            wire::reject_msg m;
            if (!wire::decode(data, m)) return;
            rejected_ = true;
            reject_reason_ = m.reason;
            ++counters_.rejects[wire::to_string(m.reason)];
            if (m.reason == wire::reject_reason::token) token_ = {};
            return;
        }
        case wire::message_kind::confirmed: {
            wire::confirmed_msg m;
            if (ch != wire::channel::inputs || !wire::decode_header(data, m)) return;
            if (m.first_frame <= ack_) ack_ = std::max<frame_t>(ack_, m.first_frame + m.count);
            return;
        }
        case wire::message_kind::snapshot_chunk: {
            wire::snapshot_chunk_msg m;
            if (!wire::decode(data, m)) return;
            // The server restarts its stream at a snapshot's frame.
            sync_ = std::max(sync_, m.frame);
            ack_ = std::max(ack_, m.frame);
            return;
        }
        case wire::message_kind::desync: {
            wire::desync_msg m;
            if (!wire::decode(data, m)) return;
            if (m.diverging.empty()) {
                ++counters_.asked;
                if (behaviour_ == behaviour::upload && !uploading_) start_upload(m.frame);
            } else if (uploading_ && upload_done_ && m.frame == upload_frame_) {
                // The server's verdict on our junk: it took the whole transfer.
                if (sizing_) sizing_->accepted_at(upload_total_);
                uploading_ = false;
            } else if (behaviour_ == behaviour::upload && m.diverging.find("quota") != std::string::npos) {
                rejoin_ = true; // the quota is the slot's: leave it and come back as a new player
            }
            return;
        }
        default: return;
        }
    }

private:
    void open(std::uint64_t now) {
        enet_options o;
        o.bind_host = bind_;
        auto t = make_enet_client(target_.host, target_.port, o);
        if (!t) {
            std::fprintf(stderr, "retcon_attack_load: %s\n", t.message().c_str());
            retry_at_ = now + 1000;
            return;
        }
        net_ = std::move(*t);
        ++counters_.connects;
        opened_at_ = now;
        closed_ = welcomed_ = rejected_ = rejoin_ = false;
        uploading_ = upload_done_ = false;
        ack_ = sync_ = 0;
        last_claim_ = no_frame;
        next_send_ = now;
    }

    void send_feedback(std::uint64_t now) {
        wire::input_msg m;
        m.slot = spectator_ ? std::uint8_t{0xff} : slot_;
        m.ack_confirmed = ack_;
        m.first_frame = ack_;
        m.count = 0;
        m.client_time_ms = static_cast<std::uint32_t>(now) | 1u;
        const bool claiming = behaviour_ == behaviour::claim || (behaviour_ == behaviour::upload && !uploading_);
        if (claiming && ack_ > sync_ && (last_claim_ == no_frame || ack_ - 1u > last_claim_)) {
            last_claim_ = ack_ - 1u;
            m.checksum_frame = last_claim_;
            m.checksum = next_random() | 1u; // bogus: the server's hash of that frame is something else
            ++counters_.claims;
        }
        wire::encode(m, target_.input_size, {}, out_);
        net_->send(0, wire::channel::inputs, out_);
    }

    void start_upload(frame_t frame) {
        uploading_ = true;
        upload_done_ = false;
        upload_frame_ = frame;
        upload_total_ = sizing_ ? sizing_->next : wire::limits::max_snapshot;
        upload_offset_ = 0;
        upload_chunks_ = 0;
        upload_started_ = 0;
        transfer_ = static_cast<std::uint32_t>(next_random());
    }

    // Paced under the server's packet flood limit: a client that knows the limits stays below them.
    void send_chunks(std::uint64_t now) {
        if (upload_started_ == 0) upload_started_ = now;
        const std::uint64_t due = (now - upload_started_) * chunk_rate_ / 1000u + 1u;
        wire::snapshot_chunk_msg m;
        m.transfer = transfer_;
        m.frame = upload_frame_;
        m.total = upload_total_;
        for (int burst = 0; upload_chunks_ < due && upload_offset_ < upload_total_ && burst < 32; ++burst) {
            const std::uint32_t n =
                std::min<std::uint32_t>(wire::limits::snapshot_chunk, upload_total_ - upload_offset_);
            m.offset = upload_offset_;
            m.bytes.resize(n);
            for (auto &b : m.bytes) b = static_cast<std::byte>(next_random() >> 56u); // junk
            wire::encode(m, out_);
            net_->send(0, wire::channel::snapshots, out_);
            upload_offset_ += n;
            ++upload_chunks_;
            counters_.upload_bytes += n;
        }
        if (upload_offset_ == upload_total_) {
            upload_done_ = true;
            ++counters_.uploads_sent;
        }
    }

    std::uint64_t next_random() { // xorshift64*
        seed_ ^= seed_ >> 12u;
        seed_ ^= seed_ << 25u;
        seed_ ^= seed_ >> 27u;
        return seed_ * 2685821657736338717ull;
    }

    const target &target_;
    std::string bind_;
    bool spectator_;
    behaviour behaviour_;
    attack_counters &counters_;
    upload_sizing *sizing_;
    std::uint32_t chunk_rate_;
    std::uint64_t seed_;

    std::unique_ptr<transport> net_;
    std::vector<std::byte> out_;
    std::uint64_t retry_at_ = 0, opened_at_ = 0, next_send_ = 0;
    bool closed_ = false, welcomed_ = false, rejected_ = false, rejoin_ = false;
    wire::reject_reason reject_reason_ = wire::reject_reason::protocol;
    std::uint8_t slot_ = 0xff;
    retcon::reconnect_token token_;
    frame_t ack_ = 0, sync_ = 0, last_claim_ = no_frame;

    bool uploading_ = false, upload_done_ = false;
    frame_t upload_frame_ = 0;
    std::uint32_t upload_total_ = 0, upload_offset_ = 0, transfer_ = 0;
    std::uint64_t upload_chunks_ = 0, upload_started_ = 0;
};

/// A well-behaved player: the demo game's client_session driven by the demo's bot.
class honest_client {
public:
    honest_client(const target &t, std::string name, const std::string &bind_host, std::uint64_t seed,
                  retcon::reconnect_token token, std::uint64_t now)
        : name_{std::move(name)}, w_{demo::make_schema()}, ai_{seed}, started_at_{now} {
        demo::init_world(w_);
        enet_options o;
        o.bind_host = bind_host;
        auto net = make_enet_client(t.host, t.port, o);
        if (!net) {
            ended_ = net.message();
            return;
        }
        net_ = std::move(*net);
        client_options co;
        co.name = name_;
        co.reconnect_token = token;
        session_ = std::make_unique<client_session>(
            demo::make_client_config(), w_, [this](world &ww, const frame_inputs &in) { game_.step(ww, in); }, *net_,
            co);
    }
    honest_client(const honest_client &) = delete;
    honest_client &operator=(const honest_client &) = delete;

    void step(std::uint64_t now) {
        if (!session_ || crashed_) return;
        session_->poll(now);
        while (session_->should_tick(now)) session_->tick(ai_.decide(w_, session_->slot()));
        if (!join_ms_ && session_->state() == client_state::running) join_ms_ = now - started_at_;
        for (session_event ev; session_->next_event(ev);) {
            if (verbose_)
                std::fprintf(stderr, "[%llu ms] %s: %s %s\n", static_cast<unsigned long long>(now - started_at_),
                             name_.c_str(), to_string(ev.kind), ev.text.c_str());
            if (ev.kind == session_event_kind::desync_detected) ++desync_events_;
            if (ev.kind == session_event_kind::resynchronized) ++resyncs_;
            if ((ev.kind == session_event_kind::rejected || ev.kind == session_event_kind::disconnected ||
                 ev.kind == session_event_kind::match_ended) &&
                ended_.empty())
                ended_ = std::string(to_string(ev.kind)) + (ev.text.empty() ? "" : ": " + ev.text);
        }
    }
    void verbose(bool on) noexcept { verbose_ = on; }
    /// Stops polling, as if the process had died: the server hears nothing more, not even a goodbye.
    void crash() { crashed_ = true; }
    void leave() {
        if (session_ && !crashed_) session_->leave();
    }

    [[nodiscard]] bool running() const { return session_ && !crashed_ && session_->state() == client_state::running; }
    [[nodiscard]] bool over() const {
        return !session_ || (!crashed_ && (session_->state() == client_state::rejected ||
                                           session_->state() == client_state::disconnected));
    }
    [[nodiscard]] std::optional<std::uint64_t> join_ms() const { return join_ms_; }
    [[nodiscard]] retcon::reconnect_token token() const {
        return session_ ? session_->reconnect_token() : retcon::reconnect_token{};
    }
    [[nodiscard]] const std::string &name() const noexcept { return name_; }
    [[nodiscard]] const std::string &ended() const noexcept { return ended_; }
    [[nodiscard]] std::uint64_t desyncs() const {
        return std::max<std::uint64_t>(desync_events_, session_ ? session_->stats().desyncs : 0);
    }
    [[nodiscard]] std::uint64_t resyncs() const noexcept { return resyncs_; }
    [[nodiscard]] int slot() const { return session_ ? session_->slot() : -1; }
    [[nodiscard]] frame_t frame() const { return session_ ? session_->current_frame() : 0; }
    [[nodiscard]] const session_stats *stats() const { return session_ ? &session_->stats() : nullptr; }

private:
    std::string name_;
    world w_;
    demo::game game_;
    demo::bot ai_;
    std::unique_ptr<transport> net_;
    std::unique_ptr<client_session> session_;
    std::uint64_t started_at_;
    std::optional<std::uint64_t> join_ms_;
    std::uint64_t desync_events_ = 0, resyncs_ = 0;
    bool crashed_ = false, verbose_ = false;
    std::string ended_;
};

/// One join measured under attack (lockout): attempts are repeated until one reaches `running`.
struct join_probe {
    std::string kind;           // "new" or "returning"
    std::uint64_t start_at = 0; // attack-relative ms
    std::uint64_t first_attempt = 0;
    int attempts = 0;
    std::unique_ptr<honest_client> client{};
    std::optional<std::uint64_t> join_ms{}; // from the first attempt to running
    std::vector<std::string> failures{};
    std::uint64_t leave_at = 0; // new players leave again to free their slot
    bool left = false;
    bool done = false;
    std::optional<bool> stayed{}; // still running 1 s after joining (new) or when it next crashes (returning)
};

// ------------------------------------------------------------------------------ the run

class harness {
public:
    harness(const settings &s, attack_kind kind) : s_{s}, kind_{kind} {}

    int run() {
        const int cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
        const bool pin = cpus >= 2;
        if (pin && !pin_self(1)) std::fprintf(stderr, "retcon_attack_load: cannot pin itself to CPU 1\n");
        if (!pin) std::fprintf(stderr, "retcon_attack_load: fewer than 2 CPUs: server and tool are not pinned\n");

        {
            const auto build = load::demo_hello();
            target_.hello = build.hello;
            target_.input_size = build.input_size;
        }
        players_ = s_.players != 0 ? s_.players : kind_ == attack_kind::upload ? 8 : 4;
        const double attack_s = kind_ == attack_kind::none ? 0.0 : s_.seconds;
        const double duration = s_.baseline_s + attack_s + 30.0; // a safety net: the tool interrupts it
        // Port 0 (the default): the server takes a free one and prints it (read below).
        std::vector<std::string> args{"--port",     std::to_string(s_.port),
                                      "--players",  std::to_string(players_),
                                      "--duration", std::to_string(static_cast<int>(duration)),
                                      "--quiet"};
        server_.log_to(s_.server_log);
        std::string error;
        if (!server_.start(s_.server, args, pin ? 0 : -1, error)) return fail(error);
        proc_dir_ = "/proc/" + std::to_string(server_.pid());

        // Start: the server listens, the honest bots (and, for lockout, the returning player) join.
        const std::uint64_t t0 = now_ms();
        while (!server_.listening()) {
            server_.drain(nullptr);
            if (server_.exited() || now_ms() - t0 > 5000) return fail("demo_server did not start (" + s_.server + ")");
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        target_.port = server_.port();
        std::uint64_t now = now_ms();
        for (int i = 0; i < 2; ++i)
            bots_.push_back(std::make_unique<honest_client>(
                target_, "bot-" + std::to_string(i + 1), "127.0.0." + std::to_string(2 + i),
                11u + static_cast<unsigned>(i), retcon::reconnect_token{}, now));
        if (kind_ == attack_kind::lockout)
            returning_ =
                std::make_unique<honest_client>(target_, "returning", "127.0.0.4", 21u, retcon::reconnect_token{}, now);
        for (;;) {
            now = loop_once(nullptr);
            bool all = std::all_of(bots_.begin(), bots_.end(), [](const auto &b) { return b->running(); });
            if (returning_) all = all && returning_->running();
            if (all) break;
            if (now - t0 > 10000) return fail("the honest clients did not reach running within 10 s");
        }
        // A second to settle: the server fills its snapshot rings in the first frames.
        for (const std::uint64_t settled = now + 1000; now < settled;) now = loop_once(nullptr);

        // Baseline.
        run_phase("baseline", s_.baseline_s);
        // Attack.
        if (kind_ != attack_kind::none) {
            start_attack();
            run_phase("attack", s_.seconds);
        }
        if (returning_probe_) returning_probe_->stayed = returning_ && returning_->running();
        for (const auto &b : bots_) {
            end_state_.push_back({b->name(), b->running(), b->desyncs(), b->resyncs(), b->frame(), b->ended(),
                                  b->stats() ? b->stats()->stall_frames : 0});
        }
        attackers_.clear();
        half_open_.clear();

        // End: interrupt the server (it ends the match: goodbyes, then its summary line).
        server_.interrupt();
        const std::uint64_t t_end = now_ms();
        while (!server_.exited() && now_ms() - t_end < 8000) loop_once(nullptr);
        server_.drain(nullptr);
        report();
        return 0;
    }

private:
    struct bot_end {
        std::string name;
        bool running;
        std::uint64_t desyncs, resyncs;
        frame_t frame;
        std::string ended;
        std::uint64_t stalls;
    };

    int fail(const std::string &why) {
        server_.drain(nullptr);
        std::fprintf(stderr, "retcon_attack_load: %s\n", why.c_str());
        for (const auto &l : server_.other_lines()) std::fprintf(stderr, "  server: %s\n", l.c_str());
        return 1;
    }

    void sample(phase_record &p, std::uint64_t now) {
        if (auto s = read_proc(proc_dir_, now)) p.server.push_back(*s);
        if (auto s = read_proc("/proc/self", now)) p.self.push_back(*s);
        next_sample_ = now + 500;
    }

    void run_phase(const std::string &name, double seconds) {
        phases_.push_back({});
        phase_record &p = phases_.back();
        p.name = name;
        std::uint64_t now = now_ms();
        phase_start_ = now;
        p.attacker_bytes_start = counters_.bytes_in;
        sample(p, now);
        const auto end = now + static_cast<std::uint64_t>(seconds * 1000.0);
        while (now < end) {
            now = loop_once(&p);
            if (now >= next_sample_) sample(p, now);
        }
        sample(p, now);
        p.attacker_bytes_end = counters_.bytes_in;
    }

    void start_attack() {
        const std::uint64_t now = now_ms();
        auto add = [&](int i, bool spectator, raw_client::behaviour b) {
            attackers_.push_back(std::make_unique<raw_client>(
                target_, "127.0.0." + std::to_string(100 + i), spectator, b, counters_, &sizing_, s_.chunk_rate,
                std::uint64_t{0x9E3779B97F4A7C15u} * static_cast<std::uint64_t>(i + 1)));
        };
        switch (kind_) {
        case attack_kind::resync:
            for (int i = 0; i < (s_.attackers ? s_.attackers : 20); ++i) add(i, true, raw_client::behaviour::claim);
            break;
        case attack_kind::resync_players:
            for (int i = 0; i < (s_.attackers ? s_.attackers : 2); ++i) add(i, false, raw_client::behaviour::claim);
            break;
        case attack_kind::upload:
            for (int i = 0; i < (s_.attackers ? s_.attackers : 10); ++i) add(i, false, raw_client::behaviour::upload);
            break;
        case attack_kind::lockout:
            for (int i = 0; i < s_.spectators; ++i) add(i, true, raw_client::behaviour::idle);
            for (int i = 0; i < s_.half_open; ++i) {
                half_open_.push_back(
                    {"127.0.0." + std::to_string(10 + i % 60), nullptr,
                     // staggered over one period, so they keep arriving
                     now + static_cast<std::uint64_t>(i) * s_.reopen_ms / static_cast<std::uint64_t>(s_.half_open)});
            }
            // Every 6 s: the returning player crashes; 2 s later it comes back with its token; 1 s
            // after that a new player joins (and leaves again once in, freeing its slot).
            returning_->crash();
            crashed_.push_back(std::move(returning_));
            for (std::uint64_t cycle = 0; cycle + 5000 <= static_cast<std::uint64_t>(s_.seconds * 1000.0);
                 cycle += 6000) {
                probes_.push_back(join_probe{.kind = "returning", .start_at = cycle + 2000});
                probes_.push_back(join_probe{.kind = "new", .start_at = cycle + 3000});
                if (cycle != 0) crash_at_.push_back(cycle);
            }
            break;
        case attack_kind::none: break;
        }
    }

    /// One pass over everything; returns the time it ran at.
    std::uint64_t loop_once(phase_record *phase) {
        const std::uint64_t now = now_ms();
        server_.drain(phase);
        for (auto &b : bots_) b->step(now);
        if (returning_) returning_->step(now);
        if (now >= next_attack_poll_) { // attackers every 2 ms: enough for 60 Hz feedback
            next_attack_poll_ = now + 2;
            for (auto &a : attackers_) a->step(now);
        }
        for (auto &h : half_open_) {
            if (now < h.due) continue;
            h.t.reset(); // never polled, so nothing is sent on close
            enet_options o;
            o.bind_host = h.bind;
            if (auto t = make_enet_client(target_.host, target_.port, o)) {
                h.t = std::move(*t);
                h.t->flush(); // the CONNECT goes out once; nothing ever answers the server
                ++counters_.half_open;
            }
            h.due = now + s_.reopen_ms;
        }
        if (phase && phase->name == "attack") run_probes(now - phase_start_, now);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return now;
    }

    void run_probes(std::uint64_t t, std::uint64_t now) {
        for (auto it = crash_at_.begin(); it != crash_at_.end();) {
            if (t < *it) {
                ++it;
                continue;
            }
            if (returning_probe_) returning_probe_->stayed = returning_ && returning_->running();
            returning_probe_ = nullptr;
            if (returning_ && returning_->running()) {
                returning_->crash();
                crashed_.push_back(std::move(returning_));
            }
            it = crash_at_.erase(it);
        }
        for (auto &p : probes_) {
            if (p.done || t < p.start_at) continue;
            const bool returning = p.kind == "returning";
            if (!p.client) { // a new attempt: a fresh process, as far as the server can tell
                if (p.first_attempt == 0) p.first_attempt = now;
                ++p.attempts;
                p.client = std::make_unique<honest_client>(
                    target_, returning ? "returning" : "newcomer", returning ? "127.0.0.4" : "127.0.0.5",
                    31u + static_cast<unsigned>(p.attempts), returning ? last_token() : retcon::reconnect_token{}, now);
                p.client->verbose(s_.verbose);
            }
            p.client->step(now);
            if (!p.join_ms && p.client->join_ms()) {
                p.join_ms = now - p.first_attempt;
                if (returning) { // it plays on, until the next crash
                    returning_ = std::move(p.client);
                    returning_probe_ = &p;
                    p.done = true;
                    continue;
                }
                p.leave_at = now + 1000;
            }
            if (p.join_ms) { // a new player: leaves after a second in, freeing its slot
                if (!p.left && now >= p.leave_at) {
                    p.stayed = p.client->running();
                    p.client->leave();
                    p.left = true;
                    p.leave_at = now + 300; // time to deliver the goodbye
                } else if (p.left && now >= p.leave_at) {
                    p.client.reset();
                    p.done = true;
                }
                continue;
            }
            if (p.client->over()) {
                p.failures.push_back(p.client->ended());
                // A refused token will be refused again: a game would join as a new player now.
                if (p.client->ended().find("reconnect token unknown") != std::string::npos) p.done = true;
                p.client.reset();
            }
        }
    }

    retcon::reconnect_token last_token() const {
        for (auto it = crashed_.rbegin(); it != crashed_.rend(); ++it)
            if (!(*it)->token().empty()) return (*it)->token();
        return {};
    }

    void report() const {
        const char *what = "";
        switch (kind_) {
        case attack_kind::none: what = "none (baseline only)"; break;
        case attack_kind::resync:
            what = "resync: spectators claim a checksum mismatch for every confirmed frame";
            break;
        case attack_kind::resync_players:
            what = "resync-players: players claim a checksum mismatch for every confirmed frame";
            break;
        case attack_kind::upload:
            what = "upload: players claim a mismatch, then upload junk as large as the server takes";
            break;
        case attack_kind::lockout:
            what = "lockout: half-open ENet connections and idle spectators, then a new and a returning player join";
            break;
        }
        int attackers = s_.attackers;
        if (attackers == 0)
            attackers = kind_ == attack_kind::resync           ? 20
                        : kind_ == attack_kind::resync_players ? 2
                        : kind_ == attack_kind::upload         ? 10
                                                               : 0;
        std::printf("\nattack %s\n", what);
        if (kind_ == attack_kind::lockout)
            std::printf("  %d half-open connections from 127.0.0.10-%d (each replaced every %u ms), %d idle spectators "
                        "from 127.0.0.100-%d\n",
                        s_.half_open, 9 + std::min(s_.half_open, 60), s_.reopen_ms, s_.spectators, 99 + s_.spectators);
        else if (attackers > 0)
            std::printf("  %d attacking connections from 127.0.0.100-%d\n", attackers, 99 + attackers);
        std::printf("  demo_server --players %d on CPU 0, 2 honest bots + attackers in this tool on CPU 1\n\n",
                    players_);

        std::printf("| phase | s | server CPU mean | server CPU max | RSS start | RSS peak | RSS end | to attackers | "
                    "tool CPU mean / max |\n");
        std::printf("|---|---|---|---|---|---|---|---|---|\n");
        bool void_run = false;
        for (const auto &p : phases_) {
            const auto cpu = cpu_of(p.server);
            const auto own = cpu_of(p.self);
            std::uint64_t peak = 0;
            for (const auto &x : p.server) peak = std::max(peak, x.rss_kib);
            const double secs = p.seconds();
            const std::uint64_t bytes = p.attacker_bytes_end - p.attacker_bytes_start;
            const std::string to_attackers =
                p.name == "baseline" ? "–" : rate_text(secs > 0 ? static_cast<double>(bytes) / secs : 0.0);
            std::printf("| %s | %.1f | %.1f%% | %.1f%% | %.1f MiB | %.1f MiB | %.1f MiB | %s | %.0f%% / %.0f%% |\n",
                        p.name.c_str(), secs, cpu.mean, cpu.max, mib(p.server.empty() ? 0 : p.server.front().rss_kib),
                        mib(peak), mib(p.server.empty() ? 0 : p.server.back().rss_kib), to_attackers.c_str(), own.mean,
                        own.max);
            if (own.mean >= 90.0) void_run = true;
        }
        if (!phases_.empty() && !phases_.back().server.empty()) {
            const auto &last = phases_.back();
            std::printf("\nserver RSS during the %s, every 2 s (MiB):", last.name.c_str());
            for (std::size_t i = 0; i < last.server.size(); i += 4) std::printf(" %.1f", mib(last.server[i].rss_kib));
            std::printf("; VmHWM (peak of its whole life) %.1f MiB\n", mib(last.server.back().hwm_kib));
        }
        if (void_run)
            std::printf(
                "VOID: this tool used >= 90%% of its core in a phase: the generator, not the server, set the pace\n");

        std::printf("\nhonest clients at the end of the %s:", kind_ == attack_kind::none ? "baseline" : "attack");
        for (const auto &b : end_state_)
            std::printf(" %s %s, %llu desyncs, %llu resyncs, %llu stalled ticks, frame %u%s%s;", b.name.c_str(),
                        b.running ? "running" : "NOT RUNNING", static_cast<unsigned long long>(b.desyncs),
                        static_cast<unsigned long long>(b.resyncs), static_cast<unsigned long long>(b.stalls), b.frame,
                        b.ended.empty() ? "" : " -- ", b.ended.c_str());
        std::printf("\n");
        std::printf("joins without attack:");
        for (const auto &b : bots_)
            if (b->join_ms())
                std::printf(" %s %llu ms", b->name().c_str(), static_cast<unsigned long long>(*b->join_ms()));
        std::printf("\n");

        if (kind_ == attack_kind::lockout) {
            std::uint64_t worst = 0;
            bool all_joined = true;
            std::printf("joins under attack (time to running, from the first attempt):\n");
            for (const auto &p : probes_) {
                std::printf("  %-9s player at +%.0f s: ", p.kind.c_str(), static_cast<double>(p.start_at) / 1000.0);
                if (p.join_ms) {
                    std::printf("%llu ms (%d attempt%s)", static_cast<unsigned long long>(*p.join_ms), p.attempts,
                                p.attempts == 1 ? "" : "s");
                    worst = std::max(worst, *p.join_ms);
                    if (p.stayed) {
                        std::printf(*p.stayed ? ", stayed in" : ", LOST ITS CONNECTION after joining");
                        all_joined = all_joined && *p.stayed;
                    }
                } else {
                    all_joined = false;
                    std::printf(p.first_attempt ? "NOT JOINED (%d attempts)" : "not started (%d)", p.attempts);
                }
                std::map<std::string, int> why; // earlier attempts' ends
                for (const auto &f : p.failures) ++why[f.empty() ? "?" : f];
                for (const auto &[f, n] : why) std::printf(" [%dx %s]", n, f.c_str());
                std::printf("\n");
            }
            std::printf("  slowest join %llu ms: target < 2 s %s\n", static_cast<unsigned long long>(worst),
                        all_joined && worst < 2000 ? "met" : "NOT MET");
        }

        if (kind_ != attack_kind::none) {
            std::printf(
                "attackers: %llu connections opened, %llu welcomed, %llu dropped by the server, %llu gave up waiting",
                static_cast<unsigned long long>(counters_.connects),
                static_cast<unsigned long long>(counters_.welcomes), static_cast<unsigned long long>(counters_.dropped),
                static_cast<unsigned long long>(counters_.gave_up));
            for (const auto &[why, n] : counters_.rejects)
                std::printf(", rejected '%s' %llu", why.c_str(), static_cast<unsigned long long>(n));
            std::printf("\n");
            if (counters_.claims)
                std::printf("  %llu mismatches claimed, %llu uploads asked for\n",
                            static_cast<unsigned long long>(counters_.claims),
                            static_cast<unsigned long long>(counters_.asked));
            if (kind_ == attack_kind::upload)
                std::printf("  uploads: %llu sent in whole, %llu cut off by a drop, %llu slots left for a fresh quota, "
                            "%.1f MB of "
                            "junk sent; largest taken %u bytes, smallest refused %u bytes\n",
                            static_cast<unsigned long long>(counters_.uploads_sent),
                            static_cast<unsigned long long>(counters_.uploads_cut),
                            static_cast<unsigned long long>(counters_.rejoins),
                            static_cast<double>(counters_.upload_bytes) / 1e6, sizing_.accepted, sizing_.refused);
            if (counters_.half_open)
                std::printf("  %llu half-open connections opened\n",
                            static_cast<unsigned long long>(counters_.half_open));
        }
        for (const auto &p : phases_) {
            if (p.events.empty()) continue;
            std::printf("server events during the %s:", p.name.c_str());
            for (const auto &[k, n] : p.events) std::printf(" %s %llu;", k.c_str(), static_cast<unsigned long long>(n));
            std::printf("\n");
            std::vector<std::pair<std::uint64_t, std::string>> top;
            for (const auto &[r, n] : p.reasons) top.emplace_back(n, r);
            std::sort(top.rbegin(), top.rend());
            for (std::size_t i = 0; i < top.size() && i < 6; ++i)
                std::printf("  %6llu x %s\n", static_cast<unsigned long long>(top[i].first), top[i].second.c_str());
        }
        std::printf("server: %s\n",
                    server_.summary().empty() ? "(no summary line: did it exit?)" : server_.summary().c_str());
        if (const int st = server_.status(); st != 0)
            std::printf("server ENDED ABNORMALLY: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit status",
                        WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        for (const auto &l : server_.other_lines())
            if (l.rfind("demo_server: listening", 0) != 0) std::printf("server said: %s\n", l.c_str());
    }

    struct half_open_conn {
        std::string bind;
        std::unique_ptr<transport> t;
        std::uint64_t due;
    };

    const settings &s_;
    attack_kind kind_;
    target target_;
    int players_ = 4;
    server_process server_;
    std::string proc_dir_;
    std::vector<phase_record> phases_;
    std::uint64_t next_sample_ = 0, phase_start_ = 0, next_attack_poll_ = 0;
    std::vector<std::unique_ptr<honest_client>> bots_;
    std::vector<bot_end> end_state_;
    std::unique_ptr<honest_client> returning_;
    std::vector<std::unique_ptr<honest_client>> crashed_; // kept, never polled, never closed
    std::vector<join_probe> probes_;
    join_probe *returning_probe_ = nullptr; // the probe whose player is returning_ now
    std::vector<std::uint64_t> crash_at_;
    attack_counters counters_;
    upload_sizing sizing_;
    std::vector<std::unique_ptr<raw_client>> attackers_;
    std::vector<half_open_conn> half_open_;
};

} // namespace

int main(int argc, char **argv) {
    settings s;
    CLI::App app{
        "retcon_attack_load: attacks a real demo_server and measures it (docs/benchmarks.md, \"Under attack\")"};
    app.add_option("--server", s.server, "path of the demo_server executable")->required();
    app.add_option("--attack", s.attack, "resync | resync-players | upload | lockout | none")
        ->check(CLI::IsMember({"resync", "resync-players", "upload", "lockout", "none"}))
        ->capture_default_str();
    app.add_option("--seconds", s.seconds, "length of the attack phase")
        ->check(CLI::Range(1.0, 600.0))
        ->capture_default_str();
    app.add_option("--baseline", s.baseline_s, "length of the baseline phase (2 honest bots only)")
        ->check(CLI::Range(1.0, 600.0))
        ->capture_default_str();
    app.add_option("--port", s.port, "UDP port for the server (0: a free one)")->capture_default_str();
    app.add_option("--players", s.players, "server player slots (0: 8 for upload, else 4)")->check(CLI::Range(0, 8));
    app.add_option("--attackers", s.attackers, "attacking connections (0: 20 resync, 2 resync-players, 10 upload)")
        ->check(CLI::Range(0, 150));
    app.add_option("--spectators", s.spectators, "lockout: idle spectators")
        ->check(CLI::Range(0, 150))
        ->capture_default_str();
    app.add_option("--half-open", s.half_open, "lockout: half-open ENet connections (one per address, 127.0.0.10 on)")
        ->check(CLI::Range(0, 60))
        ->capture_default_str();
    app.add_option("--reopen-ms", s.reopen_ms, "lockout: each half-open connection is replaced this often")
        ->check(CLI::Range(100u, 60000u))
        ->capture_default_str();
    app.add_option("--chunk-rate", s.chunk_rate, "upload: snapshot chunks per second per attacker")
        ->check(CLI::Range(1u, 5000u))
        ->capture_default_str();
    app.add_option("--server-log", s.server_log, "write demo_server's output to this file");
    app.add_flag("--verbose", s.verbose, "print the events of the players joining under attack (lockout)");
    CLI11_PARSE(app, argc, argv);

    attack_kind kind = attack_kind::none;
    if (s.attack == "resync") kind = attack_kind::resync;
    else if (s.attack == "resync-players")
        kind = attack_kind::resync_players;
    else if (s.attack == "upload")
        kind = attack_kind::upload;
    else if (s.attack == "lockout")
        kind = attack_kind::lockout;
    std::signal(SIGPIPE, SIG_IGN);
    harness h{s, kind};
    return h.run();
}
