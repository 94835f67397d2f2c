// The only translation unit that includes ENet.
#include <retcon/net/enet_transport.hpp>

#include <enet/enet.h>
#include <enet/time.h> // ENET_TIME_LESS: ENet's wrap-safe comparison of its clock

#include "connect_cookie.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#ifndef _WIN32
#    include <poll.h>
#    include <time.h>
#endif

namespace retcon {

namespace {

// A pending connection younger than this is never culled for exceeding max_pending (only to
// restore free_slot_reserve): over 250 ms is more than a round trip on any link a match is played
// on (docs/net.md, "Security model").
constexpr std::uint64_t pending_grace_ms = 250;

// A connection the session closed is reset if it is still not closed this long after: its remote
// had a round trip or more to acknowledge, and ENet alone would hold the slot for 1-5 s.
constexpr std::uint64_t close_timeout_ms = 1000;

// ENet doubles a reliable command's retransmission timeout at every loss, without bound, and ends a
// connection once one command has gone unacknowledged too long. Its only reliable traffic in play
// is its own ping, so at 15% loss each way (a try fails 28% of the time: the datagram or its
// acknowledgement) one ping in ~2,000 failed six times running, 32 round trips apart by then, and
// ENet ended a connection whose inputs still arrived 60 times a second. Retried at least this
// often (or once a retransmission timeout, if longer), a command gets ~12 tries within
// timeout_max_ms instead of 6 (docs/net.md, "Loss and latency").
constexpr enet_uint32 retransmit_cap_ms = 500;

// ENet's other rule, a command retried until its timeout is this many times its first one,
// would end a low-latency connection after timeout_min_ms: out of reach, timeout_max_ms decides.
constexpr enet_uint32 retry_limit = 1u << 16;

// Lowers every retransmission timeout of @p peer above the cap to it, and ENet's next check of
// them with it. A command ENet has already requeued keeps its timeout until it is sent again.
void cap_retransmissions(ENetPeer &peer) {
    const enet_uint32 cap = std::max(retransmit_cap_ms, peer.roundTripTime + 4 * peer.roundTripTimeVariance);
    for (ENetListIterator it = enet_list_begin(&peer.sentReliableCommands);
         it != enet_list_end(&peer.sentReliableCommands); it = enet_list_next(it)) {
        auto *command = reinterpret_cast<ENetOutgoingCommand *>(it); // the list node is its first member
        if (command->roundTripTimeout <= cap) continue;
        command->roundTripTimeout = cap;
        const enet_uint32 due = command->sentTime + cap;
        if (ENET_TIME_LESS(due, peer.nextTimeout)) peer.nextTimeout = due;
    }
}

// enet_initialize/deinitialize are process-global; count the users.
std::mutex init_mutex;
int init_count = 0;

bool acquire_enet() {
    std::lock_guard lock{init_mutex};
    if (init_count == 0 && enet_initialize() != 0) return false;
    ++init_count;
    return true;
}

void release_enet() {
    std::lock_guard lock{init_mutex};
    if (--init_count == 0) enet_deinitialize();
}

// "HOST:PORT"; empty if ENet cannot format the host.
std::string address_text(const ENetAddress &address) {
    std::array<char, 64> ip{};
    if (enet_address_get_host_ip(&address, ip.data(), ip.size()) != 0) return {};
    return std::string(ip.data()) + ":" + std::to_string(address.port);
}

class enet_transport;

// ENet's intercept hook gets the host but no user pointer: poll() names the transport whose host
// it is servicing (enet_host_service is the only call that receives).
thread_local enet_transport *servicing = nullptr;

int ENET_CALLBACK intercept(ENetHost *host, ENetEvent *event);

struct servicing_scope {
    explicit servicing_scope(enet_transport *t) { servicing = t; }
    ~servicing_scope() { servicing = nullptr; }
    servicing_scope(const servicing_scope &) = delete;
    servicing_scope &operator=(const servicing_scope &) = delete;
};

class enet_transport final : public transport {
public:
    enet_transport(ENetHost *host, bool is_server, const enet_options &options, ENetPeer *pending = nullptr,
                   std::string remote = {})
        : host_{host}, server_{is_server}, options_{options}, pending_{pending}, remote_{std::move(remote)},
          slots_(is_server ? host->peerCount : 0) {
        host_->intercept = &intercept;
        if (pending_) server_address_ = pending_->address;
    }

