#include <catch2/catch.hpp>

#include <common/test_game.hpp>

using namespace retcon;
using namespace retcon::test;

namespace {
std::vector<std::byte> inputs_for(bot &b0, bot &b1) {
    std::vector<std::byte> out(8);
    const auto a = b0.next();
    const auto b = b1.next();
    std::memcpy(out.data(), &a, 4);
    std::memcpy(out.data() + 4, &b, 4);
    return out;
}
} // namespace

TEST_CASE("sync test passes a deterministic game", "[net][sync_test]") {
    world w{game_schema()};
    init_game(w);
    sync_test test{game_config(2), w, step_game, 8};
    bot b0{11}, b1{22};
    for (int i = 0; i < 400; ++i) REQUIRE(test.tick(inputs_for(b0, b1)));
    CHECK_FALSE(test.failure());
    CHECK(test.frame() == 400);
    CHECK(test.resimulated() >= 392u * 8u);
}

TEST_CASE("sync test reports a non-deterministic step with frame and pool", "[net][sync_test]") {
    world w{game_schema()};
    init_game(w);
    const sync_test *self = nullptr;
    auto leaky = [&self](world &ww, const frame_inputs &in) {
        step_game(ww, in);
        // Behaviour that depends on something outside the world (here: whether this is the
        // first run) is the classic rollback bug; the first run of frame 49 differs.
        if (in.frame() == 49 && !self->is_resimulating()) ww.view<ship_pos>().each([](ship_pos &p) { p.x += 1000; });
    };
    sync_test test{game_config(2), w, leaky, 4};
    self = &test;
    bot b0{1}, b1{2};
    bool ok = true;
    for (int i = 0; i < 100 && ok; ++i) ok = test.tick(inputs_for(b0, b1));
    REQUIRE_FALSE(ok);
    REQUIRE(test.failure());
    const auto &f = *test.failure();
    CHECK(f.frame == 49);
    CHECK(f.expected != f.actual);
    REQUIRE_FALSE(f.sections.empty());
    CHECK(f.sections.front() == "ship_pos");
    CHECK_THAT(f.describe(), Catch::Contains("frame 49") && Catch::Contains("ship_pos"));
}

TEST_CASE("sync test with a schedule names the first non-deterministic system", "[net][sync_test]") {
    world w{game_schema()};
    init_game(w);
    int counter = 0;
    schedule systems;
    systems.add("move ships", [](world &ww) { ww.view<ship_pos>(exclude<bullet>).each([](ship_pos &p) { p.x += 1; }); })
        .add("bad rng", [&counter](world &ww) {
            // Uses a counter that lives outside the world: re-simulation sees other values.
            ++counter;
            ww.view<ship_pos, bullet>().each([&](ship_pos &, bullet &b) { b.vx = counter; });
        })
        .add("bullets", [](world &ww) { ww.view<ship_pos, bullet>().each([](ship_pos &p, const bullet &b) { p.x += b.vx; }); });
    auto apply = [](world &ww, const frame_inputs &in) {
        // Spawn a bullet for player 0 each frame so the bad system has something to touch.
        if (in.frame() % 2 == 0) {
            const auto e = ww.create();
            ww.emplace<ship_pos>(e, 0, 0);
            ww.emplace<bullet>(e, 0, 0, 1000u, 0u);
        }
    };
    sync_test test{game_config(2), w, apply, systems, 6};
    bot b0{1}, b1{2};
    bool ok = true;
    for (int i = 0; i < 50 && ok; ++i) ok = test.tick(inputs_for(b0, b1));
    REQUIRE(test.failure());
    CHECK(test.failure()->system == "bad rng");
    CHECK(test.failure()->sections == std::vector<std::string>{"bullet"});
}
