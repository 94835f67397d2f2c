// Desync forensics (net/src/forensics.hpp): the images kept after checksum frames and the one
// way every side names what diverged between two images (docs/net.md, "Desync forensics" and
// "Sync test").
#include <catch2/catch.hpp>

#include <common/components.hpp>
#include <common/test_game.hpp>

#include <retcon/snapshot/diff.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string>
#include <stdexcept>
#include <vector>

#include "forensics.hpp"

using namespace retcon;
using namespace retcon::test;
using internal::kept_images;
using internal::name_divergence;

namespace {

/// The difference between the images of @p a and @p b (one schema), named with the sync test's sides.
internal::divergence named(const world &a, const world &b, std::size_t max_lines = 32, diff_options opt = {}) {
    const auto d = diff(save(a, 5), a.get_schema(), save(b, 5), b.get_schema(), opt);
    REQUIRE(d.ok());
    return name_divergence(*d, "the first run", "the re-simulation", max_lines);
}

/// A test-game world with @p n entities at x = 10 i, y = 0.
world game_world(std::size_t n) {
    world w{game_schema()};
    init_game(w);
    for (std::size_t i = 0; i < n; ++i) w.emplace<ship_pos>(w.create(), static_cast<std::int32_t>(10 * i), 0);
    return w;
}

/// A copy of @p w made through an image (byte-identical state).
world copy_of(const world &w) {
    world c{w.get_schema()};
    REQUIRE(load_image(c, save(w)).ok());
    return c;
}

entity nth(const world &w, std::size_t i) {
    std::vector<entity> all;
    w.view<const ship_pos>().each([&](entity e, const ship_pos &) { all.push_back(e); });
    std::sort(all.begin(), all.end(), [](entity x, entity y) { return to_index(x) < to_index(y); });
    REQUIRE(i < all.size());
    return all[i];
}

} // namespace

TEST_CASE("kept_images holds an image per frame and finds it after that frame", "[net][parts][forensics]") {
    kept_images k;
    k.reset(4);
    CHECK(k.size() == 4);
    frame_t at = 0;
    CHECK(k.after(0) == nullptr);
    CHECK(k.newest_at_or_before(1000, at) == nullptr);

    world w = game_world(1);
    std::array<std::uint64_t, 4> hashes{};
    const std::array<frame_t, 4> frames{8, 16, 24, 32};
    for (std::size_t i = 0; i < 4; ++i) {
        w.emplace<ship_pos>(w.create(), static_cast<std::int32_t>(i), 1);
        k.keep(i, frames[i], [&](world_image &img) { save(w, img, frames[i] + 1u); });
        hashes[i] = hash(w);
    }
    for (std::size_t i = 0; i < 4; ++i) {
        INFO("frame " << frames[i]);
        const world_image *img = k.after(frames[i]);
        REQUIRE(img != nullptr);
        CHECK(img->frame() == frames[i] + 1u);
        CHECK(hash(*img) == hashes[i]);
    }
    CHECK(k.after(9) == nullptr);
    CHECK(k.after(7) == nullptr);
}

TEST_CASE("kept_images: newest_at_or_before picks the newest kept frame not after the one asked",
          "[net][parts][forensics]") {
    kept_images k;
    k.reset(4);
    world w = game_world(1);
    // Filled out of order: the slots do not follow the frames.
    k.keep(0, 24, [&](world_image &img) { save(w, img, 25); });
    k.keep(1, 8, [&](world_image &img) { save(w, img, 9); });
    k.keep(2, 16, [&](world_image &img) { save(w, img, 17); });
    frame_t at = 12345; // whatever the caller had there
    CHECK(k.newest_at_or_before(7, at) == nullptr);
    at = 12345;
    CHECK(k.newest_at_or_before(8, at) == k.after(8));
    CHECK(at == 8);
    at = 0;
    CHECK(k.newest_at_or_before(23, at) == k.after(16));
    CHECK(at == 16);
    at = 999;
    CHECK(k.newest_at_or_before(24, at) == k.after(24));
    CHECK(at == 24);
    CHECK(k.newest_at_or_before(1000, at) == k.after(24));
    CHECK(at == 24);
}

