// retcon_host_load: the measured capacity of the match host (docs/hosting.md). For each match
// count M of a sweep it starts a release demo_server with M open 4-player matches, fills them
// with players and measures, over a window of steady play, the server's CPU and memory (/proc)
// and what its /metrics page says: tick lateness, where a match frame's time goes, bytes per
// client. It then fits server CPU = intercept + slope × match frames per second. The figures are
// quoted in docs/benchmarks.md, "Match host capacity".
//
//   retcon_host_load                       # the sweep: M = 1, 10, 40, 100, 200, 300, ...
//   retcon_host_load --matches 100,200 --seconds 20
//   retcon_host_load --quick               # M = 1, 10 for 3 s: do the clients play, 0 desyncs?
//
// The players: match open-1 gets four full demo_clients (`--bot --headless`: prediction,
// rollback, checksums), which must end with `desyncs: 0`; every other match gets four thin
// clients spoken by hand over ENet in this process: hello, welcome, snapshot (acknowledged the
// way client_session does: ack_confirmed reaches the snapshot's frame), then every tick one
// input_msg with the inputs the server has not acknowledged and ack_confirmed = the end of the
// confirmed frames received, no checksum. They simulate nothing, so one core can play hundreds
// of matches. A retcon transport holds one connection, so the thin clients use ENet directly:
// a few ENet hosts with many outgoing peers each, bound to 127.0.0.2, .3, ...
//
// The server runs on CPU 0, this tool and the full clients on CPU 1: a run in which they used
// more than --max-generator % of that core measured the generator, not the server, and is
// reported as void.
#include <retcon/net.hpp>
#include <retcon_demo/game.hpp>

#include <CLI/CLI.hpp>
#include <enet/enet.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "load_common.hpp"

namespace {

using namespace retcon;
using load::now_ms;
using load::now_us;

// ------------------------------------------------------------------------------ settings

struct settings {
    std::string server; // demo_server (default: next to this tool in the build tree)
    std::string client; // demo_client
    std::vector<std::uint32_t> matches{1, 10, 40, 100, 200, 300, 400, 500, 600, 800, 1000};
    double warmup_s = 5;
    double seconds = 10;
    bool quick = false;
    bool no_stop = false;              // run every M even past saturation
    double max_p99_ms = 2.0;           // a run at or above this p99 lateness ends the sweep
    double max_generator = 85.0;       // CPU 1 above this: the run is void (and ends the sweep)
    std::size_t peers_per_host = 128;  // thin clients per ENet client host
    std::uint32_t connect_rate = 400;  // thin clients started per second
    std::uint32_t max_connecting = 64; // thin clients between connect and loaded snapshot at once
    std::string log_dir;               // demo_server's and the full clients' output, per run
};

// ------------------------------------------------------------------------------ /metrics

/// A plain HTTP/1.1 GET of 127.0.0.1:port/metrics; the body, or nothing.
std::optional<std::string> http_get_metrics(std::uint16_t port) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return std::nullopt;
    timeval tv{2, 0};
    ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (::connect(s, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        ::close(s);
        return std::nullopt;
    }
    const std::string req = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::send(s, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) {
        ::close(s);
        return std::nullopt;
    }
    std::string all;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::recv(s, buf, sizeof buf, 0);
        if (n <= 0) break;
        all.append(buf, static_cast<std::size_t>(n));
    }
    ::close(s);
    const auto body = all.find("\r\n\r\n");
    if (all.rfind("HTTP/1.1 200", 0) != 0 || body == std::string::npos) return std::nullopt;
    return all.substr(body + 4);
}

/// What the window computations need from one /metrics page (docs/hosting.md, "Metrics").
struct metrics_page {
    double uptime_s = -1;
    std::uint32_t matches = 0, players = 0;
    std::vector<std::pair<double, std::uint64_t>> buckets; // (le in seconds, cumulative), +Inf last as inf
    std::uint64_t lateness_count = 0;
    double lateness_max_s = 0;
    std::map<std::string, double> parts; // tick_seconds_total by part
    std::uint64_t frames = 0;
    std::uint64_t replaced_inputs = 0, desyncs_verified = 0;
    std::map<std::string, std::uint64_t> bytes_in, bytes_out, late_ticks; // per match
};

std::optional<metrics_page> parse_metrics(const std::string &text) {
    metrics_page m;
    std::istringstream in{text};
    std::string line;
    const auto label = [](const std::string &l, const char *key) {
        const auto at = l.find(std::string{key} + "=\"");
        if (at == std::string::npos) return std::string{};
        const auto from = at + std::strlen(key) + 2;
        return l.substr(from, l.find('"', from) - from);
    };
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto sp = line.rfind(' ');
        if (sp == std::string::npos) continue;
        const std::string value = line.substr(sp + 1);
        const std::string name = line.substr(0, line.find_first_of("{ "));
        const double v = std::strtod(value.c_str(), nullptr);
        const auto u = static_cast<std::uint64_t>(std::strtoull(value.c_str(), nullptr, 10));
        if (name == "retcon_host_uptime_seconds") m.uptime_s = v;
        else if (name == "retcon_host_matches")
            m.matches = static_cast<std::uint32_t>(u);
        else if (name == "retcon_host_players")
            m.players = static_cast<std::uint32_t>(u);
        else if (name == "retcon_host_tick_lateness_seconds_bucket") {
            const std::string le = label(line, "le");
            m.buckets.emplace_back(le == "+Inf" ? HUGE_VAL : std::strtod(le.c_str(), nullptr), u);
        } else if (name == "retcon_host_tick_lateness_seconds_count")
            m.lateness_count = u;
        else if (name == "retcon_host_tick_lateness_max_seconds")
            m.lateness_max_s = v;
        else if (name == "retcon_host_tick_seconds_total")
            m.parts[label(line, "part")] = v;
        else if (name == "retcon_host_encoder_seconds_total") // the replay encoder's thread, not the tick's
            m.parts["encoder"] = v;
        else if (name == "retcon_host_match_frames_total")
            m.frames = u;
        else if (name == "retcon_host_replaced_inputs_total")
            m.replaced_inputs = u;
        else if (name == "retcon_host_desyncs_verified_total")
            m.desyncs_verified = u;
        else if (name == "retcon_match_bytes_in_total")
            m.bytes_in[label(line, "match")] = u;
        else if (name == "retcon_match_bytes_out_total")
            m.bytes_out[label(line, "match")] = u;
        else if (name == "retcon_match_late_ticks_total")
            m.late_ticks[label(line, "match")] = u;
    }
    if (m.uptime_s < 0 || m.buckets.empty()) return std::nullopt;
    return m;
}

/// The lateness histogram of a window (b minus a): the upper bound of the bucket holding each
/// quantile, as lateness_histogram::quantile_us computes it. Bounds are exclusive (a tick in the
/// bucket up to 2 ms was less than 2 ms late); the last bucket (10 ms or more) has none: infinity.
struct lateness_window {
    std::uint64_t count = 0;
    std::vector<std::pair<double, std::uint64_t>> per_bucket; // (le, count in the window)

