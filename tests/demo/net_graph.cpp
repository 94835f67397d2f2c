// The net graph: synthetic telemetry drawn with SDL's software renderer, read back, and checked
// plot by plot where the layout says each plot is.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "demo/display.hpp"
#include "net_graph.hpp"

using namespace retcon;
using namespace retcon::demo;

namespace {

constexpr std::uint16_t tick_hz = 60;
constexpr frame_t first_frame = 1000;
constexpr std::size_t frame_count = 300;
constexpr rgba game_grey{70, 74, 80}; // what the graph is drawn over

/// 300 frames of a quiet session: confirmed, nothing measured.
std::vector<frame_telemetry> quiet_frames() {
    std::vector<frame_telemetry> frames(frame_count);
    for (std::size_t i = 0; i < frames.size(); ++i) {
        frames[i].frame = first_frame + static_cast<frame_t>(i);
        frames[i].confirmed = true;
    }
    return frames;
}

/// Pixels of @p colour inside @p r.
std::size_t count(const picture &p, const pixel_rect &r, rgba colour) {
    std::size_t n = 0;
    for (int y = static_cast<int>(r.y); y < static_cast<int>(r.y + r.h); ++y)
        for (int x = static_cast<int>(r.x); x < static_cast<int>(r.x + r.w); ++x) n += p.at(x, y) == colour;
    return n;
}

/// Pixels of @p r that are not @p colour.
std::size_t count_other(const picture &p, const pixel_rect &r, rgba colour) {
    std::size_t n = 0;
    for (int y = static_cast<int>(r.y); y < static_cast<int>(r.y + r.h); ++y)
        for (int x = static_cast<int>(r.x); x < static_cast<int>(r.x + r.w); ++x) n += !(p.at(x, y) == colour);
    return n;
}

/// The series colours of @p plot (two for rtt, bytes and time; one for the others).
std::vector<rgba> colours_of(net_plot plot) {
    if (plot == net_plot::rtt || plot == net_plot::bytes || plot == net_plot::sim_time)
        return {net_plot_colour(plot, 0), net_plot_colour(plot, 1)};
    return {net_plot_colour(plot, 0)};
}

/// Makes @p plot's series (all of them) non-zero on some frames of @p frames.
void light_up(std::vector<frame_telemetry> &frames, net_plot plot) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
        auto &f = frames[i];
        switch (plot) {
        case net_plot::rollback: f.rollback_depth = i % 10 == 0 ? 4 : 0; break;
        case net_plot::resimulated: f.resimulated = i % 10 == 0 ? 3 : 0; break;
        case net_plot::sim_time:
            f.resimulate_us = i % 10 == 0 ? 4000 : 0;
            f.step_us = 1500;
            break;
        case net_plot::ahead: f.frames_ahead = 2.5f; break;
        case net_plot::rtt:
            f.rtt_ms = 60;
            f.jitter_ms = 12;
            break;
        case net_plot::bytes:
            f.bytes_in = 300;
            f.bytes_out = 120;
            break;
        case net_plot::replaced: f.input_replaced = i % 20 == 0; break;
        case net_plot::stalls: f.stalls = i % 25 == 0 ? 1 : 0; break;
        case net_plot::delay: f.input_delay = 2; break;
        }
    }
}

struct drawn {
    picture pixels;
    net_graph_layout layout;
};

constexpr float gx = 20, gy = 16, gw = 440, gh = 330;

/// Draws @p frames with @p graph on a grey canvas and reads it back.
drawn draw(canvas &c, net_graph &graph, std::span<const frame_telemetry> frames) {
    c.clear(game_grey);
    graph.draw(c, gx, gy, gw, gh, frames, tick_hz);
    return {c.read_pixels(), layout_net_graph(gx, gy, gw, gh, c.pixel_scale())};
}

void keep(const picture &p, const char *name) {
    if (const char *dir = std::getenv("RETCON_KEEP_PICTURES")) (void)p.save_bmp(std::string(dir) + "/" + name);
}