TEST_CASE("kept_images indexes its slots modulo its size: a new frame replaces, a failed fill empties",
          "[net][parts][forensics]") {
    kept_images k;
    k.reset(3);
    world w = game_world(2);
    k.keep(0, 0, [&](world_image &img) { save(w, img, 1); });
    k.keep(1, 10, [&](world_image &img) { save(w, img, 11); });
    k.keep(2, 20, [&](world_image &img) { save(w, img, 21); });
    const world_image *slot1 = k.after(10);
    REQUIRE(slot1 != nullptr);
    // Index 4 is slot 1: frame 40 replaces frame 10 in the same image.
    const world_image &img = k.keep(4, 40, [&](world_image &x) { save(w, x, 41); });
    CHECK(&img == slot1);
    CHECK(k.after(10) == nullptr);
    CHECK(k.after(40) == slot1);
    frame_t at = 0;
    CHECK(k.newest_at_or_before(39, at) == k.after(20));
    CHECK(at == 20);
    // Index 5 is slot 2: a fill that fails there leaves frame 20 gone, the others stay.
    CHECK_THROWS(k.keep(5, 50, [](world_image &) { throw std::runtime_error("no memory"); }));
    CHECK(k.after(20) == nullptr);
    CHECK(k.after(0) != nullptr);
    CHECK(k.newest_at_or_before(39, at) == k.after(0));
    CHECK(at == 0);
    CHECK(k.newest_at_or_before(40, at) == k.after(40));
}

TEST_CASE("forensic_images: ceil(forensic_ms / tick period / checksum_interval), from 1 to 64",
          "[net][parts][forensics]") {
    using internal::forensic_images;
    CHECK(forensic_images(500, 60, 1) == 30); // the default at 60 Hz
    CHECK(forensic_images(501, 60, 1) == 31); // a part of a frame is a frame
    CHECK(forensic_images(500, 60, 4) == 8);  // 30 frames, one image every 4
    CHECK(forensic_images(100, 30, 1) == 3);
    CHECK(forensic_images(1, 60, 1) == 1);
    CHECK(forensic_images(60000, 60, 1) == internal::max_forensic_images);
    CHECK(forensic_images(60000, 1000, 1) == 64);
    CHECK(forensic_images(500, 60, 0) == 1);       // no checksums: nothing is ever kept
    CHECK(forensic_images(60000, 65535, 1) == 64); // no overflow at the extremes
}

TEST_CASE("name_divergence names nothing for identical worlds", "[net][parts][forensics]") {
    const world a = game_world(3);
    const world b = copy_of(a);
    const auto d = named(a, b);
    CHECK(d.summary.empty());
    CHECK(d.lines.empty());
}

TEST_CASE("name_divergence: one field of one entity is 'pool.field', its line names the entity and both values",
          "[net][parts][forensics]") {
    const world a = game_world(3);
    world b = copy_of(a);
    const entity e = nth(b, 1);
    b.get<ship_pos>(e).y = 7;
    const auto d = named(a, b);
    CHECK(d.summary == "ship_pos.y");
    CHECK(d.lines == std::vector<std::string>{"ship_pos.y of entity " + to_string(e) + ": 0 -> 7"});
}

TEST_CASE("name_divergence: an entity in one world only names the pool, 'entities' and the side it is in",
          "[net][parts][forensics]") {
    const world a = game_world(2);
    world b = copy_of(a);
    const entity extra = b.create();
    b.emplace<ship_pos>(extra, 5, 5);
    SECTION("only in the second") {
        const auto d = named(a, b);
        CHECK(d.summary == "ship_pos, entities");
        CHECK(std::count(d.lines.begin(), d.lines.end(),
                         "ship_pos of entity " + to_string(extra) + ": only in the re-simulation") == 1);
        CHECK(std::count_if(d.lines.begin(), d.lines.end(),
                            [](const std::string &l) { return l.rfind("entities: ", 0) == 0; }) >= 1);
    }
    SECTION("only in the first") {
        const auto d = named(b, a);
        CHECK(d.summary == "ship_pos, entities");
        CHECK(std::count(d.lines.begin(), d.lines.end(),
                         "ship_pos of entity " + to_string(extra) + ": only in the first run") == 1);
    }
    SECTION("with a changed field too: the pool's first differing entity names the field") {
        b.get<ship_pos>(nth(b, 0)).x = -3;
        const auto d = named(a, b);
        CHECK(d.summary == "ship_pos.x, entities");
        CHECK(std::count(d.lines.begin(), d.lines.end(),
                         "ship_pos.x of entity " + to_string(nth(b, 0)) + ": 0 -> -3") == 1);
    }
}

