// The server's own snapshots for desync forensics (docs/net.md, "Desync forensics"): an image
// every forensic_interval checksum frames, the frames between rebuilt from it and the confirmed
// inputs when a client's upload is compared.
#include <catch2/catch.hpp>

#include <common/counting_allocator.hpp>
#include <common/misuse.hpp>
#include <common/raw_peer.hpp>
#include <common/sim_match.hpp>
#include <common/temp_dir.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

/// Runs the match for @p ms, the raw peers acknowledging every 100 ms as a client does.
void run_with(sim_match &m, const std::vector<raw_peer *> &peers, std::uint64_t ms) {
    for (std::uint64_t i = 0; i < ms; ++i) {
        if (m.now % 100 == 0)
            for (auto *p : peers)
                if (p->welcomed) p->ack(m);
        m.run(1);
        for (auto *p : peers) p->t.poll(m.now, *p);
    }
}

/// Connects @p peers and completes their handshakes as players.
void join(sim_match &m, const std::vector<raw_peer *> &peers) {
    run_with(m, peers, 200);
    for (auto *p : peers) p->hello(m, false);
    run_with(m, peers, 300);
    for (const auto *p : peers) REQUIRE(p->welcomed);
}

/// A snapshot file of a world that differs from the server's (a verified desync when uploaded).
std::vector<std::byte> different_world_file(const sim_match &m, frame_t f) {
    world w{game_schema()};
    init_game(w);
    w.resource<ships>().score[1] += 1000;
    world_image s;
    save(w, s, f + 1u);
    return encode_snapshot_file(s, m.server_world.get_schema(), 1);
}

/// What the server made of one client's divergence.
struct desync_outcome {
    frame_t frame = no_frame;                        ///< the frame whose hash differed (first desync event)
    std::string text;                                ///< that event's text (for the log of a failure)
    std::vector<std::string> diverging;              ///< what it named
    unverified_reason why = unverified_reason::none; ///< why it was not verified
    std::size_t verified = 0, unverified = 0;
    std::uint64_t recorded = 0;                ///< the server's hash of that frame
    std::vector<std::string> files;            ///< written to forensics_dir
    std::vector<std::byte> server_file;        ///< the -server.rcs bytes
    std::optional<snapshot_file> server_image; ///< read back from that file
    bool bad_running = false;
    std::size_t bad_resynced = 0;
};

/// The server's step in a match (the match is passed for the world it owns).
using server_step_fn = std::function<void(sim_match &, world &, const frame_inputs &)>;

/// Two players; the second one's ships are moved behind the server's back after 3 s. @p step
/// is the server's step function (empty: the test game's).
desync_outcome corrupt_one_client(std::uint32_t forensic_interval, const server_step_fn &step = {}) {
    temp_dir dir;
    sim_match m{13, 2};
    server_options so;
    so.forensics_dir = dir.path();
    so.forensic_interval = forensic_interval;
    step_function server_step = step_game;
    if (step) server_step = [&m, &step](world &w, const frame_inputs &in) { step(m, w, in); };
    m.server = std::make_unique<server_session>(m.config, m.server_world, server_step, m.net.server(), so);
    m.server->on_confirmed(
        [&m](const frame_inputs &in, const world &, std::uint64_t h) { m.server_hashes[in.frame()] = h; });
    auto &bad = m.add_two_players();
    m.run(3000);
    m.corrupt_ships(bad);
    desync_outcome r;
    for (const auto &e : m.server_events) {
        if (e.kind != session_event_kind::desync_detected && e.kind != session_event_kind::desync_unverified) continue;
        (e.kind == session_event_kind::desync_detected ? r.verified : r.unverified)++;
        if (r.frame != no_frame) continue;
        r.frame = e.frame;
        r.text = e.text;
        r.diverging = e.diverging;
        r.why = e.unverified;
    }
    if (r.frame != no_frame && m.server_hashes.count(r.frame)) r.recorded = m.server_hashes[r.frame];
    r.files = dir.entries();
    for (const auto &name : r.files)
        if (name.ends_with("-server.rcs")) {
            r.server_file = read_bytes(dir / name);
            if (auto f = read_snapshot_file(dir / name); f) r.server_image = std::move(*f);
        }
    r.bad_running = bad.session->state() == client_state::running;
    r.bad_resynced = sim_match::count(bad.events, session_event_kind::resynchronized);
    return r;
}

/// Heap bytes a server holds after 2 s of ticking a world of @p dust extra entities with no
/// players (its image does not change size), with the given forensic ring.
long long server_heap(std::size_t dust, std::uint32_t forensic_frames, std::uint32_t forensic_interval,
                      std::size_t &image) {
    world w{game_schema()};
    init_game(w);
    for (std::size_t i = 0; i < dust; ++i) w.emplace<ship_pos>(w.create(), static_cast<std::int32_t>(i), 0);
    world_image probe; // an image's buffer grows in powers of two: it holds its capacity
    save(w, probe);
    image = probe.capacity();
    sim_network net{1};
    server_options so;
    so.forensic_frames = forensic_frames;
    so.forensic_interval = forensic_interval;
    heap_watermark heap;
    server_session s{game_config(4), w, step_game, net.server(), so};
    for (std::uint64_t t = 1; t <= 2000; ++t) {
        s.poll(t);
        while (s.should_tick(t)) s.tick();
    }
    REQUIRE(s.frame() > 100);
    return heap.live();
}

} // namespace

