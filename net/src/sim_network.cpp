#include <retcon/net/sim_network.hpp>

#include <algorithm>
#include <functional>

namespace retcon {

namespace {
constexpr std::size_t server_index = ~std::size_t{0};
} // namespace

struct sim_network::impl {
    struct packet {
        std::uint64_t deliver_at = 0;
        std::uint64_t seq = 0;
        std::size_t from = 0; // client index, or server_index
        wire::channel ch = wire::channel::inputs;
        std::vector<std::byte> data; // keeps its capacity when the slot is reused
    };
    struct link {
        link_conditions up, down;
        bool blackout = false;
        bool client_open = true; // client has not disconnected
        bool server_open = true; // server has not disconnected it
        bool announced = false;  // client polled once: connection exists
        bool server_knows = false;
        bool client_notified_close = false;
        bool server_notified_close = false;
        // When the client hears of the server's disconnect: after the reliable packets sent
        // before it, as over ENet (a reject or goodbye arrives before the close).
        std::uint64_t server_close_at = 0;
        std::uint64_t bytes_up = 0, bytes_down = 0;
        // Reliable delivery is ordered per channel (as in ENet), not across channels.
        std::uint64_t last_reliable_up[wire::channel_count] = {}, last_reliable_down[wire::channel_count] = {};
        std::vector<std::size_t> held_up, held_down; // reliable packets held during a blackout
    };

    class endpoint final : public transport {
    public:
        endpoint(impl &net, std::size_t index) : net_{net}, index_{index} {}
        void send(peer_id peer, wire::channel ch, std::span<const std::byte> data) override {
            net_.send(index_, index_ == server_index ? static_cast<std::size_t>(peer) : index_, ch, data, clock_ms);
        }
        void disconnect(peer_id peer) override {
            if (index_ == server_index) {
                if (peer < net_.links.size() && net_.links[peer].server_open) {
                    link &l = net_.links[peer];
                    l.server_open = false;
                    l.server_close_at = clock_ms;
                    for (const std::uint64_t at : l.last_reliable_down)
                        l.server_close_at = std::max(l.server_close_at, at);
                }
            } else {
                net_.links[index_].client_open = false;
            }
        }
        void poll(std::uint64_t now_ms, transport_handler &h) override {
            clock_ms = now_ms;
            net_.poll(index_, now_ms, h);
        }
        // A new link with the same conditions; the old one ends as if this end disconnected.
        bool reconnect() override {
            if (index_ == server_index) return false;
            net_.links[index_].client_open = false;
            const link_conditions up = net_.links[index_].up,
                                  down = net_.links[index_].down; // copies: add_link grows links
            index_ = net_.add_link(up, down, *this);
            return true;
        }
        // Virtual time: nothing arrives while the caller waits, so there is nothing to wait for.
        bool wait(std::chrono::microseconds) override { return false; }
        std::uint64_t clock_ms = 0;

    private:
        impl &net_;
        std::size_t index_;
    };

    std::mt19937_64 rng;
    std::uint64_t seq = 0;
    std::unique_ptr<endpoint> server_ep;
    std::vector<std::unique_ptr<endpoint>> clients; // in creation order
    std::vector<link> links;
    std::vector<endpoint *> link_ends; // the client end of each link (a reconnection moves to a new one)
    std::vector<packet> pool;
    std::vector<std::size_t> free_slots;
    std::vector<std::size_t> to_server;              // heap of packet slots
    std::vector<std::vector<std::size_t>> to_client; // heap per client

    explicit impl(std::uint64_t seed) : rng{seed} {}

    std::size_t add_link(const link_conditions &up, const link_conditions &down, endpoint &end) {
        links.emplace_back();
        links.back().up = up;
        links.back().down = down;
        to_client.emplace_back();
        link_ends.push_back(&end);
        return links.size() - 1;
    }