TEST_CASE("name_divergence: a resource is 'resources', its line names the field and both values",
          "[net][parts][forensics]") {
    const world a = game_world(1);
    world b = copy_of(a);
    b.resource<ships>().score[1] += 1000;
    const auto d = named(a, b);
    CHECK(d.summary == "resources");
    REQUIRE(d.lines.size() == 1);
    CHECK_THAT(d.lines[0], Catch::StartsWith("resource ships.score") && Catch::Contains("-> "));
}

TEST_CASE("name_divergence: group lengths are 'groups'", "[net][parts][forensics]") {
    world a{grouped_schema()};
    for (int i = 0; i < 3; ++i) {
        const entity e = a.create();
        a.emplace<position>(e, 1.0f * static_cast<float>(i), 0.0f);
        a.emplace<velocity>(e, 0.5f, 0.5f);
    }
    world b = copy_of(a);
    b.view<position, velocity>().each([&, done = false](entity e, position &, velocity &) mutable {
        if (!done) b.remove<velocity>(e);
        done = true;
    });
    const auto d = named(a, b);
    CHECK(d.summary == "velocity, groups"); // the entity left the pool too
    CHECK(std::count(d.lines.begin(), d.lines.end(), "group lengths") == 1);
}

TEST_CASE("name_divergence caps the lines at max_lines, the last saying how many more differ",
          "[net][parts][forensics]") {
    const world a = game_world(40);
    world b = copy_of(a);
    b.view<ship_pos>().each([](ship_pos &p) { p.y = 1; });
    SECTION("under the cap: every line") {
        const auto d = named(a, b, 64);
        CHECK(d.lines.size() == 40);
        CHECK(d.summary == "ship_pos.y");
    }
    SECTION("the default cap of 32") {
        const auto d = named(a, b);
        REQUIRE(d.lines.size() == 32);
        CHECK(d.lines[31] == "... 9 more differences"); // 40 - 31 shown
        CHECK_THAT(d.lines[30], Catch::StartsWith("ship_pos.y of entity "));
    }
    SECTION("a cap of 10") {
        const auto d = named(a, b, 10);
        REQUIRE(d.lines.size() == 10);
        CHECK(d.lines[9] == "... 31 more differences");
    }
    SECTION("0: no cap") {
        const auto d = named(a, b, 0);
        CHECK(d.lines.size() == 40);
    }
    SECTION("the diff's own cap per pool is said in a line") {
        diff_options opt;
        opt.max_entities = 5;
        const auto d = named(a, b, 32, opt);
        REQUIRE(d.lines.size() == 6);
        CHECK(d.lines[5] == "ship_pos: 35 more entities differ");
    }
}

TEST_CASE("name_divergence: schemas that differ are lines, never a summary", "[net][parts][forensics]") {
    const world a = game_world(1);
    schema other = game_schema();
    other.component<marker_for_schema_test>();
    world b{other};
    init_game(b);
    const auto d = diff(save(a, 5), a.get_schema(), save(b, 5), b.get_schema());
    REQUIRE(d.ok());
    const auto n = name_divergence(*d, "the server's", "the client's");
    CHECK(n.summary.empty());
    REQUIRE_FALSE(n.lines.empty());
    for (const auto &l : n.lines) CHECK_THAT(l, Catch::StartsWith("schema: "));
}

// ------------------------------------------------------------------ the users of this part