    ~enet_transport() override {
        if (!server_) linger();
        for (auto &[id, peer] : peers_) enet_peer_disconnect_now(peer, 0);
        enet_host_flush(host_);
        enet_host_destroy(host_);
        release_enet();
    }

    // A client that asked to disconnect (a player leaving with a goodbye) waits, before its host
    // goes, until the server has acknowledged what it sent and the disconnect completes — at most
    // a few round trips, never over close_timeout_ms. ENet's receiver discards what it has queued
    // from a peer when that peer's disconnect arrives: without the wait, a goodbye sent just
    // before the transport is destroyed was often lost (docs/net.md, "Transports", Leaving).
    void linger() {
        const auto it = peers_.find(0);
        if (it == peers_.end()) return;
        const ENetPeer *peer = it->second;
        if (peer->state != ENET_PEER_STATE_DISCONNECT_LATER && peer->state != ENET_PEER_STATE_DISCONNECTING) return;
        using clock = std::chrono::steady_clock;
        const auto bound = std::chrono::milliseconds(
            std::min<std::uint64_t>(close_timeout_ms, 4u * std::uint64_t{peer->roundTripTime} + 100u));
        const auto start = clock::now();
        const servicing_scope scope{this};
        ENetEvent ev;
        while (clock::now() - start < bound) {
            const int n = enet_host_service(host_, &ev, 5);
            if (n < 0) return;
            if (n == 0) continue;
            if (ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
            if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
                peers_.erase(0); // gone for good: nothing left to disconnect now
                return;
            }
        }
    }

    // The pending server peer is not configured here: ENet drops a connection whose peer gets
    // a throttle command while it is still connecting. It is configured on its CONNECT event.

    void send(peer_id id, wire::channel ch, std::span<const std::byte> data) override {
        const auto it = peers_.find(id);
        if (it == peers_.end()) return;
        const enet_uint32 flags =
            ch == wire::channel::inputs ? 0u : static_cast<enet_uint32>(ENET_PACKET_FLAG_RELIABLE);
        ENetPacket *packet = enet_packet_create(data.data(), data.size(), flags);
        if (packet && enet_peer_send(it->second, static_cast<enet_uint8>(ch), packet) != 0) enet_packet_destroy(packet);
    }

    void disconnect(peer_id id) override {
        if (!server_ && id == 0 && pending_) { // still connecting: abandon the attempt quietly
            enet_peer_reset(pending_);
            pending_ = nullptr;
            return;
        }
        const auto it = peers_.find(id);
        if (it == peers_.end()) return;
        // Later, not now: a reject or goodbye queued just before usually still gets delivered.
        enet_peer_disconnect_later(it->second, 0);
        if (server_) {
            slot &s = slots_[index_of(it->second)];
            if (!s.closing) {
                s.closing = true;
                s.closing_since_ms = now_ms_;
            }
        }
    }

    // Client: the old connection is reset (told to the server once, unreliably) and a new CONNECT
    // goes to the same address; the host's only peer slot is free again after the reset.
    bool reconnect() override {
        if (server_) return false;
        if (pending_) enet_peer_reset(pending_);
        pending_ = nullptr;
        cookie_ = 0;
        if (const auto it = peers_.find(0); it != peers_.end()) {
            it->second->data = nullptr; // no event for it any more
            enet_peer_disconnect_now(it->second, 0);
            peers_.erase(it);
        }
        pending_ = enet_host_connect(host_, &server_address_, wire::channel_count, 0);
        enet_host_flush(host_);
        return pending_ != nullptr;
    }

    void admit(peer_id id) override {
        if (!server_) return;
        const auto it = peers_.find(id);
        if (it != peers_.end()) slots_[index_of(it->second)].admitted = true;
    }