    double quantile_us(double q) const {
        if (count == 0) return 0;
        const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count - 1)) + 1;
        std::uint64_t seen = 0;
        for (const auto &[le, n] : per_bucket) {
            seen += n;
            if (seen >= rank) return le * 1e6;
        }
        return HUGE_VAL;
    }
    /// The upper bound of the highest bucket with a tick in it.
    double max_us() const {
        for (auto it = per_bucket.rbegin(); it != per_bucket.rend(); ++it)
            if (it->second != 0) return it->first * 1e6;
        return 0;
    }
};

lateness_window lateness_between(const metrics_page &a, const metrics_page &b) {
    lateness_window w;
    std::uint64_t prev_a = 0, prev_b = 0;
    for (std::size_t i = 0; i < b.buckets.size() && i < a.buckets.size(); ++i) {
        const std::uint64_t in_a = a.buckets[i].second - prev_a, in_b = b.buckets[i].second - prev_b;
        prev_a = a.buckets[i].second;
        prev_b = b.buckets[i].second;
        w.per_bucket.emplace_back(b.buckets[i].first, in_b - in_a);
        w.count += in_b - in_a;
    }
    return w;
}

// ------------------------------------------------------------------------------ thin clients

/// What the thin clients did, over the run or a window.
struct thin_counters {
    std::uint64_t connects = 0, welcomes = 0, loaded = 0, rejects = 0, disconnects = 0, gave_up = 0, desync_notices = 0;
    std::uint64_t bytes_in = 0, bytes_out = 0, packets_in = 0, packets_out = 0;
    std::map<std::string, std::uint64_t> reject_texts;
};

/**
 * One player with no simulation: the protocol of client_session reduced to what the server
 * sees. Its inputs follow a fixed pattern per client (turning, thrusting and firing change every
 * few frames), so the server's games have ships that move and shoot.
 */
struct thin_client {
    enum class state : std::uint8_t { idle, connecting, hello_sent, playing };

    std::uint32_t id = 0;
    std::size_t host = 0;
    ENetPeer *peer = nullptr;
    state st = state::idle;
    std::uint64_t retry_at_ms = 0, started_ms = 0;
    bool welcomed = false;
    std::uint8_t slot = 0xff, delay = 2;
    std::uint16_t tick_hz = 60;
    // The snapshot transfer being received.
    std::uint32_t transfer = 0, transfer_total = 0, transfer_got = 0;
    frame_t transfer_frame = 0;
    bool snapshot_complete = false;
    // Playing: the frame of the snapshot loaded, the end of the confirmed frames held, what the
    // server acknowledged of our inputs, its latest frame, our next input's frame.
    frame_t sync = 0, ack = 0, server_ack_input = 0, server_frame = 0, local_next = 0;
    std::uint64_t confirmed_after_load = 0;
    std::uint32_t cookie = 0; // the server's connect cookie, to connect again with

    [[nodiscard]] bool plays() const noexcept { return st == state::playing && confirmed_after_load >= 2; }
    [[nodiscard]] bool in_progress() const noexcept { return st == state::connecting || st == state::hello_sent; }
};

// The server answers a CONNECT without a connect cookie with a cookie datagram (docs/net.md,
// "Transports"): FF FF 'r' 'c', the CONNECT's connect ID as sent, the cookie (u32 big-endian).
// This ENet intercept hook keeps it on the connecting client it answers; service() connects again.
int ENET_CALLBACK take_cookie(ENetHost *host, ENetEvent *) {
    const enet_uint8 *d = host->receivedData;
    if (host->receivedDataLength != 12 || d[0] != 0xFF || d[1] != 0xFF || d[2] != 'r' || d[3] != 'c') return 0;
    std::uint32_t connect_id = 0;
    std::memcpy(&connect_id, d + 4, 4);
    for (std::size_t i = 0; i < host->peerCount; ++i) {
        ENetPeer &p = host->peers[i];
        if (p.state != ENET_PEER_STATE_CONNECTING || p.connectID != connect_id || !p.data) continue;
        static_cast<thin_client *>(p.data)->cookie =
            (std::uint32_t{d[8]} << 24) | (std::uint32_t{d[9]} << 16) | (std::uint32_t{d[10]} << 8) | d[11];
    }
    return 1;
}

class thin_fleet {
public:
    thin_fleet(const load::demo_build &build, std::uint16_t port, std::size_t clients, const settings &s)
        : build_{build}, s_{s} {
        enet_address_set_host(&server_, "127.0.0.1");
        server_.port = port;
        const std::size_t per = std::max<std::size_t>(1, s.peers_per_host);
        const std::size_t hosts = (clients + per - 1) / per;
        for (std::size_t h = 0; h < hosts; ++h) {
            const std::size_t n = std::min(per, clients - h * per);
            // Many connections share one socket here, unlike real players. It matters only when
            // the server drops connections without telling them (its ENet timeouts, when
            // overloaded): a dropped client keeps sending, and ENet's 2-bit session ids let 1 in 4
            // of its packets through to a newer connection from the same socket that got the same
            // server peer slot. Such a run has failed already (thin clients lost).
            ENetAddress local{};
            const std::string ip = "127.0." + std::to_string(h / 250) + "." + std::to_string(2 + h % 250);
            enet_address_set_host(&local, ip.c_str());
            local.port = 0;
            ENetHost *e = enet_host_create(&local, n, wire::channel_count, 0, 0);
            if (!e) {
                error_ = "cannot create an ENet host bound to " + ip;
                return;
            }
            e->intercept = &take_cookie;
            host_slot hs;
            hs.enet = e;
            hs.ip = ip;
            // Ticks spread over the period, like the server's frame phases.
            hs.next_tick_us =
                now_us() + static_cast<std::uint64_t>(1e6 / 60.0 * static_cast<double>(h) / static_cast<double>(hosts));
            hosts_.push_back(hs);
        }
        clients_.resize(clients);
        for (std::size_t i = 0; i < clients; ++i) {
            clients_[i].id = static_cast<std::uint32_t>(i);
            clients_[i].host = i / per;
            hosts_[i / per].members.push_back(i);
        }
        input_.resize(build_.input_size);
    }
    thin_fleet(const thin_fleet &) = delete;
    thin_fleet &operator=(const thin_fleet &) = delete;
    ~thin_fleet() { close(); }

    [[nodiscard]] const std::string &error() const noexcept { return error_; }
    [[nodiscard]] std::size_t size() const noexcept { return clients_.size(); }
    [[nodiscard]] const thin_counters &counters() const noexcept { return c_; }
    [[nodiscard]] std::size_t playing() const {
        return static_cast<std::size_t>(
            std::count_if(clients_.begin(), clients_.end(), [](const auto &c) { return c.plays(); }));
    }
    [[nodiscard]] std::size_t hosts() const noexcept { return hosts_.size(); }

    /// Lets connections start (at --connect-rate, at most --max-connecting at once).
    void start_connecting() { connecting_ = true; }

    /// Ends every connection at once (no goodbye) and frees the ENet hosts.
    void close() {
        for (auto &h : hosts_) {
            for (const std::size_t i : h.members)
                if (clients_[i].peer) enet_peer_disconnect_now(clients_[i].peer, 0);
            enet_host_flush(h.enet);
            enet_host_destroy(h.enet);
        }
        hosts_.clear();
        for (auto &c : clients_) {
            c.peer = nullptr;
            c.st = thin_client::state::idle;
        }
        connecting_ = false;
    }

