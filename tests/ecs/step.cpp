// step_function: the game's step, opaque or structured (docs/frames.md).
#include "common/components.hpp"
#include "common/misuse.hpp"

#include <retcon/ecs/step.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

/// @brief Applies one std::uint32_t input per slot to the game clock: frame += sum of inputs.
void apply_inputs(world &w, const frame_inputs &in) {
    for (std::size_t slot = 0; slot < in.players(); ++slot)
        if (in.present(slot)) w.resource<game_clock>().frame += in.get<std::uint32_t>(slot);
}

schedule make_systems(std::vector<std::string> &log) {
    schedule s;
    s.add("double",
          [&log](world &w) {
              log.push_back("double");
              w.resource<game_clock>().frame *= 2u;
          })
        .add<position>("move",
                       [&log](position &p) {
                           log.push_back("move");
                           p.x += 1.f;
                       })
        .add("plus one", [&log](world &w) {
            log.push_back("plus one");
            w.resource<game_clock>().frame += 1u;
        });
    return s;
}

} // namespace

TEST_CASE("an opaque step is any callable taking the world and the inputs", "[step]") {
    world w{standard_schema()};
    w.set_resource<game_clock>(0u, 60u);
    int calls = 0;
    const step_function step = [&calls](world &ww, const frame_inputs &in) {
        ++calls;
        ww.resource<game_clock>().frame = in.frame();
    };
    REQUIRE(static_cast<bool>(step));
    CHECK(step.systems() == nullptr);
    CHECK(step.stages() == 1);
    CHECK(step.stage_name(0) == "step");

    frame_inputs_buffer buf{1, sizeof(std::uint32_t)};
    step(w, buf.view(7));
    CHECK(calls == 1);
    CHECK(w.resource<game_clock>().frame == 7u);

    std::vector<std::string> stages;
    step.run(w, buf.view(8), [&](std::size_t i, std::string_view name) {
        CHECK(i == 0);
        stages.emplace_back(name);
    });
    CHECK(stages == std::vector<std::string>{"step"});
    CHECK(w.resource<game_clock>().frame == 8u);
    step.run_stages(w, buf.view(9), 0);
    CHECK(calls == 2);
    step.run_stages(w, buf.view(9), 1);
    CHECK(calls == 3);

    // Copies call the same function.
    const step_function copy = step;
    copy(w, buf.view(11));
    CHECK(calls == 4);
    CHECK(w.resource<game_clock>().frame == 11u);
}

TEST_CASE("a structured step owns its schedule: built from a temporary, run after it is gone", "[step]") {
    std::vector<std::string> log;
    step_function step;
    CHECK_FALSE(static_cast<bool>(step));
    {
        schedule temporary = make_systems(log);
        step = step_function{apply_inputs, std::move(temporary)};
        temporary = schedule{}; // whatever happens to the original, the step has its own
    }
    REQUIRE(static_cast<bool>(step));
    REQUIRE(step.systems() != nullptr);
    CHECK(step.systems()->size() == 3);
    CHECK(step.stages() == 4);
    CHECK(step.stage_name(0) == "apply inputs");
    CHECK(step.stage_name(1) == "double");
    CHECK(step.stage_name(2) == "move");
    CHECK(step.stage_name(3) == "plus one");

    world w{standard_schema()};
    w.set_resource<game_clock>(0u, 60u);
    w.emplace<position>(w.create(), 0.f, 0.f);
    frame_inputs_buffer buf{2, sizeof(std::uint32_t)};
    buf.set(0, std::uint32_t{3});
    buf.set(1, std::uint32_t{100}, slot_flags::none); // absent: not applied

    step(w, buf.view(0));
    CHECK(w.resource<game_clock>().frame == (0u + 3u) * 2u + 1u);
    CHECK(log == std::vector<std::string>{"double", "move", "plus one"});

    // Built from an lvalue, the step keeps a copy: later changes to the original do not reach it.
    schedule original = make_systems(log);
    const step_function copied{apply_inputs, original};
    original.add("late", [](world &) { FAIL("the step ran a system added after it was built"); });
    CHECK(copied.stages() == 4);
    copied(w, buf.view(1));
}

