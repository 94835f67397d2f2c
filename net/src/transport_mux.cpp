#include <retcon/net/transport_mux.hpp>

#include <retcon/config.hpp>

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace retcon {

namespace {

// One connection the mux knows: from the base's on_connect until it ends, is refused, or its
// route disconnects it (or is removed). Anything the base reports about a peer not in the table
// is dropped.
struct peer_entry {
    peer_id id = no_peer;
    std::size_t route = no_route;   // no_route: unrouted
    std::uint64_t connected_ms = 0; // the mux poll's time of its on_connect
    std::string address;            // unrouted only: for transport_router::on_unrouted_closed
};

enum class event_kind : std::uint8_t { connect, receive, violation, disconnect };

struct queued_event {
    event_kind kind = event_kind::connect;
    wire::channel ch = wire::channel::inputs;
    bool dropped = false; // the route disconnected the peer after this was queued
    peer_id peer = no_peer;
    std::size_t offset = 0; // receive: bytes in the route's arena; violation: the text
    std::size_t size = 0;
};

} // namespace

struct transport_mux::impl final : transport_handler {
    class route_transport final : public transport {
    public:
        route_transport(impl &mux, std::size_t index) : mux_{mux}, index_{index} {}

        void send(peer_id peer, wire::channel ch, std::span<const std::byte> data) override {
            if (!mux_.owns(index_, peer)) return;
            bytes_out += data.size();
            mux_.base->send(peer, ch, data);
        }

        void disconnect(peer_id peer) override {
            if (!mux_.owns(index_, peer)) return; // another route's, or unrouted: never touched
            mux_.forget(peer);
            drop_queued(peer);
            mux_.base->disconnect(peer);
        }

        void admit(peer_id peer) override {
            if (mux_.owns(index_, peer)) mux_.base->admit(peer);
        }

        // The handler may send, disconnect (which marks the peer's later queued events dropped)
        // or remove this route (which empties the queue, ending the loop) during delivery. The
        // queue cannot grow meanwhile: only the mux's poll adds to it, and that is not allowed
        // from here.
        void poll(std::uint64_t, transport_handler &h) override {
            if (draining_) return; // a handler polling its own route: the outer loop delivers
            draining_ = true;
            ++mux_.draining;
            for (cursor_ = 0; cursor_ < queue_.size(); ++cursor_) {
                const queued_event e = queue_[cursor_];
                if (e.dropped) continue;
                switch (e.kind) {
                case event_kind::connect: h.on_connect(e.peer); break;
                case event_kind::receive:
                    h.on_receive(e.peer, e.ch, std::span<const std::byte>(arena_.data() + e.offset, e.size));
                    break;
                case event_kind::violation:
                    h.on_violation(e.peer,
                                   std::string(reinterpret_cast<const char *>(arena_.data() + e.offset), e.size));
                    break;
                case event_kind::disconnect: h.on_disconnect(e.peer); break;
                }
            }
            clear();
            --mux_.draining;
            draining_ = false;
        }

        void flush() override { mux_.base->flush(); }

        // Nothing reaches a route but through the mux's poll: blocking here could only miss it.
        bool wait(std::chrono::microseconds) override { return cursor_ < queue_.size(); }

        [[nodiscard]] transport_peer_stats peer_stats(peer_id peer) const override {
            return mux_.owns(index_, peer) ? mux_.base->peer_stats(peer) : transport_peer_stats{};
        }

        [[nodiscard]] std::string peer_address(peer_id peer) const override {
            return mux_.owns(index_, peer) ? mux_.base->peer_address(peer) : std::string{};
        }

        [[nodiscard]] std::uint16_t local_port() const override { return mux_.base->local_port(); }

        void push(event_kind kind, peer_id peer, wire::channel ch = wire::channel::inputs,
                  std::span<const std::byte> data = {}) {
            queued_event e;
            e.kind = kind;
            e.ch = ch;
            e.peer = peer;
            e.offset = arena_.size();
            e.size = data.size();
            if (kind == event_kind::receive) bytes_in += data.size();
            arena_.insert(arena_.end(), data.begin(), data.end());
            queue_.push_back(e);
        }

        void drop_queued(peer_id peer) {
            for (std::size_t i = draining_ ? cursor_ + 1 : 0; i < queue_.size(); ++i)
                if (queue_[i].peer == peer) queue_[i].dropped = true;
        }

        void clear() {
            queue_.clear(); // both keep their capacity
            arena_.clear();
            cursor_ = 0;
        }

        [[nodiscard]] bool pending() const noexcept { return cursor_ < queue_.size(); }

        bool live = false;
        std::uint64_t bytes_in = 0, bytes_out = 0; // payload bytes of the route's connections

    private:
        impl &mux_;
        std::size_t index_;
        std::vector<queued_event> queue_;
        std::vector<std::byte> arena_;
        std::size_t cursor_ = 0;
        bool draining_ = false;
    };

    impl(std::unique_ptr<transport> b, mux_options o) : base{std::move(b)}, options{o} {
        if (!base) internal::misuse("transport_mux: the base transport is null");
    }

    std::unique_ptr<transport> base;
    mux_options options;
    std::vector<peer_entry> peers; // sorted by id
    std::vector<std::unique_ptr<route_transport>> route_list;
    std::size_t live_routes = 0;
    std::size_t unrouted_count = 0;
    transport_router *router = nullptr; // during poll
    std::uint64_t now = 0;
    int draining = 0;             // routes delivering their queues right now
    std::vector<peer_id> expired; // poll's scratch: unrouted connections past their deadline

    // ---------------------------------------------------------------- the peer table
    peer_entry *find(peer_id id) {
        const auto it =
            std::lower_bound(peers.begin(), peers.end(), id, [](const peer_entry &e, peer_id v) { return e.id < v; });
        return it != peers.end() && it->id == id ? &*it : nullptr;
    }

    bool owns(std::size_t route, peer_id id) const {
        const auto it =
            std::lower_bound(peers.begin(), peers.end(), id, [](const peer_entry &e, peer_id v) { return e.id < v; });
        return it != peers.end() && it->id == id && it->route == route;
    }

    // Peer ids usually grow (ENet numbers connections in order), so this is mostly a push_back.
    peer_entry &insert(peer_id id) {
        const auto it =
            std::lower_bound(peers.begin(), peers.end(), id, [](const peer_entry &e, peer_id v) { return e.id < v; });
        peer_entry &e = *peers.insert(it, peer_entry{});
        e.id = id;
        ++unrouted_count;
        return e;
    }

    void forget(peer_id id) {
        const auto it =
            std::lower_bound(peers.begin(), peers.end(), id, [](const peer_entry &e, peer_id v) { return e.id < v; });
        if (it == peers.end() || it->id != id) return;
        if (it->route == no_route) --unrouted_count;
        peers.erase(it);
    }

    // Disconnects an unrouted connection and forgets it; its address, for a report.
    std::string refuse(peer_id id) {
        peer_entry *e = find(id);
        if (!e || e->route != no_route) return {};
        std::string address = std::move(e->address);
        forget(id);
        base->disconnect(id);
        return address;
    }

    route_transport *live_route(std::size_t index) const {
        return index < route_list.size() && route_list[index]->live ? route_list[index].get() : nullptr;
    }

    // ---------------------------------------------------------------- base events
    void on_connect(peer_id peer) override {
        if (peer_entry *old = find(peer)) { // the base reused an id it never closed: end the old one
            if (old->route != no_route) route_list[old->route]->push(event_kind::disconnect, peer);
            forget(peer);
        }
        std::string address = base->peer_address(peer);
        peer_entry &e = insert(peer);
        e.connected_ms = now;
        e.address = std::move(address);
    }

    void on_disconnect(peer_id peer) override {
        peer_entry *e = find(peer);
        if (!e) return; // refused, disconnected by its route, or its route removed
        if (e->route != no_route) {
            route_list[e->route]->push(event_kind::disconnect, peer);
            forget(peer);
            return;
        }
        const std::string address = std::move(e->address);
        forget(peer);
        router->on_unrouted_closed(address, "connection closed before any route took it");
    }

    // A routed connection's route hears why, before its disconnect; an unrouted one is reported
    // to the router with the reason and forgotten, so the on_disconnect that follows finds nothing.
    void on_violation(peer_id peer, const std::string &text) override {
        peer_entry *e = find(peer);
        if (!e) return;
        if (e->route != no_route) {
            route_list[e->route]->push(event_kind::violation, peer, wire::channel::control,
                                       std::as_bytes(std::span{text}));
            return;
        }
        const std::string address = std::move(e->address);
        forget(peer);
        router->on_unrouted_closed(address, text);
    }

    void on_receive(peer_id peer, wire::channel ch, std::span<const std::byte> data) override {
        peer_entry *e = find(peer);
        if (!e) return;
        if (e->route != no_route) {
            route_list[e->route]->push(event_kind::receive, peer, ch, data);
            return;
        }
        const std::size_t chosen = router->route(peer, ch, data);
        e = find(peer); // the router may have refused it, or changed the table
        if (!e || e->route != no_route) return;
        if (chosen == no_route) {
            (void)refuse(peer);
            return;
        }
        route_transport *r = live_route(chosen);
        if (!r) {
            const std::string address = refuse(peer);
            router->on_unrouted_closed(address,
                                       "the router chose route " + std::to_string(chosen) + ", which does not exist");
            return;
        }
        e->route = chosen;
        e->address.clear(); // keeps its capacity; a route asks the base for addresses
        --unrouted_count;
        r->push(event_kind::connect, peer);
        r->push(event_kind::receive, peer, ch, data);
    }

    void on_refused(const std::string &address, const std::string &reason) override {
        router->on_unrouted_closed(address, reason);
    }

    // ---------------------------------------------------------------- polling
    void poll(std::uint64_t now_ms, transport_router &r) {
        if (router) internal::misuse("transport_mux::poll called from inside a router callback");
        if (draining != 0) internal::misuse("transport_mux::poll called from inside a route's poll");
        now = now_ms;
        router = &r;
        base->poll(now_ms, *this);
        if (options.unrouted_timeout_ms != 0 && unrouted_count != 0) expire(now_ms);
        router = nullptr;
    }

    void expire(std::uint64_t now_ms) {
        expired.clear();
        for (const peer_entry &e : peers)
            if (e.route == no_route && now_ms > e.connected_ms &&
                now_ms - e.connected_ms >= options.unrouted_timeout_ms)
                expired.push_back(e.id);
        for (const peer_id id : expired) {
            const peer_entry *e = find(id); // an earlier report's router may have refused it
            if (!e || e->route != no_route) continue;
            const std::string address = refuse(id);
            router->on_unrouted_closed(address, "no routable packet within " +
                                                    std::to_string(options.unrouted_timeout_ms) + " ms");
        }
    }
};

transport_mux::transport_mux(std::unique_ptr<transport> base, mux_options options)
    : impl_{std::make_unique<impl>(std::move(base), options)} {}

transport_mux::~transport_mux() = default;

std::size_t transport_mux::add_route() {
    auto &list = impl_->route_list;
    std::size_t index = 0;
    while (index < list.size() && list[index]->live) ++index;
    if (index == list.size()) list.push_back(std::make_unique<impl::route_transport>(*impl_, index));
    list[index]->clear();
    list[index]->live = true;
    list[index]->bytes_in = list[index]->bytes_out = 0;
    ++impl_->live_routes;
    return index;
}

transport &transport_mux::route(std::size_t index) {
    impl::route_transport *r = impl_->live_route(index);
    if (!r) internal::misuse("transport_mux::route: %zu names no route", index);
    return *r;
}

void transport_mux::remove_route(std::size_t index) {
    impl::route_transport *r = impl_->live_route(index);
    if (!r) internal::misuse("transport_mux::remove_route: %zu names no route", index);
    r->live = false;
    r->clear();
    --impl_->live_routes;
    auto &peers = impl_->peers;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < peers.size(); ++i) {
        if (peers[i].route == index) {
            impl_->base->disconnect(peers[i].id); // the base never calls back from here
            continue;
        }
        if (kept != i) peers[kept] = std::move(peers[i]);
        ++kept;
    }
    peers.erase(peers.begin() + static_cast<std::ptrdiff_t>(kept), peers.end());
}