    /// The earliest time (µs) this fleet has work to do without a packet arriving.
    [[nodiscard]] std::uint64_t next_due_us() const {
        std::uint64_t t = ~std::uint64_t{0};
        for (const auto &h : hosts_) t = std::min({t, h.next_tick_us, h.next_service_us});
        if (connecting_) t = std::min(t, next_connect_check_us_);
        return t;
    }

    void add_poll_fds(std::vector<pollfd> &fds) const {
        for (const auto &h : hosts_) fds.push_back(pollfd{h.enet->socket, POLLIN, 0});
    }

    /// Services readable hosts (@p fds from add_poll_fds, after poll), ticks due ones, starts
    /// connections.
    void step(const pollfd *fds) {
        const std::uint64_t now = now_us();
        for (std::size_t h = 0; h < hosts_.size(); ++h)
            if ((fds && (fds[h].revents & POLLIN)) || now >= hosts_[h].next_service_us) service(h, now);
        for (std::size_t h = 0; h < hosts_.size(); ++h)
            if (now >= hosts_[h].next_tick_us) tick(h, now);
        if (connecting_ && now >= next_connect_check_us_) {
            next_connect_check_us_ = now + 2000;
            connect_some(now);
        }
    }

private:
    struct host_slot {
        ENetHost *enet = nullptr;
        std::string ip;
        std::vector<std::size_t> members;
        std::uint64_t next_tick_us = 0;
        std::uint64_t next_service_us = 0;
    };

    void connect_some(std::uint64_t now) {
        std::size_t busy = 0;
        for (const auto &c : clients_) busy += c.in_progress() ? 1u : 0u;
        const std::uint64_t step_us = 1'000'000u / std::max<std::uint32_t>(1, s_.connect_rate);
        if (next_connect_us_ == 0) next_connect_us_ = now;
        const std::uint64_t ms = now / 1000;
        for (auto &c : clients_) {
            if (c.st != thin_client::state::idle) continue;
            if (c.retry_at_ms > ms) continue;
            if (busy >= s_.max_connecting || now < next_connect_us_) break;
            ENetPeer *p = enet_host_connect(hosts_[c.host].enet, &server_, wire::channel_count, 0);
            if (!p) {
                c.retry_at_ms = ms + 100;
                continue;
            }
            p->data = &c;
            c.peer = p;
            c.st = thin_client::state::connecting;
            c.started_ms = ms;
            c.welcomed = c.snapshot_complete = false;
            c.transfer = c.transfer_total = c.transfer_got = 0;
            c.confirmed_after_load = 0;
            ++c_.connects;
            ++busy;
            next_connect_us_ = std::max(next_connect_us_ + step_us, now);
            hosts_[c.host].next_service_us = 0; // push the CONNECT out now
        }
        // A connection that got neither a welcome nor a refusal in 5 s is abandoned and retried.
        for (auto &c : clients_) {
            if (!c.in_progress() || ms - c.started_ms < 5000) continue;
            ++c_.gave_up;
            if (c.peer) enet_peer_reset(c.peer);
            c.peer = nullptr;
            c.st = thin_client::state::idle;
            c.retry_at_ms = ms + 200;
        }
    }

    void service(std::size_t h, std::uint64_t now) {
        host_slot &hs = hosts_[h];
        hs.next_service_us = now + 50'000; // acknowledgements, pings, timeouts at least this often
        ENetEvent ev;
        if (enet_host_service(hs.enet, &ev, 0) > 0) {
            do handle(ev, now / 1000);
            while (enet_host_check_events(hs.enet, &ev) > 0);
        }
        for (const std::size_t i : hs.members) { // connect again with the cookie the server sent
            thin_client &c = clients_[i];
            if (c.cookie == 0) continue;
            const std::uint32_t cookie = c.cookie;
            c.cookie = 0;
            if (c.st != thin_client::state::connecting || !c.peer) continue;
            enet_peer_reset(c.peer);
            c.peer = enet_host_connect(hs.enet, &server_, wire::channel_count, cookie);
            if (c.peer) c.peer->data = &c;
            else
                c.st = thin_client::state::idle; // retried by connect_some
        }
        enet_host_flush(hs.enet); // acknowledgements, hellos, CONNECTs with cookies
    }

    void send(thin_client &c, wire::channel ch, bool reliable) {
        ENetPacket *p = enet_packet_create(out_.data(), out_.size(),
                                           reliable ? static_cast<enet_uint32>(ENET_PACKET_FLAG_RELIABLE) : 0u);
        if (p && enet_peer_send(c.peer, static_cast<enet_uint8>(ch), p) != 0) enet_packet_destroy(p);
        c_.bytes_out += out_.size();
        ++c_.packets_out;
    }

    void handle(const ENetEvent &ev, std::uint64_t ms) {
        auto *c = ev.peer ? static_cast<thin_client *>(ev.peer->data) : nullptr;
        switch (ev.type) {
        case ENET_EVENT_TYPE_CONNECT: {
            if (!c) return;
            // As retcon's ENet transport configures its peers: inputs are never throttled away.
            enet_peer_timeout(ev.peer, 0, 1000, 5000);
            enet_peer_throttle_configure(ev.peer, ENET_PEER_PACKET_THROTTLE_INTERVAL,
                                         ENET_PEER_PACKET_THROTTLE_ACCELERATION, 0);
            wire::hello_msg h = build_.hello;
            h.name = "thin-" + std::to_string(c->id);
            wire::encode(h, out_);
            send(*c, wire::channel::control, true);
            c->st = thin_client::state::hello_sent;
            return;
        }
        case ENET_EVENT_TYPE_DISCONNECT: {
            if (!c) return;
            ++c_.disconnects;
            c->peer = nullptr;
            c->st = thin_client::state::idle;
            c->retry_at_ms = ms + 300;
            ev.peer->data = nullptr;
            return;
        }
        case ENET_EVENT_TYPE_RECEIVE: {
            if (c && ev.channelID < wire::channel_count)
                receive(*c, static_cast<wire::channel>(ev.channelID),
                        {reinterpret_cast<const std::byte *>(ev.packet->data), ev.packet->dataLength});
            enet_packet_destroy(ev.packet);
            return;
        }
        case ENET_EVENT_TYPE_NONE: return;
        }
    }

