// desync_verifier (net/src/desync_verifier.hpp): the server's side of desync forensics without a
// transport: which claims get an upload request, what a complete upload shows against the
// server's image, and the forensic files (docs/net.md, "Desync forensics" and "Security model").
#include <catch2/catch.hpp>

#include <common/components.hpp>
#include <common/temp_dir.hpp>
#include <common/test_game.hpp>

#include <retcon/net/protocol.hpp>
#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>

#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "desync_verifier.hpp"
#include "snapshot_transfer.hpp"

using namespace retcon;
using namespace retcon::test;
using internal::desync_verifier;
using internal::forensic_upload;
using outcome = desync_verifier::claim_outcome;

namespace {

constexpr std::size_t players = 2;
constexpr std::size_t isz = sizeof(game_input);

/// A server-like run: 20 frames confirmed and stepped, every even frame a checksum frame noted
/// in the verifier; the image of the world after every frame kept for the test's uploads.
struct server_run {
    world w{game_schema()};
    internal::frame_ring records;
    desync_verifier v;
    std::vector<std::uint64_t> hashes;
    std::map<frame_t, world_image> after;
    const step_function step{step_game};

    explicit server_run(const server_options &so) {
        init_game(w);
        for (int i = 0; i < 3; ++i) w.emplace<ship_pos>(w.create(), 10 * i, 0);
        records.reset(64, frame_inputs::record_size(players, isz));
        v.reset(so);
        for (frame_t f = 0; f < 20; ++f) {
            std::byte *r = records.put(f);
            r[0] = r[1] = std::byte{static_cast<std::uint8_t>(slot_flags::present)};
            const game_input in0{1, 0, static_cast<std::uint8_t>(f % 4 == 0), 0}, in1{0, 1, 0, 0};
            std::memcpy(r + players, &in0, isz);
            std::memcpy(r + players + isz, &in1, isz);
            step(w, frame_inputs{f, players, isz, r});
            hashes.push_back(hash(w));
            after[f] = save(w, f + 1u);
            if (f % 2 == 0) v.note(w, f, f / 2, hashes.back());
        }
    }

    /// A client's snapshot file of the world after @p frame, changed by @p change.
    std::vector<std::byte> file_of(frame_t frame, const std::function<void(world &)> &change) const {
        world c{game_schema()};
        REQUIRE(load_image(c, after.at(frame)).ok());
        change(c);
        return encode_snapshot_file(save(c, frame + 1u), c.get_schema(), 1);
    }

    /// Delivers @p file to @p u as the chunks of an upload of @p frame; true when complete.
    static bool deliver(forensic_upload &u, frame_t frame, const std::vector<std::byte> &file) {
        forensic_upload::chunk last = forensic_upload::chunk::unrequested;
        internal::send_snapshot_chunks(1, frame, file, [&](std::span<const std::byte> bytes) {
            wire::snapshot_chunk_msg m;
            REQUIRE(wire::decode(bytes, m).ok());
            last = u.add(m);
        });
        return last == forensic_upload::chunk::complete;
    }

    desync_verifier::verification verify(forensic_upload &u, int slot = 1) {
        return v.verify(u, "slot 1 'ann'", slot, w.get_schema(), records, step, players, isz);
    }
};

void move_ships(world &c) {
    c.view<ship_pos>(exclude<bullet>).each([](ship_pos &p) { p.y += 7; });
}

server_options options(std::uint32_t interval = 1) {
    server_options so;
    so.forensic_interval = interval;
    return so;
}

} // namespace

TEST_CASE("desync_verifier: a claim agrees, is about no frame held, or asks for the client's snapshot",
          "[net][parts][forensics]") {
    server_run s{options()};
    forensic_upload u;
    std::string why;
    unverified_reason reason{};
    CHECK(s.v.claim(11, 0x1234, u, s.records, 100, reason, why) == outcome::not_held); // not a checksum frame
    CHECK(s.v.claim(16, s.hashes[16], u, s.records, 100, reason, why) == outcome::agrees);
    CHECK_FALSE(u.awaiting());
    CHECK(s.v.claim(16, s.hashes[16] ^ 1u, u, s.records, 100, reason, why) == outcome::upload_requested);
    CHECK(why.empty());
    CHECK(u.awaiting());
    CHECK(u.frame() == 16u);
    // The cap: upload_size_factor (4) times the server's image, plus 4 KiB, reserved.
    CHECK(u.cap() == 4u * s.after.at(16).size() + 4096u);
    CHECK(s.v.budget().used() == u.cap());
    CHECK(s.v.abandon(u) == 16u);
    CHECK(s.v.budget().used() == 0u);
}