session_event event(session_event_kind kind, frame_t frame) {
    session_event ev;
    ev.kind = kind;
    ev.frame = frame;
    return ev;
}

} // namespace

TEST_CASE("the net graph's layout stacks its plots inside the panel, right of their labels", "[window][net_graph]") {
    for (const float scale : {1.0f, 2.0f}) {
        INFO("pixel scale " << scale);
        const auto l = layout_net_graph(10 * scale, 20 * scale, 440 * scale, 330 * scale, scale);
        CHECK(l.text_size >= 7);
        for (std::size_t i = 0; i < net_plot_count; ++i) {
            const auto &p = l.plots[i];
            CHECK(p.w > 100 * scale);
            CHECK(p.h >= 8 * scale);
            CHECK(p.x >= l.labels[i].x + l.labels[i].w); // values stay out of the plot
            CHECK(p.x + p.w <= l.panel.x + l.panel.w);
            CHECK(p.y >= l.header.y + l.header.h);
            CHECK(p.y + p.h <= l.axis.y);
            if (i > 0) CHECK(p.y >= l.plots[i - 1].y + l.plots[i - 1].h); // no overlap
        }
    }
    // A small rectangle gets smaller text, never overlapping rows.
    const auto small = layout_net_graph(0, 0, 300, 200);
    CHECK(layout_net_graph(0, 0, 200, 150).text_size < 11);
    CHECK(small.value_beside_label);
    CHECK_FALSE(layout_net_graph(0, 0, 440, 330).value_beside_label);
    for (std::size_t i = 1; i < net_plot_count; ++i)
        CHECK(small.plots[i].y >= small.plots[i - 1].y + small.plots[i - 1].h);
}

TEST_CASE("the x axis puts the newest frame at the right and knows only the frames given", "[window][net_graph]") {
    const auto frames = quiet_frames();
    const pixel_rect plot{100, 0, 300, 20};
    CHECK(net_graph_columns(frames.size(), tick_hz) == frames.size());
    CHECK(net_graph_columns(10, tick_hz) == 120); // a young session is not stretched
    const auto newest = net_graph_frame_x(plot, frames, frames.back().frame, tick_hz);
    const auto oldest = net_graph_frame_x(plot, frames, frames.front().frame, tick_hz);
    REQUIRE(newest);
    REQUIRE(oldest);
    CHECK(*newest == Approx(399).margin(1));
    CHECK(*oldest == Approx(100).margin(1));
    CHECK_FALSE(net_graph_frame_x(plot, frames, first_frame - 1, tick_hz));
    CHECK_FALSE(net_graph_frame_x(plot, frames, frames.back().frame + 1, tick_hz));
    CHECK_FALSE(net_graph_frame_x(plot, {}, first_frame, tick_hz));
}

TEST_CASE("an empty net graph draws its panel and labels but no plot", "[window][net_graph]") {
    auto c = testing::test_canvas(480, 360);
    net_graph graph;
    const auto [p, l] = draw(*c, graph, {});
    keep(p, "net_graph_empty.bmp");
    // The panel darkens what is under it; outside it the game shows.
    const rgba panel = p.at(static_cast<int>(gx) + 2, static_cast<int>(gy + gh) - 2);
    CHECK(panel.r < game_grey.r);
    CHECK(panel.g < game_grey.g);
    CHECK(p.at(static_cast<int>(gx) - 2, static_cast<int>(gy)) == game_grey);
    for (std::size_t i = 0; i < net_plot_count; ++i) {
        INFO("plot " << i);
        CHECK(count_other(p, l.labels[i], panel) > 20); // its label is written
        for (std::size_t k = 0; k < net_plot_count; ++k)
            for (const rgba colour : colours_of(static_cast<net_plot>(k))) CHECK(count(p, l.plots[i], colour) == 0);
    }
}