    void receive(thin_client &c, wire::channel ch, std::span<const std::byte> data) {
        c_.bytes_in += data.size();
        ++c_.packets_in;
        switch (static_cast<wire::message_kind>(wire::peek_kind(data))) {
        case wire::message_kind::welcome: {
            wire::welcome_msg m;
            if (ch != wire::channel::control || c.welcomed || !wire::decode(data, m)) return;
            c.welcomed = true;
            c.slot = m.slot;
            c.tick_hz = m.tick_hz;
            c.delay = m.input_delay;
            ++c_.welcomes;
            if (m.tick_hz != 0) period_us_ = 1e6 / m.tick_hz;
            if (c.snapshot_complete) load(c);
            return;
        }
        case wire::message_kind::reject: {
            wire::reject_msg m;
            if (!wire::decode(data, m)) return;
            ++c_.rejects;
            ++c_.reject_texts[std::string{wire::to_string(m.reason)} + ": " + m.text]; // by reason, then wording
            return; // the server closes the connection: retried on the disconnect
        }
        case wire::message_kind::snapshot_chunk: {
            wire::snapshot_chunk_msg m;
            if (ch != wire::channel::snapshots || !wire::decode(data, m)) return;
            if (m.transfer != c.transfer || c.transfer_total == 0) { // a new transfer (a join, or a resync)
                c.transfer = m.transfer;
                c.transfer_total = m.total;
                c.transfer_got = 0;
                c.transfer_frame = m.frame;
                c.snapshot_complete = false;
            }
            c.transfer_got += static_cast<std::uint32_t>(m.bytes.size());
            if (c.transfer_got >= c.transfer_total) {
                c.snapshot_complete = true;
                c.transfer_total = 0;
                if (c.welcomed) load(c);
            }
            return;
        }
        case wire::message_kind::confirmed: {
            if (ch != wire::channel::inputs || c.st != thin_client::state::playing || !wire::decode_header(data, cmsg_))
                return;
            if (cmsg_.first_frame <= c.ack) c.ack = std::max<frame_t>(c.ack, cmsg_.first_frame + cmsg_.count);
            c.server_ack_input = std::max(c.server_ack_input, cmsg_.ack_input);
            c.server_frame = std::max(c.server_frame, cmsg_.server_frame);
            ++c.confirmed_after_load;
            return;
        }
        case wire::message_kind::desync: ++c_.desync_notices; return;
        case wire::message_kind::bye: {
            wire::encode(wire::bye_msg{static_cast<std::uint8_t>(wire::bye_reason::acknowledged)}, out_);
            send(c, wire::channel::control, true);
            return;
        }
        default: return;
        }
    }

    /// The snapshot is "loaded": from now on the client acknowledges from its frame on, which is
    /// what tells the server (client_session::load_snapshot; server_session's note_feedback).
    void load(thin_client &c) {
        if (c.st != thin_client::state::playing) ++c_.loaded;
        c.snapshot_complete = false;
        c.st = thin_client::state::playing;
        c.sync = c.ack = c.transfer_frame;
        c.server_ack_input = 0;
        c.server_frame = c.transfer_frame;
        c.local_next = c.transfer_frame + c.delay;
        c.confirmed_after_load = 0;
    }

    /// A tick of every playing client of host @p h: one new input each, and the input message.
    void tick(std::size_t h, std::uint64_t now) {
        host_slot &hs = hosts_[h];
        const auto period = static_cast<std::uint64_t>(period_us_);
        hs.next_tick_us += period;
        if (hs.next_tick_us <= now) hs.next_tick_us = now + period; // fell behind: no burst
        bool any = false;
        for (const std::size_t i : hs.members) {
            thin_client &c = clients_[i];
            if (c.st != thin_client::state::playing || !c.peer) continue;
            ++c.local_next;
            // Stay a few frames ahead of the server, as the clock of a client_session does.
            if (c.local_next < c.server_frame + 1u) c.local_next = c.server_frame + c.delay;
            if (c.local_next > c.server_frame + c.delay + 8u) c.local_next = c.server_frame + c.delay + 8u;
            frame_t first = std::max(c.server_ack_input, c.sync);
            if (c.local_next - std::min(first, c.local_next) > wire::limits::max_frames_per_packet)
                first = c.local_next - static_cast<frame_t>(wire::limits::max_frames_per_packet);
            first = std::min(first, c.local_next);
            imsg_.slot = c.slot;
            imsg_.ack_confirmed = c.ack;
            imsg_.first_frame = first;
            imsg_.count = static_cast<std::uint8_t>(c.local_next - first);
            imsg_.client_time_ms = static_cast<std::uint32_t>(now / 1000) | 1u;
            imsg_.checksum_frame = no_frame;
            imsg_.checksum = 0;
            imsg_.inputs.clear();
            for (frame_t f = first; f < c.local_next; ++f) {
                fill_input(c.id, f);
                imsg_.inputs.insert(imsg_.inputs.end(), input_.begin(), input_.end());
            }
            wire::encode(imsg_, build_.input_size, {}, out_);
            send(c, wire::channel::inputs, false);
            any = true;
        }
        if (any) enet_host_flush(hs.enet);
    }

    void fill_input(std::uint32_t id, frame_t f) {
        std::fill(input_.begin(), input_.end(), std::byte{0});
        demo::player_input in{};
        in.turn = static_cast<std::uint8_t>((f / 45u + id) % 3u);
        in.thrust = static_cast<std::uint8_t>((f / 30u + id) % 4u != 0u ? 1 : 0);
        in.fire = static_cast<std::uint8_t>((f + id) % 20u == 0u ? 1 : 0);
        std::memcpy(input_.data(), &in, std::min(sizeof in, input_.size()));
    }

    load::demo_build build_;
    const settings &s_;
    ENetAddress server_{};
    std::vector<host_slot> hosts_;
    std::vector<thin_client> clients_;
    thin_counters c_;
    std::string error_;
    bool connecting_ = false;
    std::uint64_t next_connect_us_ = 0, next_connect_check_us_ = 0;
    double period_us_ = 1e6 / 60.0;
    std::vector<std::byte> out_, input_;
    wire::input_msg imsg_;
    wire::confirmed_msg cmsg_;
};

// ------------------------------------------------------------------------------ one run

/// /proc/stat: busy and total jiffies of one CPU.
struct cpu_line {
    std::uint64_t busy = 0, total = 0, steal = 0;
};
std::vector<cpu_line> read_cpus() {
    std::vector<cpu_line> v;
    std::ifstream in{"/proc/stat"};
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
        std::istringstream f{line.substr(line.find(' '))};
        std::uint64_t x[10] = {};
        for (auto &e : x) f >> e; // user nice system idle iowait irq softirq steal guest guest_nice
        cpu_line c;
        c.total = x[0] + x[1] + x[2] + x[3] + x[4] + x[5] + x[6] + x[7];
        c.busy = c.total - x[3] - x[4];
        c.steal = x[7];
        v.push_back(c);
    }
    return v;
}

/// UDP datagrams the kernel dropped for want of socket buffer space (all sockets).
std::uint64_t udp_rcvbuf_errors() {
    std::ifstream in{"/proc/net/snmp"};
    std::string header, values;
    while (std::getline(in, header)) {
        if (header.rfind("Udp:", 0) != 0 || !std::getline(in, values)) continue;
        std::istringstream h{header}, v{values};
        std::string name, value;
        while (h >> name && v >> value)
            if (name == "RcvbufErrors") return std::strtoull(value.c_str(), nullptr, 10);
    }
    return 0;
}

/// One run's figures.
struct run_result {
    std::uint32_t matches = 0;
    bool ok = false;      // everyone played, the full clients had no desync, the server lived
    bool is_void = false; // the generator's core was too busy
    std::string failure;  // why not ok
    double window_s = 0;
    double frames_per_s = 0;
    double server_cpu = 0, generator_cpu = 0, tool_cpu = 0;
    double cpu0_busy = 0, cpu1_busy = 0, steal = 0;
    double p50 = 0, p99 = 0, p999 = 0, max = 0; // µs: upper bounds of the window's buckets
    double lifetime_max_us = 0;                 // the server's largest lateness since it started
    std::uint64_t late_ticks = 0, ticks = 0;
    std::map<std::string, double> part_us; // per match frame
    double cpu_us_per_frame = 0;
    double in_per_client = 0, out_per_client = 0; // bytes per second
    std::uint32_t players = 0;
    double rss0_mib = 0, rss_mib = 0, rss_per_match_mib = 0;
    double replaced_per_s = 0;
    std::uint64_t udp_drops = 0;
    std::uint64_t full_desyncs = 0;
    std::uint64_t server_desyncs = 0;
    double ramp_s = 0;
    thin_counters thin;
    std::size_t thin_clients = 0, thin_hosts = 0;
};