    void poll(std::uint64_t now_ms, transport_handler &h) override {
        now_ms_ = now_ms;
        ENetEvent ev;
        const servicing_scope scope{this};
        for (std::size_t i = 0; i < host_->peerCount; ++i)
            if (host_->peers[i].state != ENET_PEER_STATE_DISCONNECTED) cap_retransmissions(host_->peers[i]);
        while (enet_host_service(host_, &ev, 0) > 0) {
            switch (ev.type) {
            case ENET_EVENT_TYPE_CONNECT: {
                if (server_) {
                    const std::size_t i = index_of(ev.peer);
                    if (!sighted(i)) sight(i, now_ms);
                    slots_[i].connected = true;
                }
                const peer_id id = server_ ? next_id_++ : 0;
                if (!server_) pending_ = nullptr;
                configure(ev.peer);
                ev.peer->data = reinterpret_cast<void *>(static_cast<std::uintptr_t>(id) + 1u);
                peers_[id] = ev.peer;
                h.on_connect(id);
                break;
            }
            case ENET_EVENT_TYPE_DISCONNECT: {
                if (server_) slots_[index_of(ev.peer)].live = false;
                if (ev.peer->data) {
                    const auto id = static_cast<peer_id>(reinterpret_cast<std::uintptr_t>(ev.peer->data) - 1u);
                    peers_.erase(id);
                    ev.peer->data = nullptr;
                    h.on_disconnect(id);
                } else if (!server_ && pending_) {
                    pending_ = nullptr;
                    h.on_disconnect(0); // the connection attempt failed
                }
                break;
            }
            case ENET_EVENT_TYPE_RECEIVE: {
                if (ev.peer->data && ev.channelID < wire::channel_count) {
                    const auto id = static_cast<peer_id>(reinterpret_cast<std::uintptr_t>(ev.peer->data) - 1u);
                    h.on_receive(id, static_cast<wire::channel>(ev.channelID),
                                 {reinterpret_cast<const std::byte *>(ev.packet->data), ev.packet->dataLength});
                }
                enet_packet_destroy(ev.packet);
                break;
            }
            case ENET_EVENT_TYPE_NONE: break;
            }
        }
        if (server_ && !violators_.empty()) expel(h);
        if (server_) police(now_ms, h);
        if (!server_ && cookie_ != 0) connect_with_cookie(h);
        enet_host_flush(host_);
    }

    // Called by ENet for every datagram received, before ENet parses it: 1 consumes it, 0 hands it
    // to ENet.
    int screen() { return server_ ? screen_connect() : take_cookie(); }

    void flush() override { enet_host_flush(host_); }

    // ppoll(2), not enet_socket_wait: ENet's wait counts whole milliseconds, too coarse for a
    // loop that sleeps until the next tick's deadline.
    bool wait(std::chrono::microseconds timeout) override {
        const long long us = std::max<long long>(timeout.count(), 0);
#ifndef _WIN32
        pollfd fd{};
        fd.fd = host_->socket;
        fd.events = POLLIN;
        timespec ts{};
        ts.tv_sec = static_cast<time_t>(us / 1000000);
        ts.tv_nsec = static_cast<long>((us % 1000000) * 1000);
        const int n = ppoll(&fd, 1, &ts, nullptr);
        if (n > 0) return true;
        if (n == 0) return false;
        if (errno == EINTR) return true;
        // Any other failure would return at once every time: sleep instead of spinning.
        std::this_thread::sleep_for(std::chrono::microseconds{us});
        return false;
#else
        enet_uint32 condition = ENET_SOCKET_WAIT_RECEIVE | ENET_SOCKET_WAIT_INTERRUPT;
        const auto ms = static_cast<enet_uint32>((us + 999) / 1000);
        if (enet_socket_wait(host_->socket, &condition, ms) != 0) return false;
        return condition != ENET_SOCKET_WAIT_NONE;
#endif
    }

    transport_counters counters() const override { return counters_; }

