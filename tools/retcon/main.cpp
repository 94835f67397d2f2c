// retcon — inspect, check, diff and dump retcon snapshot (.rcs) and replay (.rcr) files.
// Exit codes: 0 ok, 1 differences or corruption found, 2 usage error or unreadable file.
#include <retcon/snapshot.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include <unistd.h>

namespace {

constexpr int exit_ok = 0;
constexpr int exit_found = 1;
constexpr int exit_usage = 2;

int fail(const retcon::error &e) {
    std::fprintf(stderr, "retcon: %s: %s\n", retcon::to_string(e.code), e.message.c_str());
    const bool unreadable = e.code == retcon::errc::io || e.code == retcon::errc::bad_magic;
    return unreadable ? exit_usage : exit_found;
}

struct loaded {
    retcon::schema schema;
    retcon::snapshot image;
};

/// A snapshot file, or a replay's keyframe at or before @p frame.
retcon::result<loaded> load_world_image(const std::string &path, std::optional<std::uint64_t> frame, std::string &note) {
    auto kind = retcon::detect_file_kind(path);
    if (!kind) return kind.err();
    if (*kind == retcon::file_kind::snapshot) {
        auto f = retcon::read_snapshot_file(path);
        if (!f) return f.err();
        if (frame && *frame != f->frame) note = "snapshot is of frame " + std::to_string(f->frame);
        return loaded{std::move(f->schema), std::move(f->image)};
    }
    if (*kind == retcon::file_kind::replay) {
        auto r = retcon::replay_reader::open(path);
        if (!r) return r.err();
        const std::uint64_t want = frame.value_or(r->start_frame());
        std::size_t best = 0;
        for (std::size_t i = 0; i < r->keyframes().size() && r->keyframes()[i].frame <= want; ++i) best = i;
        loaded out{r->schema(), {}};
        if (auto k = r->keyframe_image(best, out.image); !k) return k.err();
        if (r->keyframes()[best].frame != want)
            note = "nearest keyframe at or before frame " + std::to_string(want) + " is frame " +
                   std::to_string(r->keyframes()[best].frame) + " (later frames need the game's step function)";
        return out;
    }
    return retcon::error{retcon::errc::bad_magic, path + ": not a retcon snapshot (.rcs) or replay (.rcr) file"};
}

int cmd_inspect(const std::string &path) {
    auto text = retcon::inspect_file(path);
    if (!text) return fail(text.err());
    std::fputs(text->c_str(), stdout);
    return exit_ok;
}

int cmd_check(const std::string &path) {
    auto kind = retcon::detect_file_kind(path);
    if (!kind) return fail(kind.err());
    if (*kind == retcon::file_kind::snapshot) {
        auto f = retcon::read_snapshot_file(path);
        if (!f) return fail(f.err());
        std::printf("%s: ok (snapshot of frame %llu, %u live entities, checksums and structure verified)\n", path.c_str(),
                    static_cast<unsigned long long>(f->frame), f->image.header().alive);
        return exit_ok;
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
        if (!r->complete()) std::printf("  note: %s\n", r->truncation_note().c_str());
        return exit_ok;
    }
    return fail({retcon::errc::bad_magic, path + ": not a retcon snapshot (.rcs) or replay (.rcr) file"});
}

int cmd_diff(const std::string &a, const std::string &b, bool json, std::size_t max_entities) {
    std::string note_a, note_b;
    auto la = load_world_image(a, std::nullopt, note_a);
    if (!la) return fail(la.err());
    auto lb = load_world_image(b, std::nullopt, note_b);
    if (!lb) return fail(lb.err());
    retcon::diff_options opt;
    opt.max_entities = max_entities;
    auto d = retcon::diff(la->image, la->schema, lb->image, lb->schema, opt);
    if (!d) return fail(d.err());
    std::fputs(json ? (d->to_json() + "\n").c_str() : d->to_text().c_str(), stdout);
    return d->identical() ? exit_ok : exit_found;
}

int cmd_dump(const std::string &path, std::optional<std::uint64_t> frame) {
    std::string note;
    auto l = load_world_image(path, frame, note);
    if (!l) return fail(l.err());
    if (!note.empty()) std::fprintf(stderr, "retcon: note: %s\n", note.c_str());
    std::puts(retcon::dump_json(l->image, l->schema).c_str());
    return exit_ok;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"retcon: inspect, check, diff and dump retcon snapshot (.rcs) and replay (.rcr) files\n"
                 "exit codes: 0 ok, 1 differences or corruption found, 2 usage error or unreadable file"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::to_string(retcon::version.major) + "." + std::to_string(retcon::version.minor) +
                                          "." + std::to_string(retcon::version.patch));

    std::string file, file_b;
    bool json = false;
    std::size_t max_entities = 64;
    std::optional<std::uint64_t> frame;

    auto *inspect = app.add_subcommand("inspect", "header, schema, frames, sizes, compression ratios, keyframes");
    inspect->add_option("FILE", file, "snapshot or replay file")->required();
    auto *check = app.add_subcommand("check", "verify every checksum and the structure");
    check->add_option("FILE", file, "snapshot or replay file")->required();
    auto *diff = app.add_subcommand("diff", "which pools, entities and fields differ between two snapshots");
    diff->add_option("A", file, "first snapshot (or replay: its starting keyframe)")->required();
    diff->add_option("B", file_b, "second snapshot")->required();
    diff->add_flag("--json", json, "machine-readable output");
    diff->add_option("--max-entities", max_entities, "entities listed per pool")->capture_default_str();
    auto *dump = app.add_subcommand("dump", "JSON: entities and components, fields by name");
    dump->add_option("FILE", file, "snapshot or replay file")->required();
    dump->add_option("--frame", frame, "replay frame (the nearest keyframe at or before it)");

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
        return exit_usage;
    }
    if (inspect->parsed()) return cmd_inspect(file);
    if (check->parsed()) return cmd_check(file);
    if (diff->parsed()) return cmd_diff(file, file_b, json, max_entities);
    if (dump->parsed()) return cmd_dump(file, frame);
    return exit_usage;
}
