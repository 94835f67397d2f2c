#ifndef RETCON_TESTS_RAW_PEER_HPP
#define RETCON_TESTS_RAW_PEER_HPP

// A client that speaks the wire protocol by hand on a sim_match's network, so a test can send
// what a real client_session never would (claims, uploads, junk): docs/net.md, "Security model".
#include "sim_match.hpp"

#include <algorithm>
#include <span>
#include <vector>

namespace retcon::test {

/// A hand-driven client on the simulated network.
struct raw_peer final : transport_handler {
    transport &t;
    bool closed = false;
    bool welcomed = false;
    wire::welcome_msg welcome;
    std::vector<wire::desync_msg> desyncs;
    std::vector<wire::reject_msg> rejects;
    std::vector<std::byte> out;
    std::size_t confirmed_packets = 0;

    raw_peer(sim_match &m, const link_conditions &link = {5, 0, 0.0}) : t{m.net.connect(link, link)} {
        t.poll(m.now, *this); // the connection exists once the client side polled
    }
    void on_connect(peer_id) override {}
    void on_disconnect(peer_id) override { closed = true; }
    void on_receive(peer_id, wire::channel ch, std::span<const std::byte> data) override {
        if (ch == wire::channel::inputs) ++confirmed_packets;
        if (ch != wire::channel::control) return;
        switch (static_cast<wire::message_kind>(wire::peek_kind(data))) {
        case wire::message_kind::welcome: welcomed = wire::decode(data, welcome).ok(); break;
        case wire::message_kind::desync:
            if (wire::desync_msg d; wire::decode(data, d)) desyncs.push_back(d);
            break;
        case wire::message_kind::reject:
            if (wire::reject_msg r; wire::decode(data, r)) rejects.push_back(r);
            break;
        default: break;
        }
    }
    void hello(const sim_match &m, bool spectator, const reconnect_token &token = {}) {
        wire::hello_msg h;
        h.reconnect_token = token;
        h.schema_hash = m.server_world.schema_hash();
        h.input_layout_hash = m.config.input_layout_hash;
        h.content_version = m.config.content_version;
        h.input_size = m.config.input_size;
        h.spectator = spectator;
        h.name = spectator ? "watcher" : "claimer";
        wire::encode(h, out);
        t.send(0, wire::channel::control, out);
    }
    /// An input message with no inputs that claims world hash @p h for @p frame.
    void claim(const sim_match &m, frame_t frame, std::uint64_t h) {
        wire::input_msg msg;
        msg.slot = welcome.slot;
        msg.ack_confirmed = m.server->frame();
        msg.first_frame = m.server->frame();
        msg.client_time_ms = 1;
        msg.checksum_frame = frame;
        msg.checksum = h;
        wire::encode(msg, m.config.input_size, {}, out);
        t.send(0, wire::channel::inputs, out);
    }
    /// An input message with nothing in it but an acknowledgement (keeps the connection alive).
    void ack(const sim_match &m) { claim(m, no_frame, 0); }
    void upload_chunk(frame_t frame, std::uint32_t total, std::uint32_t offset, std::size_t bytes) {
        wire::snapshot_chunk_msg c;
        c.transfer = frame;
        c.frame = frame;
        c.total = total;
        c.offset = offset;
        c.bytes.assign(bytes, std::byte{0x5a});
        wire::encode(c, out);
        t.send(0, wire::channel::snapshots, out);
    }
    /// Uploads @p file for @p frame in 1000-byte chunks, all at once.
    void upload(frame_t frame, std::span<const std::byte> file) {
        wire::snapshot_chunk_msg c;
        c.transfer = c.frame = frame;
        c.total = static_cast<std::uint32_t>(file.size());
        for (std::size_t off = 0; off < file.size(); off += 1000) {
            c.offset = static_cast<std::uint32_t>(off);
            c.bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(off),
                           file.begin() + static_cast<std::ptrdiff_t>(std::min(file.size(), off + 1000)));
            wire::encode(c, out);
            t.send(0, wire::channel::snapshots, out);
        }
    }
};

} // namespace retcon::test

#endif
