#ifndef RETCON_ECS_GROUP_HPP
#define RETCON_ECS_GROUP_HPP

#include <cstdint>
#include <tuple>
#include <utility>

#include "view.hpp"

namespace retcon {

/**
 * @brief Lockstep iteration over an owning group (`schema::group<A, B, ...>()`).
 *
 * A full-owning group keeps every entity that has all the owned types at the front of each
 * owned pool, in the same order, so iterating is a walk over contiguous arrays with no lookups.
 * The packed length lives in the world's state (snapshots carry it). The walk goes in blocks like
 * a view's (internal::walk_blocks, docs/ecs.md "Order") and the visited entity may lose an owned
 * component or be destroyed.
 *
 * What the other kinds would cost: a non-owning group keeps its own dense list of matching
 * entities (4 bytes per match plus a lookup per component while iterating, about a view's cost
 * without the membership checks); a partial-owning group packs only some pools and looks the
 * rest up. retcon provides the full-owning kind only.
 */
template<class... Owned>
class basic_group {
public:
    using size_type = std::uint32_t;

    /// @brief Built by `world::group`.
    basic_group(std::tuple<internal::pool_ptr_t<Owned>...> pools, const size_type *length) noexcept
        : pools_{pools}, length_{length} {}

    /// @brief Number of entities in the group.
    [[nodiscard]] size_type size() const noexcept { return *length_; }
    [[nodiscard]] bool empty() const noexcept { return *length_ == 0; }
    /// @brief True if @p e is in the group.
    [[nodiscard]] bool contains(entity e) const noexcept {
        const auto pos = std::get<0>(pools_)->index(e);
        return pos != pool::npos && pos < *length_;
    }
    /// @brief The entity at position @p i of the packed range.
    [[nodiscard]] entity at(size_type i) const noexcept { return std::get<0>(pools_)->owners().at(i); }

    /// @brief Calls `f(entity, Owned&...)` or `f(Owned&...)` for each member (tags omitted), in
    /// the order of internal::walk_blocks over the packed range, the length re-read per block.
    template<class F>
    void each(F &&f) const {
        const entity *owners = std::get<0>(pools_)->owners().data();
        // Payload pointers are taken once: removing components never reallocates a payload.
        // With them hoisted, and a fixed trip count per upward block, the compiler vectorises
        // simple loops forwards.
        const auto data = std::apply(
            [](auto *...p) { return std::tuple<internal::data_ptr_t<Owned>...>{internal::data_ptr<Owned>(p)...}; },
            pools_);
        const auto visit = [&](size_type i) {
            auto args = data_args_at(data, i, std::index_sequence_for<Owned...>{});
            if constexpr (internal::invocable_with_entity<F, decltype(args)>::value)
                std::apply([&](auto &...a) { f(owners[i], a...); }, args);
            else
                std::apply([&](auto &...a) { f(a...); }, args);
        };
        internal::walk_blocks(
            *length_, [this](size_type) { return *length_; },
            [&](internal::walk_span b) {
                std::apply([&](auto *...p) { (internal::prefetch(p->payload(), p->element_size(), b.lo), ...); },
                           pools_);
                if constexpr (internal::invocable_with_entity<
                                  F, decltype(data_args_at(data, 0, std::index_sequence_for<Owned...>{}))>::value)
                    internal::prefetch(owners, sizeof(entity), b.lo);
                if (b.up) {
                    for (size_type i = b.lo; i < b.hi; ++i) visit(i);
                } else {
                    for (size_type i = b.hi; i-- > b.lo;) visit(i);
                }
            });
    }

private:
    template<class Data, std::size_t... I>
    static auto data_args_at(const Data &data, size_type pos, std::index_sequence<I...>) {
        return std::tuple_cat(internal::data_arg<Owned>(std::get<I>(data), pos)...);
    }

    std::tuple<internal::pool_ptr_t<Owned>...> pools_;
    const size_type *length_;
};

} // namespace retcon

#endif