void transport_mux::poll(std::uint64_t now_ms, transport_router &router) { impl_->poll(now_ms, router); }

void transport_mux::flush() { impl_->base->flush(); }

bool transport_mux::wait(std::chrono::microseconds timeout) { return impl_->base->wait(timeout); }

void transport_mux::send_unrouted(peer_id peer, wire::channel ch, std::span<const std::byte> data) {
    const peer_entry *e = impl_->find(peer);
    if (e && e->route == no_route) impl_->base->send(peer, ch, data);
}

void transport_mux::refuse(peer_id peer) { (void)impl_->refuse(peer); }

transport &transport_mux::base() noexcept { return *impl_->base; }

std::size_t transport_mux::routes() const noexcept { return impl_->live_routes; }

std::size_t transport_mux::unrouted() const noexcept { return impl_->unrouted_count; }

std::uint16_t transport_mux::local_port() const { return impl_->base->local_port(); }

bool transport_mux::pending(std::size_t index) const noexcept {
    const auto *r = impl_->live_route(index);
    return r && r->pending();
}

bool transport_mux::holds(std::size_t index, peer_id peer) const noexcept {
    return impl_->live_route(index) != nullptr && impl_->owns(index, peer);
}

std::uint64_t transport_mux::bytes_in(std::size_t index) const noexcept {
    const auto *r = impl_->live_route(index);
    return r ? r->bytes_in : 0;
}

std::uint64_t transport_mux::bytes_out(std::size_t index) const noexcept {
    const auto *r = impl_->live_route(index);
    return r ? r->bytes_out : 0;
}

} // namespace retcon