TEST_CASE("each plot shows its series when it is not zero, and only then", "[window][net_graph]") {
    auto c = testing::test_canvas(480, 360);
    for (std::size_t lit = 0; lit < net_plot_count; ++lit) {
        INFO("plot lit: " << lit);
        auto frames = quiet_frames();
        light_up(frames, static_cast<net_plot>(lit));
        net_graph graph;
        const auto [p, l] = draw(*c, graph, frames);
        for (std::size_t i = 0; i < net_plot_count; ++i) {
            INFO("plot looked at: " << i);
            for (std::size_t k = 0; k < net_plot_count; ++k)
                for (const rgba colour : colours_of(static_cast<net_plot>(k))) {
                    const std::size_t found = count(p, l.plots[i], colour);
                    if (i == lit && k == lit) CHECK(found > 0);
                    else
                        CHECK(found == 0);
                }
        }
    }
}

TEST_CASE("a picture without the graph fails the plot checks", "[window][net_graph]") {
    auto c = testing::test_canvas(480, 360);
    c->clear(game_grey);
    const picture p = c->read_pixels();
    const auto l = layout_net_graph(gx, gy, gw, gh, c->pixel_scale());
    for (std::size_t i = 0; i < net_plot_count; ++i) {
        CHECK(count(p, l.plots[i], net_plot_colour(static_cast<net_plot>(i))) == 0);
        CHECK(count_other(p, l.labels[i], game_grey) == 0);
    }
}

TEST_CASE("a deeper rollback draws a taller bar", "[window][net_graph]") {
    auto c = testing::test_canvas(480, 360);
    net_graph graph;
    auto bar_pixels = [&](std::uint32_t depth) {
        auto frames = quiet_frames();
        frames[150].rollback_depth = depth;
        const auto [p, l] = draw(*c, graph, frames);
        const pixel_rect &plot = l.plots[static_cast<std::size_t>(net_plot::rollback)];
        const auto x = net_graph_frame_x(plot, frames, frames[150].frame, tick_hz);
        REQUIRE(x);
        // The bar stands on the plot's floor at the frame's x.
        if (depth > 0)
            CHECK(p.at(static_cast<int>(*x), static_cast<int>(plot.y + plot.h) - 1) ==
                  net_plot_colour(net_plot::rollback));
        return count(p, plot, net_plot_colour(net_plot::rollback));
    };
    const std::size_t shallow = bar_pixels(2), deep = bar_pixels(6);
    CHECK(shallow > 0);
    CHECK(deep >= 2 * shallow);
    CHECK(bar_pixels(0) == 0);
}

TEST_CASE("events are marked at their frame across the plots, and events older than the window are not",
          "[window][net_graph]") {
    auto c = testing::test_canvas(480, 360);
    const auto frames = quiet_frames();
    const frame_t desync_at = first_frame + 200, joined_at = first_frame + 60;
    const rgba desync = *net_mark_colour(session_event_kind::desync_detected);
    const rgba joined = *net_mark_colour(session_event_kind::player_joined);

    net_graph graph;
    graph.note(event(session_event_kind::desync_detected, first_frame - 40)); // before the window
    {
        const auto [p, l] = draw(*c, graph, frames);
        const pixel_rect all{0, 0, static_cast<float>(p.width), static_cast<float>(p.height)};
        CHECK(count(p, all, desync) == 0);
    }
    graph.note(event(session_event_kind::desync_detected, desync_at));
    graph.note(event(session_event_kind::player_joined, joined_at));
    const auto [p, l] = draw(*c, graph, frames);
    keep(p, "net_graph_marks.bmp");
    for (std::size_t i = 0; i < net_plot_count; ++i) {
        INFO("plot " << i);
        const pixel_rect &plot = l.plots[i];
        const auto dx = net_graph_frame_x(plot, frames, desync_at, tick_hz);
        const auto jx = net_graph_frame_x(plot, frames, joined_at, tick_hz);
        REQUIRE(dx);
        REQUIRE(jx);
        const int mid = static_cast<int>(plot.y + plot.h / 2);
        CHECK(p.at(static_cast<int>(*dx), mid) == desync);
        CHECK(p.at(static_cast<int>(*jx), mid) == joined);
        // Only the one desync inside the window is drawn: one column of the plot, its full height.
        CHECK(count(p, plot, desync) == static_cast<std::size_t>(plot.h));
    }
}