constexpr const char *part_names[] = {"simulate", "hash_record", "broadcast", "receive", "network", "encoder"};

class runner {
public:
    runner(const settings &s, load::demo_build build) : s_{s}, build_{std::move(build)} {}

    run_result run(std::uint32_t m) {
        run_result r;
        r.matches = m;
        const std::string why = run_inner(m, r);
        if (!why.empty()) r.failure = why;
        r.ok = why.empty();
        teardown(r);
        return r;
    }

private:
    // --------------------------------------------------------------- the processes

    void server_line(const std::string &line) {
        if (log_.is_open()) log_ << line << '\n';
        if (line.rfind("demo_server: listening on UDP port ", 0) == 0) {
            port_ = static_cast<std::uint16_t>(std::strtoul(line.c_str() + 35, nullptr, 10));
            if (const auto at = line.find("metrics on http://127.0.0.1:"); at != std::string::npos)
                metrics_port_ = static_cast<std::uint16_t>(std::strtoul(line.c_str() + at + 28, nullptr, 10));
        } else if (line.rfind("demo_server: match over", 0) == 0) {
            if (const auto at = line.find("; desyncs: "); at != std::string::npos)
                server_desyncs_ += std::strtoull(line.c_str() + at + 11, nullptr, 10);
        } else if (line.rfind("match=open-1 ", 0) == 0 && line.find("] player_joined slot ") != std::string::npos &&
                   line.find(" full-") != std::string::npos) {
            ++full_in_open1_;
        } else if (line.find(" failed: ") != std::string::npos || line.rfind("demo_server: ", 0) == 0) {
            server_notes_.push_back(line);
        }
    }

    struct full_client {
        std::string name;
        load::child_process proc;
        bool playing = false, done = false;
        std::optional<std::uint64_t> desyncs;
        std::string end;               // the summary's reason
        std::vector<std::string> tail; // its last lines, for a failure report
    };

    void full_line(full_client &c, const std::string &line) {
        if (log_.is_open()) log_ << c.name << ": " << line << '\n';
        c.tail.push_back(line);
        if (c.tail.size() > 12) c.tail.erase(c.tail.begin());
        const std::string me = "demo_client " + c.name + ": ";
        if (line.rfind(me + "playing slot", 0) == 0) c.playing = true;
        else if (line.rfind(me, 0) == 0)
            c.end = line.substr(me.size());
        if (line.rfind("desyncs: ", 0) == 0) c.desyncs = std::strtoull(line.c_str() + 9, nullptr, 10);
    }

    void read_children() {
        if (server_) server_->read_lines([&](const std::string &l) { server_line(l); });
        for (auto &c : full_) c->proc.read_lines([&](const std::string &l) { full_line(*c, l); });
    }

    /// Runs the thin clients and reads the children's output until @p until_us.
    void pump_until(std::uint64_t until_us) {
        std::vector<pollfd> fds;
        for (;;) {
            const std::uint64_t now = now_us();
            if (now >= next_read_us_) {
                read_children();
                next_read_us_ = now + 10'000;
            }
            if (now >= until_us) return;
            std::uint64_t wake = std::min(until_us, next_read_us_);
            if (fleet_) wake = std::min(wake, fleet_->next_due_us());
            fds.clear();
            if (fleet_) fleet_->add_poll_fds(fds);
            const std::uint64_t t = now_us();
            const std::uint64_t wait = wake > t ? wake - t : 0;
            timespec ts{static_cast<time_t>(wait / 1'000'000), static_cast<long>(wait % 1'000'000) * 1000};
            const int n = ::ppoll(fds.data(), fds.size(), &ts, nullptr);
            if (fleet_) fleet_->step(n > 0 ? fds.data() : nullptr);
        }
    }
    void pump_ms(std::uint64_t ms) { pump_until(now_us() + ms * 1000); }

    /// Keeps pumping until @p done() or @p timeout_ms; false on timeout.
    template<class F>
    bool pump_while_not(F &&done, std::uint64_t timeout_ms, std::uint64_t every_ms = 20) {
        const std::uint64_t end = now_ms() + timeout_ms;
        while (!done()) {
            if (now_ms() >= end) return false;
            pump_ms(every_ms);
        }
        return true;
    }

    std::optional<metrics_page> scrape() {
        if (metrics_port_ == 0) return std::nullopt;
        const auto body = http_get_metrics(metrics_port_);
        if (!body) return std::nullopt;
        return parse_metrics(*body);
    }

    /// The next page the host publishes (it publishes once a second): scraped every 100 ms until
    /// its uptime changes, while the clients keep playing. The /proc samples are taken at once.
    struct edge {
        metrics_page page;
        load::proc_sample server, self;
        std::vector<load::proc_sample> full;
        std::vector<cpu_line> cpus;
        std::uint64_t udp_drops = 0;
    };
    std::optional<edge> next_edge() {
        auto first = scrape();
        if (!first) return std::nullopt;
        const std::uint64_t end = now_ms() + 3000;
        while (now_ms() < end) {
            pump_ms(100);
            auto page = scrape();
            if (!page) return std::nullopt;
            if (page->uptime_s == first->uptime_s) continue;
            edge e;
            const std::uint64_t t = now_ms();
            e.page = std::move(*page);
            if (auto p = load::read_proc(server_->proc_dir(), t)) e.server = *p;
            if (auto p = load::read_proc("/proc/self", t)) e.self = *p;
            for (auto &c : full_)
                if (auto p = load::read_proc(c->proc.proc_dir(), t)) e.full.push_back(*p);
            e.cpus = read_cpus();
            e.udp_drops = udp_rcvbuf_errors();
            return e;
        }
        return std::nullopt;
    }

    // --------------------------------------------------------------- the run

