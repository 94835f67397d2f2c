#include "net_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "scene_painter.hpp"

namespace retcon::demo {

namespace {

constexpr std::size_t plot_index(net_plot p) noexcept { return static_cast<std::size_t>(p); }

constexpr rgba plot_backdrop{255, 255, 255, 12};     // each plot's area, lighter than the panel
constexpr rgba unconfirmed_shade{255, 255, 255, 14}; // frames still predicted
constexpr rgba grid{60, 66, 84};                     // the zero line of frames ahead
constexpr rgba budget_line{150, 150, 165};           // the frame budget in the time plot
constexpr rgba hash_tick{110, 116, 134};             // a frame whose hash was checked
constexpr rgba faint_text{95, 100, 118};

/// The label of each plot, in net_plot order (short: the label column is narrow).
constexpr std::array<std::string_view, net_plot_count> labels = {
    "rollback", "re-simulated", "sim time", "frames ahead", "rtt, jitter", "bytes/s", "replaced", "stalls", "delay"};

/// The same, short, for a graph too small for a value under its label.
constexpr std::array<std::string_view, net_plot_count> short_labels = {
    "rollback", "re-sim", "time", "ahead", "rtt±jit", "bytes", "replaced", "stalls", "delay"};

/// DejaVu Sans Mono's advance is 0.602 em, rounded to whole pixels: the layout reserves 0.6 em
/// rounded up.
constexpr float char_width_em = 0.6f;
/// Its line skip is 1.164 em.
constexpr float line_em = 1.17f;
/// The label column's largest share of the graph's width (the plots keep the rest).
constexpr float label_share = 0.55f;
/// Characters the label column holds: the longest label or value (12) above each other, or a
/// short label (8), a space and a value (11) beside each other.
constexpr float label_chars = 12, label_chars_beside = 20;

/// The smallest "round" number at least @p v (1, 1.5, 2, 3, 4, 5, 6, 8 times a power of ten).
float nice_ceiling(float v) noexcept {
    if (!(v > 0)) return 1;
    const float decade = std::pow(10.0f, std::floor(std::log10(v)));
    for (const float step : {1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 8.0f, 10.0f})
        if (step * decade >= v * 0.9999f) return step * decade;
    return 10 * decade;
}

/// One pixel column of a plot: which frames fall in it, as indices into the span.
struct column_span {
    float x0 = 0, x1 = 0; // pixels [x0, x1)
    std::size_t first = 0, end = 0;
};

/// Calls @p fn with each run of frames that share a pixel column (several frames a pixel when
/// the plot is narrow, one frame several pixels wide when it is wide).
template<typename Fn>
void for_each_column(const pixel_rect &plot, std::size_t n, std::size_t columns, Fn &&fn) {
    if (n == 0 || columns == 0) return;
    const float cw = plot.w / static_cast<float>(columns);
    const std::size_t offset = columns - n;
    column_span run;
    bool open = false;
    for (std::size_t i = 0; i < n; ++i) {
        const float x0 = std::floor(plot.x + static_cast<float>(offset + i) * cw);
        const float x1 = std::max(x0 + 1, std::floor(plot.x + static_cast<float>(offset + i + 1) * cw));
        if (open && x0 < run.x1) {
            run.end = i + 1;
            run.x1 = std::max(run.x1, x1);
            continue;
        }
        if (open) fn(run);
        run = {x0, x1, i, i + 1};
        open = true;
    }
    if (open) fn(run);
}

/// The frame in [first, end) whose @p value is largest in magnitude (ties: the newest).
template<typename Value>
float column_value(std::span<const frame_telemetry> frames, const column_span &col, Value &&value) {
    float best = 0;
    for (std::size_t i = col.first; i < col.end; ++i) {
        const float v = value(frames[i]);
        if (std::fabs(v) >= std::fabs(best)) best = v;
    }
    return best;
}

/// Vertical position of @p v in @p plot scaled to [lo, hi], clamped inside the plot.
float y_of(const pixel_rect &plot, float v, float lo, float hi) noexcept {
    const float t = std::clamp((v - lo) / (hi - lo), 0.0f, 1.0f);
    return plot.y + plot.h - 1 - t * (plot.h - 1);
}

/// Bars of @p value from the bottom of @p plot, at least one pixel tall when not zero.
template<typename Value>
void bars(canvas &c, const pixel_rect &plot, std::span<const frame_telemetry> frames, std::size_t columns, float hi,
          rgba colour, Value &&value) {
    for_each_column(plot, frames.size(), columns, [&](const column_span &col) {
        const float v = column_value(frames, col, value);
        if (v <= 0) return;
        const float h = std::clamp(std::round(v / hi * plot.h), 1.0f, plot.h);
        c.fill_rect(col.x0, plot.y + plot.h - h, col.x1 - col.x0, h, colour);
    });
}

/// A line of @p value through the columns' centres; runs of zero are not drawn (they would lie
/// on the plot's floor, where nothing is the same as zero).
template<typename Value>
void series_line(canvas &c, const pixel_rect &plot, std::span<const frame_telemetry> frames, std::size_t columns,
                 float lo, float hi, rgba colour, Value &&value) {
    bool have = false;
    point previous;
    float previous_v = 0;
    for_each_column(plot, frames.size(), columns, [&](const column_span &col) {
        const float v = column_value(frames, col, value);
        const point here{std::floor((col.x0 + col.x1) / 2), std::round(y_of(plot, v, lo, hi))};
        if (have && (v != 0 || previous_v != 0)) {
            c.line(previous, here, colour);
        } else if (!have && v != 0) {
            c.fill_rect(here.x, here.y, 1, 1, colour); // a lone first point is still seen
        }
        previous = here;
        previous_v = v;
        have = true;
    });
}

/// Full-height ticks where @p flagged holds for a frame of the column.
template<typename Flag>
void ticks(canvas &c, const pixel_rect &plot, std::span<const frame_telemetry> frames, std::size_t columns, rgba colour,
           Flag &&flagged) {
    for_each_column(plot, frames.size(), columns, [&](const column_span &col) {
        for (std::size_t i = col.first; i < col.end; ++i)
            if (flagged(frames[i])) {
                c.fill_rect(col.x0, plot.y, col.x1 - col.x0, plot.h, colour);
                return;
            }
    });
}

/// A piece of a value: text in a colour (a value can mix two series' colours).
struct piece {
    std::string text;
    rgba colour;
};

/// Code points in @p s (the font is monospace: width = code points × advance).
std::size_t code_points(std::string_view s) noexcept {
    std::size_t n = 0;
    for (const char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0u) != 0x80u;
    return n;
}

std::string format(const char *fmt, double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, fmt, v);
    return buffer;
}

/// A byte rate, short: 950, 1.2k, 34k, 1.5M.
std::string bytes_text(double per_second) {
    if (per_second < 1000) return format("%.0f", per_second);
    if (per_second < 10'000) return format("%.1fk", per_second / 1000);
    if (per_second < 1'000'000) return format("%.0fk", per_second / 1000);
    return format("%.1fM", per_second / 1'000'000);
}

std::string ms_text(double ms) { return ms < 10 ? format("%.2f", ms) : format("%.1f", ms); }

/// The letter marking @p kind on the axis and in the legend.
char mark_letter(session_event_kind kind) noexcept {
    switch (kind) {
    case session_event_kind::desync_detected: return 'D';
    case session_event_kind::resynchronized: return 'R';
    case session_event_kind::player_joined: return 'J';
    case session_event_kind::player_left: return 'L';
    case session_event_kind::reconnecting:
    case session_event_kind::reconnected: return 'C';
    case session_event_kind::network_interrupted: return 'I';
    default: return '?';
    }
}

std::string_view mark_name(session_event_kind kind) noexcept {
    switch (kind) {
    case session_event_kind::desync_detected: return "desync";
    case session_event_kind::resynchronized: return "resync";
    case session_event_kind::player_joined: return "join";
    case session_event_kind::player_left: return "leave";
    case session_event_kind::reconnecting:
    case session_event_kind::reconnected: return "reconnect";
    case session_event_kind::network_interrupted: return "interrupted";
    default: return "";
    }
}

} // namespace

net_graph_layout layout_net_graph(float x, float y, float w, float h, float pixel_scale) noexcept {
    net_graph_layout l;
    const float s = pixel_scale > 0 ? pixel_scale : 1;
    l.panel = {x, y, w, h};
    const float pad = std::round(6 * s), row_gap = std::round(3 * s);
    // The largest text (13 points down to 7) that gives each plot two lines, label and value;
    // failing that, one line with the value beside a short label.
    const float inner_w = std::max(0.0f, w - 2 * pad);
    auto line = [&](int points) { return std::ceil(line_em * static_cast<float>(points) * s); };
    auto char_w = [&](int points) { return std::ceil(char_width_em * static_cast<float>(points) * s); };
    auto fits = [&](int points, float lines, float chars) {
        return 2 * pad + 2 * line(points) + 2 * row_gap +
                       static_cast<float>(net_plot_count) * (lines * line(points) + row_gap) <=
                   h &&
               chars * char_w(points) <= label_share * inner_w;
    };
    constexpr int largest = 13, smallest = 7;
    int size = largest;
    while (size > smallest && !fits(size, 2, label_chars)) --size;
    if (!fits(size, 2, label_chars)) {
        l.value_beside_label = true;
        size = largest;
        while (size > smallest && !fits(size, 1, label_chars_beside)) --size;
    }
    l.text_size = size;
    const float lh = line(size);
    l.header = {x + pad, y + pad, inner_w, lh};
    l.axis = {x + pad, y + h - pad - lh, inner_w, lh};
    const float top = l.header.y + lh + row_gap, bottom = l.axis.y - row_gap;
    const float row_h = std::max(0.0f, (bottom - top) / static_cast<float>(net_plot_count));
    const float chars = l.value_beside_label ? label_chars_beside : label_chars;
    const float label_w = std::min(std::floor(label_share * inner_w), chars * char_w(size));
    const float plot_x = x + pad + label_w + pad;
    const float plot_w = std::max(0.0f, x + w - pad - plot_x);
    for (std::size_t i = 0; i < net_plot_count; ++i) {
        const float row_y = std::round(top + static_cast<float>(i) * row_h);
        const float cell_h = std::max(0.0f, std::round(top + static_cast<float>(i + 1) * row_h) - row_y - row_gap);
        l.labels[i] = {x + pad, row_y, label_w, cell_h};
        l.plots[i] = {std::round(plot_x), row_y, std::floor(plot_w), cell_h};
    }
    return l;
}

std::size_t net_graph_columns(std::size_t frames_given, std::uint16_t tick_hz) noexcept {
    const std::size_t hz = tick_hz > 0 ? tick_hz : 60;
    return std::max(frames_given, 2 * hz);
}

std::optional<float> net_graph_frame_x(const pixel_rect &plot, std::span<const frame_telemetry> frames, frame_t f,
                                       std::uint16_t tick_hz) noexcept {
    if (frames.empty() || f < frames.front().frame || f > frames.back().frame) return std::nullopt;
    // Frames are in order but may skip (a resynchronisation): the first entry at or after f.
    const auto it = std::lower_bound(frames.begin(), frames.end(), f,
                                     [](const frame_telemetry &t, frame_t v) { return t.frame < v; });
    const auto i = static_cast<std::size_t>(it - frames.begin());
    const std::size_t columns = net_graph_columns(frames.size(), tick_hz);
    const float cw = plot.w / static_cast<float>(columns);
    const float x0 = std::floor(plot.x + static_cast<float>(columns - frames.size() + i) * cw);
    const float x1 = std::max(x0 + 1, std::floor(plot.x + static_cast<float>(columns - frames.size() + i + 1) * cw));
    return std::floor((x0 + x1) / 2);
}

rgba net_plot_colour(net_plot plot, int series) noexcept {
    switch (plot) {
    case net_plot::rollback: return {255, 160, 50};
    case net_plot::resimulated: return {240, 210, 80};
    case net_plot::sim_time: return series == 0 ? rgba{110, 160, 255} : rgba{70, 105, 175};
    case net_plot::ahead: return {100, 220, 170};
    case net_plot::rtt: return series == 0 ? rgba{80, 200, 255} : rgba{190, 140, 255};
    case net_plot::bytes: return series == 0 ? rgba{255, 130, 170} : rgba{150, 230, 110};
    case net_plot::replaced: return {255, 95, 70};
    case net_plot::stalls: return {235, 235, 245};
    case net_plot::delay: return {170, 190, 215};
    }
    return {255, 255, 255};
}

std::optional<rgba> net_mark_colour(session_event_kind kind) noexcept {
    switch (kind) {
    case session_event_kind::desync_detected: return rgba{255, 40, 40};
    case session_event_kind::resynchronized: return rgba{40, 255, 255};
    case session_event_kind::player_joined: return rgba{60, 255, 60};
    case session_event_kind::player_left: return rgba{255, 120, 0};
    case session_event_kind::reconnecting:
    case session_event_kind::reconnected: return rgba{255, 60, 255};
    case session_event_kind::network_interrupted: return rgba{255, 255, 0};
    default: return std::nullopt;
    }
}

void net_graph::note(const session_event &ev) {
    if (!net_mark_colour(ev.kind)) return;
    if (marks_.size() == max_marks) marks_.erase(marks_.begin());
    marks_.push_back({ev.frame, ev.kind});
}

void net_graph::draw(canvas &c, float x, float y, float w, float h, std::span<const frame_telemetry> frames,
                     std::uint16_t tick_hz) {
    const net_graph_layout l = layout_net_graph(x, y, w, h, c.pixel_scale());
    const int ts = l.text_size;
    const double hz = tick_hz > 0 ? tick_hz : 60;
    const double budget_us = 1e6 / hz;
    const std::size_t columns = net_graph_columns(frames.size(), tick_hz);
    const std::size_t n = frames.size();

    c.fill_rect(l.panel.x, l.panel.y, l.panel.w, l.panel.h, net_graph_panel);

    // The advance of the font, measured on the title (monospace): places right-aligned text.
    const float title_w = c.text(l.header.x, l.header.y, "net graph", palette::text, ts);
    const float advance =
        title_w > 0 ? title_w / 9.0f : std::ceil(char_width_em * static_cast<float>(ts) * c.pixel_scale());
    auto right_aligned = [&](float right, float ty, std::span<const piece> pieces) {
        std::size_t chars = 0;
        for (const auto &p : pieces) chars += code_points(p.text);
        float at = right - static_cast<float>(chars) * advance;
        for (const auto &p : pieces) {
            c.text(at, ty, p.text, p.colour, ts);
            at += static_cast<float>(code_points(p.text)) * advance;
        }
    };

    // The last second's figures for the values (the newest frame alone flickers).
    const std::size_t recent = std::min<std::size_t>(n, static_cast<std::size_t>(hz));
    const auto last_second = frames.subspan(n - recent);
    std::uint32_t max_depth = 0, resimulated = 0, max_us = 0, replaced = 0, stalls = 0;
    std::uint64_t in = 0, out = 0;
    for (const auto &f : last_second) {
        max_depth = std::max(max_depth, f.rollback_depth);
        resimulated += f.resimulated;
        max_us = std::max(max_us, f.resimulate_us + f.step_us);
        in += f.bytes_in;
        out += f.bytes_out;
    }
    // Over the whole window: the plots' scales, and the counts of rare things.
    float max_rollback = 0, max_resim = 0, max_time = 0, lo_ahead = 0, hi_ahead = 0, max_rtt = 0, max_bytes = 0,
          max_delay = 0;
    for (const auto &f : frames) {
        max_rollback = std::max(max_rollback, static_cast<float>(f.rollback_depth));
        max_resim = std::max(max_resim, static_cast<float>(f.resimulated));
        max_time = std::max(max_time, static_cast<float>(f.resimulate_us) + static_cast<float>(f.step_us));
        lo_ahead = std::min(lo_ahead, f.frames_ahead);
        hi_ahead = std::max(hi_ahead, f.frames_ahead);
        max_rtt = std::max({max_rtt, f.rtt_ms, f.jitter_ms});
        max_bytes = std::max({max_bytes, static_cast<float>(f.bytes_in), static_cast<float>(f.bytes_out)});
        max_delay = std::max(max_delay, static_cast<float>(f.input_delay));
        replaced += f.input_replaced;
        stalls += f.stalls;
    }
    const double seconds = static_cast<double>(recent) / hz;

    // Labels and current values (nothing but the label when there are no frames yet).
    const rgba dim = palette::dim_text;
    for (std::size_t i = 0; i < net_plot_count; ++i) {
        const pixel_rect &cell = l.labels[i];
        c.text(cell.x, cell.y, l.value_beside_label ? short_labels[i] : labels[i], dim, ts);
        if (n == 0) continue;
        const auto plot = static_cast<net_plot>(i);
        const rgba a = net_plot_colour(plot, 0), b = net_plot_colour(plot, 1);
        const frame_telemetry &now = frames.back();
        std::array<piece, 3> value{};
        std::size_t parts = 1;
        switch (plot) {
        case net_plot::rollback: value[0] = {format("max %.0f", max_depth), a}; break;
        case net_plot::resimulated: value[0] = {format("%.0f/s", resimulated / seconds), a}; break;
        case net_plot::sim_time:
            value[0] = {ms_text(max_us / 1000.0), a};
            value[1] = {"/" + ms_text(budget_us / 1000.0) + "ms", dim};
            parts = 2;
            break;
        case net_plot::ahead: value[0] = {format("%+.1f f", static_cast<double>(now.frames_ahead)), a}; break;
        case net_plot::rtt:
            value[0] = {format("%.0f", static_cast<double>(now.rtt_ms)), a};
            value[1] = {format(" ±%.0f", static_cast<double>(now.jitter_ms)), b};
            value[2] = {" ms", dim};
            parts = 3;
            break;
        case net_plot::bytes:
            value[0] = {"↑" + bytes_text(static_cast<double>(out) / seconds), a};
            value[1] = {" ↓" + bytes_text(static_cast<double>(in) / seconds), b};
            parts = 2;
            break;
        case net_plot::replaced: value[0] = {format("%.0f", replaced), a}; break;
        case net_plot::stalls: value[0] = {format("%.0f", stalls), a}; break;
        case net_plot::delay: value[0] = {format("%.0f f", now.input_delay), a}; break;
        }
        const float vy = l.value_beside_label ? cell.y : cell.y + c.line_height(ts);
        right_aligned(cell.x + cell.w, vy, std::span<const piece>(value.data(), parts));
    }

    // Plot areas, the still-predicted frames shaded, then each series clipped to its plot.
    for (const auto &p : l.plots) {
        c.fill_rect(p.x, p.y, p.w, p.h, plot_backdrop);
        for_each_column(p, n, columns, [&](const column_span &col) {
            for (std::size_t i = col.first; i < col.end; ++i)
                if (!frames[i].confirmed) {
                    c.fill_rect(col.x0, p.y, col.x1 - col.x0, p.h, unconfirmed_shade);
                    return;
                }
        });
    }
    auto plot_rect = [&](net_plot p) -> const pixel_rect & { return l.plots[plot_index(p)]; };
    auto clip_to = [&](const pixel_rect &p) { c.clip(p.x, p.y, p.w, p.h); };
    if (n > 0) {
        // Each scale: a round number above the window's largest value (a fifth of headroom, so
        // the tallest bar does not look cut off), and never below a minimum that keeps a quiet
        // link's small values small.
        constexpr float headroom = 1.2f;
        const float rollback_hi = nice_ceiling(std::max(8.0f, max_rollback * headroom));
        const float resim_hi = nice_ceiling(std::max(8.0f, max_resim * headroom));
        const float time_hi = std::max(static_cast<float>(budget_us), max_time) * 1.25f; // the budget always shows
        const float ahead_hi = nice_ceiling(std::max(4.0f, hi_ahead * headroom));
        const float ahead_lo = lo_ahead < 0 ? -nice_ceiling(-lo_ahead * headroom) : 0.0f;
        const float rtt_hi = nice_ceiling(std::max(100.0f, max_rtt * headroom));
        const float bytes_hi = nice_ceiling(std::max(256.0f, max_bytes * headroom));
        const float delay_hi = nice_ceiling(std::max(4.0f, max_delay * headroom));

        const pixel_rect &rb = plot_rect(net_plot::rollback);
        clip_to(rb);
        bars(c, rb, frames, columns, rollback_hi, net_plot_colour(net_plot::rollback),
             [](const frame_telemetry &f) { return static_cast<float>(f.rollback_depth); });

        const pixel_rect &rs = plot_rect(net_plot::resimulated);
        clip_to(rs);
        bars(c, rs, frames, columns, resim_hi, net_plot_colour(net_plot::resimulated),
             [](const frame_telemetry &f) { return static_cast<float>(f.resimulated); });

        // Stacked: stepping at the bottom, re-simulating on top; the budget as a line.
        const pixel_rect &tm = plot_rect(net_plot::sim_time);
        clip_to(tm);
        for_each_column(tm, n, columns, [&](const column_span &col) {
            std::size_t worst = col.first;
            for (std::size_t i = col.first; i < col.end; ++i)
                if (frames[i].resimulate_us + frames[i].step_us >= frames[worst].resimulate_us + frames[worst].step_us)
                    worst = i;
            const float step = static_cast<float>(frames[worst].step_us);
            const float total = step + static_cast<float>(frames[worst].resimulate_us);
            if (total <= 0) return;
            const float total_h = std::clamp(std::round(total / time_hi * tm.h), 1.0f, tm.h);
            const float step_h = step > 0 ? std::clamp(std::round(step / time_hi * tm.h), 1.0f, total_h) : 0.0f;
            const float base = tm.y + tm.h;
            if (step_h > 0)
                c.fill_rect(col.x0, base - step_h, col.x1 - col.x0, step_h, net_plot_colour(net_plot::sim_time, 1));
            if (total_h > step_h)
                c.fill_rect(col.x0, base - total_h, col.x1 - col.x0, total_h - step_h,
                            net_plot_colour(net_plot::sim_time, 0));
        });
        const float budget_y = std::round(y_of(tm, static_cast<float>(budget_us), 0, time_hi));
        for (float bx = tm.x; bx < tm.x + tm.w; bx += 6 * c.pixel_scale()) // dashed
            c.line({bx, budget_y}, {std::min(bx + 3 * c.pixel_scale(), tm.x + tm.w - 1), budget_y}, budget_line);

        const pixel_rect &ah = plot_rect(net_plot::ahead);
        clip_to(ah);
        if (ahead_lo < 0) {
            const float zero_y = std::round(y_of(ah, 0, ahead_lo, ahead_hi));
            c.line({ah.x, zero_y}, {ah.x + ah.w - 1, zero_y}, grid);
        }
        series_line(c, ah, frames, columns, ahead_lo, ahead_hi, net_plot_colour(net_plot::ahead),
                    [](const frame_telemetry &f) { return f.frames_ahead; });

        const pixel_rect &rt = plot_rect(net_plot::rtt);
        clip_to(rt);
        series_line(c, rt, frames, columns, 0, rtt_hi, net_plot_colour(net_plot::rtt, 1),
                    [](const frame_telemetry &f) { return f.jitter_ms; });
        series_line(c, rt, frames, columns, 0, rtt_hi, net_plot_colour(net_plot::rtt, 0),
                    [](const frame_telemetry &f) { return f.rtt_ms; });

        const pixel_rect &by = plot_rect(net_plot::bytes);
        clip_to(by);
        series_line(c, by, frames, columns, 0, bytes_hi, net_plot_colour(net_plot::bytes, 1),
                    [](const frame_telemetry &f) { return static_cast<float>(f.bytes_in); });
        series_line(c, by, frames, columns, 0, bytes_hi, net_plot_colour(net_plot::bytes, 0),
                    [](const frame_telemetry &f) { return static_cast<float>(f.bytes_out); });

        const pixel_rect &rp = plot_rect(net_plot::replaced);
        clip_to(rp);
        ticks(c, rp, frames, columns, net_plot_colour(net_plot::replaced),
              [](const frame_telemetry &f) { return f.input_replaced; });

        const pixel_rect &st = plot_rect(net_plot::stalls);
        clip_to(st);
        ticks(c, st, frames, columns, net_plot_colour(net_plot::stalls),
              [](const frame_telemetry &f) { return f.stalls > 0; });

        const pixel_rect &dl = plot_rect(net_plot::delay);
        clip_to(dl);
        series_line(c, dl, frames, columns, 0, delay_hi, net_plot_colour(net_plot::delay),
                    [](const frame_telemetry &f) { return static_cast<float>(f.input_delay); });
        c.clip_off();

        // Frames whose hash was compared: ticks under the last plot.
        const pixel_rect &last = l.plots.back();
        const float tick_h = std::max(1.0f, std::round(2 * c.pixel_scale()));
        for_each_column(last, n, columns, [&](const column_span &col) {
            for (std::size_t i = col.first; i < col.end; ++i)
                if (frames[i].hash_checked) {
                    c.fill_rect(col.x0, last.y + last.h + 1, 1, tick_h, hash_tick);
                    return;
                }
        });
    }

    // The time axis: the window's length at the left, "now" at the right.
    const double window_s = static_cast<double>(columns) / hz;
    const pixel_rect &first_plot = l.plots.front(), &last_plot = l.plots.back();
    c.text(first_plot.x, l.axis.y, format("-%.0f s", window_s), faint_text, ts);
    const piece now_text{"now", faint_text};
    right_aligned(first_plot.x + first_plot.w, l.axis.y, std::span<const piece>(&now_text, 1));

    // Events: a line across every plot at its frame, its letter on the axis, and a legend of the
    // kinds shown in the header.
    std::array<bool, static_cast<std::size_t>(last_session_event_kind) + 1> shown{};
    float letter_until = first_plot.x + 5 * advance; // keep letters off the axis's own text
    for (const auto &m : marks_) {
        const auto at = net_graph_frame_x(first_plot, frames, m.frame, tick_hz);
        if (!at) continue;
        const rgba colour = *net_mark_colour(m.kind);
        c.line({*at, first_plot.y}, {*at, last_plot.y + last_plot.h - 1}, colour);
        shown[static_cast<std::size_t>(m.kind)] = true;
        if (*at >= letter_until && *at + advance <= last_plot.x + last_plot.w - 3 * advance) {
            c.text(*at - advance / 2, l.axis.y, std::string(1, mark_letter(m.kind)), colour, ts);
            letter_until = *at + advance * 1.5f;
        }
    }
    std::vector<piece> legend;
    std::array<bool, 128> letter_done{};
    for (std::size_t k = 0; k < shown.size(); ++k) {
        if (!shown[k]) continue;
        const auto kind = static_cast<session_event_kind>(k);
        const char letter = mark_letter(kind);
        if (letter_done[static_cast<unsigned char>(letter)]) continue;
        letter_done[static_cast<unsigned char>(letter)] = true;
        legend.push_back({std::string(legend.empty() ? "" : "  ") + letter + " " + std::string(mark_name(kind)),
                          *net_mark_colour(kind)});
    }
    if (legend.empty()) legend.push_back({format("%.0f Hz", hz), faint_text});
    std::size_t legend_chars = 0;
    for (const auto &p : legend) legend_chars += code_points(p.text);
    if (static_cast<float>(legend_chars) * advance <= l.header.w - title_w - 2 * advance)
        right_aligned(l.header.x + l.header.w, l.header.y, legend);
}

} // namespace retcon::demo