TEST_CASE("the sync test's failure fields are name_divergence's lines: 'only in the first run' and 'a -> b'",
          "[net][parts][forensics][sync_test]") {
    world w = game_world(2);
    const sync_test *self = nullptr;
    const entity moved = nth(w, 1);
    auto leaky = [&](world &ww, const frame_inputs &in) {
        step_game(ww, in);
        if (in.frame() != 9 || self->is_resimulating()) return;
        // The first run of frame 9 only: one more entity and one moved.
        ww.emplace<ship_pos>(ww.create(), 1, 1);
        ww.get<ship_pos>(moved).y += 3;
    };
    sync_test test{game_config(2), w, leaky, 3};
    self = &test;
    bool ok = true;
    for (int i = 0; i < 20 && ok; ++i) ok = test.tick<game_input>(std::array<game_input, 2>{});
    REQUIRE_FALSE(ok);
    REQUIRE(test.failure());
    const auto &fields = test.failure()->fields;
    INFO(test.failure()->describe());
    CHECK(test.failure()->frame == 9);
    const auto has = [&](const std::string &text) {
        return std::any_of(fields.begin(), fields.end(),
                           [&](const std::string &l) { return l.find(text) != std::string::npos; });
    };
    CHECK(has(": only in the first run"));
    CHECK(has("ship_pos.y of entity " + to_string(moved) + ": "));
    CHECK(has(" -> "));
    CHECK(has("entities: "));
    CHECK_FALSE(has("re-simulation: only"));
}

TEST_CASE("the server's desync text is name_divergence's summary of the server's and the client's images",
          "[net][parts][forensics]") {
    // tests/net/server_forensics.cpp and session.cpp corrupt a client by moving its ships
    // (not bullets) 7 down and expect "ship_pos.y"; an upload with another score expects
    // "resources". The same differences, named directly:
    world server = game_world(0);
    for (frame_t f = 0; f < 30; ++f) {
        frame_inputs_buffer in{2, sizeof(game_input)};
        in.set(0, game_input{1, 0, static_cast<std::uint8_t>(f % 10 == 0), 0});
        in.set(1, game_input{0, 1, 0, 0});
        step_game(server, in.view(f));
    }
    world client = copy_of(server);
    client.view<ship_pos>(exclude<bullet>).each([](ship_pos &p) { p.y += 7; });
    const auto d = diff(save(server, 30), server.get_schema(), save(client, 30), client.get_schema());
    REQUIRE(d.ok());
    const auto n = name_divergence(*d, "the server's", "the client's");
    CHECK(n.summary == "ship_pos.y");
    CHECK(n.lines.size() == 2); // both ships

    world scored = copy_of(server);
    scored.resource<ships>().score[1] += 1000;
    const auto d2 = diff(save(server, 30), server.get_schema(), save(scored, 30), scored.get_schema());
    REQUIRE(d2.ok());
    CHECK(name_divergence(*d2, "the server's", "the client's").summary == "resources");
}

namespace {

constexpr std::size_t rec_players = 2;
constexpr std::size_t rec_isz = sizeof(game_input);

/// Confirmed records of both players present, slot 0 moving right and firing every 4th frame.
void put_record(internal::frame_ring &records, frame_t f) {
    std::byte *r = records.put(f);
    r[0] = r[1] = std::byte{static_cast<std::uint8_t>(slot_flags::present)};
    const game_input in0{1, 0, static_cast<std::uint8_t>(f % 4 == 0), 0}, in1{0, 1, 0, 0};
    std::memcpy(r + rec_players, &in0, rec_isz);
    std::memcpy(r + rec_players + rec_isz, &in1, rec_isz);
}

/// A server-like run of @p frames frames: every frame confirmed in @p records and stepped,
/// checksum frames every 2 noted in @p record (an image every 3rd checksum frame); the hash
/// after each frame in @p hashes.
void run_server(world &w, frame_t frames, internal::frame_ring &records, internal::checksum_record &record,
                std::vector<std::uint64_t> &hashes, const step_function &step) {
    for (frame_t f = 0; f < frames; ++f) {
        put_record(records, f);
        step(w, frame_inputs{f, rec_players, rec_isz, records.get(f)});
        hashes.push_back(hash(w));
        if (f % 2 == 0) record.note(w, f, f / 2, hashes.back());
    }
}

} // namespace

