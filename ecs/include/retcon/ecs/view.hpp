#ifndef RETCON_ECS_VIEW_HPP
#define RETCON_ECS_VIEW_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <tuple>
#include <type_traits>
#include <utility>

#include "pool.hpp"
#include "walk.hpp"

namespace retcon {

/// @brief A list of types (used to name a view's included and excluded components).
template<class... T>
struct type_list {};

/// @brief Components an entity must not have to be visited: `w.view<A>(exclude<B, C>)`.
template<class... T>
struct exclude_t {
    constexpr exclude_t() = default;
};
/// @brief Instance of exclude_t to pass to `world::view`.
template<class... T>
inline constexpr exclude_t<T...> exclude{};

namespace internal {

template<class T>
using pool_ptr_t = std::conditional_t<std::is_const_v<T>, const pool *, pool *>;

/// @brief What a view hands out for T: a reference, or nothing for tags.
template<class T>
using arg_tuple_t = std::conditional_t<std::is_empty_v<std::remove_const_t<T>>, std::tuple<>, std::tuple<T &>>;

template<class T, class P>
arg_tuple_t<T> payload_arg(P *p, std::uint32_t pos) {
    if constexpr (std::is_empty_v<std::remove_const_t<T>>) return {};
    else
        return arg_tuple_t<T>{p->template data_as<std::remove_const_t<T>>()[pos]};
}

/// @brief A pool's typed payload pointer, taken once before a loop (nothing for tags).
/// Removing components never reallocates a payload, so it stays valid while a loop removes or
/// destroys the visited entity.
template<class T>
using data_ptr_t = std::conditional_t<std::is_empty_v<std::remove_const_t<T>>, std::nullptr_t, T *>;

template<class T, class P>
data_ptr_t<T> data_ptr(P *p) noexcept {
    if constexpr (std::is_empty_v<std::remove_const_t<T>>) return nullptr;
    else
        return p->template data_as<std::remove_const_t<T>>();
}

template<class T>
arg_tuple_t<T> data_arg(data_ptr_t<T> base, std::uint32_t pos) noexcept {
    if constexpr (std::is_empty_v<std::remove_const_t<T>>) return {};
    else
        return arg_tuple_t<T>{base[pos]};
}

template<class F, class Tuple>
struct invocable_with_entity;
template<class F, class... A>
struct invocable_with_entity<F, std::tuple<A...>> : std::is_invocable<F &, entity, A...> {};

} // namespace internal

template<class Get, class Exclude>
class basic_view;

/**
 * @brief Iterates every entity that has all of `Get...` and none of `Exclude...`.
 *
 * The view walks the smallest included pool (the lead) in blocks of internal::walk_block
 * positions, highest block first, each upwards or downwards (docs/ecs.md, "Order"), and checks
 * the others; a single-component view is a plain loop over the dense arrays. The order is part
 * of the world's state, hence deterministic. A view of a mutable world aligns its other pools
 * to the lead before walking (a write: presentation code uses a `const world&`). Tags (empty
 * types) filter but are not passed to the callback. Inside `each` or a range-for it is safe to
 * remove components from, or destroy, the entity being visited (swap-and-pop only moves entities
 * already visited); any other structural change (adding components, touching other entities)
 * must go through a `command_buffer` applied after the loop.
 *
 * @code
 * w.view<Position, const Velocity>(retcon::exclude<Frozen>).each([](Position &p, const Velocity &v) {
 *     p.x += v.x;
 * });
 * for (auto [e, p, v] : w.view<Position, const Velocity>()) { ... }
 * @endcode
 */
template<class... Get, class... Exclude>
class basic_view<type_list<Get...>, type_list<Exclude...>> {
    static_assert(sizeof...(Get) > 0, "retcon: a view needs at least one component type");
    static constexpr std::size_t n_get = sizeof...(Get);
    static constexpr std::size_t n_exclude = sizeof...(Exclude);
    using size_type = std::uint32_t;
    static constexpr size_type npos = pool::npos;
    using args_type = decltype(std::tuple_cat(std::declval<internal::arg_tuple_t<Get>>()...));
    using item_type = decltype(std::tuple_cat(std::declval<std::tuple<entity>>(), std::declval<args_type>()));

public:
    /// @brief Built by `world::view`. @p reorder holds the included pools when the view comes from
    /// a mutable world (it may then align them to the lead, docs/ecs.md "Order"); a const world
    /// passes none and the view never writes.
    basic_view(std::tuple<internal::pool_ptr_t<Get>...> pools, std::array<const pool *, n_exclude> excluded,
               std::array<pool *, n_get> reorder = {}) noexcept
        : pools_{pools}, excluded_{excluded}, reorder_{reorder} {
        lead_ = std::get<0>(pools_);
        std::apply([this](auto *...p) { ((lead_ = p->size() < lead_->size() ? p : lead_), ...); }, pools_);
    }