TEST_CASE("a desync at a frame between kept images is verified from a rebuilt world, as with an image every frame",
          "[net][forensics]") {
    // Before, the server kept an image of every checksum frame; now one every
    // forensic_interval (8) and rebuilds the frames between when an upload is compared.
    const auto every = corrupt_one_client(1);
    const auto sparse = corrupt_one_client(8);
    REQUIRE(sparse.frame != no_frame);
    INFO("desync at frame " << sparse.frame << ": " << sparse.text);
    REQUIRE(sparse.frame % 8 != 0); // not a kept frame: its image was rebuilt
    CHECK(sparse.verified == 1);
    CHECK(sparse.unverified == 0);
    CHECK(std::find(sparse.diverging.begin(), sparse.diverging.end(), "ship_pos.y") != sparse.diverging.end());
    CHECK(sparse.bad_running);
    CHECK(sparse.bad_resynced >= 1);
    // The same verdict, frame and files as with an image of every frame.
    CHECK(every.frame == sparse.frame);
    CHECK(every.diverging == sparse.diverging);
    CHECK(every.verified == sparse.verified);
    CHECK(every.files == sparse.files);
    CHECK(sparse.files.size() == 3); // both images and the record
    REQUIRE_FALSE(sparse.server_file.empty());
    CHECK(every.server_file == sparse.server_file);
    // The written server snapshot holds the world whose hash the server recorded for that frame.
    REQUIRE(sparse.server_image.has_value());
    CHECK(sparse.server_image->image.frame() == sparse.frame + 1u);
    CHECK(hash(sparse.server_image->image) == sparse.recorded);
    world back{game_schema()};
    REQUIRE(load_image(back, sparse.server_image->image).ok());
    CHECK(hash(back) == sparse.recorded);
}

TEST_CASE("a rebuild that does not reproduce the recorded hash leaves the desync unverified, not misnamed",
          "[net][forensics]") {
    // A step that is not deterministic (here: only on any world but the server's own, i.e. while
    // rebuilding) must not produce a diff against a wrong image of the frame.
    const auto r = corrupt_one_client(8, [](sim_match &m, world &w, const frame_inputs &in) {
        step_game(w, in);
        if (&w != &m.server_world) ++w.resource<ships>().score[7];
    });
    REQUIRE(r.frame != no_frame);
    REQUIRE(r.frame % 8 != 0);
    CHECK(r.verified == 0);
    CHECK(r.unverified == 1);
    CHECK(r.why == unverified_reason::rebuild_failed);
    CHECK(r.files.empty());
    // The server's failure, not the client's: it is resynchronised and plays on.
    CHECK(r.bad_running);
    CHECK(r.bad_resynced >= 1);
}

TEST_CASE("claims older than the oldest kept image are unverified, the oldest kept one is still compared",
          "[net][forensics]") {
    sim_match m{71, 2};
    raw_peer a{m}, b{m};
    const std::vector<raw_peer *> peers{&a, &b};
    join(m, peers);
    run_with(m, peers, 1000);
    // Right after a kept frame (a multiple of 8): the ring does not move before the claims land.
    while ((m.server->frame() - 1u) % 8u != 0u) run_with(m, peers, 1);
    const frame_t oldest = m.server->frame() - 1u - 24u; // 4 images: 8 checksum frames apart
    a.claim(m, oldest - 1u, 0x0bad);
    b.claim(m, oldest, 0x0bad);
    run_with(m, peers, 50);
    REQUIRE(a.desyncs.size() == 1);
    CHECK(a.desyncs[0].frame == oldest - 1u);
    CHECK(a.desyncs[0].diverging == "checksum mismatch (not diffed: server snapshot of that frame no longer held)");
    CHECK(sim_match::count(m.server_events, session_event_kind::desync_unverified, [](const session_event &e) {
              return e.unverified == unverified_reason::snapshot_gone;
          }) == 1);
    REQUIRE(b.desyncs.size() == 1);
    CHECK(b.desyncs[0].diverging.empty()); // asked for its snapshot
    b.upload(oldest, different_world_file(m, oldest));
    run_with(m, peers, 300);
    CHECK(m.server->totals().desyncs == 1);
    CHECK_FALSE(a.closed);
    CHECK_FALSE(b.closed);
}

