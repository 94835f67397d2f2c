// Snapshot files (.rcs): round trips through the disk, atomic replacement, schema checks, and
// hostile input (truncation, bit flips, forged headers, decompression bombs).
#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/inspect.hpp>
#include <retcon/snapshot/replay.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>

#include "common/bytes.hpp"
#include "common/components.hpp"
#include "common/temp_dir.hpp"
#include "common/world_gen.hpp"

using namespace retcon;
using namespace retcon::test;
using Catch::Matchers::Contains;

namespace {

constexpr std::size_t off_frame = 16;
constexpr std::size_t off_schema_size = 24;
constexpr std::size_t off_image_size = 32;
constexpr std::size_t off_compressed_size = 40;
constexpr std::size_t off_image_checksum = 48;
constexpr std::size_t off_header_checksum = 56;

/// Recomputes the header checksum (first 56 bytes + schema block), as a forger would.
void reseal(std::vector<std::byte> &b) {
    const auto schema_size = get<std::uint32_t>(b, off_schema_size);
    std::vector<std::byte> covered(b.begin(), b.begin() + 56);
    covered.insert(covered.end(), b.begin() + 64, b.begin() + 64 + schema_size);
    put(b, off_header_checksum, xxh3(covered));
}

world small_world(std::uint64_t seed = 8) {
    gen_options opt;
    opt.clear_percent_x10 = 0;
    opt.ops_per_frame = 4;
    return make_random_world(standard_schema(), seed, 4, opt);
}

long max_rss_kib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

} // namespace

TEST_CASE("a snapshot file round-trips through the disk", "[snapshot][file]") {
    temp_dir dir;
    const world w = make_random_world(grouped_schema(), 3, 60);
    const auto path = dir / "state.rcs";
    REQUIRE(write_snapshot_file(path, w, 1234).ok());

    auto f = read_snapshot_file(path);
    REQUIRE(f.ok());
    CHECK(f->frame == 1234);
    CHECK(f->schema == w.get_schema());
    CHECK(f->image.frame() == 1234);
    CHECK(hash(f->image) == hash(w));
    CHECK(f->file_bytes == std::filesystem::file_size(path));
    CHECK(f->compressed_bytes > 0);
    CHECK(f->compressed_bytes < f->image.size());
    CHECK(f->level == 3);

    world fresh{grouped_schema()};
    auto frame = load_snapshot_file(path, fresh);
    REQUIRE(frame.ok());
    CHECK(*frame == 1234);
    CHECK(hash(fresh) == hash(w));
    CHECK(capture(fresh) == capture(w));
}

TEST_CASE("snapshot files at other compression levels and from saved images", "[snapshot][file]") {
    temp_dir dir;
    const world w = make_random_world(standard_schema(), 4, 40);
    const world_image img = save(w, 77);
    for (int level : {1, 9, 19}) {
        CAPTURE(level);
        const auto path = dir / ("l" + std::to_string(level) + ".rcs");
        REQUIRE(write_snapshot_file(path, img, w.get_schema(), level).ok());
        auto f = read_snapshot_file(path);
        REQUIRE(f.ok());
        CHECK(f->level == static_cast<std::uint32_t>(level));
        CHECK(f->frame == 77);
        CHECK(hash(f->image) == hash(w));
        // encode_snapshot_file is exactly what goes to disk.
        CHECK(encode_snapshot_file(img, w.get_schema(), level) == read_bytes(path));
    }
}

TEST_CASE("writing a snapshot file refuses impossible requests", "[snapshot][file]") {
    temp_dir dir;
    const world w = small_world();
    auto empty = write_snapshot_file(dir / "a.rcs", world_image{}, w.get_schema());
    CHECK(empty.code() == errc::invalid_argument);
    auto wrong = write_snapshot_file(dir / "b.rcs", save(w), grouped_schema());
    CHECK(wrong.code() == errc::schema_mismatch);
    CHECK_THAT(wrong.message(), Contains("b.rcs"));
    auto nodir = write_snapshot_file(dir / "missing" / "c.rcs", w, 0);
    CHECK(nodir.code() == errc::io);
    CHECK_THAT(nodir.message(), Contains("missing"));
    CHECK(dir.entries().empty()); // nothing written, no temporary left behind
}