    /// @brief Upper bound of the number of entities visited (size of the smallest pool).
    [[nodiscard]] size_type size_hint() const noexcept { return lead_->size(); }

    /// @brief True if @p e would be visited.
    [[nodiscard]] bool contains(entity e) const noexcept {
        std::array<size_type, n_get> pos{};
        return locate(e, npos, pos);
    }

    /**
     * @brief Calls @p f for every match, as `f(entity, Get&...)` or `f(Get&...)` (tags omitted).
     *
     * The order is internal::walk_blocks over the lead's positions (docs/ecs.md, "Order"). A view
     * of a mutable world first aligns its other pools to the lead (align_pools).
     */
    template<class F>
    void each(F &&f) const {
        align_pools();
        if constexpr (n_get == 1 && n_exclude == 0) {
            auto *p = std::get<0>(pools_);
            const entity *owners = p->owners().data();
            const data_tuple data = data_ptrs();
            internal::walk_blocks(
                p->size(), [this](size_type lo) { return room(lo); },
                [&](internal::walk_span b) {
                    internal::prefetch(p->payload(), p->element_size(), b.lo);
                    if constexpr (internal::invocable_with_entity<F, args_type>::value)
                        internal::prefetch(owners, sizeof(entity), b.lo);
                    if (b.up) {
                        for (size_type j = b.lo; j < b.hi; ++j)
                            call_direct(f, owners[j], data, j, std::index_sequence_for<Get...>{});
                    } else {
                        for (size_type j = b.hi; j-- > b.lo;)
                            call_direct(f, owners[j], data, j, std::index_sequence_for<Get...>{});
                    }
                });
        } else {
            // Each block of the walk is checked in stretches of align_block positions. A stretch
            // where every included pool holds exactly the lead's entities at the same positions
            // (proved by a note on the pool or one memcmp of the dense arrays) needs no sparse
            // lookups. Removing or destroying the visited entity only pulls entities from
            // positions already visited (walk_up), so a verified stretch stays valid while it is
            // walked, and payloads never move on removal.
            const data_tuple data = data_ptrs();
            const entity *owners = lead_->owners().data();
            internal::walk_blocks(
                lead_->size(), [this](size_type lo) { return room(lo); },
                [&](internal::walk_span b) {
                    std::apply([&](auto *...p) { (prefetch_pool(p, b.lo), ...); }, pools_);
                    if (noted_aligned()) { // the whole block, as one loop
                        if (b.up) {
                            for (size_type j = b.lo; j < b.hi; ++j) visit_aligned(f, owners, data, j);
                        } else {
                            for (size_type j = b.hi; j-- > b.lo;) visit_aligned(f, owners, data, j);
                        }
                        return;
                    }
                    if (b.up) {
                        for (size_type lo = b.lo; lo < b.hi;) {
                            const size_type next = (lo / internal::align_block + 1u) * internal::align_block;
                            const size_type hi = next < b.hi ? next : b.hi;
                            if (aligned(owners, lo, hi)) {
                                for (size_type j = lo; j < hi; ++j) visit_aligned(f, owners, data, j);
                            } else {
                                for (size_type j = lo; j < hi; ++j) visit_lookup(f, owners, data, j);
                            }
                            lo = hi;
                        }
                    } else {
                        for (size_type hi = b.hi; hi > b.lo;) {
                            const size_type start = (hi - 1u) / internal::align_block * internal::align_block;
                            const size_type lo = start > b.lo ? start : b.lo;
                            if (aligned(owners, lo, hi)) {
                                for (size_type j = hi; j-- > lo;) visit_aligned(f, owners, data, j);
                            } else {
                                for (size_type j = hi; j-- > lo;) visit_lookup(f, owners, data, j);
                            }
                            hi = lo;
                        }
                    }
                });
        }
    }

    /// @brief Input iterator yielding `std::tuple<entity, Get&...>` (tags omitted); visits in
    /// the order of `each`, one position at a time.
    class iterator {
    public:
        using difference_type = std::ptrdiff_t;
        using value_type = item_type;
        using reference = value_type;
        using iterator_category = std::input_iterator_tag;

