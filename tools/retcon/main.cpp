// retcon — inspect, check, diff and dump retcon snapshot (.rcs) and replay (.rcr) files, and
// trace a replay's timeline.
// Exit codes: the table `exit_codes` below (printed by --help, documented in docs/cli.md).
#include <retcon/net/replay_trace.hpp>
#include <retcon/snapshot.hpp>

#include <CLI/CLI.hpp>
#include <exit_codes.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

/// What the tool's exit status means, the same for every subcommand (docs/cli.md#exit-codes).
enum class exit_code : int {
    ok = 0,          ///< success; `diff`: the worlds are identical
    differences = 1, ///< `diff`: the worlds differ
    usage = 2,       ///< the command line is wrong
    incomplete = 3,  ///< `check`, `trace`: a replay cut short, its readable part verified
    damaged = 4,     ///< a file cannot be read or is damaged
};

using row = retcon::tools::exit_code_row<exit_code>;
using retcon::tools::status;

/// The one definition of the exit codes: main() returns them and --help prints this table.
constexpr std::array exit_codes{
    row{exit_code::ok, "ok", "success (diff: the worlds are identical)"},
    row{exit_code::differences, "differences", "diff: the worlds differ"},
    row{exit_code::usage, "usage", "usage error: missing, unknown or malformed arguments"},
    row{exit_code::incomplete, "incomplete",
        "check, trace: the replay was cut short (a crashed writer); its readable part\n"
        "                  verified (trace: and no file written). With --allow-incomplete this is 0\n"
        "                  (the note is still printed)"},
    row{exit_code::damaged, "damaged",
        "a file cannot be read (missing, not a retcon file, a format version this\n"
        "                  build does not read) or is damaged (checksum, truncation, structure)"},
};

/// Every error the tool meets comes from reading a file: it is unreadable or damaged.
int fail(const retcon::error &e) {
    std::fprintf(stderr, "retcon: %s: %s\n", retcon::to_string(e.code), e.message().c_str());
    return status(exit_code::damaged);
}

void print_notes(const std::vector<std::string> &notes) {
    for (const auto &n : notes) std::fprintf(stderr, "retcon: note: %s\n", n.c_str());
}

struct loaded {
    retcon::schema schema;
    retcon::world_image image;
};

/// Notes on a replay cut short: what is readable of it.
std::string incomplete_note(const std::string &path, const retcon::replay_reader &r) {
    return path + ": the replay is incomplete: its readable part covers frames " + std::to_string(r.start_frame()) +
           ".." + std::to_string(r.end_frame()) + " (" + r.truncation_note() + ")";
}

/// A snapshot file, or a replay's keyframe at or before @p frame. A replay cut short is read up
/// to where it ends; @p notes says so.
retcon::result<loaded> load_world_image(const std::string &path, std::optional<std::uint64_t> frame,
                                        std::vector<std::string> &notes) {
    auto kind = retcon::detect_file_kind(path);
    if (!kind) return kind.err();
    if (*kind == retcon::file_kind::snapshot) {
        auto f = retcon::read_snapshot_file(path);
        if (!f) return f.err();
        if (frame && *frame != f->frame) notes.push_back("snapshot is of frame " + std::to_string(f->frame));
        return loaded{std::move(f->schema), std::move(f->image)};
    }
    if (*kind == retcon::file_kind::replay) {
        auto r = retcon::replay_reader::open(path);
        if (!r) return r.err();
        if (!r->complete()) notes.push_back(incomplete_note(path, *r));
        const std::uint64_t want = frame.value_or(r->start_frame());
        // The seek index the replay viewer uses too; a frame before the start shows the first keyframe.
        const auto at = want > retcon::max_frame ? retcon::max_frame : static_cast<retcon::frame_t>(want);
        std::size_t best = r->keyframe_at_or_before(at);
        if (best == r->keyframes().size()) best = 0;
        loaded out{r->schema(), {}};
        if (auto k = r->keyframe_image(best, out.image); !k) return k.err();
        if (r->keyframes()[best].frame != want)
            notes.push_back("nearest keyframe at or before frame " + std::to_string(want) + " is frame " +
                            std::to_string(r->keyframes()[best].frame) +
                            " (later frames need the game's step function)");
        return out;
    }
    return retcon::error{retcon::errc::bad_magic, path + ": not a retcon snapshot (.rcs) or replay (.rcr) file"};
}

