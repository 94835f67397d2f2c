// libFuzzer target: every wire decoder over arbitrary bytes, then a live server session fed the
// same bytes as packets from a connected client on every channel. Decoders must never read out
// of bounds; a rejection must have the one shape (a code, a static text, an offset inside the
// packet, nothing formatted); an accepted message must re-encode to the same bytes; and the
// server must survive whatever a hostile client sends (it may disconnect that client, never
// crash).
#include <retcon/net.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace {

using namespace retcon;

struct fuzz_input {
    std::uint8_t v[4];
};
RETCON_COMPONENT(fuzz_input, v);

struct counter {
    std::uint32_t n;
};
RETCON_RESOURCE(counter, n);

/// A rejection: a code, a non-empty static text, an offset within the packet, no context.
void check_shape(const result<void> &r, std::size_t size) {
    if (r.ok()) return;
    const error &e = r.err();
    if (e.code == errc::ok || e.what == nullptr || e.what[0] == '\0' || !e.context.empty()) __builtin_trap();
    if (e.offset != error::no_offset && e.offset > size) __builtin_trap();
}

template<class M>
void roundtrip(std::span<const std::byte> in) {
    M m;
    const auto r = wire::decode(in, m);
    check_shape(r, in.size());
    if (!r) return;
    std::vector<std::byte> out;
    wire::encode(m, out);
    if (out.size() != in.size() || std::memcmp(out.data(), in.data(), in.size()) != 0) __builtin_trap(); // canonical
    M again;
    if (!wire::decode(out, again)) __builtin_trap(); // what we accept, we can re-encode
}

/// A server that lives across inputs, with a client whose packets are the fuzz inputs.
struct live_server {
    sim_network net{1};
    schema sch;
    std::unique_ptr<world> w;
    std::unique_ptr<server_session> server;
    std::uint64_t now = 1;
    std::size_t client = 0;
    live_server() {
        sch.resource<counter>();
        w = std::make_unique<world>(sch);
        w->set_resource<counter>(0u);
        const auto cfg = make_session_config<fuzz_input>(2);
        server = std::make_unique<server_session>(
            cfg, *w, [](world &ww, const frame_inputs &) { ++ww.resource<counter>().n; }, net.server());
        reconnect();
    }
    void reconnect() {
        net.connect({}, {});
        client = connections++;
        step(2);
    }
    void step(int ms) {
        for (int i = 0; i < ms; ++i, ++now) {
            server->poll(now);
            while (server->should_tick(now)) server->tick();
            for (session_event ev; server->next_event(ev);)
                if (ev.kind == session_event_kind::disconnected) dropped = true;
        }
    }
    std::size_t connections = 0;
    bool dropped = false;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::span<const std::byte> in(reinterpret_cast<const std::byte *>(data), size);
    roundtrip<wire::hello_msg>(in);
    roundtrip<wire::welcome_msg>(in);
    roundtrip<wire::reject_msg>(in);
    roundtrip<wire::snapshot_chunk_msg>(in);
    roundtrip<wire::desync_msg>(in);
    roundtrip<wire::bye_msg>(in);
    roundtrip<wire::stage_report_msg>(in);
    {
        wire::input_msg m;
        check_shape(wire::decode_header(in, m), size);
        check_shape(wire::decode(in, 4, {}, m), size);
        wire::confirmed_msg c;
        const std::vector<std::byte> base(64, std::byte{1});
        check_shape(wire::decode_header(in, c), size);
        check_shape(wire::decode(in, 4, base, c), size);
        std::vector<std::byte> out;
        check_shape(wire::decode_inputs(in, base, 4, 3, out), size);
    }
    static live_server live;
    if (size > 0) {
        const auto ch = static_cast<wire::channel>(data[0] % wire::channel_count);
        live.net.inject_from_client(live.client, ch, in.subspan(1), live.now);
        live.step(1);
        if (live.dropped) {
            live.dropped = false;
            live.reconnect();
        }
    }
    return 0;
}