        iterator() = default;
        /// @brief The first match of @p v (the end when @p v has none).
        explicit iterator(const basic_view *v) : view_{v}, lo_{v->lead_->size()}, hi_{lo_}, next_{lo_}, done_{false} {
            advance();
        }
        reference operator*() const { return view_->tuple_at(current_, pos_); }
        iterator &operator++() {
            advance();
            return *this;
        }
        void operator++(int) { advance(); }
        friend bool operator==(const iterator &a, const iterator &b) noexcept {
            return a.done_ == b.done_ && (a.done_ || (a.lo_ == b.lo_ && a.next_ == b.next_));
        }

    private:
        void advance() {
            for (;;) {
                if (up_ ? next_ < hi_ : next_ > lo_) {
                    const size_type i = up_ ? next_++ : --next_;
                    if (i >= view_->lead_->size()) continue; // the visited entity was destroyed
                    current_ = view_->lead_->owners().at(i);
                    if (view_->locate(current_, i, pos_)) return;
                    continue;
                }
                if (lo_ == 0) break;
                // The next block of internal::walk_blocks, its direction decided now, as there.
                hi_ = lo_;
                lo_ = internal::walk_block_lo(hi_);
                up_ = internal::walk_up(hi_, view_->room(lo_));
                next_ = up_ ? lo_ : hi_;
            }
            done_ = true;
        }
        const basic_view *view_ = nullptr;
        size_type lo_ = 0; // the current block is [lo_, hi_)
        size_type hi_ = 0;
        size_type next_ = 0; // upwards: the next position; downwards: one past it
        bool up_ = false;
        entity current_{};
        std::array<size_type, n_get> pos_{};
        bool done_ = true;
    };

    /// @brief The first match; a view of a mutable world aligns its pools first (as `each`).
    [[nodiscard]] iterator begin() const {
        align_pools();
        return iterator{this};
    }
    [[nodiscard]] iterator end() const { return iterator{}; }

    /// @brief Swaps the alignment passes of this view have made so far (for tests).
    [[nodiscard]] std::uint64_t alignment_swaps() const noexcept { return stats_.swaps; }

private:
    using data_tuple = std::tuple<internal::data_ptr_t<Get>...>;
    data_tuple data_ptrs() const noexcept {
        return std::apply([](auto *...p) { return data_tuple{internal::data_ptr<Get>(p)...}; }, pools_);
    }

    /// @brief True if every included pool holds the lead's entities at positions [lo, hi).
    bool aligned(const entity *lead_owners, size_type lo, size_type hi) const noexcept {
        return std::apply(
            [&](auto *...p) {
                return ((static_cast<const pool *>(p) == lead_ || p->noted_aligned_to(*lead_) ||
                         (p->size() >= hi && std::memcmp(p->owners().data() + lo, lead_owners + lo,
                                                         std::size_t{hi - lo} * sizeof(entity)) == 0)) &&
                        ...);
            },
            pools_);
    }

    /// @brief True if every included pool carries a current note of holding the lead's entities
    /// at the lead's positions (pool::noted_aligned_to).
    bool noted_aligned() const noexcept {
        return std::apply(
            [&](auto *...p) { return ((static_cast<const pool *>(p) == lead_ || p->noted_aligned_to(*lead_)) && ...); },
            pools_);
    }

    /// @brief The room above a block starting at @p lo (internal::walk_up): the smallest live
    /// size of the included pools, and the packed length of each group owning one of them unless
    /// that range ends at or below @p lo (leaving such a group swaps only positions under the
    /// block, which are checked again when reached).
    size_type room(size_type lo) const noexcept {
        size_type r = npos;
        const auto take = [&](const pool *p) {
            if (p->size() < r) r = p->size();
            const size_type g = p->group_length();
            if (g > lo && g < r) r = g;
        };
        std::apply([&](auto *...p) { (take(p), ...); }, pools_);
        return r;
    }