TEST_CASE("desync_verifier: says why a mismatch cannot be verified by an upload", "[net][parts][forensics]") {
    std::string why;
    unverified_reason reason{};
    forensic_upload u;
    SECTION("an upload in progress, then the quota") {
        server_options so = options();
        so.max_uploads_per_client = 1;
        server_run s{so};
        REQUIRE(s.v.claim(16, 1, u, s.records, 0, reason, why) == outcome::upload_requested);
        CHECK(s.v.claim(18, 1, u, s.records, 0, reason, why) == outcome::unverified);
        CHECK(why == "an upload is still in progress");
        CHECK(reason == unverified_reason::upload_in_progress);
        (void)s.v.abandon(u);
        why.clear();
        CHECK(s.v.claim(18, 1, u, s.records, 0, reason, why) == outcome::unverified);
        CHECK(why == "upload quota used");
        CHECK(reason == unverified_reason::quota);
    }
    SECTION("the server's image of that frame is gone") {
        server_options so = options();
        so.forensic_frames = 4; // the last 4 checksum frames: 12 ... 18
        server_run s{so};
        CHECK(s.v.claim(10, 1, u, s.records, 0, reason, why) == outcome::unverified);
        CHECK(why == "server snapshot of that frame no longer held");
        CHECK(reason == unverified_reason::snapshot_gone);
        CHECK_FALSE(u.awaiting());
    }
    SECTION("the server-wide budget") {
        server_options so = options();
        so.upload_budget_bytes = 100;
        server_run s{so};
        CHECK(s.v.claim(16, 1, u, s.records, 0, reason, why) == outcome::unverified);
        CHECK(why == "the server's upload budget is in use");
        CHECK(reason == unverified_reason::budget);
        CHECK_FALSE(u.awaiting());
        CHECK(u.used() == 0u); // a refusal uses no quota
    }
    SECTION("max_upload_bytes caps an upload below the size factor") {
        server_options so = options();
        so.max_upload_bytes = 300;
        server_run s{so};
        REQUIRE(s.v.claim(16, 1, u, s.records, 0, reason, why) == outcome::upload_requested);
        CHECK(u.cap() == 300u);
    }
}

TEST_CASE("desync_verifier: an upload that differs is a desync, named by pool and field, and both files are written",
          "[net][parts][forensics]") {
    test::temp_dir dir;
    server_options so = options(3); // frame 16's image is rebuilt from frame 12's
    so.forensics_dir = dir.path();
    server_run s{so};
    forensic_upload u;
    std::string why;
    unverified_reason reason{};
    REQUIRE(s.v.claim(16, 1, u, s.records, 0, reason, why) == outcome::upload_requested);
    REQUIRE(server_run::deliver(u, 16, s.file_of(16, move_ships)));
    const auto v = s.verify(u);
    CHECK(v.frame == 16u);
    CHECK(v.verified);
    CHECK_FALSE(v.false_claim);
    CHECK(v.names == "ship_pos.y");
    CHECK_FALSE(u.awaiting());
    CHECK(s.v.budget().used() == 0u);
    // Named by the frame whose starting state they hold (F + 1).
    CHECK(dir.entries() == std::vector<std::string>{"desync-slot1-frame17-client.rcs",
                                                    "desync-slot1-frame17-server.rcs", "desync-slot1-frame17.txt"});
    const auto server_file = read_snapshot_file(dir / "desync-slot1-frame17-server.rcs");
    REQUIRE(server_file.ok());
    CHECK(hash(server_file->image) == s.hashes[16]);

    // A changed resource is named as "resources".
    REQUIRE(s.v.claim(18, 1, u, s.records, 0, reason, why) == outcome::upload_requested);
    REQUIRE(server_run::deliver(u, 18, s.file_of(18, [](world &c) { c.resource<ships>().score[1] += 1000; })));
    CHECK(s.verify(u).names == "resources");
}