    transport_peer_stats peer_stats(peer_id id) const override {
        const auto it = peers_.find(id);
        if (it == peers_.end()) return {};
        const ENetPeer *p = it->second;
        return {p->roundTripTime, p->roundTripTimeVariance,
                static_cast<double>(p->packetLoss) / static_cast<double>(ENET_PEER_PACKET_LOSS_SCALE)};
    }

    std::string peer_address(peer_id id) const override {
        if (!server_) return id == 0 ? remote_ : std::string{};
        const auto it = peers_.find(id);
        return it == peers_.end() ? std::string{} : address_text(it->second->address);
    }

    std::uint16_t local_port() const override {
        ENetAddress bound{};
        if (enet_socket_get_address(host_->socket, &bound) != 0) return host_->address.port;
        return bound.port;
    }

private:
    // Server: what the transport knows about the occupant of one ENet peer slot. The occupant is
    // identified by slot index + connectID, so a reused slot is a new sighting.
    struct slot {
        std::uint32_t connect_id = 0;
        std::uint64_t first_seen_ms = 0;    // poll time of the first sighting
        std::uint64_t order = 0;            // sighting order, breaks ties between equal times
        std::uint64_t closing_since_ms = 0; // poll time of the session's disconnect()
        bool live = false;                  // sighted and not yet reset or disconnected
        bool connected = false;             // its CONNECT event was delivered (it has a peer_id)
        bool admitted = false;              // the session called admit(): never dropped
        bool closing = false;               // the session called disconnect(): it forgot the peer
        std::uint32_t oversized = 0;        // size of a packet too large it sent (0: none)
    };

    // Server: a datagram for peer ID 0xFFF is processed by ENet only if its first command is a
    // CONNECT (ENet stops at any other), and a CONNECT is the only way to get a peer slot. It
    // goes on to ENet only if its data word is a valid cookie for its source address; anything
    // else for peer 0xFFF is consumed, a well-formed CONNECT answered with a cookie datagram
    // (docs/net.md, "Transports"). Datagrams for other peer IDs are ENet's.
    int screen_connect() {
        const std::size_t size = host_->receivedDataLength;
        const enet_uint8 *data = host_->receivedData;
        if (size < 2) return 0; // ENet ignores it
        const auto word = static_cast<std::uint16_t>((data[0] << 8) | data[1]);
        const auto flags =
            static_cast<std::uint16_t>(ENET_PROTOCOL_HEADER_FLAG_MASK | ENET_PROTOCOL_HEADER_SESSION_MASK);
        if ((word & ~flags) != ENET_PROTOCOL_MAXIMUM_PEER_ID) return screen_peer(word);
        if ((word & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED) != 0) return 1; // no compressor here: ENet drops it too
        const std::size_t at = (word & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) != 0 ? 4 : 2;
        ENetProtocolConnect connect{};
        if (size < at + sizeof connect) return 1;
        std::memcpy(&connect, data + at, sizeof connect);
        if ((connect.header.command & ENET_PROTOCOL_COMMAND_MASK) != ENET_PROTOCOL_COMMAND_CONNECT) return 1;
        const ENetAddress &from = host_->receivedAddress;
        if (cookies_.valid(ENET_NET_TO_HOST_32(connect.data), from.host, from.port, now_ms_)) return 0;
        ++counters_.connects_challenged;
        const auto reply =
            internal::encode_cookie_reply(connect.connectID, cookies_.mint(from.host, from.port, now_ms_));
        ENetBuffer buffer{};
        buffer.data = const_cast<std::byte *>(reply.data()); // ENet's buffer type is not const
        buffer.dataLength = reply.size();
        enet_socket_send(host_->socket, &from, &buffer, 1); // lost: the client's CONNECT retransmission asks again
        return 1;
    }