TEST_CASE("a frame whose inputs left the history is not held though an image before it is", "[net][forensics]") {
    sim_match m{72, 2};
    server_options so;
    so.forensic_frames = 512;
    so.forensic_interval = 256; // images of frames 256 and 512 ...
    so.history_frames = 128;    // ... and the last 128 frames' inputs
    m.use_server_options(so);
    raw_peer a{m}, b{m};
    const std::vector<raw_peer *> peers{&a, &b};
    join(m, peers);
    while (m.server->frame() < 560) run_with(m, peers, 10);
    REQUIRE(m.server->frame() < 600);
    a.claim(m, 500, 0x0bad); // from 256: frames 257 ... gone from the history
    b.claim(m, 520, 0x0bad); // from 512: frames 513 ... 520 still there
    run_with(m, peers, 50);
    REQUIRE(a.desyncs.size() == 1);
    CHECK(a.desyncs[0].diverging == "checksum mismatch (not diffed: server snapshot of that frame no longer held)");
    REQUIRE(b.desyncs.size() == 1);
    CHECK(b.desyncs[0].diverging.empty());
    b.upload(520, different_world_file(m, 520));
    run_with(m, peers, 300);
    CHECK(m.server->totals().desyncs == 1);
    CHECK(sim_match::count(m.server_events, session_event_kind::desync_detected, [](const session_event &e) {
              return e.diverging == std::vector<std::string>{"resources"};
          }) == 1);
}

TEST_CASE("the server holds ceil(forensic_frames / forensic_interval) images of its world", "[net][forensics]") {
    // Before, forensic_frames (32) images: for the demo game's 4-player world 32 buffers of
    // 128 KiB per match, and a copy of the world every frame.
    constexpr std::size_t dust = 6000; // about the size of the demo game's world image
    std::size_t image = 0;
    // A first server in the process leaves lazily grown buffers behind (about one image's
    // worth, counted by whichever server first grows them): warm them up before measuring.
    (void)server_heap(dust, 32, 1, image);
    const long long one = server_heap(dust, 1, 1, image);
    const long long every = server_heap(dust, 32, 1, image);
    const long long sparse = server_heap(dust, 32, 8, image);
    const long long odd = server_heap(dust, 30, 8, image);
    INFO("image " << image << " bytes; held: 1 image " << one << ", 32 images " << every << ", interval 8 " << sparse);
    const auto images = [&](long long held) {
        return static_cast<double>(held - one) / static_cast<double>(image) + 1.0;
    };
    CHECK(images(every) > 31.5);
    CHECK(images(every) < 32.5);
    CHECK(images(sparse) > 3.5);
    CHECK(images(sparse) < 4.5); // 32 / 8
    CHECK(images(odd) < 4.5);    // ceil(30 / 8)
    CHECK(images(odd) > 3.5);
}

TEST_CASE("server_options::forensic_interval 0 is misuse", "[net][forensics]") {
    throwing_misuse_handler handler;
    world w{game_schema()};
    sim_network net{1};
    server_options o;
    o.forensic_interval = 0;
    CHECK_THROWS_WITH(server_session(game_config(2), w, step_game, net.server(), o),
                      Catch::Contains("forensic_interval"));
}

TEST_CASE("desync files that cannot be written are said in the desync_detected text, the desync still counted",
          "[net][forensics]") {
    // Before, the results of both writes were discarded: a server whose forensics_dir could not
    // be written said nothing, and the operator looked for files that were never there.
    temp_dir dir;
    sim_match m{73, 2};
    server_options so;
    so.forensics_dir = dir / "missing"; // never created: nothing can be written in it
    m.use_server_options(so);
    raw_peer a{m}, b{m};
    const std::vector<raw_peer *> peers{&a, &b};
    join(m, peers);
    run_with(m, peers, 1000);
    const frame_t f = m.server->frame() - 2u;
    b.claim(m, f, 0x0bad);
    run_with(m, peers, 50);
    REQUIRE(b.desyncs.size() == 1);
    REQUIRE(b.desyncs[0].diverging.empty()); // asked for its snapshot
    b.upload(f, different_world_file(m, f));
    run_with(m, peers, 300);
    CHECK(m.server->totals().desyncs == 1);
    CHECK(dir.entries().empty());
    // The desync stands, named; each file that could not be written is a recording_failed
    // with its path.
    std::vector<std::vector<std::string>> named;
    std::vector<std::string> failed;
    for (const auto &e : m.server_events) {
        if (e.kind == session_event_kind::desync_detected) named.push_back(e.diverging);
        if (e.kind == session_event_kind::recording_failed) {
            failed.push_back(e.path);
            CHECK(e.frame == f);
            CHECK(e.slot == 1);
        }
    }
    REQUIRE(named.size() == 1);
    CHECK(named[0] == std::vector<std::string>{"resources"});
    REQUIRE(failed.size() == 3u);
    const auto stem = "desync-slot1-frame" + std::to_string(f + 1u);
    CHECK(failed[0] == (dir / "missing" / (stem + "-server.rcs")).string());
    CHECK(failed[1] == (dir / "missing" / (stem + "-client.rcs")).string());
    CHECK(failed[2] == (dir / "missing" / (stem + ".txt")).string());
    // The client is told what diverged, as always.
    REQUIRE(b.desyncs.size() == 2);
    CHECK(b.desyncs[1].diverging == "resources");
}
