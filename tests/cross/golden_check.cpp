// Re-simulates the golden demo match on one target of the cross-architecture matrix and
// compares every frame's world hash with the golden (docs/determinism.md#the-cross-architecture-matrix).
//
//   golden_check TRACE [IMAGE_DIR]
//
// TRACE is written on x86-64 by `demo_golden trace tests/data/golden_demo.rcr` (golden_trace.hpp).
// The world starts from the trace's start image; every checkpoint (K frames) the target compares
// its section hashes, then saves its world and continues from a restore of that image in a
// fresh world, so the save/restore path is exercised on the target too. On the first mismatch
// it writes its image at that frame to IMAGE_DIR and says how the host names what differs.
// Exit 0: every frame agrees; 1: a divergence; 2: the trace or the schema cannot be used.
// GOLDEN_CHECK_PERTURB_FRAME=F moves one ship before frame F: a divergence on demand, so the
// test suite can prove the diagnosis path (tests/integration/golden_diagnosis.cmake).
#include <retcon/ecs.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>
#include <retcon_demo/game.hpp>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "golden_trace.hpp"

using namespace retcon;

namespace {

int unusable(const std::string &why) {
    std::fprintf(stderr, "golden_check: %s\n", why.c_str());
    return 2;
}

/// The checkpoint's sections (world_hashes::sections() order) as world_hashes again, so
/// world_hashes::diverging can name what differs.
world_hashes from_sections(const std::vector<std::uint64_t> &v) {
    world_hashes h;
    if (v.size() < 3) return h;
    h.entities = v.front();
    h.pools.assign(v.begin() + 1, v.end() - 2);
    h.groups = v[v.size() - 2];
    h.resources = v.back();
    return h;
}

int diverged(const world &w, frame_t frame, const char *image_dir, const std::string &what) {
    std::printf("golden_check: DIVERGED at frame %" PRIu32 ": %s\n", frame, what.c_str());
    if (image_dir) {
        const std::string path = std::string(image_dir) + "/frame-" + std::to_string(frame) + ".img";
        const world_image s = save(w, frame);
        std::ofstream f(path, std::ios::binary);
        f.write(reinterpret_cast<const char *>(s.bytes().data()), static_cast<std::streamsize>(s.size()));
        std::printf("golden_check: this target's world at the start of frame %" PRIu32 " is in %s\n"
                    "  on the host, name the pools and fields that differ:\n"
                    "    demo_golden wrap %s target.rcs\n"
                    "    demo_golden image tests/data/golden_demo.rcr %" PRIu32 " host.rcs\n"
                    "    retcon diff host.rcs target.rcs\n"
                    "  if the change is on purpose (game rules, schema or image layout), regenerate the golden:\n"
                    "    scripts/regenerate-goldens.sh \"reason\"\n",
                    frame, path.c_str(), path.c_str(), frame);
    }
    return 1;
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) return unusable("usage: golden_check TRACE [IMAGE_DIR]");
    const char *image_dir = argc == 3 ? argv[2] : nullptr;
    std::ifstream in(argv[1], std::ios::binary);
    const std::vector<char> raw{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (raw.empty()) return unusable(std::string("cannot read ") + argv[1]);
    cross::golden_trace t;
    std::string why;
    if (!t.decode(std::as_bytes(std::span<const char>(raw)), why)) return unusable(std::string(argv[1]) + ": " + why);

    const schema mine = demo::make_schema();
    auto golden = schema::parse(t.schema_block);
    if (!golden) return unusable("the trace's schema block: " + golden.message());
    if (golden->hash() != mine.hash()) {
        // The layout of the demo's types differs on this target: nothing else can agree.
        std::printf("golden_check: DIVERGED before frame 0: schema hash %016" PRIx64 " here, %016" PRIx64
                    " in the golden\n",
                    mine.hash(), golden->hash());
        for (const auto &d : schema::differences(*golden, mine)) std::printf("  %s\n", d.c_str());
        return 1;
    }
    if (t.players == 0 || t.input_size != sizeof(demo::player_input))
        return unusable("input size differs from the demo's");

    std::optional<world> current{std::in_place, mine};
    world_image image;
    std::memcpy(image.prepare(t.start_image.size()), t.start_image.data(), t.start_image.size());
    if (auto r = load_image(*current, image); !r) return unusable("start image: " + r.message());

    const char *perturb_text = std::getenv("GOLDEN_CHECK_PERTURB_FRAME");
    const frame_t perturb = perturb_text ? static_cast<frame_t>(std::strtoul(perturb_text, nullptr, 10)) : no_frame;

    demo::game g;
    std::size_t next_checkpoint = 0;
    std::uint32_t restores = 0;
    for (std::uint32_t i = 0; i <= t.frames; ++i) {
        const frame_t frame = t.start_frame + i;
        if (next_checkpoint < t.checkpoints.size() && t.checkpoints[next_checkpoint].frame == frame) {
            const world_hashes here = section_hashes(*current);
            const auto &golden_sections = t.checkpoints[next_checkpoint].sections;
            if (here.sections() != golden_sections) {
                std::string names;
                for (const auto &n : here.diverging(from_sections(golden_sections), mine))
                    names += (names.empty() ? "" : ", ") + n;
                return diverged(*current, frame, image_dir, "section hashes differ (" + names + ")");
            }
            // Save, then go on from a restore of that image in a fresh world.
            save(*current, image, frame);
            current.emplace(mine);
            if (auto r = load_image(*current, image); !r)
                return diverged(*current, frame, nullptr, "restoring this target's own image failed: " + r.message());
            ++restores;
            ++next_checkpoint;
        }
        if (i == t.frames) break;
        if (perturb == frame) {
            current->view<demo::position, const demo::ship>().each(
                [](entity, demo::position &p, const demo::ship &) { p.x.raw += 1; });
        }
        const frame_inputs inputs{frame, t.players, t.input_size, t.record(i).data()};
        g.step(*current, inputs);
        if (const hash64 h = hash(*current); h != t.hashes[i]) {
            std::printf("golden_check: expected %016" PRIx64 ", got %016" PRIx64 " after frame %" PRIu32 "\n",
                        t.hashes[i], h, frame);
            return diverged(*current, frame + 1, image_dir, "world hash differs after frame " + std::to_string(frame));
        }
    }
    if (next_checkpoint != t.checkpoints.size()) return unusable("checkpoints outside the trace's frames");
    std::printf("golden_check: %" PRIu32 " frames agree with the golden (schema %016" PRIx64 ", final hash %016" PRIx64
                ", %zu checkpoints, %" PRIu32 " save/restore cycles)\n",
                t.frames, mine.hash(), t.hashes.empty() ? 0 : t.hashes.back(), t.checkpoints.size(), restores);
    return 0;
}