    // Server: a datagram for a connected peer is walked command by command as ENet would (protocol.h
    // layout). A fragment announcing a packet larger than host->maximumPacketSize makes ENet discard
    // the whole datagram without a word, so the sender retransmits until it times out: instead the
    // peer is marked for poll() to end and report (docs/net.md, "Security model") and the datagram
    // consumed. Anything ENet would not accept from this peer, or cannot be parsed, is left to ENet.
    int screen_peer(std::uint16_t word) {
        const std::size_t size = host_->receivedDataLength;
        const enet_uint8 *data = host_->receivedData;
        // The low 12 bits, as for peer 0xFFF above.
        const auto i = static_cast<std::size_t>(word & ENET_PROTOCOL_MAXIMUM_PEER_ID);
        if (i >= host_->peerCount || host_->checksum != nullptr) return 0;
        if ((word & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED) != 0) return 0; // no compressor here: ENet drops it
        ENetPeer &peer = host_->peers[i];
        const ENetAddress &from = host_->receivedAddress;
        const auto session =
            static_cast<enet_uint8>((word & ENET_PROTOCOL_HEADER_SESSION_MASK) >> ENET_PROTOCOL_HEADER_SESSION_SHIFT);
        // Only states in which ENet takes packets from a peer (enet_protocol_handle_send_fragment).
        if ((peer.state != ENET_PEER_STATE_CONNECTED && peer.state != ENET_PEER_STATE_DISCONNECT_LATER) ||
            from.host != peer.address.host || from.port != peer.address.port || session != peer.incomingSessionID)
            return 0;
        std::size_t at = (word & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) != 0 ? 4 : 2;
        while (at + sizeof(ENetProtocolCommandHeader) <= size) {
            const auto number = static_cast<enet_uint8>(data[at] & ENET_PROTOCOL_COMMAND_MASK);
            if (number >= ENET_PROTOCOL_COMMAND_COUNT) return 0;
            const std::size_t command_size = enet_protocol_command_size(number);
            if (command_size == 0 || command_size > sizeof(ENetProtocol) || at + command_size > size) return 0;
            ENetProtocol command{};
            std::memcpy(&command, data + at, command_size);
            at += command_size;
            std::size_t payload = 0;
            switch (number) {
            case ENET_PROTOCOL_COMMAND_SEND_RELIABLE:
                payload = ENET_NET_TO_HOST_16(command.sendReliable.dataLength);
                break;
            case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE:
                payload = ENET_NET_TO_HOST_16(command.sendUnreliable.dataLength);
                break;
            case ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED:
                payload = ENET_NET_TO_HOST_16(command.sendUnsequenced.dataLength);
                break;
            case ENET_PROTOCOL_COMMAND_SEND_FRAGMENT:
            case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT: {
                payload = ENET_NET_TO_HOST_16(command.sendFragment.dataLength);
                const std::uint32_t total = ENET_NET_TO_HOST_32(command.sendFragment.totalLength);
                if (command.header.channelID < peer.channelCount && total > host_->maximumPacketSize) {
                    oversized(i, total);
                    return 1;
                }
                break;
            }
            default: break;
            }
            if (payload > size - at) return 0;
            at += payload;
        }
        return 0;
    }

    // Marks slot @p i's occupant as having sent a packet of @p bytes; counted once per connection.
    void oversized(std::size_t i, std::uint32_t bytes) {
        if (!sighted(i)) sight(i, now_ms_);
        slot &s = slots_[i];
        if (s.oversized != 0) return;
        s.oversized = bytes;
        ++counters_.oversized_packets;
        violators_.push_back(i);
    }

    // Server, after servicing: ends the connections screen_peer() marked, reporting why first.
    void expel(transport_handler &h) {
        for (const std::size_t i : violators_) {
            if (!sighted(i) || slots_[i].oversized == 0) continue; // already gone
            ENetPeer *peer = &host_->peers[i];
            slot &s = slots_[i];
            s.live = false;
            const bool report = !s.closing; // one the session closed is no longer its concern
            const std::string text = "sent a packet of " + std::to_string(s.oversized) + " bytes; the limit is " +
                                     std::to_string(host_->maximumPacketSize);
            const std::optional<peer_id> id = forget(peer); // before the report: disconnect() then does nothing
            if (!id) {
                const std::string address = address_text(peer->address);
                enet_peer_reset(peer);
                h.on_refused(address, text);
                continue;
            }
            if (report) h.on_violation(*id, text);
            enet_peer_disconnect_now(peer, 0);
            if (report) h.on_disconnect(*id);
        }
        violators_.clear();
    }

