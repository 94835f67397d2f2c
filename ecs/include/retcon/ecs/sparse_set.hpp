#ifndef RETCON_ECS_SPARSE_SET_HPP
#define RETCON_ECS_SPARSE_SET_HPP

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "entity.hpp"

namespace retcon {

/**
 * @brief A sparse set of entities: a dense array in insertion (or sorted) order plus a paged
 * sparse index from entity index to dense position.
 *
 * The dense array is simulation state: its order is the iteration order and enters snapshots.
 * The sparse index is derived data, rebuilt from the dense array (`assign`) and never
 * snapshotted or hashed. A sparse entry stores the dense position together with the version of
 * the entity that owns it, so `contains` detects stale handles with a single load.
 * Pages (RETCON_SPARSE_PAGE_SIZE entries) are allocated on first use.
 */
class sparse_set {
public:
    using size_type = std::uint32_t;
    /// @brief Position returned for an entity that is not in the set.
    static constexpr size_type npos = ~size_type{0};
    static constexpr size_type page_size = RETCON_SPARSE_PAGE_SIZE;
    static_assert((page_size & (page_size - 1)) == 0, "RETCON_SPARSE_PAGE_SIZE must be a power of two");
    /// @brief A sparse entry: the dense position in the index bits, the owner's version above
    /// them (a handle's width, so either layout fits its version).
    using entry_type = entity_traits::value_type;
    /// @brief The entry of an index that is not in the set.
    static constexpr entry_type no_entry = ~entry_type{0};

    sparse_set() = default;
    sparse_set(sparse_set &&) noexcept = default;
    sparse_set &operator=(sparse_set &&) noexcept = default;
    sparse_set(const sparse_set &) = delete;
    sparse_set &operator=(const sparse_set &) = delete;
    ~sparse_set() = default;

    /// @brief Number of entities in the set.
    [[nodiscard]] size_type size() const noexcept { return static_cast<size_type>(dense_.size()); }
    [[nodiscard]] bool empty() const noexcept { return dense_.empty(); }
    /// @brief The dense array (iteration order).
    [[nodiscard]] const entity *data() const noexcept { return dense_.data(); }
    [[nodiscard]] entity at(size_type pos) const noexcept { return dense_[pos]; }

    /// @brief Dense position of @p e, or npos if @p e (this exact version) is not in the set.
    [[nodiscard]] size_type index(entity e) const noexcept {
        const auto idx = to_index(e);
        const auto page = idx / page_size;
        if (page >= pages_.size() || !pages_[page]) return npos;
        const auto entry = pages_[page][idx & (page_size - 1u)];
        if (entry == no_entry || ((entry ^ to_integral(e)) >> entity_traits::index_bits) != 0) return npos;
        return static_cast<size_type>(entry & entity_traits::index_mask);
    }
    /// @brief True if @p e (this exact version) is in the set.
    [[nodiscard]] bool contains(entity e) const noexcept { return index(e) != npos; }