TEST_CASE("snapshot files are written atomically", "[snapshot][file]") {
    temp_dir dir;
    const auto path = dir / "save.rcs";
    world w = make_random_world(standard_schema(), 5, 30);
    REQUIRE(write_snapshot_file(path, w, 1).ok());
    CHECK(dir.entries() == std::vector<std::string>{"save.rcs"});
    const hash64 first = hash(w);

    simulate(w, 6, 0, 20);
    REQUIRE(hash(w) != first);
    REQUIRE(write_snapshot_file(path, w, 2).ok()); // replaces the existing file
    CHECK(dir.entries() == std::vector<std::string>{"save.rcs"});
    auto f = read_snapshot_file(path);
    REQUIRE(f.ok());
    CHECK(f->frame == 2);
    CHECK(hash(f->image) == hash(w));

    // A directory where the file should go: the rename fails, the temporary is removed.
    std::filesystem::create_directory(dir / "taken.rcs");
    std::filesystem::create_directory(dir / "taken.rcs" / "inside");
    auto blocked = write_snapshot_file(dir / "taken.rcs", w, 3);
    CHECK(blocked.code() == errc::io);
    CHECK(dir.entries() == std::vector<std::string>{"save.rcs", "taken.rcs"});
}

TEST_CASE("reading a missing or unreadable snapshot file", "[snapshot][file]") {
    temp_dir dir;
    auto missing = read_snapshot_file(dir / "nope.rcs");
    CHECK(missing.code() == errc::io);
    CHECK_THAT(missing.message(), Contains("nope.rcs"));
    auto directory = read_snapshot_file(dir.path());
    CHECK(directory.code() == errc::io);
    world w{standard_schema()};
    CHECK(load_snapshot_file(dir / "nope.rcs", w).code() == errc::io);
}

TEST_CASE("loading a snapshot file into a world of another schema names the difference", "[snapshot][file]") {
    temp_dir dir;
    const auto path = dir / "s.rcs";
    REQUIRE(write_snapshot_file(path, make_random_world(standard_schema(), 2, 20), 5).ok());
    schema other;
    other.component<position>().component<velocity>().component<health>();
    world w{other};
    const entity e = w.create();
    w.emplace<position>(e, 3.0f, 4.0f);
    const auto before = capture(w);
    auto r = load_snapshot_file(path, w);
    CHECK(r.code() == errc::schema_mismatch);
    CHECK_THAT(r.message(), Contains("s.rcs"));
    CHECK_THAT(r.message(), Contains("name_tag")); // the first component only the file has
    CHECK(capture(w) == before);
}

TEST_CASE("a snapshot file cut at any byte is rejected", "[snapshot][file][hostile]") {
    const world w = small_world();
    const auto bytes = encode_snapshot_file(save(w, 3), w.get_schema());
    REQUIRE(parse_snapshot_file(bytes, "whole.rcs").ok());
    INFO("file of " << bytes.size() << " bytes");
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        CAPTURE(n);
        const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
        auto r = parse_snapshot_file(cut, "cut.rcs");
        REQUIRE_FALSE(r.ok());
        CHECK(r.code() == errc::truncated);
        CHECK_THAT(r.message(), Contains("cut.rcs at byte"));
    }
}

TEST_CASE("a bit flip anywhere in a snapshot file is rejected or changes nothing", "[snapshot][file][hostile]") {
    const world w = small_world(9);
    const hash64 expected = hash(w);
    const auto bytes = encode_snapshot_file(save(w, 3), w.get_schema());
    std::size_t rejected = 0, accepted = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        for (const std::size_t bit : {i % 8u, (i + 5u) % 8u}) {
            CAPTURE(i, bit);
            auto flipped = bytes;
            flipped[i] ^= std::byte{static_cast<std::uint8_t>(1u << bit)};
            auto r = parse_snapshot_file(flipped, "flip.rcs");
            if (!r.ok()) {
                ++rejected;
                CHECK(r.code() != errc::ok);
                CHECK_THAT(r.message(), Contains("flip.rcs"));
                continue;
            }
            ++accepted; // only a bit nothing reads may be flipped: the content is the same
            CHECK(hash(r->image) == expected);
            CHECK(r->schema == w.get_schema());
            CHECK(r->frame == 3);
        }
    }
    INFO("rejected " << rejected << ", accepted " << accepted);
    CHECK(rejected > 0);
    CHECK(accepted <= bytes.size() / 20); // unused bits are rare
}