    std::string run_inner(std::uint32_t m, run_result &r) {
        port_ = metrics_port_ = 0;
        full_in_open1_ = 0;
        server_desyncs_ = 0;
        server_notes_.clear();
        full_.clear();
        if (!s_.log_dir.empty()) {
            std::filesystem::create_directories(s_.log_dir);
            log_.open(s_.log_dir + "/host_load_M" + std::to_string(m) + ".log");
        }
        char tmpl[] = "/tmp/retcon_host_load_XXXXXX";
        if (!::mkdtemp(tmpl)) return "mkdtemp failed";
        replay_dir_ = tmpl;

        // The server, on CPU 0.
        std::string error;
        const std::vector<std::string> args{"--port",    "0",
                                            "--matches", std::to_string(m),
                                            "--players", "4",
                                            "--quiet",   "--metrics-port",
                                            "0",         "--max-peers-per-address",
                                            "4095",      "--hellos-per-second",
                                            "0",         "--replay-dir",
                                            replay_dir_};
        server_ = std::make_unique<load::child_process>();
        if (!server_->start(s_.server, args, cpu_server, error)) return error;
        if (!pump_while_not([&] { return port_ != 0 || server_->exited(); }, 10000) || port_ == 0)
            return "demo_server did not start (" + s_.server + ")";
        if (metrics_port_ == 0) return "demo_server printed no metrics port";
        if (auto p = load::read_proc(server_->proc_dir(), now_ms())) r.rss0_mib = load::mib(p->rss_kib);

        // The full clients, first: open mode puts them in the first match with room, open-1.
        for (int i = 1; i <= 4; ++i) {
            auto c = std::make_unique<full_client>();
            c->name = "full-" + std::to_string(i);
            const std::vector<std::string> cargs{"--connect",  "127.0.0.1:" + std::to_string(port_),
                                                 "--bot",      "--headless",
                                                 "--name",     c->name,
                                                 "--seed",     std::to_string(i),
                                                 "--duration", "900"};
            if (!c->proc.start(s_.client, cargs, cpu_generator, error)) return error;
            full_.push_back(std::move(c));
        }
        const bool full_in = pump_while_not(
            [&] {
                return full_in_open1_ >= 4 &&
                       std::all_of(full_.begin(), full_.end(), [](const auto &c) { return c->playing; });
            },
            15000);
        if (!full_in) return "the 4 full clients did not all start playing in match open-1 within 15 s";

        // Every match open, then the thin clients. Open mode opens one match per housekeeping
        // pass of the host (every 100 ms): 200 matches take 20 s.
        const std::uint64_t open_timeout = 15000 + std::uint64_t{m} * 150;
        if (!pump_while_not(
                [&] {
                    const auto p = scrape();
                    return p && p->matches >= m;
                },
                open_timeout, 100))
            return "the server did not open " + std::to_string(m) + " matches within " +
                   std::to_string(open_timeout / 1000) + " s";
        const std::uint64_t ramp_start = now_ms();
        const std::size_t thin = static_cast<std::size_t>(m - 1) * 4u;
        if (thin > 0) {
            fleet_ = std::make_unique<thin_fleet>(build_, port_, thin, s_);
            if (!fleet_->error().empty()) return fleet_->error();
            fleet_->start_connecting();
        }
        const std::uint64_t join_timeout = 20000 + thin * 20;
        const bool all_in = pump_while_not(
            [&] {
                if (fleet_ && fleet_->playing() < thin) return false;
                const auto p = scrape();
                return p && p->players >= 4 * m;
            },
            join_timeout, 100);
        r.thin_clients = thin;
        r.thin_hosts = fleet_ ? fleet_->hosts() : 0;
        if (fleet_) r.thin = fleet_->counters();
        if (!all_in)
            return std::to_string(fleet_ ? fleet_->playing() : 0) + " of " + std::to_string(thin) +
                   " thin clients playing after " + std::to_string(join_timeout / 1000) + " s";
        r.ramp_s = static_cast<double>(now_ms() - ramp_start) / 1000.0;

        // Warm-up, then the window between two published pages.
        pump_ms(static_cast<std::uint64_t>(s_.warmup_s * 1000));
        auto a = next_edge();
        if (!a) return "could not read the server's metrics";
        const thin_counters before = fleet_ ? fleet_->counters() : thin_counters{};
        pump_ms(static_cast<std::uint64_t>(std::max(0.0, s_.seconds - 0.5) * 1000));
        auto b = next_edge();
        if (!b) return "could not read the server's metrics";
        compute(r, *a, *b, m);
        if (fleet_) {
            r.thin = fleet_->counters();
            r.thin.disconnects -= before.disconnects;
            r.thin.rejects -= before.rejects;
            r.thin.gave_up -= before.gave_up;
            if (r.thin.disconnects != 0 || fleet_->playing() < thin)
                return std::to_string(r.thin.disconnects) + " thin clients lost their connection during the window";
        }
        if (server_->exited()) return "demo_server ended during the run";
        return {};
    }

    void compute(run_result &r, const edge &a, const edge &b, std::uint32_t m) {
        const double dt = b.page.uptime_s - a.page.uptime_s;
        r.window_s = dt;
        const double frames = static_cast<double>(b.page.frames - a.page.frames);
        r.frames_per_s = dt > 0 ? frames / dt : 0;
        r.server_cpu = load::cpu_percent(a.server, b.server);
        r.tool_cpu = load::cpu_percent(a.self, b.self);
        r.generator_cpu = r.tool_cpu;
        for (std::size_t i = 0; i < a.full.size() && i < b.full.size(); ++i)
            r.generator_cpu += load::cpu_percent(a.full[i], b.full[i]);
        if (a.cpus.size() >= 2 && b.cpus.size() >= 2) {
            const auto pct = [](const cpu_line &x, const cpu_line &y) {
                return y.total == x.total
                           ? 0.0
                           : 100.0 * static_cast<double>(y.busy - x.busy) / static_cast<double>(y.total - x.total);
            };
            r.cpu0_busy = pct(a.cpus[0], b.cpus[0]);
            r.cpu1_busy = pct(a.cpus[1], b.cpus[1]);
            const std::uint64_t st = (b.cpus[0].steal - a.cpus[0].steal) + (b.cpus[1].steal - a.cpus[1].steal);
            const std::uint64_t tot = (b.cpus[0].total - a.cpus[0].total) + (b.cpus[1].total - a.cpus[1].total);
            r.steal = tot ? 100.0 * static_cast<double>(st) / static_cast<double>(tot) : 0;
        }
        const auto lw = lateness_between(a.page, b.page);
        r.ticks = lw.count;
        r.p50 = lw.quantile_us(0.5);
        r.p99 = lw.quantile_us(0.99);
        r.p999 = lw.quantile_us(0.999);
        r.max = lw.max_us();
        r.lifetime_max_us = b.page.lateness_max_s * 1e6;
        for (const auto &[id, n] : b.page.late_ticks)
            if (const auto it = a.page.late_ticks.find(id); it != a.page.late_ticks.end())
                r.late_ticks += n - it->second;
        for (const char *p : part_names) {
            const auto ia = a.page.parts.find(p), ib = b.page.parts.find(p);
            if (ia != a.page.parts.end() && ib != b.page.parts.end() && frames > 0)
                r.part_us[p] = (ib->second - ia->second) / frames * 1e6;
        }
        const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
        if (frames > 0)
            r.cpu_us_per_frame = static_cast<double>(b.server.cpu_ticks - a.server.cpu_ticks) / tick / frames * 1e6 *
                                 (dt / (static_cast<double>(b.server.at_ms - a.server.at_ms) / 1000.0));
        std::uint64_t in = 0, out = 0;
        for (const auto &[id, n] : b.page.bytes_in)
            if (const auto it = a.page.bytes_in.find(id); it != a.page.bytes_in.end()) in += n - it->second;
        for (const auto &[id, n] : b.page.bytes_out)
            if (const auto it = a.page.bytes_out.find(id); it != a.page.bytes_out.end()) out += n - it->second;
        r.players = b.page.players;
        if (r.players > 0 && dt > 0) {
            r.in_per_client = static_cast<double>(in) / dt / r.players;
            r.out_per_client = static_cast<double>(out) / dt / r.players;
        }
        r.rss_mib = load::mib(b.server.rss_kib);
        r.rss_per_match_mib = (r.rss_mib - r.rss0_mib) / m;
        r.replaced_per_s = dt > 0 ? static_cast<double>(b.page.replaced_inputs - a.page.replaced_inputs) / dt : 0;
        r.udp_drops = b.udp_drops - a.udp_drops;
        r.is_void = r.generator_cpu > s_.max_generator;
    }

