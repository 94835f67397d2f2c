#include <retcon/net/trace.hpp>

#include <retcon/net/events.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include <unistd.h>

namespace retcon {

namespace {
/// The built-in names, in trace_name order, with their slices' argument names.
struct builtin {
    const char *name, *arg_a, *arg_b;
};
constexpr builtin builtins[] = {
    {"tick", "frame", ""},       {"rollback", "depth", "first_wrong"},
    {"resimulate", "frame", ""}, {"step", "frame", ""},
    {"save", "frame", ""},       {"checksum", "", ""},
    {"send", "bytes", ""},       {"receive", "bytes", "kind"},
    {"hash", "frame", ""},       {"record", "frame", ""},
    {"confirm", "replaced", ""}, {"stall", "", ""},
    {"rtt_ms", "", ""},          {"frames_ahead", "", ""},
    {"input_delay", "", ""},     {"players", "", ""},
    {"bytes_out", "", ""},       {"keyframe", "bytes", ""},
    {"poll", "bytes", ""},       {"bytes_in_per_s", "", ""},
    {"bytes_out_per_s", "", ""},
};
static_assert(std::size(builtins) == static_cast<std::size_t>(trace_name::event));
} // namespace

trace_recorder::trace_recorder(const trace_options &options) : clock_{options.clock} {
    data_.injected_clock = clock_.now_ns != nullptr;
    data_.process = options.process_name;
    data_.pid = options.pid ? options.pid : static_cast<std::uint32_t>(::getpid());
    data_.records.resize(std::max<std::size_t>(options.records, 1));
    data_.text.resize(text_capacity);
    for (const builtin &b : builtins) data_.names.push_back({b.name, b.arg_a, b.arg_b});
    for (std::size_t k = 0; k <= static_cast<std::size_t>(last_session_event_kind); ++k)
        data_.names.push_back({to_string(static_cast<session_event_kind>(k)), "", ""});
}

std::uint64_t trace_recorder::now() const noexcept {
    if (clock_.now_ns) return clock_.now_ns(clock_.context);
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count());
}

trace_name_id trace_recorder::intern(std::string_view name, std::string_view arg_a, std::string_view arg_b) {
    auto &names = data_.names;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i].name == name && names[i].arg_a == arg_a && names[i].arg_b == arg_b)
            return static_cast<trace_name_id>(i);
    constexpr std::size_t max_names = std::numeric_limits<trace_name_id>::max();
    if (names.size() >= max_names) return static_cast<trace_name_id>(max_names - 1);
    names.push_back({std::string{name}, std::string{arg_a}, std::string{arg_b}});
    return static_cast<trace_name_id>(names.size() - 1);
}

std::string_view trace_recorder::name(trace_name_id id) const noexcept {
    return id < data_.names.size() ? std::string_view{data_.names[id].name} : std::string_view{"?"};
}

void trace_recorder::push(const record &r) noexcept {
    data_.records[data_.head] = r;
    if (data_.full) ++data_.overwritten;
    if (++data_.head == data_.records.size()) {
        data_.head = 0;
        data_.full = true;
    }
}

void trace_recorder::complete(trace_name_id name, std::uint64_t start, std::uint64_t end, trace_track track,
                              std::int64_t a, std::int64_t b) noexcept {
    push({start, end > start ? end - start : 0, a, b, name, phase::complete, track});
}

void trace_recorder::counter(trace_name_id name, double value) noexcept {
    if (!std::isfinite(value)) return; // JSON has no NaN or Infinity
    push({now(), 0, std::bit_cast<std::int64_t>(value), 0, name, phase::counter, trace_track::tick});
}

void trace_recorder::instant(trace_name_id name, std::string_view text) noexcept {
    text = text.substr(0, max_text);
    const std::uint64_t start = data_.text_end;
    for (const char c : text) data_.text[data_.text_end++ % data_.text.size()] = c;
    push({now(), 0, static_cast<std::int64_t>(start), static_cast<std::int64_t>(text.size()), name, phase::instant,
          trace_track::tick});
}

void internal::trace_data::assign(const trace_data &from) {
    // Element-wise assignment: vectors and strings keep their storage when it is large enough,
    // so a snapshot that has held this recorder once copies it again without allocating.
    injected_clock = from.injected_clock;
    process = from.process;
    pid = from.pid;
    names = from.names;
    records = from.records;
    head = from.head;
    full = from.full;
    overwritten = from.overwritten;
    text = from.text;
    text_end = from.text_end;
}

} // namespace retcon
