#ifndef RETCON_ECS_WALK_HPP
#define RETCON_ECS_WALK_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "pool.hpp"

namespace retcon::internal {

/**
 * @brief Positions per block of the visit order of views, range-for and groups.
 *
 * This number is simulation semantics, not a tuning knob: it decides which stretches are
 * walked upwards, hence the order in which systems see entities (docs/ecs.md, "Order").
 * Changing it changes every order-dependent system and every recorded replay's re-simulation.
 * 4096 rather than 256: blocks that go down while their insides go up defeat the hardware
 * prefetcher once per block, which at 256 cost the walk about 2x a forward loop past 100k
 * entities; at 4096 it is within 1.1x (retcon_ecs_bench, group and view2 against view2/plain).
 */
inline constexpr std::uint32_t walk_block = 4096;

/// @brief Positions per alignment check (one memcmp of owner arrays); speed only, not order.
inline constexpr std::uint32_t align_block = 64;

/// @brief One block of a walk: positions [lo, hi), visited upwards if @ref up.
struct walk_span {
    std::uint32_t lo = 0;
    std::uint32_t hi = 0;
    bool up = false;
};

/// @brief True if the block ending at @p hi may be walked upwards: @p room (the smallest live
/// size of the walked pools and packed length of the groups that could move their entities into
/// the block) leaves at least walk_block positions above it, so the swap-and-pop (or the swap out
/// of a group) of each visit in the block pulls an element from an already-visited position at
/// or above @p hi.
[[nodiscard]] constexpr bool walk_up(std::uint32_t hi, std::uint32_t room) noexcept {
    return room >= hi && room - hi >= walk_block;
}

/// @brief The lower bound of the block that ends at @p hi (blocks are cut from position 0).
[[nodiscard]] constexpr std::uint32_t walk_block_lo(std::uint32_t hi) noexcept {
    return hi == 0 ? 0u : (hi - 1u) / walk_block * walk_block;
}

/**
 * @brief The visit order of every retcon walk over @p n positions (docs/ecs.md, "Order").
 *
 * Blocks of walk_block positions are cut from position 0 and visited from the highest to the
 * lowest. Reaching a block [lo, hi), `room(lo)` is asked for the live room above it, and the
 * block goes upwards when walk_up() allows it, else downwards. Calls `on_block(span)` per block.
 * The range-for iterator of views takes the same steps one position at a time (walk_block_lo,
 * walk_up), so `each` and range-for visit in the same order.
 */
template<class Room, class OnBlock>
void walk_blocks(std::uint32_t n, Room &&room, OnBlock &&on_block) {
    for (std::uint32_t hi = n; hi > 0;) {
        const std::uint32_t lo = walk_block_lo(hi);
        on_block(walk_span{lo, hi, walk_up(hi, room(lo))});
        hi = lo;
    }
}

/// @brief Blocks ahead of the walk that prefetch() fetches (speed only, not order).
inline constexpr std::uint32_t prefetch_blocks = 2;

/**
 * @brief Prefetches elements of @p size bytes at @p base for the block prefetch_blocks below the
 * one starting at @p lo. Blocks are visited from the highest down but walked upwards inside, a
 * pattern the hardware prefetcher does not follow at sizes past the caches.
 */
inline void prefetch(const void *base, std::size_t size, std::uint32_t lo) noexcept {
#if defined(__GNUC__)
    if (base == nullptr || size == 0 || lo < prefetch_blocks * walk_block) return;
    const char *first = static_cast<const char *>(base) + std::size_t{lo - prefetch_blocks * walk_block} * size;
    const char *last = first + std::size_t{walk_block} * size;
    for (const char *p = first; p < last; p += 64) __builtin_prefetch(p);
#else
    (void)base, (void)size, (void)lo;
#endif
}

/// @brief Counts the swaps alignment passes made (tests read it; docs/ecs.md, "Order").
struct align_stats {
    std::uint64_t swaps = 0;
};

/**
 * @brief Moves entities of @p p so that it holds @p lead's entities at the same positions over
 * [0, |lead|), at most @p budget swaps. A position whose lead entity @p p lacks stays as it is.
 *
 * A swap never disturbs an aligned position (the entity moved away from position j is not
 * lead[j], and the one moved to j came from a position it did not belong to), so one pass with
 * enough budget converges. A budget of 0 only checks (group-owned pools). Returns the number of swaps; @p fully is set when every position of
 * [0, |lead|) holds the lead's entity afterwards, @p finished when the budget did not run out
 * (another pass would change nothing).
 */
inline std::uint64_t align_to_lead(const pool &lead, pool &p, std::uint64_t budget, bool &fully,
                                   bool &finished) noexcept {
    const std::uint32_t n = lead.size() < p.size() ? lead.size() : p.size();
    fully = lead.size() <= p.size();
    finished = true;
    const entity *l = lead.owners().data();
    std::uint64_t swaps = 0;
    for (std::uint32_t lo = 0; lo < n; lo += align_block) {
        const std::uint32_t hi = n - lo < align_block ? n : lo + align_block;
        const entity *o = p.owners().data();
        if (std::memcmp(l + lo, o + lo, std::size_t{hi - lo} * sizeof(entity)) == 0) continue;
        for (std::uint32_t j = lo; j < hi; ++j) {
            if (l[j] == p.owners().at(j)) continue;
            const auto pos = p.index(l[j]);
            if (pos == pool::npos) {
                fully = false;
                continue;
            }
            if (swaps == budget) { // a budget of 0 only checks: nothing left to do
                fully = false;
                finished = budget == 0;
                return swaps;
            }
            p.swap_at(pos, j);
            ++swaps;
        }
    }
    return swaps;
}

} // namespace retcon::internal

#endif