    /**
     * @brief For a view of a mutable world: moves entities of each included pool other than the
     * lead so it holds the lead's entities at the lead's positions (internal::align_to_lead), at
     * most max(256, ceil(|lead| / 4)) swaps per pool and call. Group-owned and excluded pools are never
     * reordered (a group-owned pool is only checked, so a note can skip later comparisons).
     */
    void align_pools() const {
        if constexpr (n_get > 1) {
            if (reorder_[0] == nullptr) return;
            const std::uint64_t quarter = (std::uint64_t{lead_->size()} + 3u) / 4u; // four calls converge
            const std::uint64_t budget = quarter > 256u ? quarter : 256u;
            for (pool *p : reorder_) {
                if (p == lead_ || p->noted_settled(*lead_) || is_excluded(p)) continue;
                bool fully = false;
                bool finished = false;
                stats_.swaps += internal::align_to_lead(*lead_, *p, p->group_owned() ? 0u : budget, fully, finished);
                if (finished || fully) p->note_alignment(*lead_, fully);
            }
        }
    }

    /// @brief Prefetches what the walk will read of @p p a few blocks below @p lo.
    void prefetch_pool(const pool *p, size_type lo) const noexcept {
        internal::prefetch(p->payload(), p->element_size(), lo);
        if (p == lead_ || !p->noted_aligned_to(*lead_)) internal::prefetch(p->owners().data(), sizeof(entity), lo);
    }

    bool is_excluded(const pool *p) const noexcept {
        for (const pool *x : excluded_)
            if (x == p) return true;
        return false;
    }

    /// @brief Visits lead position @p j of a verified stretch (no lookups).
    template<class F>
    void visit_aligned(F &f, const entity *owners, const data_tuple &data, size_type j) const {
        if constexpr (n_exclude != 0) {
            if (excluded(owners[j])) return;
        }
        call_direct(f, owners[j], data, j, std::index_sequence_for<Get...>{});
    }

    /// @brief Visits lead position @p j, looking the entity up in the other pools.
    template<class F>
    void visit_lookup(F &f, const entity *owners, const data_tuple &data, size_type j) const {
        const entity e = owners[j];
        std::array<size_type, n_get> pos{};
        if (locate(e, j, pos)) call_direct(f, e, data, pos, std::index_sequence_for<Get...>{});
    }

    bool excluded(entity e) const noexcept {
        for (const pool *x : excluded_)
            if (x->contains(e)) return true;
        return false;
    }

    template<std::size_t I>
    static size_type pos_of(size_type pos) noexcept {
        return pos;
    }
    template<std::size_t I>
    static size_type pos_of(const std::array<size_type, n_get> &pos) noexcept {
        return pos[I];
    }

    /// @brief Calls @p f with the components at @p pos (one position for all, or one each).
    template<class F, class Pos, std::size_t... I>
    void call_direct(F &f, entity e, const data_tuple &data, const Pos &pos, std::index_sequence<I...>) const {
        args_type args = std::tuple_cat(internal::data_arg<Get>(std::get<I>(data), pos_of<I>(pos))...);
        if constexpr (internal::invocable_with_entity<F, args_type>::value)
            std::apply([&](auto &...a) { f(e, a...); }, args);
        else
            std::apply([&](auto &...a) { f(a...); }, args);
    }

    bool locate(entity e, size_type lead_pos, std::array<size_type, n_get> &pos) const noexcept {
        bool ok = true;
        std::size_t k = 0;
        std::apply(
            [&](auto *...p) {
                ((ok = ok &&
                       (pos[k] = (static_cast<const pool *>(p) == lead_ && lead_pos != npos) ? lead_pos
                                                                                             : p->index(e)) != npos,
                  ++k),
                 ...);
            },
            pools_);
        if (!ok) return false;
        for (const pool *x : excluded_)
            if (x->contains(e)) return false;
        return true;
    }

    template<std::size_t... I>
    args_type args_at(const std::array<size_type, n_get> &pos, std::index_sequence<I...>) const {
        return std::tuple_cat(internal::payload_arg<Get>(std::get<I>(pools_), pos[I])...);
    }

    item_type tuple_at(entity e, const std::array<size_type, n_get> &pos) const {
        return std::tuple_cat(std::tuple<entity>{e}, args_at(pos, std::index_sequence_for<Get...>{}));
    }

    std::tuple<internal::pool_ptr_t<Get>...> pools_;
    std::array<const pool *, n_exclude> excluded_;
    std::array<pool *, n_get> reorder_;
    const pool *lead_ = nullptr;
    mutable internal::align_stats stats_{};
};

/// @brief The view type returned by `world::view<Get...>(exclude<Exclude...>)`.
template<class Get, class Exclude = type_list<>>
using view = basic_view<Get, Exclude>;

} // namespace retcon

#endif
