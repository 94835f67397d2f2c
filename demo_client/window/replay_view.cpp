#include "replay_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace retcon::demo {

float replay_layout::bar_x_of(const replay_status &s, frame_t frame) const noexcept {
    if (s.end <= s.start) return bar_x;
    const frame_t f = std::clamp(frame, s.start, s.end);
    return bar_x + bar_w * static_cast<float>(f - s.start) / static_cast<float>(s.end - s.start);
}

frame_t replay_layout::frame_at(const replay_status &s, float x) const noexcept {
    if (s.end <= s.start || bar_w <= 0) return s.start;
    const float t = std::clamp((x - bar_x) / bar_w, 0.0f, 1.0f);
    return s.start + static_cast<frame_t>(std::lround(t * static_cast<float>(s.end - s.start)));
}

bool replay_layout::on_bar(float x, float y) const noexcept {
    const float slack = bar_h / 2 + 2; // a thin bar is easy to miss by a few pixels
    return x >= bar_x - slack && x <= bar_x + bar_w + slack && y >= bar_y - slack && y <= bar_y + bar_h + slack;
}

replay_layout layout_replay(float width, float height, float line_height, float pixel_scale) noexcept {
    replay_layout l;
    const float margin = std::round(8 * pixel_scale);
    l.help_y = height - margin - line_height;
    l.status_y = l.help_y - line_height - std::round(2 * pixel_scale);
    l.bar_h = std::round(12 * pixel_scale);
    l.bar_y = l.status_y - std::round(8 * pixel_scale) - l.bar_h;
    l.bar_x = margin;
    l.bar_w = std::max(width - 2 * margin, 1.0f);
    l.arena_x = margin;
    l.arena_y = margin;
    l.arena_w = std::max(width - 2 * margin, 1.0f);
    l.notice_y = l.bar_y - std::round(6 * pixel_scale) - line_height;
    l.arena_h = std::max(l.notice_y - std::round(4 * pixel_scale) - margin, 1.0f);
    l.badge = std::round(line_height * 0.6f);
    return l;
}

arena_view arena_of(const replay_layout &l, const scene &s) noexcept {
    return fit(s.width, s.height, l.arena_x, l.arena_y, l.arena_w, l.arena_h);
}

replay_status_text describe(const replay_status &s) {
    replay_status_text t;
    char buf[160];
    std::snprintf(buf, sizeof buf, "frame %llu / %llu   speed x%g%s", static_cast<unsigned long long>(s.frame),
                  static_cast<unsigned long long>(s.end), s.speed, s.paused ? "   paused" : "");
    t.position = buf;
    if (s.first_mismatch) {
        t.mismatch = true;
        std::snprintf(buf, sizeof buf, "MISMATCH at frame %llu (%llu frames differ)",
                      static_cast<unsigned long long>(*s.first_mismatch),
                      static_cast<unsigned long long>(s.mismatched));
    } else {
        std::snprintf(buf, sizeof buf, "verified %llu frames", static_cast<unsigned long long>(s.verified));
    }
    t.verdict = buf;
    if (!s.complete) t.incomplete = "file incomplete: " + s.truncation_note;
    return t;
}

namespace {

void draw_bar(canvas &c, const replay_status &s, std::span<const frame_t> keyframes, const replay_layout &l) {
    c.fill_rect(l.bar_x, l.bar_y, l.bar_w, l.bar_h, replay_palette::bar);
    const float here = l.bar_x_of(s, s.frame);
    c.fill_rect(l.bar_x, l.bar_y, here - l.bar_x, l.bar_h, replay_palette::played);
    // A tick in the bar's lower half per keyframe: where a seek restores from.
    for (const frame_t k : keyframes) {
        const float x = std::floor(l.bar_x_of(s, k));
        c.line({x, l.bar_y + l.bar_h / 2}, {x, l.bar_y + l.bar_h - 1}, replay_palette::keyframe);
    }
    if (s.first_mismatch) {
        const float x = std::floor(l.bar_x_of(s, *s.first_mismatch));
        c.fill_rect(x - 1, l.bar_y, 3, l.bar_h, replay_palette::mismatch);
    }
    const float w = std::max(3.0f, std::round(l.bar_h / 2));
    c.fill_rect(std::floor(here - w / 2), l.bar_y - 3, w, l.bar_h + 6, replay_palette::handle);
}

void draw_status(canvas &c, const scene &sc, const replay_status &s, const replay_layout &l) {
    const replay_status_text t = describe(s);
    float x = l.bar_x;
    x += c.text(x, l.status_y, t.position, palette::text) + l.badge * 2;
    // A square of the verdict's colour before its words: readable at a glance.
    const rgba verdict = t.mismatch ? replay_palette::mismatch : replay_palette::verified;
    const float lh = c.line_height();
    c.fill_rect(x, l.status_y + std::round((lh - l.badge) / 2), l.badge, l.badge, verdict);
    x += l.badge * 1.5f;
    x += c.text(x, l.status_y, t.verdict, verdict) + l.badge * 2;
    if (!t.incomplete.empty()) c.text(l.bar_x, l.notice_y, t.incomplete, replay_palette::incomplete);
    // The score board, each player in their colour.
    for (std::size_t i = 0; i < sc.players.size(); ++i) {
        if (!sc.players[i].present) continue;
        char buf[32];
        std::snprintf(buf, sizeof buf, "P%zu %u", i, static_cast<unsigned>(sc.players[i].score));
        x += c.text(x, l.status_y, buf, palette::player(static_cast<int>(i))) + l.badge;
    }
    // The keys, then (when the window is wide enough) how a seek works. Monospace: the keys'
    // width over their length is the width of any character.
    constexpr std::string_view keys =
        "space pause   . step   +/- speed   [ ] -/+10 s   home/end   drag the bar   esc quit";
    constexpr std::string_view note = "   a seek re-simulates from a keyframe, verifying";
    const float keys_w = c.text(l.bar_x, l.help_y, keys, palette::dim_text, 12);
    const float char_w = keys_w / static_cast<float>(keys.size());
    if (l.bar_x + keys_w + char_w * static_cast<float>(note.size()) <= l.bar_x + l.bar_w)
        c.text(l.bar_x + keys_w, l.help_y, note, palette::dim_text, 12);
}

} // namespace

void draw_replay(canvas &c, const scene &s, const replay_status &status, std::span<const frame_t> keyframes,
                 const replay_layout &layout) {
    c.clear(palette::background);
    paint(c, s, arena_of(layout, s));
    draw_bar(c, status, keyframes, layout);
    draw_status(c, s, status, layout);
}

} // namespace retcon::demo