    void teardown(run_result &r) {
        // The thin clients vanish (no goodbye); then Ctrl-C ends every match at once: the full
        // clients get match_ended and print their summaries.
        if (fleet_) fleet_->close();
        fleet_.reset();
        if (!server_) return;
        server_->signal(SIGINT);
        const bool clients_done = pump_while_not(
            [&] {
                for (auto &c : full_)
                    if (!c->proc.exited()) return false;
                return server_->exited();
            },
            20000);
        read_children();
        if (!clients_done) {
            for (auto &c : full_) c->proc.signal(SIGKILL);
            server_->signal(SIGKILL);
            if (r.ok) {
                r.ok = false;
                r.failure = "the server or a full client did not exit within 20 s of Ctrl-C";
            }
        }
        for (auto &c : full_) {
            if (!c->desyncs) {
                if (r.ok) {
                    r.ok = false;
                    r.failure = c->name + " printed no summary";
                }
                for (const auto &l : c->tail) std::fprintf(stderr, "  %s: %s\n", c->name.c_str(), l.c_str());
            } else {
                r.full_desyncs += *c->desyncs;
                if (c->end != "the server ended the match" && r.ok) {
                    r.ok = false;
                    r.failure = c->name + " ended: " + c->end;
                }
            }
        }
        if (r.ok && r.full_desyncs != 0) {
            r.ok = false;
            r.failure = "the full clients reported " + std::to_string(r.full_desyncs) + " desyncs";
        }
        r.server_desyncs = server_desyncs_;
        if (r.ok && server_desyncs_ != 0) {
            r.ok = false;
            r.failure = "the server reported " + std::to_string(server_desyncs_) + " verified desyncs";
        }
        if (const int st = server_->status(); clients_done && st != 0 && r.ok) {
            r.ok = false;
            r.failure = std::string{"demo_server ended with "} + (WIFSIGNALED(st) ? "signal " : "status ") +
                        std::to_string(WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        }
        if (!r.ok)
            for (const auto &l : server_notes_) std::fprintf(stderr, "  server: %s\n", l.c_str());
        full_.clear();
        server_.reset();
        std::error_code ec;
        if (!replay_dir_.empty()) std::filesystem::remove_all(replay_dir_, ec);
        replay_dir_.clear();
        if (log_.is_open()) log_.close();
    }

public:
    int cpu_server = 0, cpu_generator = 1;

private:
    const settings &s_;
    load::demo_build build_;
    std::unique_ptr<load::child_process> server_;
    std::vector<std::unique_ptr<full_client>> full_;
    std::unique_ptr<thin_fleet> fleet_;
    std::uint16_t port_ = 0, metrics_port_ = 0;
    std::uint64_t full_in_open1_ = 0, server_desyncs_ = 0;
    std::vector<std::string> server_notes_;
    std::uint64_t next_read_us_ = 0;
    std::string replay_dir_;
    std::ofstream log_;
};

// ------------------------------------------------------------------------------ the report

std::string fmt(const char *f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string lat(double us) {
    if (std::isinf(us)) return "≥ 10 ms";
    if (us >= 1000) return fmt("%.2f ms", us / 1000);
    return fmt("%.0f µs", us);
}

void print_table(const std::vector<run_result> &runs) {
    std::printf("\n| M | players | server CPU | generator CPU | lateness p50 / p99 / p99.9 / max | µs per match frame: "
                "simulate / "
                "hash_record / broadcast / receive / network (server CPU) [encoder thread] | bytes per client per s in "
                "/ out | RSS (per "
                "match) |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const auto &r : runs) {
        if (r.window_s <= 0) {
            std::printf("| %u FAILED: %s | – | – | – | – | – | – | – |\n", r.matches, r.failure.c_str());
            continue;
        }
        const auto part = [&](const char *p) {
            const auto it = r.part_us.find(p);
            return it == r.part_us.end() ? 0.0 : it->second;
        };
        std::printf("| %u%s | %u | %.1f%% | %.0f%%%s | %s / %s / %s / %s | %.1f / %.1f / %.1f / %.1f / %.1f (%.1f) "
                    "[%.1f] | "
                    "%.0f / %.0f | "
                    "%.1f MiB (%.2f) |\n",
                    r.matches, r.ok ? "" : " FAILED", r.players, r.server_cpu, r.generator_cpu,
                    r.is_void ? " VOID" : "", lat(r.p50).c_str(), lat(r.p99).c_str(), lat(r.p999).c_str(),
                    lat(r.max).c_str(), part("simulate"), part("hash_record"), part("broadcast"), part("receive"),
                    part("network"), r.cpu_us_per_frame, part("encoder"), r.in_per_client, r.out_per_client, r.rss_mib,
                    r.rss_per_match_mib);
    }
    std::printf("\n| M | window | match frames/s | ticks ≥ 2 ms late | replaced inputs/s | UDP receive-buffer drops | "
                "CPU 0 / CPU 1 "
                "busy (/proc/stat) | steal | this tool's CPU | thin clients (ENet hosts), ramp | RSS at start | "
                "largest lateness since start |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto &r : runs) {
        if (r.window_s <= 0) continue;
        std::printf("| %u | %.1f s | %.0f | %llu of %llu | %.1f | %llu | %.0f%% / %.0f%% | %.1f%% | %.0f%% | %zu "
                    "(%zu), %.1f s | %.1f MiB | %s |\n",
                    r.matches, r.window_s, r.frames_per_s, static_cast<unsigned long long>(r.late_ticks),
                    static_cast<unsigned long long>(r.ticks), r.replaced_per_s,
                    static_cast<unsigned long long>(r.udp_drops), r.cpu0_busy, r.cpu1_busy, r.steal, r.tool_cpu,
                    r.thin_clients, r.thin_hosts, r.ramp_s, r.rss0_mib, lat(r.lifetime_max_us).c_str());
    }
}

/// Least squares of server CPU (% of a core) against match frames per second.
void print_fit(const std::vector<run_result> &runs, double max_p99_ms) {
    std::vector<const run_result *> pts;
    for (const auto &r : runs)
        if (r.ok && !r.is_void && r.window_s > 0) pts.push_back(&r);
    if (pts.size() < 2) {
        std::printf("\nfit: fewer than two usable runs\n");
        return;
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto *r : pts) {
        sx += r->frames_per_s;
        sy += r->server_cpu;
        sxx += r->frames_per_s * r->frames_per_s;
        sxy += r->frames_per_s * r->server_cpu;
    }
    const double n = static_cast<double>(pts.size());
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx); // % of a core per (frame/s)
    const double intercept = (sy - slope * sx) / n;
    double ss_res = 0, ss_tot = 0;
    for (const auto *r : pts) {
        const double e = r->server_cpu - (intercept + slope * r->frames_per_s);
        ss_res += e * e;
        ss_tot += (r->server_cpu - sy / n) * (r->server_cpu - sy / n);
    }
    const double per_frame_us = slope / 100.0 * 1e6;
    std::printf("\nfit over %zu runs: server CPU = %.2f%% + %.2f µs × match frames/s (R² = %.4f)\n", pts.size(),
                intercept, per_frame_us, ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0);
    const double hz = 60.0;
    std::printf("  one core (100%%) at %.0f match frames/s = %.0f matches at %.0f Hz (CPU alone, no lateness bound)\n",
                (100.0 - intercept) / slope, (100.0 - intercept) / slope / hz, hz);
    const run_result *best = nullptr;
    for (const auto *r : pts)
        if (r->p99 <= max_p99_ms * 1000.0 && (!best || r->matches > best->matches)) best = r;
    if (best)
        std::printf("  largest measured M with p99 lateness < %.1f ms: %u matches (p99 < %s, server CPU %.1f%%)\n",
                    max_p99_ms, best->matches, lat(best->p99).c_str(), best->server_cpu);
    else
        std::printf("  no measured M had p99 lateness < %.1f ms\n", max_p99_ms);
}

std::string beside_self(const std::string &relative) {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return relative;
    return (self.parent_path() / relative).lexically_normal().string();
}

} // namespace