TEST_CASE("forged snapshot headers are rejected with a named error", "[snapshot][file][hostile]") {
    const world w = small_world();
    const auto good = encode_snapshot_file(save(w, 3), w.get_schema());
    const auto schema_size = get<std::uint32_t>(good, off_schema_size);
    struct forgery {
        const char *what;
        std::function<void(std::vector<std::byte> &)> apply;
        errc code;
        const char *message;
    };
    const std::vector<forgery> cases = {
        {"magic", [](auto &b) { b[0] = std::byte{'X'}; }, errc::bad_magic, "at byte 0"},
        {"version", [](auto &b) { put<std::uint16_t>(b, 4, 2); }, errc::bad_version, "at byte 4"},
        {"header size", [](auto &b) { put<std::uint16_t>(b, 6, 32); }, errc::corrupt, "at byte 6"},
        {"header checksum", [](auto &b) { b[off_frame] ^= std::byte{1}; }, errc::checksum, "header checksum"},
        {"schema block", [&](auto &b) { b[64 + schema_size / 2] ^= std::byte{4}; }, errc::checksum, "header checksum"},
        {"resealed frame",
         [](auto &b) {
             put<std::uint64_t>(b, off_frame, 4);
             reseal(b);
         },
         errc::corrupt, "frame"},
        {"resealed schema hash",
         [](auto &b) {
             put<std::uint64_t>(b, 8, get<std::uint64_t>(b, 8) ^ 1u);
             reseal(b);
         },
         errc::corrupt, "schema hash"},
        {"resealed schema block",
         [&](auto &b) {
             put<std::uint32_t>(b, 64, 0xffffffffu); // an absurd component count
             reseal(b);
         },
         errc::corrupt, "at byte 64"},
        {"resealed image checksum",
         [](auto &b) {
             put<std::uint64_t>(b, off_image_checksum, get<std::uint64_t>(b, off_image_checksum) + 1u);
             reseal(b);
         },
         errc::checksum, "image checksum"},
        {"resealed compressed size (more)",
         [](auto &b) {
             put<std::uint64_t>(b, off_compressed_size, get<std::uint64_t>(b, off_compressed_size) + 1u);
             reseal(b);
         },
         errc::truncated, "compressed image"},
        {"resealed compressed size (less)",
         [](auto &b) {
             put<std::uint64_t>(b, off_compressed_size, get<std::uint64_t>(b, off_compressed_size) - 1u);
             reseal(b);
         },
         errc::corrupt, "compressed image"},
        {"trailing bytes", [](auto &b) { b.push_back(std::byte{0}); }, errc::corrupt, "compressed image"},
        {"resealed smaller image size",
         [](auto &b) {
             put<std::uint64_t>(b, off_image_size, get<std::uint64_t>(b, off_image_size) - 16u);
             reseal(b);
         },
         errc::too_large, "declares"},
        {"resealed huge image size (bomb)",
         [](auto &b) {
             put<std::uint64_t>(b, off_image_size, std::uint64_t{1} << 40);
             reseal(b);
         },
         errc::too_large, "exceeds the limit"},
        {"compressed data", [](auto &b) { b[b.size() - 3] ^= std::byte{0xff}; }, errc::checksum, ""},
        {"zstd magic", [&](auto &b) { b[64 + schema_size] ^= std::byte{0xff}; }, errc::decompress, "zstd"},
    };
    for (const auto &c : cases) {
        CAPTURE(c.what);
        auto bytes = good;
        c.apply(bytes);
        auto r = parse_snapshot_file(bytes, "forged.rcs");
        REQUIRE_FALSE(r.ok());
        if (std::string(c.what) == "compressed data")
            CHECK((r.code() == errc::checksum || r.code() == errc::decompress));
        else
            CHECK(r.code() == c.code);
        CHECK_THAT(r.message(), Contains("forged.rcs at byte"));
        CHECK_THAT(r.message(), Contains(c.message));
    }
}

TEST_CASE("a snapshot file with a byte-swapped magic is refused as written by a big-endian host",
          "[snapshot][file][hostile]") {
    // A big-endian host writing the header with native integers puts the magic byte-swapped
    // (docs/file-format.md, "Conventions").
    const world w = small_world();
    const auto good = encode_snapshot_file(save(w, 3), w.get_schema());
    auto swapped = good;
    std::swap(swapped[0], swapped[3]);
    std::swap(swapped[1], swapped[2]);
    auto r = parse_snapshot_file(swapped, "be.rcs");
    CHECK(r.code() == errc::bad_magic);
    CHECK_THAT(r.message(), Contains("be.rcs at byte 0") && Contains("big-endian") && Contains("little-endian only"));

    // Any other wrong magic, including another order of the same four bytes, is plain bad magic.
    auto rotated = good;
    put(rotated, 0, (snapshot_file_magic << 8) | (snapshot_file_magic >> 24));
    auto wrong = good;
    put(wrong, 0, std::uint32_t{0x12345678});
    for (const auto *bytes : {&rotated, &wrong}) {
        auto e = parse_snapshot_file(*bytes, "other.rcs");
        CHECK(e.code() == errc::bad_magic);
        CHECK(e.message() == "other.rcs at byte 0: not a retcon snapshot file (bad magic)");
    }
}