TEST_CASE("checksum_record keeps hashes and every n-th image, and rebuilds the frames between bit for bit",
          "[net][parts][forensics]") {
    const step_function step{step_game};
    world w = game_world(3);
    internal::frame_ring records;
    records.reset(64, frame_inputs::record_size(rec_players, rec_isz));
    internal::checksum_record record;
    record.reset(4, 3);
    std::vector<std::uint64_t> hashes;
    run_server(w, 20, records, record, hashes, step);

    CHECK(record.hash_after(10) == hashes[10]);
    CHECK_FALSE(record.hash_after(11).has_value()); // not a checksum frame

    // Frame 12 is the 6th checksum frame: an image was kept. Frame 16 (the 8th) is rebuilt
    // from frame 12's image and the records of frames 13..16.
    std::string why;
    const world_image *kept = record.image_after(12, w.get_schema(), records, step, rec_players, rec_isz, why);
    REQUIRE(kept != nullptr);
    CHECK(kept->frame() == 13u);
    CHECK(hash(*kept) == hashes[12]);
    const world_image *rebuilt = record.image_after(16, w.get_schema(), records, step, rec_players, rec_isz, why);
    REQUIRE(rebuilt != nullptr);
    CHECK(why.empty());
    CHECK(rebuilt->frame() == 17u);
    CHECK(hash(*rebuilt) == hashes[16]);
    CHECK(record.base_for(16, records) == kept);
}

TEST_CASE("checksum_record says why it cannot give the world after a frame", "[net][parts][forensics]") {
    const step_function step{step_game};
    world w = game_world(3);
    internal::frame_ring records;
    records.reset(64, frame_inputs::record_size(rec_players, rec_isz));
    internal::checksum_record record;
    record.reset(4, 3);
    std::vector<std::uint64_t> hashes;
    run_server(w, 20, records, record, hashes, step);
    std::string why;

    SECTION("a frame whose records are gone has no base") {
        records.put(14 + 64); // takes frame 14's slot: the inputs between frame 12 and 16 are incomplete
        CHECK(record.base_for(16, records) == nullptr);
        CHECK(record.image_after(16, w.get_schema(), records, step, rec_players, rec_isz, why) == nullptr);
        CHECK(why == "server snapshot of that frame no longer held");
    }
    SECTION("a step that does not repeat itself is caught by the recorded hash") {
        const step_function other{[](world &x, const frame_inputs &in) {
            step_game(x, in);
            x.emplace<ship_pos>(x.create(), 1, 1); // not what the server's step did
        }};
        CHECK(record.image_after(16, w.get_schema(), records, other, rec_players, rec_isz, why) == nullptr);
        CHECK(why == "server could not rebuild its snapshot of that frame (non-deterministic step?)");
    }
}

TEST_CASE("checksum_reports hashes confirmed, simulated checksum frames once and reports each in three messages",
          "[net][parts][forensics]") {
    world w = game_world(2);
    internal::checksum_reports reports;
    reports.reset(4, 8);
    reports.restart(0);
    std::vector<std::pair<frame_t, std::uint64_t>> heard;
    const auto on_hash = [&](frame_t f, std::uint64_t h) { heard.emplace_back(f, h); };
    world_image start_of_5 = save(w, 5); // stands for the rollback's image of the start of frame 5
    const auto start_of = [&](frame_t f) { return f == 5 ? &start_of_5 : nullptr; };

    // At frame 5 with frames before 3 confirmed: frame 0 only (4 is not confirmed yet).
    reports.advance(3, w, 5, start_of, on_hash);
    CHECK(heard.empty()); // frame 0: the world after it is no longer held (start_of(1) is null): skipped
    // Confirmed through 9, simulated to 9: frame 4 from the image of the start of 5, frame 8 from
    // the live world (8 + 1 is the current frame).
    reports.advance(9, w, 9, start_of, on_hash);
    REQUIRE(heard.size() == 2);
    CHECK(heard[0] == std::make_pair(frame_t{4}, hash(start_of_5)));
    CHECK(heard[1].first == 8u);
    CHECK(heard[1].second == hash(w));
    const world_image *after_8 = reports.image_after(8);
    CHECK((after_8 != nullptr && after_8->frame() == 9u));
    CHECK(reports.image_after(4) != nullptr);
    CHECK(reports.image_after(0) == nullptr);

    frame_t f = 0;
    std::uint64_t h = 0;
    for (int i = 0; i < 3; ++i) {
        REQUIRE(reports.next_report(f, h)); // the newest hash, three times
        CHECK(f == 8u);
        CHECK(h == hash(w));
    }
    CHECK_FALSE(reports.next_report(f, h));
    reports.advance(9, w, 9, start_of, on_hash); // nothing new: no second hash of the same frame
    CHECK(heard.size() == 2);
}

