// sparse_set: the dense owner array and its paged, versioned sparse index.
#include <retcon/ecs/sparse_set.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

using namespace retcon;

namespace {
entity ent(std::uint32_t index, std::uint32_t version = 0) { return entity_traits::construct(index, version); }

std::vector<entity> dense(const sparse_set &s) { return {s.data(), s.data() + s.size()}; }

/// Every element's sparse entry points back at its position.
void check_consistent(const sparse_set &s) {
    for (sparse_set::size_type i = 0; i < s.size(); ++i) REQUIRE(s.index(s.at(i)) == i);
}
} // namespace

TEST_CASE("sparse_set push_back and lookup", "[sparse_set]") {
    sparse_set s;
    CHECK(s.empty());
    CHECK(s.index(ent(0)) == sparse_set::npos);
    CHECK_FALSE(s.contains(null_entity));
    CHECK(s.push_back(ent(5)) == 0u);
    CHECK(s.push_back(ent(2, 3)) == 1u);
    CHECK(s.push_back(ent(9000)) == 2u); // on a later page
    CHECK(s.size() == 3u);
    CHECK(s.contains(ent(5)));
    CHECK(s.contains(ent(2, 3)));
    CHECK(s.contains(ent(9000)));
    CHECK(s.index(ent(9000)) == 2u);
    CHECK_FALSE(s.contains(ent(3)));
    CHECK_FALSE(s.contains(ent(4095)));
    CHECK_FALSE(s.contains(null_entity));
    CHECK(dense(s) == std::vector<entity>{ent(5), ent(2, 3), ent(9000)});
    check_consistent(s);
    // Pages 0 and 2 only; an entry is as wide as a handle (it holds the owner's version).
    STATIC_REQUIRE(sizeof(sparse_set::entry_type) == sizeof(entity));
    CHECK(s.sparse_bytes() == 2u * sparse_set::page_size * sizeof(sparse_set::entry_type));
}