int cmd_inspect(const std::string &path) {
    auto text = retcon::inspect_file(path);
    if (!text) return fail(text.err());
    std::fputs(text->c_str(), stdout);
    return status(exit_code::ok);
}

/// Verifies a whole file. A replay cut short is verified as far as it goes, but is not called
/// clean: exit_code::incomplete, unless @p allow_incomplete.
int cmd_check(const std::string &path, bool allow_incomplete) {
    auto kind = retcon::detect_file_kind(path);
    if (!kind) return fail(kind.err());
    if (*kind == retcon::file_kind::snapshot) {
        auto f = retcon::read_snapshot_file(path);
        if (!f) return fail(f.err());
        std::printf("%s: ok (snapshot of frame %llu, %u live entities, checksums and structure verified)\n",
                    path.c_str(), static_cast<unsigned long long>(f->frame), f->image.header().alive);
        return status(exit_code::ok);
    }
    if (*kind == retcon::file_kind::replay) {
        auto r = retcon::replay_reader::open(path);
        if (!r) return fail(r.err());
        const bool tty = ::isatty(STDERR_FILENO) != 0;
        auto progress = [tty](std::size_t done, std::size_t total) {
            if (!tty) return;
            const int width = 40;
            const int filled = total ? static_cast<int>(width * done / total) : width;
            std::fprintf(stderr, "\rchecking keyframes [%.*s%*s] %zu/%zu", filled,
                         "########################################", width - filled, "", done, total);
            if (done == total) std::fputc('\n', stderr);
        };
        if (auto c = r->check(progress); !c) return fail(c.err());
        std::printf("%s: ok (%llu frames, %zu keyframes, every checksum verified)%s\n", path.c_str(),
                    static_cast<unsigned long long>(r->frame_count()), r->keyframes().size(),
                    r->complete() ? "" : " — file is incomplete; readable part verified");
        if (r->complete()) return status(exit_code::ok);
        std::printf("  note: %s\n", r->truncation_note().c_str());
        return status(allow_incomplete ? exit_code::ok : exit_code::incomplete);
    }
    return fail({retcon::errc::bad_magic, path + ": not a retcon snapshot (.rcs) or replay (.rcr) file"});
}

int cmd_diff(const std::string &a, const std::string &b, bool json, std::size_t max_entities) {
    std::vector<std::string> notes;
    auto la = load_world_image(a, std::nullopt, notes);
    if (!la) return fail(la.err());
    auto lb = load_world_image(b, std::nullopt, notes);
    if (!lb) return fail(lb.err());
    print_notes(notes);
    retcon::diff_options opt;
    opt.max_entities = max_entities;
    auto d = retcon::diff(la->image, la->schema, lb->image, lb->schema, opt);
    if (!d) return fail(d.err());
    std::fputs(json ? (d->to_json() + "\n").c_str() : d->to_text().c_str(), stdout);
    return status(d->identical() ? exit_code::ok : exit_code::differences);
}

int cmd_dump(const std::string &path, std::optional<std::uint64_t> frame) {
    std::vector<std::string> notes;
    auto l = load_world_image(path, frame, notes);
    if (!l) return fail(l.err());
    print_notes(notes);
    std::puts(retcon::dump_json(l->image, l->schema).c_str());
    return status(exit_code::ok);
}

