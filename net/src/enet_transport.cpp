// The only translation unit that includes ENet.
#include <retcon/net/transport.hpp>

#include <enet/enet.h>

#include <array>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace retcon {

namespace {

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

class enet_transport final : public transport {
public:
    enet_transport(ENetHost *host, bool is_server, const enet_options &options, ENetPeer *pending = nullptr,
                   std::string remote = {})
        : host_{host}, server_{is_server}, options_{options}, pending_{pending}, remote_{std::move(remote)} {}

    ~enet_transport() override {
        for (auto &[id, peer] : peers_) enet_peer_disconnect_now(peer, 0);
        enet_host_flush(host_);
        enet_host_destroy(host_);
        release_enet();
    }

    // The pending server peer is not configured here: ENet drops a connection whose peer gets
    // a throttle command while it is still connecting. It is configured on its CONNECT event.

    void send(peer_id id, wire::channel ch, std::span<const std::byte> data) override {
        const auto it = peers_.find(id);
        if (it == peers_.end()) return;
        const enet_uint32 flags = ch == wire::channel::inputs ? 0u : static_cast<enet_uint32>(ENET_PACKET_FLAG_RELIABLE);
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
        enet_peer_disconnect_later(it->second, 0);
    }

    void poll(std::uint64_t, transport_handler &h) override {
        ENetEvent ev;
        while (enet_host_service(host_, &ev, 0) > 0) {
            switch (ev.type) {
            case ENET_EVENT_TYPE_CONNECT: {
                const peer_id id = server_ ? next_id_++ : 0;
                if (!server_) pending_ = nullptr;
                configure(ev.peer);
                ev.peer->data = reinterpret_cast<void *>(static_cast<std::uintptr_t>(id) + 1u);
                peers_[id] = ev.peer;
                h.on_connect(id);
                break;
            }
            case ENET_EVENT_TYPE_DISCONNECT: {
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
        enet_host_flush(host_);
    }

    void flush() override { enet_host_flush(host_); }

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
        if (it == peers_.end()) return {};
        std::array<char, 64> ip{};
        if (enet_address_get_host_ip(&it->second->address, ip.data(), ip.size()) != 0) return {};
        return std::string(ip.data()) + ":" + std::to_string(it->second->address.port);
    }

    std::uint16_t local_port() const override {
        ENetAddress bound{};
        if (enet_socket_get_address(host_->socket, &bound) != 0) return host_->address.port;
        return bound.port;
    }

private:
    void configure(ENetPeer *peer) const {
        enet_peer_timeout(peer, 0, options_.timeout_min_ms, options_.timeout_max_ms);
        // Inputs must not be throttled away when the link degrades: no deceleration.
        enet_peer_throttle_configure(peer, ENET_PEER_PACKET_THROTTLE_INTERVAL, ENET_PEER_PACKET_THROTTLE_ACCELERATION, 0);
    }

    ENetHost *host_;
    bool server_;
    enet_options options_;
    ENetPeer *pending_;  // client: the server's peer until it connects (or fails)
    std::string remote_; // client: "HOST:PORT" as asked
    peer_id next_id_ = 0;
    std::unordered_map<peer_id, ENetPeer *> peers_;
};

} // namespace

result<std::unique_ptr<transport>> make_enet_server(std::uint16_t port, const enet_options &options,
                                                    const std::string &bind_host) {
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
    return std::unique_ptr<transport>(new enet_transport(host, true, options));
}

result<std::unique_ptr<transport>> make_enet_client(const std::string &host_name, std::uint16_t port,
                                                    const enet_options &options) {
    if (!acquire_enet()) return error{errc::io, "enet_initialize failed"};
    ENetHost *host = enet_host_create(nullptr, 1, wire::channel_count, 0, 0);
    if (!host) {
        release_enet();
        return error{errc::io, "cannot create a UDP socket"};
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
