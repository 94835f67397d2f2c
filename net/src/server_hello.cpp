#include "server_hello.hpp"

#include <algorithm>

namespace retcon::internal {

namespace {

hello_verdict refuse(wire::reject_reason reason, std::string text) {
    hello_verdict v;
    v.reason = reason;
    v.text = std::move(text);
    return v;
}

} // namespace

hello_verdict judge_hello(peer_id peer, const wire::hello_msg &h, std::uint64_t schema_hash, const session_config &cfg,
                          const server_options &opt, std::size_t spectators, const slot_table &slots) {
    // Input records travel as raw bytes and snapshots are memcpy images: byte order is part of
    // what the peers must share (docs/protocol.md, "Handshake").
    if (h.big_endian)
        return refuse(wire::reject_reason::protocol, "the client is big-endian; retcon peers are little-endian only");
    // What the schema hash covers but cannot name: a handle size or simulation semantics of
    // another build would simulate differently (docs/protocol.md, "Handshake").
    if (h.entity_bits != wire::entity_handle_bits)
        return refuse(wire::reject_reason::schema, "the client uses " + std::to_string(h.entity_bits) +
                                                       "-bit entity handles, this server " +
                                                       std::to_string(wire::entity_handle_bits) + "-bit");
    if (h.semantics != simulation_semantics)
        return refuse(wire::reject_reason::schema, "the client simulates with semantics " +
                                                       std::to_string(h.semantics) + ", this server " +
                                                       std::to_string(simulation_semantics));
    if (h.schema_hash != schema_hash)
        return refuse(wire::reject_reason::schema, "world schema differs from the server's (different game build?)");
    if (h.input_size != cfg.input_size || h.input_layout_hash != cfg.input_layout_hash)
        return refuse(wire::reject_reason::input, "input layout differs from the server's");
    if (h.content_version != cfg.content_version)
        return refuse(wire::reject_reason::content, "content version " + std::to_string(h.content_version) +
                                                        ", server has " + std::to_string(cfg.content_version));
    // A host's admission check (join tokens: docs/hosting.md) may refuse, or bind the slot.
    server_admission adm;
    if (opt.admission) {
        adm = opt.admission(peer, h);
        if (!adm.allowed) return refuse(adm.reason, adm.text);
        if (!h.spectator && adm.slot >= static_cast<int>(cfg.max_players))
            return refuse(wire::reject_reason::full, "no slot " + std::to_string(adm.slot) + " in this match");
    }
    hello_verdict v;
    v.player_id = adm.player_id;
    v.name = std::move(adm.name);
    if (h.spectator) {
        if (spectators >= opt.max_spectators)
            return refuse(wire::reject_reason::spectators,
                          "no free spectator place (the server allows " + std::to_string(opt.max_spectators) + ")");
    } else {
        slot_claim claim = slots.claim(peer, h.reconnect_token, adm.slot, adm.player_id);
        if (claim.slot < 0) return refuse(claim.refusal, std::move(claim.refusal_text));
        v.slot = claim.slot;
        v.replaces = claim.replaces;
        v.replace_reason = claim.replace_reason;
    }
    v.admitted = true;
    return v;
}

wire::welcome_msg make_welcome(const session_config &cfg, frame_t server_frame, int slot, bool verify_spectators) {
    wire::welcome_msg m;
    m.max_players = static_cast<std::uint8_t>(cfg.max_players);
    m.tick_hz = cfg.tick_hz;
    m.input_delay = cfg.input_delay;
    m.max_input_delay = std::max(cfg.input_delay, cfg.max_input_delay);
    m.server_frame = server_frame;
    m.report_checksums = slot >= 0 || verify_spectators;
    return m;
}

} // namespace retcon::internal
