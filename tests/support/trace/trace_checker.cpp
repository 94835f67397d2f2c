#include <common/trace_checker.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <set>
#include <utility>

namespace retcon::test {

namespace {

using json = nlohmann::json;

// Half a nanosecond, in µs: timestamps written with 3 decimals read back as doubles, and two
// that were equal may then differ by a rounding.
constexpr double tie = 0.0005;

struct slice {
    double ts, end;
    std::string name;
    std::size_t index;
};

bool is_int(const json &v) { return v.is_number_integer() || v.is_number_unsigned(); }
bool is_finite_number(const json &v) { return v.is_number() && std::isfinite(v.get<double>()); }

} // namespace

trace_check check_trace(std::string_view text) {
    trace_check out;
    auto problem = [&](std::string p) { out.problems.push_back(std::move(p)); };
    json doc;
    try {
        doc = json::parse(text.begin(), text.end(), nullptr, true, false); // exceptions, no comments
    } catch (const json::exception &e) {
        problem(std::string{"not strict JSON: "} + e.what());
        return out;
    }
    if (!doc.is_object()) {
        problem("the top level is not an object");
        return out;
    }
    if (!doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
        problem("no traceEvents array");
        return out;
    }
    if (doc.contains("displayTimeUnit")) {
        const json &u = doc["displayTimeUnit"];
        if (!u.is_string() || (u != "ms" && u != "ns")) problem("displayTimeUnit is neither \"ms\" nor \"ns\"");
    }
    static const std::set<std::string> metadata{"process_name", "process_labels", "process_sort_index", "thread_name",
                                                "thread_sort_index"};
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<slice>> tracks;
    const json &events = doc["traceEvents"];
    trace_summary &sum = out.summary;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const json &e = events[i];
        const std::string at = "event " + std::to_string(i);
        ++sum.events;
        if (!e.is_object()) {
            problem(at + ": not an object");
            continue;
        }
        if (!e.contains("ph") || !e["ph"].is_string()) {
            problem(at + ": no string ph");
            continue;
        }
        const std::string ph = e["ph"];
        if (!e.contains("name") || !e["name"].is_string()) {
            problem(at + ": no string name");
            continue;
        }
        const std::string name = e["name"];
        if (!e.contains("pid") || !is_int(e["pid"]) || !e.contains("tid") || !is_int(e["tid"])) {
            problem(at + " (" + name + "): pid and tid must be integers");
            continue;
        }
        if (e.contains("args") && !e["args"].is_object()) problem(at + " (" + name + "): args is not an object");
        const bool has_args = e.contains("args") && e["args"].is_object();
        if (ph == "M") {
            if (!metadata.contains(name)) problem(at + ": unknown metadata " + name);
            const char *arg = name.ends_with("sort_index") ? "sort_index"
                              : name == "process_labels"   ? "labels"
                                                           : "name";
            if (!has_args || !e["args"].contains(arg)) problem(at + " (" + name + "): no args." + arg);
            else if (std::string_view{arg} == "sort_index" ? !is_int(e["args"][arg]) : !e["args"][arg].is_string())
                problem(at + " (" + name + "): args." + arg + " has the wrong type");
            continue;
        }
        if (ph != "X" && ph != "C" && ph != "i" && ph != "I") {
            problem(at + " (" + name + "): ph \"" + ph + "\" is not one this checker knows (X, C, i, I, M)");
            continue;
        }
        if (!e.contains("ts") || !is_finite_number(e["ts"])) {
            problem(at + " (" + name + "): no finite numeric ts");
            continue;
        }
        const double ts = e["ts"].get<double>();
        if (ph == "X") {
            if (!e.contains("dur") || !is_finite_number(e["dur"]) || e["dur"].get<double>() < 0) {
                problem(at + " (" + name + "): X without a finite dur >= 0");
                continue;
            }
            ++sum.slices[name];
            if (has_args)
                for (const auto &[k, v] : e["args"].items())
                    if (v.is_number()) sum.arg_sums[name + "." + k] += v.get<double>();
            tracks[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}].push_back(
                {ts, ts + e["dur"].get<double>(), name, i});
        } else if (ph == "C") {
            if (!has_args || e["args"].empty()) {
                problem(at + " (" + name + "): C without args");
                continue;
            }
            bool numeric = true;
            for (const auto &[k, v] : e["args"].items()) numeric = numeric && is_finite_number(v);
            if (!numeric) {
                problem(at + " (" + name + "): a C value is not a number");
                continue;
            }
            ++sum.counters[name];
        } else {
            if (!e.contains("s") || !e["s"].is_string() || (e["s"] != "g" && e["s"] != "p" && e["s"] != "t")) {
                problem(at + " (" + name + "): an instant's s must be g, p or t");
                continue;
            }
            ++sum.instants[name];
            if (has_args && e["args"].contains("text") && e["args"]["text"].is_string())
                sum.texts[name].push_back(e["args"]["text"]);
        }
    }
    // Nesting: sorted by start (longer first on a tie), each slice must end inside the slice
    // it starts in.
    for (auto &[track, slices] : tracks) {
        std::stable_sort(slices.begin(), slices.end(),
                         [](const slice &a, const slice &b) { return a.ts != b.ts ? a.ts < b.ts : a.end > b.end; });
        std::vector<const slice *> open;
        for (const slice &s : slices) {
            while (!open.empty() && open.back()->end <= s.ts + tie) open.pop_back();
            if (!open.empty()) {
                if (s.end > open.back()->end + tie) {
                    problem("event " + std::to_string(s.index) + " (" + s.name + ") on pid " +
                            std::to_string(track.first) + " tid " + std::to_string(track.second) + " overlaps event " +
                            std::to_string(open.back()->index) + " (" + open.back()->name + ") without nesting in it");
                    continue;
                }
                ++sum.nested_in[s.name + "<" + open.back()->name];
            }
            open.push_back(&s);
        }
    }
    return out;
}

trace_check check_trace_file(const std::filesystem::path &path) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE *)> f{std::fopen(path.c_str(), "rb"), &std::fclose};
    if (!f) {
        trace_check out;
        out.problems.push_back(path.string() + ": cannot open");
        return out;
    }
    std::string text;
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f.get())) > 0;) text.append(buf, n);
    return check_trace(text);
}

} // namespace retcon::test