TEST_CASE("checksum_reports with interval 0 hashes nothing, and a skipped frame keeps the image it replaced",
          "[net][parts][forensics]") {
    world w = game_world(2);
    std::size_t heard = 0;
    const auto on_hash = [&](frame_t, std::uint64_t) { ++heard; };
    const auto nothing_held = [](frame_t) -> const world_image * { return nullptr; };

    internal::checksum_reports none;
    none.reset(0, 8);
    none.restart(0);
    none.advance(100, w, 100, nothing_held, on_hash);
    CHECK(heard == 0);
    frame_t f = 0;
    std::uint64_t h = 0;
    CHECK_FALSE(none.next_report(f, h));

    // Two image slots: frames 0 and 2 share slot 0. Frame 2 cannot be hashed (its image is gone),
    // so frame 0's image stays for an upload.
    internal::checksum_reports two;
    two.reset(1, 2);
    two.restart(0);
    two.advance(1, w, 1, nothing_held, on_hash); // frame 0 from the live world
    REQUIRE(heard == 1);
    two.advance(4, w, 4, nothing_held, on_hash); // frame 2: not held; frame 3: live
    CHECK(heard == 2);
    CHECK(two.image_after(0) != nullptr);
    CHECK(two.image_after(2) == nullptr);
}

TEST_CASE("kept_images: a fill that throws leaves its slot empty, and no_frame is never kept",
          "[net][parts][forensics]") {
    world w = game_world(2);
    kept_images k;
    k.reset(2);
    CHECK(k.after(no_frame) == nullptr); // every empty slot is marked no_frame
    k.keep(0, 6, [&](world_image &img) { save(w, img, 7); });
    REQUIRE(k.after(6) != nullptr);
    CHECK_THROWS_AS(k.keep(2, 8, [](world_image &) { throw std::runtime_error("out of memory"); }), std::runtime_error);
    CHECK(k.after(8) == nullptr); // not an old image under the new frame
    CHECK(k.after(6) == nullptr); // slot 0 (index 2) was given up before the fill
    frame_t at = 0;
    CHECK(k.newest_at_or_before(100, at) == nullptr);
}

TEST_CASE("run_staged hashes the start and every stage, an opaque step as one stage", "[net][parts][forensics]") {
    world w{game_schema()}, plain{game_schema()};
    init_game(w);
    init_game(plain);
    std::vector<std::byte> rec(input_record_size(2, sizeof(game_input)));
    frame_record r{2, sizeof(game_input), rec.data()};
    r.set_flags(0, slot_flags::present);
    const game_input fire{1, 0, 1, 0};
    std::memcpy(r.input(0).data(), &fire, sizeof fire);
    const frame_inputs in{0, 2, sizeof(game_input), rec.data()};
    const step_function structured = structured_game_step();
    wire::stage_hashes h;
    std::vector<std::uint8_t> points;
    std::vector<std::uint64_t> seen;
    const std::uint64_t start = hash(w);
    internal::run_staged(w, structured, in, h, [&](std::uint8_t p, const world &sw) {
        points.push_back(p);
        seen.push_back(hash(sw));
    });
    CHECK(points == std::vector<std::uint8_t>{wire::stage_start, 0, 1, 2});
    CHECK(h.start == start);
    REQUIRE(h.after.size() == 3u);
    CHECK(seen == std::vector<std::uint64_t>{start, h.after[0], h.after[1], h.after[2]});
    step_game(plain, in);
    CHECK(h.after.back() == hash(plain)); // the frame's own hash
    CHECK(h.names == internal::stage_names_hash(structured));

    wire::stage_hashes opaque;
    world again{game_schema()};
    init_game(again);
    internal::run_staged(again, step_game, in, opaque, [](std::uint8_t, const world &) {});
    CHECK(opaque.after.size() == 1u);
    CHECK(opaque.after[0] == hash(plain));
    CHECK(opaque.names != h.names);
}