TEST_CASE("note() keeps only the events the graph marks, and at most max_marks of them", "[window][net_graph]") {
    net_graph graph;
    for (const auto kind :
         {session_event_kind::connected, session_event_kind::synchronized, session_event_kind::wait_recommended,
          session_event_kind::disconnected, session_event_kind::network_resumed, session_event_kind::match_ended})
        graph.note(event(kind, 5));
    CHECK(graph.marks().empty());
    for (const auto kind :
         {session_event_kind::desync_detected, session_event_kind::resynchronized, session_event_kind::player_joined,
          session_event_kind::player_left, session_event_kind::reconnecting, session_event_kind::reconnected,
          session_event_kind::network_interrupted})
        graph.note(event(kind, 7));
    CHECK(graph.marks().size() == 7);
    for (frame_t f = 0; f < 1000; ++f) graph.note(event(session_event_kind::player_joined, 100 + f));
    REQUIRE(graph.marks().size() == net_graph::max_marks);
    CHECK(graph.marks().front().frame == 100 + 1000 - net_graph::max_marks); // the oldest went first
    CHECK(graph.marks().back().frame == 100 + 999);
}

TEST_CASE("a lively session's graph fills every plot", "[window][net_graph]") {
    // A link like 120 ms ± 30 ms with some loss, from a fixed pseudo-random sequence.
    std::uint32_t seed = 12345;
    auto next = [&seed](std::uint32_t below) {
        seed = seed * 1664525u + 1013904223u;
        return (seed >> 8) % below;
    };
    auto frames = quiet_frames();
    for (std::size_t i = 0; i < frames.size(); ++i) {
        auto &f = frames[i];
        const bool late = next(100) < 30;
        f.rollback_depth = late ? 3 + next(6) : 0;
        f.resimulated = f.rollback_depth;
        f.resimulate_us = f.resimulated * (350 + next(150));
        f.step_us = 300 + next(120);
        f.frames_ahead = 1.5f + static_cast<float>(next(100)) / 60.0f - (i > 200 && i < 230 ? 2.5f : 0.0f);
        f.rtt_ms = 120 + static_cast<float>(next(60)) - 30;
        f.jitter_ms = 18 + static_cast<float>(next(12));
        f.bytes_in = 90 + next(80);
        f.bytes_out = 40 + next(30);
        f.input_replaced = next(100) < 3;
        f.stalls = i > 210 && i < 218 ? 1 : 0;
        f.input_delay = i < 150 ? 2 : 3;
        f.confirmed = i + 8 < frames.size();
        f.hash_checked = i % 30 == 0;
    }
    net_graph graph;
    graph.note(event(session_event_kind::player_joined, first_frame + 40));
    graph.note(event(session_event_kind::network_interrupted, first_frame + 205));
    graph.note(event(session_event_kind::desync_detected, first_frame + 250));
    graph.note(event(session_event_kind::resynchronized, first_frame + 262));
    auto c = testing::test_canvas(480, 360);
    const auto [p, l] = draw(*c, graph, frames);
    keep(p, "net_graph.bmp");
    for (std::size_t i = 0; i < net_plot_count; ++i) {
        INFO("plot " << i);
        for (const rgba colour : colours_of(static_cast<net_plot>(i))) CHECK(count(p, l.plots[i], colour) > 0);
    }
    // A small overlay (smaller text, plots a pixel a frame or less) still shows every series.
    c->clear(game_grey);
    graph.draw(*c, 4, 4, 260, 190, frames, tick_hz);
    const picture small = c->read_pixels();
    keep(small, "net_graph_small.bmp");
    const auto small_layout = layout_net_graph(4, 4, 260, 190, c->pixel_scale());
    for (std::size_t i = 0; i < net_plot_count; ++i) {
        INFO("small, plot " << i);
        for (const rgba colour : colours_of(static_cast<net_plot>(i)))
            CHECK(count(small, small_layout.plots[i], colour) > 0);
    }
}