    // Client: a cookie datagram from the server answering the pending CONNECT is kept for poll()
    // to connect again with (not here: ENet is in the middle of receiving).
    int take_cookie() {
        if (!pending_ || pending_->state != ENET_PEER_STATE_CONNECTING) return 0;
        const ENetAddress &from = host_->receivedAddress;
        if (from.host != pending_->address.host || from.port != pending_->address.port) return 0;
        const auto cookie = internal::decode_cookie_reply(
            {reinterpret_cast<const std::byte *>(host_->receivedData), host_->receivedDataLength}, pending_->connectID);
        if (!cookie) return 0;
        cookie_ = *cookie;
        return 1;
    }

    // Client: abandons the CONNECT the server answered with a cookie and sends a new one carrying it.
    void connect_with_cookie(transport_handler &h) {
        const std::uint32_t cookie = cookie_;
        cookie_ = 0;
        if (!pending_) return; // abandoned meanwhile
        const ENetAddress address = pending_->address;
        enet_peer_reset(pending_);
        pending_ = enet_host_connect(host_, &address, wire::channel_count, cookie);
        if (!pending_) h.on_disconnect(0); // cannot happen: the reset freed the only slot
    }

    std::size_t index_of(const ENetPeer *peer) const { return static_cast<std::size_t>(peer - host_->peers); }

    bool sighted(std::size_t i) const { return slots_[i].live && slots_[i].connect_id == host_->peers[i].connectID; }

    void sight(std::size_t i, std::uint64_t now_ms) {
        slots_[i] = slot{};
        slots_[i].connect_id = host_->peers[i].connectID;
        slots_[i].first_seen_ms = now_ms;
        slots_[i].order = next_order_++;
        slots_[i].live = true;
    }

    // The peer_id of a peer that reached on_connect (and is still in peers_), forgotten here.
    std::optional<peer_id> forget(ENetPeer *peer) {
        if (!peer->data) return std::nullopt;
        const auto id = static_cast<peer_id>(reinterpret_cast<std::uintptr_t>(peer->data) - 1u);
        peers_.erase(id);
        peer->data = nullptr;
        return id;
    }

    // Frees the slot of a connection the transport gives up on. One that never reached
    // on_connect is reset without a word (its remote may be spoofed) and reported through
    // on_refused; one the session knows is told (its address answered the handshake) and
    // reported through on_disconnect; one the session already closed is reset, unreported.
    void drop(std::size_t i, const std::string &reason, transport_handler &h) {
        ENetPeer *peer = &host_->peers[i];
        slot &s = slots_[i];
        s.live = false;
        const std::optional<peer_id> id = forget(peer);
        if (!s.closing) ++counters_.pending_dropped;
        if (!id) {
            const std::string address = address_text(peer->address);
            enet_peer_reset(peer);
            h.on_refused(address, reason);
        } else if (s.closing) {
            enet_peer_reset(peer);
        } else {
            enet_peer_disconnect_now(peer, 0);
            h.on_disconnect(*id);
        }
    }