#if RETCON_ENTITY_64
TEST_CASE("64-bit handles: indices and versions past the 32-bit layout", "[sparse_set]") {
    sparse_set s;
    const entity big = ent(3'000'000, 70'000); // index > 20 bits, version > 12 bits
    CHECK(to_index(big) == 3'000'000u);
    CHECK(to_version(big) == 70'000u);
    CHECK(s.push_back(ent(1)) == 0u);
    CHECK(s.push_back(big) == 1u);
    CHECK(s.contains(big));
    CHECK(s.index(big) == 1u);
    // The whole 32-bit version is compared: versions equal in their low 12 bits are told apart.
    CHECK_FALSE(s.contains(ent(3'000'000, 70'000u & 0xFFFu)));
    CHECK_FALSE(s.contains(ent(3'000'000, 70'001)));
    CHECK_FALSE(s.contains(ent(3'000'000u & 0xFFFFFu, 70'000))); // nor indices equal in 20 bits
    s.swap_and_pop(0);
    CHECK(s.index(big) == 0u);
    const entity moved[2] = {ent(5, entity_traits::max_version), big};
    s.assign(moved, 2);
    CHECK(s.index(ent(5, entity_traits::max_version)) == 0u);
    CHECK(s.index(big) == 1u);
    check_consistent(s);
}
#endif

TEST_CASE("sparse_set: a handle with another version is not contained", "[sparse_set]") {
    sparse_set s;
    s.push_back(ent(7, 2));
    CHECK(s.contains(ent(7, 2)));
    CHECK_FALSE(s.contains(ent(7, 1)));
    CHECK_FALSE(s.contains(ent(7, 3)));
    CHECK_FALSE(s.contains(ent(7, entity_traits::max_version)));
    CHECK(s.index(ent(7, 0)) == sparse_set::npos);
}

TEST_CASE("sparse_set swap_and_pop moves the last element into the hole", "[sparse_set]") {
    sparse_set s;
    for (std::uint32_t i = 0; i < 5; ++i) s.push_back(ent(i * 10u));
    s.swap_and_pop(1);
    CHECK(dense(s) == std::vector<entity>{ent(0), ent(40), ent(20), ent(30)});
    CHECK_FALSE(s.contains(ent(10)));
    check_consistent(s);
    s.swap_and_pop(3); // the last one
    CHECK(dense(s) == std::vector<entity>{ent(0), ent(40), ent(20)});
    CHECK_FALSE(s.contains(ent(30)));
    check_consistent(s);
    s.swap_and_pop(0);
    s.swap_and_pop(0);
    s.swap_and_pop(0);
    CHECK(s.empty());
    for (std::uint32_t i = 0; i < 5; ++i) CHECK_FALSE(s.contains(ent(i * 10u)));
    // Re-adding a removed index with a new version works and the old version stays out.
    s.push_back(ent(10, 1));
    CHECK(s.contains(ent(10, 1)));
    CHECK_FALSE(s.contains(ent(10)));
}

TEST_CASE("sparse_set swap_positions", "[sparse_set]") {
    sparse_set s;
    for (std::uint32_t i = 0; i < 4; ++i) s.push_back(ent(i, i));
    s.swap_positions(0, 3);
    CHECK(dense(s) == std::vector<entity>{ent(3, 3), ent(1, 1), ent(2, 2), ent(0, 0)});
    check_consistent(s);
    s.swap_positions(2, 2);
    CHECK(dense(s) == std::vector<entity>{ent(3, 3), ent(1, 1), ent(2, 2), ent(0, 0)});
    check_consistent(s);
}

TEST_CASE("sparse_set clear and assign rebuild the sparse index", "[sparse_set]") {
    sparse_set s;
    for (std::uint32_t i = 0; i < 6; ++i) s.push_back(ent(i));
    s.clear();
    CHECK(s.empty());
    for (std::uint32_t i = 0; i < 6; ++i) CHECK_FALSE(s.contains(ent(i)));

    for (std::uint32_t i = 0; i < 6; ++i) s.push_back(ent(i));
    const std::vector<entity> image{ent(4, 1), ent(100000, 2), ent(0, 5)};
    s.assign(image.data(), static_cast<sparse_set::size_type>(image.size()));
    CHECK(dense(s) == image);
    check_consistent(s);
    // Nothing of the previous contents survives in the index.
    for (std::uint32_t i = 0; i < 6; ++i) CHECK_FALSE(s.contains(ent(i)));
    CHECK_FALSE(s.contains(ent(4)));
    CHECK(s.contains(ent(4, 1)));
    CHECK(s.contains(ent(100000, 2)));

    s.assign(image.data(), 0);
    CHECK(s.empty());
    CHECK_FALSE(s.contains(ent(4, 1)));
}

TEST_CASE("sparse_set survives a move", "[sparse_set]") {
    sparse_set s;
    s.push_back(ent(1));
    s.push_back(ent(2));
    sparse_set t{std::move(s)};
    CHECK(t.contains(ent(1)));
    CHECK(t.index(ent(2)) == 1u);
    sparse_set u;
    u = std::move(t);
    CHECK(u.size() == 2u);
    check_consistent(u);
}

TEST_CASE("sparse_set agrees with a reference model under random operations", "[sparse_set]") {
    sparse_set s;
    std::vector<entity> model;
    std::uint32_t seed = 12345;
    auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return seed >> 8;
    };
    for (int step = 0; step < 20000; ++step) {
        const auto op = next() % 4;
        if (op < 2 || model.empty()) {
            const entity e = ent(next() % 20000u, next() % 4u);
            const bool present =
                std::any_of(model.begin(), model.end(), [&](entity m) { return to_index(m) == to_index(e); });
            if (present) continue;
            s.push_back(e);
            model.push_back(e);
        } else if (op == 2) {
            const auto pos = next() % static_cast<std::uint32_t>(model.size());
            s.swap_and_pop(pos);
            model[pos] = model.back();
            model.pop_back();
        } else {
            const auto a = next() % static_cast<std::uint32_t>(model.size());
            const auto b = next() % static_cast<std::uint32_t>(model.size());
            s.swap_positions(a, b);
            std::swap(model[a], model[b]);
        }
        if (step % 1000 == 0) {
            REQUIRE(dense(s) == model);
            check_consistent(s);
        }
    }
    REQUIRE(dense(s) == model);
    check_consistent(s);
}

TEST_CASE("sparse_set assign into an empty set indexes every block and page like assign into a used one",
          "[sparse_set]") {
    // Over 1,024 owners (several fill blocks) spread over many sparse pages, in shuffled order,
    // with mixed versions: the fresh set and a set that held other entities agree entry by entry.
    std::vector<entity> image;
    for (std::uint32_t i = 0; i < 5000; ++i) image.push_back(ent(i * 7u + 3u, i % 5u));
    std::uint32_t state = 12345u;
    for (std::size_t i = image.size() - 1; i > 0; --i) { // deterministic shuffle
        state = state * 1664525u + 1013904223u;
        std::swap(image[i], image[state % (i + 1u)]);
    }
    const auto count = static_cast<sparse_set::size_type>(image.size());
    sparse_set fresh;
    fresh.assign(image.data(), count);
    sparse_set used;
    for (std::uint32_t i = 0; i < 3000; ++i) used.push_back(ent(i * 5u, 1u));
    used.assign(image.data(), count);
    CHECK(dense(fresh) == image);
    CHECK(dense(used) == image);
    for (sparse_set::size_type pos = 0; pos < count; ++pos) {
        REQUIRE(fresh.index(image[pos]) == pos);
        REQUIRE(used.index(image[pos]) == pos);
    }
    for (std::uint32_t i = 0; i < 40000; ++i) { // absent indices and other versions
        const bool present = i % 7u == 3u && i / 7u < 5000u;
        CHECK(fresh.contains(ent(i, (i / 7u) % 5u)) == present);
        CHECK_FALSE(fresh.contains(ent(i, 6u)));
    }
    CHECK(fresh.sparse_bytes() == used.sparse_bytes());
}