TEST_CASE("stage_names_hash changes with a system's name, first_difference finds the first point",
          "[net][parts][forensics]") {
    const auto named = [](const char *second) {
        schedule s;
        s.add("a", [](world &) {}).add(second, [](world &) {});
        return step_function{[](world &, const frame_inputs &) {}, std::move(s)};
    };
    CHECK(internal::stage_names_hash(named("b")) == internal::stage_names_hash(named("b")));
    CHECK(internal::stage_names_hash(named("b")) != internal::stage_names_hash(named("c")));

    wire::stage_hashes a{7, 1, {2, 3, 4}};
    wire::stage_hashes b = a;
    CHECK(internal::first_difference(a, b) == wire::stage_none);
    b.after[1] = 9;
    b.after[2] = 9;
    CHECK(internal::first_difference(a, b) == 1);
    b.start = 0;
    CHECK(internal::first_difference(a, b) == wire::stage_start);
    b.names = 8; // another schedule: nothing to compare
    CHECK(internal::first_difference(a, b) == wire::stage_none);
}

TEST_CASE("name_stage_divergence gives the value before the stage, the server's and the client's",
          "[net][parts][forensics]") {
    world w{game_schema()};
    init_game(w);
    const entity e = w.create();
    w.emplace<ship_pos>(e, 970, 5);
    const world_image before = save(w, 1);
    w.get<ship_pos>(e).x = -30;
    const world_image server = save(w, 1);
    w.get<ship_pos>(e).x = 971;
    const world_image client = save(w, 1);
    auto d = internal::name_stage_divergence(&before, server, client, w.get_schema(), w.get_schema());
    REQUIRE(d);
    CHECK(d->first_line == "ship_pos.x of entity " + to_string(e) + ": 970 -> -30 (server) vs 971 (client)");
    CHECK(d->named.names == std::vector<std::string>{"ship_pos.x"});
    // The server's stage did not change it: the client's did.
    auto u = internal::name_stage_divergence(&server, server, client, w.get_schema(), w.get_schema());
    REQUIRE(u);
    CHECK(u->first_line == "ship_pos.x of entity " + to_string(e) + ": -30 (server, unchanged) vs 971 (client)");
    auto none = internal::name_stage_divergence(&before, server, server, w.get_schema(), w.get_schema());
    REQUIRE(none);
    CHECK(none->named.summary.empty());
}

TEST_CASE("checksum_reports keeps each checksum frame's confirmed record with its image", "[net][parts][forensics]") {
    world w{game_schema()};
    init_game(w);
    internal::checksum_reports reports;
    reports.reset(1, 4, 3);
    const auto nothing_held = [](frame_t) -> const world_image * { return nullptr; };
    const auto ignore = [](frame_t, std::uint64_t) {};
    std::array<std::byte, 3> rec{std::byte{1}, std::byte{2}, std::byte{3}};
    reports.advance(1, w, 1, nothing_held, ignore, [&](frame_t f) { return f == 0 ? rec.data() : nullptr; });
    REQUIRE(reports.record(0) != nullptr);
    CHECK(std::memcmp(reports.record(0), rec.data(), rec.size()) == 0);
    rec[0] = std::byte{9}; // a copy, not the caller's buffer
    CHECK(reports.record(0)[0] == std::byte{1});
    CHECK(reports.record(1) == nullptr);
    CHECK(reports.record(no_frame) == nullptr);
    reports.advance(2, w, 2, nothing_held, ignore, [](frame_t) -> const std::byte * { return nullptr; });
    CHECK(reports.record(1) == nullptr); // none given: none kept
    CHECK(reports.record(0) != nullptr);
}