    /// @brief Appends @p e (which must not be present) and returns its position.
    size_type push_back(entity e) {
        const auto pos = size();
        dense_.push_back(e);
        sparse_ref(to_index(e)) = encode(pos, e);
        return pos;
    }
    /// @brief Removes the entity at @p pos by moving the last entity into its place.
    void swap_and_pop(size_type pos) noexcept {
        const entity gone = dense_[pos];
        const entity last = dense_.back();
        dense_[pos] = last;
        sparse_ref_existing(to_index(last)) = encode(pos, last);
        sparse_ref_existing(to_index(gone)) = no_entry;
        dense_.pop_back();
    }
    /// @brief Exchanges the entities at two positions (and their sparse entries).
    void swap_positions(size_type a, size_type b) noexcept {
        if (a == b) return;
        const entity ea = dense_[a];
        const entity eb = dense_[b];
        dense_[a] = eb;
        dense_[b] = ea;
        sparse_ref_existing(to_index(eb)) = encode(a, eb);
        sparse_ref_existing(to_index(ea)) = encode(b, ea);
    }
    /// @brief Empties the set (pages are kept, entries reset).
    void clear() noexcept {
        for (const entity e : dense_) sparse_ref_existing(to_index(e)) = no_entry;
        dense_.clear();
    }
    /// @brief Replaces the contents with @p count entities in the given order, rebuilding the
    /// sparse index. Used by snapshot restore; @p first must hold distinct live handles.
    ///
    /// Incremental, for rollback: only the positions whose entity changes are touched, so a
    /// restore in which few entities joined or left the set costs a (vectorised) compare of
    /// the dense arrays instead of two random writes per entity. The result is the same as
    /// clear() followed by a full rebuild: every entity leaving a position loses its entry
    /// before any arriving entity gets one (an index can leave one position and arrive at
    /// another), and an unchanged position's index neither leaves nor arrives elsewhere
    /// (indices are distinct within each array).
    void assign(const entity *first, size_type count) {
        const size_type old = size();
        if (old == 0) {
            fill(first, count);
            return;
        }
        const entity *cur = dense_.data();
        if (old == count && (count == 0 || std::memcmp(cur, first, std::size_t{count} * sizeof(entity)) == 0)) return;
        const size_type common = old < count ? old : count;
        for_each_changed(cur, first, common,
                         [&](size_type pos) { sparse_ref_existing(to_index(cur[pos])) = no_entry; });
        for (size_type pos = common; pos < old; ++pos) sparse_ref_existing(to_index(cur[pos])) = no_entry;
        for_each_changed(cur, first, common,
                         [&](size_type pos) { sparse_ref(to_index(first[pos])) = encode(pos, first[pos]); });
        for (size_type pos = common; pos < count; ++pos) sparse_ref(to_index(first[pos])) = encode(pos, first[pos]);
        dense_.assign(first, first + count);
    }
    /// @brief Reserves room for @p n entities in the dense array.
    void reserve(size_type n) { dense_.reserve(n); }
    /// @brief Bytes held by the sparse pages (derived data, reported for memory accounting).
    [[nodiscard]] std::size_t sparse_bytes() const noexcept {
        std::size_t n = 0;
        for (const auto &p : pages_) n += p ? page_size * sizeof(entry_type) : 0u;
        return n;
    }

private:
    /// assign() into an empty set (a fresh world, or a pool that was empty): nothing to clear
    /// and nothing to compare. The dense array is appended a block at a time and the block's
    /// entries are written while it is still in L1, so the image's owners are read once.
    void fill(const entity *first, size_type count) {
        constexpr size_type block = 1024;
        dense_.reserve(count);
        for (size_type start = 0; start < count; start += block) {
            const size_type end = count - start < block ? count : start + block;
            dense_.insert(dense_.end(), first + start, first + end);
            const entity *copied = dense_.data();
            size_type top = 0;
            for (size_type pos = start; pos < end; ++pos) top = std::max(top, to_index(copied[pos]));
            if (top / page_size >= pages_.size()) pages_.resize(top / page_size + 1u);
            std::unique_ptr<entry_type[]> *pages = pages_.data(); // the loop below never resizes
            for (size_type pos = start; pos < end; ++pos) {
                const size_type idx = to_index(copied[pos]);
                std::unique_ptr<entry_type[]> &page = pages[idx / page_size];
                if (!page) page = new_page();
                page[idx & (page_size - 1u)] = encode(pos, copied[pos]);
            }
        }
    }
    /// A sparse page with every entry no_entry (all ones), written once rather than zeroed first.
    static std::unique_ptr<entry_type[]> new_page() {
        std::unique_ptr<entry_type[]> page{new entry_type[page_size]};
        std::fill_n(page.get(), page_size, no_entry);
        return page;
    }
    /// Calls @p f(pos), in increasing order, for each pos < n where a[pos] != b[pos]. Blocks of
    /// 16 equal entities are skipped with 16-byte XOR/OR steps, four (eight for 64-bit handles)
    /// per block (GCC does not vectorise the plain loop here); in other blocks a bit mask of the
    /// differing positions is built without branches, so a block where half the positions differ
    /// costs no branch mispredictions.
    template<class F>
    static void for_each_changed(const entity *a, const entity *b, size_type n, F &&f) {
        constexpr size_type block = 16;
        size_type pos = 0;
        for (; pos + block <= n; pos += block) {
            const entity *pa = a + pos;
            const entity *pb = b + pos;
#if defined(__GNUC__)
            using u64x2 = std::uint64_t __attribute__((vector_size(16)));
            u64x2 acc{};
            constexpr size_type per_step = 16u / sizeof(entity);
            for (size_type k = 0; k < block; k += per_step) {
                u64x2 x, y;
                std::memcpy(&x, pa + k, sizeof x);
                std::memcpy(&y, pb + k, sizeof y);
                acc |= x ^ y;
            }
            if ((acc[0] | acc[1]) == 0) continue;
#endif
            std::uint32_t mask = 0;
            for (size_type k = 0; k < block; ++k) mask |= static_cast<std::uint32_t>(pa[k] != pb[k]) << k;
            for (; mask != 0; mask &= mask - 1u) f(pos + static_cast<size_type>(std::countr_zero(mask)));
        }
        for (; pos < n; ++pos)
            if (a[pos] != b[pos]) f(pos);
    }
    static constexpr entry_type encode(size_type pos, entity e) noexcept {
        return entry_type{pos} | (to_integral(e) & ~entity_traits::index_mask);
    }
    entry_type &sparse_ref_existing(size_type idx) noexcept { return pages_[idx / page_size][idx & (page_size - 1u)]; }
    entry_type &sparse_ref(size_type idx) {
        const auto page = idx / page_size;
        if (page >= pages_.size()) pages_.resize(page + 1u);
        if (!pages_[page]) pages_[page] = new_page();
        return pages_[page][idx & (page_size - 1u)];
    }

    std::vector<entity> dense_;
    std::vector<std::unique_ptr<entry_type[]>> pages_;
};

} // namespace retcon

#endif