TEST_CASE("desync_verifier: an upload that shows no difference or cannot be read is a false claim",
          "[net][parts][forensics]") {
    server_run s{options()};
    forensic_upload u;
    std::string why;
    unverified_reason reason{};
    REQUIRE(s.v.claim(16, 1, u, s.records, 0, reason, why) == outcome::upload_requested);
    REQUIRE(server_run::deliver(u, 16, s.file_of(16, [](world &) {})));
    auto v = s.verify(u);
    CHECK_FALSE(v.verified);
    CHECK(v.false_claim);
    CHECK(v.names == "no difference found in the uploaded snapshot");
    CHECK(v.reason == unverified_reason::no_difference);

    REQUIRE(s.v.claim(18, 1, u, s.records, 0, reason, why) == outcome::upload_requested);
    REQUIRE(server_run::deliver(u, 18, std::vector<std::byte>(600, std::byte{0x42})));
    v = s.verify(u);
    CHECK_FALSE(v.verified);
    CHECK(v.false_claim);
    CHECK_THAT(v.names, Catch::StartsWith("client snapshot unreadable: "));
    CHECK(v.reason == unverified_reason::unreadable);
    CHECK_THAT(v.names, Catch::Contains("snapshot uploaded by slot 1 'ann'"));
}

TEST_CASE("desync_verifier: an image the server cannot rebuild leaves the claim unverified, not false",
          "[net][parts][forensics]") {
    server_run s{options(3)};
    forensic_upload u;
    std::string why;
    unverified_reason reason{};
    REQUIRE(s.v.claim(16, 1, u, s.records, 0, reason, why) == outcome::upload_requested);
    REQUIRE(server_run::deliver(u, 16, s.file_of(16, move_ships)));
    const auto v = s.v.verify(
        u, "slot 1", 1, s.w.get_schema(), s.records,
        [](world &x, const frame_inputs &in) {
            step_game(x, in);
            ++x.resource<ships>().score[7]; // not what the server's step did
        },
        players, isz);
    CHECK_FALSE(v.verified);
    CHECK_FALSE(v.false_claim); // the server's failure
    CHECK(v.names == "server could not rebuild its snapshot of that frame (non-deterministic step?)");
    CHECK(v.reason == unverified_reason::rebuild_failed);
}

TEST_CASE("desync_verifier: at most max_forensic_files pairs of files are written", "[net][parts][forensics]") {
    test::temp_dir dir;
    server_options so = options();
    so.forensics_dir = dir.path();
    so.max_forensic_files = 1;
    server_run s{so};
    forensic_upload u;
    std::string why;
    unverified_reason reason{};
    for (const frame_t f : {frame_t{14}, frame_t{16}}) {
        REQUIRE(s.v.claim(f, 1, u, s.records, 0, reason, why) == outcome::upload_requested);
        REQUIRE(server_run::deliver(u, f, s.file_of(f, move_ships)));
        CHECK(s.verify(u).verified);
    }
    CHECK(s.v.files_attempted() == 1u);
    CHECK(dir.entries() == std::vector<std::string>{"desync-slot1-frame15-client.rcs",
                                                    "desync-slot1-frame15-server.rcs", "desync-slot1-frame15.txt"});
}

TEST_CASE("desync_verifier: forensic files that cannot be written are reported, the verdict unchanged",
          "[net][parts][forensics]") {
    test::temp_dir dir;
    server_options so = options();
    so.forensics_dir = dir / "missing"; // never created: nothing can be written in it
    server_run s{so};
    forensic_upload u;
    std::string why;
    unverified_reason reason{};
    REQUIRE(s.v.claim(16, 1, u, s.records, 0, reason, why) == outcome::upload_requested);
    REQUIRE(server_run::deliver(u, 16, s.file_of(16, move_ships)));
    const auto v = s.verify(u);
    CHECK(v.verified);
    CHECK(v.names == "ship_pos.y"); // what the client is told
    CHECK(v.diverging == std::vector<std::string>{"ship_pos.y"});
    REQUIRE(v.files_failed.size() == 3u);
    CHECK(v.files_failed[0].path == so.forensics_dir / "desync-slot1-frame17-server.rcs");
    CHECK(v.files_failed[1].path == so.forensics_dir / "desync-slot1-frame17-client.rcs");
    CHECK(v.files_failed[2].path == so.forensics_dir / "desync-slot1-frame17.txt");
    CHECK_FALSE(v.files_failed[0].why.empty());
    CHECK(dir.entries().empty());

    // Written: nothing failed.
    so.forensics_dir = dir.path();
    server_run ok{so};
    REQUIRE(ok.v.claim(16, 1, u, ok.records, 0, reason, why) == outcome::upload_requested);
    REQUIRE(server_run::deliver(u, 16, ok.file_of(16, move_ships)));
    const auto w = ok.verify(u);
    CHECK(w.files_failed.empty());
    CHECK(w.names == "ship_pos.y");
}