TEST_CASE("run calls after_stage after applying inputs, then after each system, in order", "[step]") {
    std::vector<std::string> log;
    const step_function step{apply_inputs, make_systems(log)};
    world w{standard_schema()};
    w.set_resource<game_clock>(5u, 60u);
    frame_inputs_buffer buf{1, sizeof(std::uint32_t)};
    buf.set(0, std::uint32_t{2});

    std::vector<std::size_t> indices;
    std::vector<std::string> names;
    std::vector<std::uint32_t> clock;
    step.run(w, buf.view(1), [&](std::size_t i, std::string_view name) {
        indices.push_back(i);
        names.emplace_back(name);
        clock.push_back(w.resource<game_clock>().frame);
    });
    CHECK(indices == std::vector<std::size_t>{0, 1, 2, 3});
    CHECK(names == std::vector<std::string>{"apply inputs", "double", "move", "plus one"});
    // Each call sees the world right after its stage: 5+2, ×2, unchanged, +1.
    CHECK(clock == std::vector<std::uint32_t>{7, 14, 14, 15});
}

TEST_CASE("observed calls before and after around each frame and keeps the stages", "[step]") {
    std::vector<std::string> log;
    const step_function step{apply_inputs, make_systems(log)};
    const step_function seen = step.observed([&log] { log.push_back("before"); }, [&log] { log.push_back("after"); });
    CHECK(seen.stages() == step.stages());
    CHECK(seen.stage_name(2) == "move");
    CHECK(seen.systems() == step.systems());
    world w{standard_schema()};
    w.set_resource<game_clock>(5u, 60u);
    frame_inputs_buffer buf{1, sizeof(std::uint32_t)};
    buf.set(0, std::uint32_t{2});
    seen(w, buf.view(1));
    CHECK(log == std::vector<std::string>{"before", "double", "plus one", "after"}); // no entity: "move" logs nothing
    log.clear();
    std::vector<std::string> stages;
    seen.run(w, buf.view(2), [&](std::size_t, std::string_view name) { stages.emplace_back(name); });
    CHECK(stages == std::vector<std::string>{"apply inputs", "double", "move", "plus one"});
    CHECK(log.front() == "before");
    CHECK(log.back() == "after");
    log.clear();
    step(w, buf.view(3)); // the original is not observed
    CHECK(std::count(log.begin(), log.end(), "before") == 0);
}

TEST_CASE("a requests_only step cannot be re-run, every other step can", "[step]") {
    std::vector<std::string> log;
    const auto opaque = [](world &, const frame_inputs &) {};
    CHECK(step_function{opaque}.can_rerun());
    CHECK(step_function{apply_inputs, make_systems(log)}.can_rerun());
    const step_function polled = step_function::requests_only(opaque);
    CHECK_FALSE(polled.can_rerun());
    CHECK(polled.stages() == 1u);
    CHECK_FALSE(polled.observed({}, {}).can_rerun());
}

TEST_CASE("run_stages runs only the first stages of a frame", "[step]") {
    std::vector<std::string> log;
    const step_function step{apply_inputs, make_systems(log)};
    frame_inputs_buffer buf{1, sizeof(std::uint32_t)};
    buf.set(0, std::uint32_t{2});
    const std::uint32_t expected[] = {5, 7, 14, 14, 15, 15};
    for (std::size_t count = 0; count < std::size(expected); ++count) {
        world w{standard_schema()};
        w.set_resource<game_clock>(5u, 60u);
        w.emplace<position>(w.create(), 0.f, 0.f);
        log.clear();
        step.run_stages(w, buf.view(0), count);
        CHECK(w.resource<game_clock>().frame == expected[count]);
        CHECK(log.size() == (count == 0 ? 0 : std::min<std::size_t>(count - 1, 3)));
    }
}

TEST_CASE("step_function misuse: an empty step or an empty apply-inputs function", "[step][misuse]") {
    world w{standard_schema()};
    frame_inputs_buffer buf{1, 4};
    const step_function empty;
    REQUIRE_MISUSE(empty(w, buf.view(0)), "default-constructed step");
    REQUIRE_MISUSE(empty.run(w, buf.view(0), [](std::size_t, std::string_view) {}), "default-constructed step");
    REQUIRE_MISUSE(empty.run_stages(w, buf.view(0), 1), "default-constructed step");
    CHECK(empty.stages() == 1);

    REQUIRE_MISUSE((step_function{step_function::function_type{}, schedule{}}), "needs an apply-inputs function");
}

TEST_CASE("step_function::stage_name past the last stage is misuse", "[step][misuse]") {
    std::vector<std::string> log;
    const step_function step{apply_inputs, make_systems(log)};
    REQUIRE_MISUSE((void)step.stage_name(4), "stage 4 of 4");
    const step_function opaque = [](world &, const frame_inputs &) {};
    REQUIRE_MISUSE((void)opaque.stage_name(1), "stage 1 of 1");
}
