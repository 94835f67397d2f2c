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
 * The view walks the smallest included pool from its last element to its first and checks the
 * others; a single-component view is a plain loop over the dense arrays. The order is part of
 * the world's state, hence deterministic. Tags (empty types) filter but are not passed to the
 * callback. Inside `each` or a range-for it is safe to remove components from, or destroy, the
 * entity being visited (the walk goes backwards, so swap-and-pop only moves visited entities);
 * any other structural change (adding components, touching other entities) must go through a
 * `command_buffer` applied after the loop.
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
    /// @brief Built by `world::view`.
    basic_view(std::tuple<internal::pool_ptr_t<Get>...> pools, std::array<const pool *, n_exclude> excluded) noexcept
        : pools_{pools}, excluded_{excluded} {
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
     */
    template<class F>
    void each(F &&f) const {
        if constexpr (n_get == 1 && n_exclude == 0) {
            auto *p = std::get<0>(pools_);
            const entity *owners = p->owners().data();
            const data_tuple data = data_ptrs();
            for (size_type i = p->size(); i-- > 0;)
                call_direct(f, owners[i], data, i, std::index_sequence_for<Get...>{});
        } else {
            // The walk goes block by block (same order as one entity at a time). A block where
            // every included pool holds exactly the lead's entities at the same positions (the
            // common case: entities created with their components in the same order) needs no
            // sparse lookups; comparing the dense arrays proves it. Removing or destroying the
            // visited entity only moves entities at or after its position, so a verified block
            // stays valid while it is walked, and payloads never move on removal.
            const data_tuple data = data_ptrs();
            const entity *owners = lead_->owners().data();
            for (size_type i = lead_->size(); i > 0;) {
                const size_type lo = i > block ? i - block : 0u;
                if (aligned(owners, lo, i)) {
                    for (size_type j = i; j-- > lo;) {
                        if constexpr (n_exclude != 0) {
                            if (excluded(owners[j])) continue;
                        }
                        call_direct(f, owners[j], data, j, std::index_sequence_for<Get...>{});
                    }
                } else {
                    for (size_type j = i; j-- > lo;) {
                        const entity e = owners[j];
                        std::array<size_type, n_get> pos{};
                        if (locate(e, j, pos)) call_direct(f, e, data, pos, std::index_sequence_for<Get...>{});
                    }
                }
                i = lo;
            }
        }
    }

    /// @brief Input iterator yielding `std::tuple<entity, Get&...>` (tags omitted).
    class iterator {
    public:
        using difference_type = std::ptrdiff_t;
        using value_type = item_type;
        using reference = value_type;
        using iterator_category = std::input_iterator_tag;

        iterator() = default;
        iterator(const basic_view *v, size_type next) : view_{v}, next_{next} { advance(); }
        reference operator*() const { return view_->tuple_at(current_, pos_); }
        iterator &operator++() {
            advance();
            return *this;
        }
        void operator++(int) { advance(); }
        friend bool operator==(const iterator &a, const iterator &b) noexcept {
            return a.done_ == b.done_ && (a.done_ || a.next_ == b.next_);
        }

    private:
        void advance() {
            while (next_ > 0) {
                const size_type i = --next_;
                if (i >= view_->lead_->size()) continue; // the visited entity was destroyed
                current_ = view_->lead_->owners().at(i);
                if (view_->locate(current_, i, pos_)) return;
            }
            done_ = true;
        }
        const basic_view *view_ = nullptr;
        size_type next_ = 0;
        entity current_{};
        std::array<size_type, n_get> pos_{};
        bool done_ = false;
    };

    [[nodiscard]] iterator begin() const { return iterator{this, lead_->size()}; }
    [[nodiscard]] iterator end() const { return iterator{this, 0}; }

private:
    using data_tuple = std::tuple<internal::data_ptr_t<Get>...>;
    /// @brief Entities per block of `each` (see there).
    static constexpr size_type block = 64;

    data_tuple data_ptrs() const noexcept {
        return std::apply([](auto *...p) { return data_tuple{internal::data_ptr<Get>(p)...}; }, pools_);
    }

    /// @brief True if every included pool holds the lead's entities at positions [lo, hi).
    bool aligned(const entity *lead_owners, size_type lo, size_type hi) const noexcept {
        return std::apply(
            [&](auto *...p) {
                return ((static_cast<const pool *>(p) == lead_ ||
                         (p->size() >= hi && std::memcmp(p->owners().data() + lo, lead_owners + lo,
                                                         std::size_t{hi - lo} * sizeof(entity)) == 0)) &&
                        ...);
            },
            pools_);
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
    const pool *lead_ = nullptr;
};

/// @brief The view type returned by `world::view<Get...>(exclude<Exclude...>)`.
template<class Get, class Exclude = type_list<>>
using view = basic_view<Get, Exclude>;

} // namespace retcon

#endif