    double uniform() { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

    std::size_t alloc_packet() {
        if (!free_slots.empty()) {
            const auto s = free_slots.back();
            free_slots.pop_back();
            return s;
        }
        pool.emplace_back();
        return pool.size() - 1;
    }

    bool later(std::size_t a, std::size_t b) const {
        return pool[a].deliver_at != pool[b].deliver_at ? pool[a].deliver_at > pool[b].deliver_at
                                                        : pool[a].seq > pool[b].seq;
    }

    void push(std::vector<std::size_t> &heap, std::size_t slot) {
        heap.push_back(slot);
        std::push_heap(heap.begin(), heap.end(), [this](std::size_t a, std::size_t b) { return later(a, b); });
    }

    void enqueue(std::size_t client, bool upstream, std::size_t slot) {
        push(upstream ? to_server : to_client[client], slot);
    }

    void send(std::size_t from, std::size_t client, wire::channel ch, std::span<const std::byte> data,
              std::uint64_t now) {
        if (client >= links.size()) return;
        link &l = links[client];
        if (!l.client_open || !l.server_open) return;
        const bool upstream = from != server_index;
        const link_conditions &c = upstream ? l.up : l.down;
        (upstream ? l.bytes_up : l.bytes_down) += data.size();
        const bool reliable = ch != wire::channel::inputs;
        if (!reliable && (l.blackout || uniform() < c.loss)) return;
        int copies = (!reliable && uniform() < c.duplicate) ? 2 : 1;
        for (int k = 0; k < copies; ++k) {
            const std::size_t slot = alloc_packet();
            packet &p = pool[slot];
            p.from = from;
            p.ch = ch;
            p.seq = ++seq;
            p.data.assign(data.begin(), data.end());
            std::uint64_t delay =
                c.latency_ms + (c.jitter_ms ? static_cast<std::uint64_t>(uniform() * (c.jitter_ms + 1.0)) : 0u);
            if (!reliable && uniform() < c.reorder)
                delay += c.jitter_ms + 1u + static_cast<std::uint64_t>(uniform() * 20.0);
            p.deliver_at = now + delay;
            if (reliable) { // in order within its channel, like ENet
                const auto c_index = static_cast<std::size_t>(ch);
                std::uint64_t &last = upstream ? l.last_reliable_up[c_index] : l.last_reliable_down[c_index];
                p.deliver_at = std::max(p.deliver_at, last);
                last = p.deliver_at;
                if (l.blackout) {
                    (upstream ? l.held_up : l.held_down).push_back(slot);
                    continue;
                }
            }
            enqueue(client, upstream, slot);
        }
    }

    void release_held(std::size_t client, std::uint64_t now) {
        link &l = links[client];
        for (auto *held : {&l.held_up, &l.held_down}) {
            const bool upstream = held == &l.held_up;
            for (const auto slot : *held) {
                const auto &c = upstream ? l.up : l.down;
                pool[slot].deliver_at = std::max(pool[slot].deliver_at, now + c.latency_ms);
                enqueue(client, upstream, slot);
            }
            held->clear();
        }
    }

    void poll(std::size_t who, std::uint64_t now, transport_handler &h) {
        if (who == server_index) {
            for (std::size_t i = 0; i < links.size(); ++i) {
                link &l = links[i];
                if (l.announced && !l.server_knows && l.client_open && l.server_open) {
                    l.server_knows = true;
                    h.on_connect(static_cast<peer_id>(i));
                }
                if (l.server_knows && !l.client_open && !l.server_notified_close) {
                    l.server_notified_close = true;
                    h.on_disconnect(static_cast<peer_id>(i));
                }
            }
            deliver(to_server, now, h, true);
        } else {
            link &l = links[who];
            if (!l.announced) {
                l.announced = true;
                h.on_connect(0);
            }
            deliver(to_client[who], now, h, false);
            if (!l.server_open && !l.client_notified_close && now >= l.server_close_at) {
                l.client_notified_close = true;
                h.on_disconnect(0);
            }
        }
    }

    void deliver(std::vector<std::size_t> &heap, std::uint64_t now, transport_handler &h, bool to_srv) {
        auto cmp = [this](std::size_t a, std::size_t b) { return later(a, b); };
        while (!heap.empty() && pool[heap.front()].deliver_at <= now) {
            std::pop_heap(heap.begin(), heap.end(), cmp);
            const std::size_t slot = heap.back();
            heap.pop_back();
            packet &p = pool[slot];
            const std::size_t client = to_srv ? p.from : 0;
            const bool open =
                to_srv ? (links[p.from].client_open && links[p.from].server_open && links[p.from].server_knows) : true;
            if (open) h.on_receive(to_srv ? static_cast<peer_id>(client) : 0, p.ch, p.data);
            free_slots.push_back(slot);
        }
    }
};

sim_network::sim_network(std::uint64_t seed) : impl_{std::make_unique<impl>(seed)} {}
sim_network::~sim_network() = default;

transport &sim_network::server() {
    if (!impl_->server_ep) impl_->server_ep = std::make_unique<impl::endpoint>(*impl_, server_index);
    return *impl_->server_ep;
}

transport &sim_network::connect(const link_conditions &up, const link_conditions &down) {
    auto end = std::make_unique<impl::endpoint>(*impl_, impl_->links.size());
    impl_->add_link(up, down, *end);
    impl_->clients.push_back(std::move(end));
    return *impl_->clients.back();
}

void sim_network::set_conditions(std::size_t client, const link_conditions &up, const link_conditions &down) {
    impl_->links.at(client).up = up;
    impl_->links.at(client).down = down;
}

void sim_network::set_blackout(std::size_t client, bool blackout) {
    auto &l = impl_->links.at(client);
    const bool was = l.blackout;
    l.blackout = blackout;
    if (was && !blackout) impl_->release_held(client, impl_->link_ends[client]->clock_ms);
}

std::size_t sim_network::links() const { return impl_->links.size(); }
std::uint64_t sim_network::bytes_up(std::size_t client) const { return impl_->links.at(client).bytes_up; }
std::uint64_t sim_network::bytes_down(std::size_t client) const { return impl_->links.at(client).bytes_down; }

void sim_network::inject_from_client(std::size_t client, wire::channel ch, std::span<const std::byte> data,
                                     std::uint64_t now_ms) {
    auto &l = impl_->links.at(client);
    const bool saved = l.blackout;
    const auto saved_cond = l.up;
    l.blackout = false;
    l.up = link_conditions{};
    impl_->send(client, client, ch, data, now_ms);
    l.up = saved_cond;
    l.blackout = saved;
}

} // namespace retcon