/// Writes the replay's own timeline (net/include/retcon/net/replay_trace.hpp). A replay cut short
/// is traced only with @p allow_incomplete, as `check` calls it clean only then.
int cmd_trace(const std::string &path, const std::string &out, bool allow_incomplete) {
    auto kind = retcon::detect_file_kind(path);
    if (!kind) return fail(kind.err());
    if (*kind == retcon::file_kind::unknown)
        return fail({retcon::errc::bad_magic, path + ": not a retcon snapshot (.rcs) or replay (.rcr) file"});
    if (*kind == retcon::file_kind::snapshot) { // one instant: the command line is wrong
        std::fprintf(stderr, "retcon: %s: a snapshot, not a replay (.rcr): only replays have a timeline\n",
                     path.c_str());
        return status(exit_code::usage);
    }
    auto r = retcon::replay_reader::open(path);
    if (!r) return fail(r.err());
    if (!r->complete()) {
        print_notes({incomplete_note(path, *r)});
        if (!allow_incomplete) {
            std::fprintf(stderr, "retcon: no trace written: pass --allow-incomplete to trace the readable part\n");
            return status(exit_code::incomplete);
        }
    }
    auto summary = retcon::write_replay_trace(*r, out);
    if (!summary) return fail(summary.err());
    std::printf("%s: %llu frames, %llu keyframes, %llu joins, %llu leaves, %llu replaced inputs; one frame every "
                "%.3f ms (1 / tick_hz)\n",
                out.c_str(), static_cast<unsigned long long>(summary->frames),
                static_cast<unsigned long long>(summary->keyframes), static_cast<unsigned long long>(summary->joins),
                static_cast<unsigned long long>(summary->leaves),
                static_cast<unsigned long long>(summary->replaced_inputs), static_cast<double>(summary->tick_ns) / 1e6);
    std::printf("  note: this is the file's own timeline, timed frame x tick period; per-system slices need the "
                "game's step\n  (the demo: demo_client --replay %s --headless --trace OUT)\n",
                path.c_str());
    return status(exit_code::ok);
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"retcon: inspect, check, diff and dump retcon snapshot (.rcs) and replay (.rcr) files, and trace a "
                 "replay's timeline"};
    app.footer(retcon::tools::exit_code_help(exit_codes, 12));
    app.require_subcommand(1);
    app.set_version_flag("--version", std::to_string(retcon::version.major) + "." +
                                          std::to_string(retcon::version.minor) + "." +
                                          std::to_string(retcon::version.patch));

    std::string file, file_b, out;
    bool json = false;
    bool allow_incomplete = false;
    std::size_t max_entities = 64;
    std::optional<std::uint64_t> frame;

    auto *inspect = app.add_subcommand("inspect", "header, schema, frames, sizes, compression ratios, keyframes");
    inspect->add_option("FILE", file, "snapshot or replay file")->required();
    auto *check = app.add_subcommand("check", "verify every checksum and the structure");
    check->add_option("FILE", file, "snapshot or replay file")->required();
    check->add_flag("--allow-incomplete", allow_incomplete,
                    "exit 0 (not 3) for a replay cut short whose readable part verifies");
    auto *diff = app.add_subcommand("diff", "which pools, entities and fields differ between two snapshots");
    diff->add_option("A", file, "first snapshot (or replay: its starting keyframe)")->required();
    diff->add_option("B", file_b, "second snapshot")->required();
    diff->add_flag("--json", json, "machine-readable output");
    diff->add_option("--max-entities", max_entities, "entities listed per pool")->capture_default_str();
    auto *dump = app.add_subcommand("dump", "JSON: entities and components, fields by name");
    dump->add_option("FILE", file, "snapshot or replay file")->required();
    dump->add_option("--frame", frame, "replay frame (the nearest keyframe at or before it)");
    auto *trace = app.add_subcommand("trace", "a replay's timeline as Trace Event Format JSON (ui.perfetto.dev)");
    trace->add_option("FILE", file, "replay file")->required();
    trace->add_option("--out", out, "the trace to write (JSON)")->required();
    trace->add_flag("--allow-incomplete", allow_incomplete, "trace the readable part of a replay cut short");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        (void)app.exit(e);
        return status(exit_code::usage);
    }
    if (inspect->parsed()) return cmd_inspect(file);
    if (check->parsed()) return cmd_check(file, allow_incomplete);
    if (diff->parsed()) return cmd_diff(file, file_b, json, max_entities);
    if (dump->parsed()) return cmd_dump(file, frame);
    if (trace->parsed()) return cmd_trace(file, out, allow_incomplete);
    return status(exit_code::usage);
}