    // Server, after servicing: sights new occupants; resets connections the session closed that
    // are still open after close_timeout_ms; resets connections whose ENet handshake is overdue;
    // then drops pending (not admitted) connections, oldest first: those beyond max_pending among
    // the ones older than pending_grace_ms, then any while fewer than free_slot_reserve slots are
    // free. Time is the poll's.
    void police(std::uint64_t now_ms, transport_handler &h) {
        std::size_t busy = 0;
        for (std::size_t i = 0; i < host_->peerCount; ++i) {
            if (host_->peers[i].state == ENET_PEER_STATE_DISCONNECTED) {
                slots_[i].live = false;
                continue;
            }
            ++busy;
            if (!sighted(i)) sight(i, now_ms);
        }
        const auto age = [now_ms](std::uint64_t since) { return now_ms > since ? now_ms - since : 0; };
        pending_scratch_.clear();
        for (std::size_t i = 0; i < host_->peerCount; ++i) {
            const slot &s = slots_[i];
            if (!s.live) continue;
            if (s.closing && age(s.closing_since_ms) >= close_timeout_ms) {
                drop(i, "not closed within " + std::to_string(close_timeout_ms) + " ms", h);
                --busy;
                continue;
            }
            if (s.admitted) continue;
            if (!s.connected && options_.handshake_timeout_ms != 0 &&
                age(s.first_seen_ms) >= options_.handshake_timeout_ms) {
                drop(i, "ENet handshake not completed within " + std::to_string(options_.handshake_timeout_ms) + " ms",
                     h);
                --busy;
                continue;
            }
            pending_scratch_.push_back(i);
        }
        std::sort(pending_scratch_.begin(), pending_scratch_.end(),
                  [this](std::size_t a, std::size_t b) { return slots_[a].order < slots_[b].order; });
        // Only connections older than a round trip count against max_pending: a burst of honest
        // clients connecting at once (a match starting) is admitted before it becomes eligible.
        if (options_.max_pending != 0) {
            std::size_t eligible = 0;
            for (const std::size_t i : pending_scratch_) eligible += age(slots_[i].first_seen_ms) >= pending_grace_ms;
            for (const std::size_t i : pending_scratch_) {
                if (eligible <= options_.max_pending) break;
                if (age(slots_[i].first_seen_ms) < pending_grace_ms) continue;
                drop(i,
                     "more than " + std::to_string(options_.max_pending) +
                         " connections mid-handshake (oldest dropped)",
                     h);
                --eligible;
                --busy;
            }
        }
        // A burst of young ones (a fast, possibly spoofed CONNECT flood) must not fill the table:
        // the oldest go, however young, so there is always a free slot for a newcomer.
        const std::size_t reserve = options_.free_slot_reserve;
        for (const std::size_t i : pending_scratch_) {
            if (host_->peerCount - busy >= reserve) break;
            if (!slots_[i].live) continue; // dropped above
            drop(i, "fewer than " + std::to_string(reserve) + " free slots (oldest connection mid-handshake dropped)",
                 h);
            --busy;
        }
    }

    void configure(ENetPeer *peer) const {
        enet_peer_timeout(peer, retry_limit, options_.timeout_min_ms, options_.timeout_max_ms);
        // Inputs must not be throttled away when the link degrades: no deceleration.
        enet_peer_throttle_configure(peer, ENET_PEER_PACKET_THROTTLE_INTERVAL, ENET_PEER_PACKET_THROTTLE_ACCELERATION,
                                     0);
    }

