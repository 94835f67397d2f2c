// rc_transport_*, rc_enet_*, rc_sim_network_*: what sessions send through (docs/c-api.md,
// "Sessions").
#include "sessions.hpp"

using namespace retcon;
using namespace retcon::capi;

namespace {

link_conditions link_from_c(const rc_link *l) {
    link_conditions out;
    if (!l) return out;
    out.latency_ms = l->latency_ms;
    out.jitter_ms = l->jitter_ms;
    out.loss = l->loss;
    out.duplicate = l->duplicate;
    out.reorder = l->reorder;
    return out;
}

/// RC_OK when @p l is NULL (a perfect link) or a valid link; otherwise the reason.
rc_status check_link(std::string &err, const rc_link *l, const char *which) {
    if (!l) return RC_OK;
    if (auto s = check_struct_size(err, l->struct_size, sizeof(rc_link), "rc_sim_network_connect", which); s != RC_OK)
        return s;
    for (const double p : {l->loss, l->duplicate, l->reorder})
        if (!(p >= 0.0 && p <= 1.0)) // also NaN
            return fail(err, RC_ERR_ARGUMENT, "rc_sim_network_connect: %s link probability %g is outside 0..1", which,
                        p);
    return RC_OK;
}

} // namespace

extern "C" {

void rc_transport_destroy(rc_transport *t) {
    if (t && t->sessions != 0) { // a session still sends through it: keep it rather than crash later
        fail(thread_error(), RC_ERR_ARGUMENT,
             "rc_transport_destroy: %u session(s) still use this transport; destroy them first (it was kept)",
             t->sessions);
        return;
    }
    if (t && t->network) --t->network->transports;
    delete t;
}

rc_status rc_enet_server_create(uint16_t port, uint32_t max_players, uint32_t max_spectators, rc_transport **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!out) return fail(err, RC_ERR_NULL, "rc_enet_server_create: out is NULL");
        *out = nullptr;
        if (max_players == 0 || max_players > wire::limits::max_players)
            return fail(err, RC_ERR_ARGUMENT, "rc_enet_server_create: max_players %u is outside 1..%zu", max_players,
                        wire::limits::max_players);
        auto t = make_enet_server(port, enet_options_for_match(max_players, max_spectators));
        if (!t) return fail(err, RC_ERR_IO, "rc_enet_server_create: %s", t.message().c_str());
        auto h = std::make_unique<rc_transport>();
        h->owned = std::move(*t);
        h->transport = h->owned.get();
        *out = h.release();
        return RC_OK;
    });
}

rc_status rc_enet_client_create(const char *host, uint16_t port, rc_transport **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!host || !out) return fail(err, RC_ERR_NULL, "rc_enet_client_create: host or out is NULL");
        *out = nullptr;
        if (port == 0) return fail(err, RC_ERR_ARGUMENT, "rc_enet_client_create: port 0 names no server");
        auto t = make_enet_client(host, port);
        if (!t) return fail(err, RC_ERR_IO, "rc_enet_client_create: %s", t.message().c_str());
        auto h = std::make_unique<rc_transport>();
        h->owned = std::move(*t);
        h->transport = h->owned.get();
        *out = h.release();
        return RC_OK;
    });
}

rc_status rc_transport_local_port(const rc_transport *t, uint16_t *out_port) {
    if (!t) return fail(thread_error(), RC_ERR_NULL, "rc_transport_local_port: transport is NULL");
    if (!out_port) return fail(thread_error(), RC_ERR_NULL, "rc_transport_local_port: out_port is NULL");
    *out_port = t->transport->local_port();
    return RC_OK;
}

rc_status rc_sim_network_create(uint64_t seed, rc_sim_network **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!out) return fail(err, RC_ERR_NULL, "rc_sim_network_create: out is NULL");
        *out = new rc_sim_network{seed};
        return RC_OK;
    });
}

void rc_sim_network_destroy(rc_sim_network *n) {
    if (n && n->transports != 0) {
        fail(thread_error(), RC_ERR_ARGUMENT,
             "rc_sim_network_destroy: %u transport(s) of this network are alive; destroy them first (it was kept)",
             n->transports);
        return;
    }
    delete n;
}

rc_status rc_sim_network_server(rc_sim_network *n, rc_transport **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!n || !out) return fail(err, RC_ERR_NULL, "rc_sim_network_server: network or out is NULL");
        *out = nullptr;
        if (n->server_taken)
            return fail(err, RC_ERR_ALREADY_PRESENT, "rc_sim_network_server: the network's server end is taken");
        auto h = std::make_unique<rc_transport>();
        h->transport = &n->network.server();
        h->network = n;
        n->server_taken = true;
        ++n->transports;
        *out = h.release();
        return RC_OK;
    });
}

rc_status rc_sim_network_connect(rc_sim_network *n, const rc_link *up, const rc_link *down, rc_transport **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!n || !out) return fail(err, RC_ERR_NULL, "rc_sim_network_connect: network or out is NULL");
        *out = nullptr;
        if (auto s = check_link(err, up, "up"); s != RC_OK) return s;
        if (auto s = check_link(err, down, "down"); s != RC_OK) return s;
        auto h = std::make_unique<rc_transport>();
        h->transport = &n->network.connect(link_from_c(up), link_from_c(down));
        h->network = n;
        ++n->transports;
        *out = h.release();
        return RC_OK;
    });
}

rc_status rc_sim_network_set_blackout(rc_sim_network *n, uint32_t link, int blackout) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!n) return fail(err, RC_ERR_NULL, "rc_sim_network_set_blackout: network is NULL");
        if (link >= n->network.links())
            return fail(err, RC_ERR_ARGUMENT, "rc_sim_network_set_blackout: link %u does not exist (%zu links)", link,
                        n->network.links());
        n->network.set_blackout(link, blackout != 0);
        return RC_OK;
    });
}

} // extern "C"