int main(int argc, char **argv) {
    settings s;
    std::string list;
    CLI::App app{"retcon_host_load: measured capacity of the match host (docs/benchmarks.md, \"Match host capacity\")"};
    app.add_option("--server", s.server,
                   "demo_server executable (default: ../demo_server/demo_server beside this tool)");
    app.add_option("--client", s.client,
                   "demo_client executable (default: ../demo_client/demo_client beside this tool)");
    app.add_option("--matches", list, "comma-separated match counts to sweep (default 1,10,40,100,200,300,400,...)");
    app.add_option("--warmup", s.warmup_s, "seconds of play before each window")
        ->check(CLI::Range(0.0, 120.0))
        ->capture_default_str();
    app.add_option("--seconds", s.seconds, "length of each measured window")
        ->check(CLI::Range(1.0, 600.0))
        ->capture_default_str();
    app.add_flag("--quick", s.quick,
                 "M = 1, 10 for 3 s each: checks that the clients play and the full clients have 0 desyncs");
    app.add_flag("--no-stop", s.no_stop, "run every M, even past the p99 bound or a void run");
    app.add_option("--max-p99-ms", s.max_p99_ms, "a run whose p99 lateness is not below this ends the sweep")
        ->capture_default_str();
    app.add_option("--max-generator", s.max_generator, "generator CPU % above which a run is void")
        ->capture_default_str();
    app.add_option("--peers-per-host", s.peers_per_host, "thin clients per ENet client host")
        ->check(CLI::Range(std::size_t{1}, std::size_t{4095}))
        ->capture_default_str();
    app.add_option("--connect-rate", s.connect_rate, "thin clients started per second")
        ->check(CLI::Range(1u, 100000u))
        ->capture_default_str();
    app.add_option("--log-dir", s.log_dir, "write each run's server and full-client output here");
    CLI11_PARSE(app, argc, argv);
    if (s.server.empty()) s.server = beside_self("../demo_server/demo_server");
    if (s.client.empty()) s.client = beside_self("../demo_client/demo_client");
    if (s.quick) {
        s.matches = {1, 10};
        s.warmup_s = 1;
        s.seconds = 3;
    }
    if (!list.empty()) {
        s.matches.clear();
        std::istringstream in{list};
        for (std::string item; std::getline(in, item, ',');) {
            const unsigned long v = std::strtoul(item.c_str(), nullptr, 10);
            if (v < 1 || v > 1000) {
                std::fprintf(stderr, "retcon_host_load: --matches: '%s' is not 1..1000\n", item.c_str());
                return 2;
            }
            s.matches.push_back(static_cast<std::uint32_t>(v));
        }
    }
    for (const auto *p : {&s.server, &s.client})
        if (::access(p->c_str(), X_OK) != 0) {
            std::fprintf(stderr, "retcon_host_load: %s is not an executable (--server, --client)\n", p->c_str());
            return 2;
        }
    std::signal(SIGPIPE, SIG_IGN);
    if (enet_initialize() != 0) {
        std::fprintf(stderr, "retcon_host_load: enet_initialize failed\n");
        return 2;
    }

    runner run{s, load::demo_hello()};
    const bool two = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    if (two && !load::pin_self(1)) std::fprintf(stderr, "retcon_host_load: cannot pin itself to CPU 1\n");
    if (!two) {
        std::fprintf(stderr, "retcon_host_load: fewer than 2 CPUs: server and generator are not pinned\n");
        run.cpu_server = run.cpu_generator = -1;
    }
    std::printf(
        "retcon_host_load: demo_server %s, 4 players per match, 60 Hz; warm-up %.0f s, window %.0f s; server on CPU 0, "
        "generator on CPU 1\n",
        s.server.c_str(), s.warmup_s, s.seconds);
    std::vector<run_result> runs;
    bool failed = false;
    for (const std::uint32_t m : s.matches) {
        std::fflush(stdout);
        auto r = run.run(m);
        std::printf("M=%u: %s", m, r.ok ? "ok" : ("FAILED: " + r.failure).c_str());
        if (r.window_s > 0)
            std::printf("; server %.1f%%, generator %.0f%%%s, p99 %s, %.0f frames/s, full clients %llu desyncs",
                        r.server_cpu, r.generator_cpu, r.is_void ? " (VOID)" : "", lat(r.p99).c_str(), r.frames_per_s,
                        static_cast<unsigned long long>(r.full_desyncs));
        if (r.thin.rejects || r.thin.gave_up || !r.ok)
            std::printf(
                "; thin clients: %llu connections, %llu welcomed, %llu loaded, %llu refused, %llu gave up, %llu "
                "disconnected",
                static_cast<unsigned long long>(r.thin.connects), static_cast<unsigned long long>(r.thin.welcomes),
                static_cast<unsigned long long>(r.thin.loaded), static_cast<unsigned long long>(r.thin.rejects),
                static_cast<unsigned long long>(r.thin.gave_up), static_cast<unsigned long long>(r.thin.disconnects));
        std::printf("\n");
        for (const auto &[text, n] : r.thin.reject_texts)
            std::printf("  refused %llu times: %s\n", static_cast<unsigned long long>(n), text.c_str());
        failed = failed || !r.ok;
        runs.push_back(std::move(r));
        const auto &last = runs.back();
        if (s.quick || s.no_stop) continue;
        if (!last.ok) break;
        if (last.is_void) {
            std::printf("stopping: the generator used %.0f%% of its core (> %.0f%%): the run is void\n",
                        last.generator_cpu, s.max_generator);
            break;
        }
        if (last.p99 > s.max_p99_ms * 1000.0) {
            std::printf("stopping: p99 lateness %s is past the %.1f ms bound\n", lat(last.p99).c_str(), s.max_p99_ms);
            break;
        }
    }
    print_table(runs);
    if (!s.quick) print_fit(runs, s.max_p99_ms);
    enet_deinitialize();
    if (failed) std::printf("\nFAILED: see the runs above\n");
    return failed ? 1 : 0;
}