    ENetHost *host_;
    bool server_;
    enet_options options_;
    ENetPeer *pending_;            // client: the server's peer until it connects (or fails)
    std::string remote_;           // client: "HOST:PORT" as asked
    ENetAddress server_address_{}; // client: where remote_ resolved to, to connect again
    peer_id next_id_ = 0;
    std::uint64_t now_ms_ = 0; // the latest poll's time
    std::unordered_map<peer_id, ENetPeer *> peers_;
    std::vector<slot> slots_;                  // server: one per ENet peer slot
    std::uint64_t next_order_ = 0;             // server: sighting counter
    std::vector<std::size_t> pending_scratch_; // server: police()'s list of pending slots, oldest first
    std::vector<std::size_t> violators_;       // server: slots screen_peer() marked, for expel()
    internal::connect_cookies cookies_;        // server: mints and checks connect cookies
    std::uint32_t cookie_ = 0;                 // client: a cookie received, to connect again with
    transport_counters counters_;
};

int ENET_CALLBACK intercept(ENetHost *, ENetEvent *) { return servicing ? servicing->screen() : 0; }

} // namespace

enet_options enet_options_for_match(std::size_t players, std::size_t spectators) {
    enet_options options;
    constexpr std::size_t limit = ENET_PROTOCOL_MAXIMUM_PEER_ID;
    std::size_t peers = 0;
    for (const std::size_t part : {players, spectators, options.max_pending, options.free_slot_reserve})
        peers = std::min(limit, peers + std::min(part, limit)); // no overflow: both terms <= limit
    options.max_peers = peers;
    return options;
}

result<std::unique_ptr<transport>> make_enet_server(std::uint16_t port, const enet_options &options,
                                                    const std::string &bind_host) {
    if (options.max_peers == 0 || options.max_peers > ENET_PROTOCOL_MAXIMUM_PEER_ID)
        return error{errc::invalid_argument, "enet_options::max_peers must be 1.." +
                                                 std::to_string(ENET_PROTOCOL_MAXIMUM_PEER_ID) + ", not " +
                                                 std::to_string(options.max_peers)};
    if (options.free_slot_reserve >= options.max_peers)
        return error{errc::invalid_argument,
                     "enet_options::free_slot_reserve (" + std::to_string(options.free_slot_reserve) +
                         ") must be less than max_peers (" + std::to_string(options.max_peers) + ")"};
    if (!acquire_enet()) return error{errc::io, "enet_initialize failed"};
    ENetAddress address{};
    address.host = ENET_HOST_ANY;
    address.port = port;
    if (!bind_host.empty() && enet_address_set_host(&address, bind_host.c_str()) != 0) {
        release_enet();
        return error{errc::invalid_argument, "cannot resolve bind address '" + bind_host + "'"};
    }
    ENetHost *host = enet_host_create(&address, options.max_peers, wire::channel_count, 0, 0);
    if (!host) {
        release_enet();
        return error{errc::io, "cannot listen on UDP port " + std::to_string(port) + " (in use?)"};
    }
    host->maximumPacketSize = options.max_packet_bytes;
    host->maximumWaitingData = options.max_waiting_bytes;
    // ENet counts a host's slots in any state when a CONNECT arrives and ignores it beyond this,
    // before allocating a slot or answering (enet_protocol_handle_connect).
    if (options.max_peers_per_address != 0)
        host->duplicatePeers = std::min<std::size_t>(options.max_peers_per_address, ENET_PROTOCOL_MAXIMUM_PEER_ID);
    return std::unique_ptr<transport>(new enet_transport(host, true, options));
}

result<std::unique_ptr<transport>> make_enet_client(const std::string &host_name, std::uint16_t port,
                                                    const enet_options &options) {
    if (!acquire_enet()) return error{errc::io, "enet_initialize failed"};
    ENetAddress local{};
    local.host = ENET_HOST_ANY;
    local.port = 0;
    if (!options.bind_host.empty() && enet_address_set_host(&local, options.bind_host.c_str()) != 0) {
        release_enet();
        return error{errc::invalid_argument, "cannot resolve bind address '" + options.bind_host + "'"};
    }
    ENetHost *host = enet_host_create(options.bind_host.empty() ? nullptr : &local, 1, wire::channel_count, 0, 0);
    if (!host) {
        release_enet();
        return error{errc::io, options.bind_host.empty() ? std::string{"cannot create a UDP socket"}
                                                         : "cannot bind a UDP socket to '" + options.bind_host + "'"};
    }
    ENetAddress address{};
    if (enet_address_set_host(&address, host_name.c_str()) != 0) {
        enet_host_destroy(host);
        release_enet();
        return error{errc::invalid_argument, "cannot resolve host '" + host_name + "'"};
    }
    address.port = port;
    ENetPeer *peer = enet_host_connect(host, &address, wire::channel_count, 0);
    if (!peer) {
        enet_host_destroy(host);
        release_enet();
        return error{errc::io, "cannot start connecting to " + host_name + ":" + std::to_string(port)};
    }
    return std::unique_ptr<transport>(
        new enet_transport(host, false, options, peer, host_name + ":" + std::to_string(port)));
}

} // namespace retcon