TEST_CASE("a snapshot file holding a structurally broken image is rejected", "[snapshot][file][hostile]") {
    world w = small_world();
    world_image img = save(w, 1);
    auto v = parse_image(img.bytes());
    REQUIRE(v.ok());
    std::size_t victim = 0;
    while (v->owners[victim].size() < 2) ++victim;
    const auto off =
        static_cast<std::size_t>(reinterpret_cast<const std::byte *>(&v->owners[victim][1]) - img.bytes().data());
    const entity first = v->owners[victim][0];
    std::memcpy(img.prepare(img.size()) + off, &first, sizeof first); // a duplicate owner
    // Every checksum is right: only the structural validation can catch it.
    auto r = parse_snapshot_file(encode_snapshot_file(img, w.get_schema()), "dup.rcs");
    CHECK(r.code() == errc::corrupt);
    CHECK_THAT(r.message(), Contains("dup.rcs"));
    CHECK_THAT(r.message(), Contains("twice"));
}

TEST_CASE("read limits refuse oversized files and images before allocating", "[snapshot][file][hostile]") {
    temp_dir dir;
    const world w = make_random_world(standard_schema(), 11, 30);
    const auto path = dir / "big.rcs";
    REQUIRE(write_snapshot_file(path, w, 0).ok());
    const auto bytes = read_bytes(path);
    const auto image_size = get<std::uint64_t>(bytes, off_image_size);

    read_limits tiny_image;
    tiny_image.max_image_bytes = image_size - 1;
    auto r = read_snapshot_file(path, tiny_image);
    CHECK(r.code() == errc::too_large);
    CHECK_THAT(r.message(), Contains("big.rcs at byte 32"));
    CHECK(parse_snapshot_file(bytes, "mem", tiny_image).code() == errc::too_large);

    read_limits tiny_file;
    tiny_file.max_file_bytes = bytes.size() - 1;
    auto t = read_snapshot_file(path, tiny_file);
    CHECK(t.code() == errc::too_large);
    CHECK_THAT(t.message(), Contains("big.rcs"));

    read_limits exact;
    exact.max_file_bytes = bytes.size();
    exact.max_image_bytes = image_size;
    CHECK(read_snapshot_file(path, exact).ok());
}

TEST_CASE("a decompression bomb within the image limit is refused before the image is allocated",
          "[snapshot][file][hostile]") {
    // A few hundred bytes that claim a 256 MiB image (inside the default 1 GiB limit): the
    // reader must see that the zstd frame does not hold that much before it allocates it.
    const world w = small_world();
    auto bytes = encode_snapshot_file(save(w), w.get_schema());
    put<std::uint64_t>(bytes, off_image_size, std::uint64_t{256} << 20);
    reseal(bytes);
    const long before = max_rss_kib();
    auto r = parse_snapshot_file(bytes, "bomb.rcs");
    const long grown_mib = (max_rss_kib() - before) / 1024;
    CHECK_FALSE(r.ok());
    CHECK(r.code() == errc::too_large);
    CHECK_THAT(r.message(), Contains("bomb.rcs at byte"));
    INFO("peak memory grew by " << grown_mib << " MiB");
    CHECK(grown_mib < 64);
}

TEST_CASE("file readers refuse a named pipe at once instead of waiting for a writer", "[file]") {
    // Opening a FIFO for reading blocks until something writes to it; the readers must say what
    // it is and return (before, `retcon inspect` on one never returned).
    temp_dir dir;
    const auto pipe = dir / "pipe.rcs";
    REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
    const std::string expected = pipe.string() + ": a FIFO, not a regular file";
    const auto snapshot = read_snapshot_file(pipe);
    REQUIRE_FALSE(snapshot);
    CHECK(snapshot.code() == errc::io);
    CHECK(snapshot.message() == expected);
    const auto replay = replay_reader::open(pipe);
    REQUIRE_FALSE(replay);
    CHECK(replay.message() == expected);
    const auto kind = detect_file_kind(pipe);
    REQUIRE_FALSE(kind);
    CHECK(kind.message() == expected);
    // A directory is named as one.
    const auto directory = read_snapshot_file(dir.path());
    REQUIRE_FALSE(directory);
    CHECK(directory.message() == dir.path().string() + ": a directory, not a regular file");
}

TEST_CASE("file readers refuse a file over the default 1 GiB bound before reading any of it", "[file]") {
    // Files are read whole: the bound is what opening one may cost in memory (it was 4 GiB).
    temp_dir dir;
    const auto big = dir / "big.rcs";
    { std::ofstream{big}; }
    std::filesystem::resize_file(big, (std::uint64_t{1} << 30) + 1); // sparse: no disk used
    const std::string expected = big.string() + ": 1073741825 bytes exceeds the limit of 1073741824";
    const auto snapshot = read_snapshot_file(big);
    REQUIRE_FALSE(snapshot);
    CHECK(snapshot.code() == errc::too_large);
    CHECK(snapshot.message() == expected);
    const auto replay = replay_reader::open(big);
    REQUIRE_FALSE(replay);
    CHECK(replay.code() == errc::too_large);
    CHECK(replay.message() == expected);
}
