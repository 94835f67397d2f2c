#ifndef RETCON_ECS_SCHEDULE_HPP
#define RETCON_ECS_SCHEDULE_HPP

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "world.hpp"

namespace retcon {

namespace internal {

/// @brief The argument types a view over Query... passes (references; tags omitted).
template<class... Query>
using query_args_t = decltype(std::tuple_cat(std::declval<arg_tuple_t<Query>>()...));

/// @brief Which per-entity system forms F accepts for a view passing A...
template<class F, class Args>
struct system_form;
template<class F, class... A>
struct system_form<F, std::tuple<A...>> {
    static constexpr bool plain = std::is_invocable_v<F &, entity, A...> || std::is_invocable_v<F &, A...>;
    static constexpr bool with_world =
        std::is_invocable_v<F &, world &, entity, A...> || std::is_invocable_v<F &, world &, A...>;
};

} // namespace internal

/**
 * @brief An explicit, ordered list of named systems: the deterministic step of a game.
 *
 * Systems run in the order they were added, every time. A system is either a whole-world
 * callable `void(world&)` or a per-entity callable over a declared query. A per-entity system
 * takes the query's components, optionally preceded by the entity, and optionally preceded by
 * the world (to read resources or other entities):
 *
 * @code
 * retcon::schedule step;
 * step.add<Position, const Velocity>("movement", [](Position &p, const Velocity &v) { p.x += v.x; })
 *     .add<Position>("wind", [](retcon::world &w, Position &p) { p.x += w.resource<Wind>().dx; })
 *     .add<const Health>("reaper", [](retcon::world &w, retcon::entity e, const Health &h) {
 *         if (h.hp <= 0) w.destroy(e);  // the visited entity only (view.hpp)
 *     })
 *     .add("spawner", [](retcon::world &w) { ... });
 * step.run(w);
 * @endcode
 *
 * A per-entity system runs inside `view<Query...>().each`, so the view's rules hold for the
 * world it is given: it may remove components from, or destroy, the entity it visits; any
 * other structural change goes through a `command_buffer` applied after the loop (e.g. by a
 * later whole-world system).
 *
 * `run(w, after_each)` calls `after_each(index, name)` after every system; the sync-test mode
 * uses it to hash the world after each system and name the first one that is not deterministic.
 */
class schedule {
public:
    using system_fn = std::function<void(world &)>;

    /// @brief Appends a whole-world system.
    schedule &add(std::string name, system_fn fn) {
        systems_.push_back(system{std::move(name), {}, std::move(fn)});
        return *this;
    }

    /**
     * @brief Appends a per-entity system over `view<Query...>()`.
     *
     * @p fn is called once per match, in the view's order, as any of
     * `fn(Query&...)`, `fn(entity, Query&...)`, `fn(world&, Query&...)` or
     * `fn(world&, entity, Query&...)` (tags are filtered on but not passed). When both a form
     * with and one without the world fit (a generic lambda), the form without it is used.
     */
    template<class... Query, class F>
        requires(sizeof...(Query) > 0)
    schedule &add(std::string name, F fn) {
        using form = internal::system_form<F, internal::query_args_t<Query...>>;
        static_assert(form::plain || form::with_world,
                      "retcon: a per-entity system takes (Query&...) or (entity, Query&...), optionally preceded "
                      "by world& (tags are not passed)");
        std::string query;
        ((query += (query.empty() ? "" : ", ") + std::string(std::is_const_v<Query> ? "const " : "") +
                   std::string(type_info_of<Query>().name)),
         ...);
        system_fn run;
        if constexpr (form::plain) {
            run = [fn = std::move(fn)](world &w) mutable { w.view<Query...>().each(fn); };
        } else {
            run = [fn = std::move(fn)](world &w) mutable {
                // The return type keeps the binder SFINAE-friendly, so the view still tells the
                // form with the entity from the one without.
                w.view<Query...>().each(
                    [&w, &fn](auto &&...args) -> decltype(fn(w, args...)) { return fn(w, args...); });
            };
        }
        systems_.push_back(system{std::move(name), std::move(query), std::move(run)});
        return *this;
    }

    /// @brief Runs every system once, in order.
    void run(world &w) const {
        for (const auto &s : systems_) s.fn(w);
    }
    /// @brief Runs every system, calling `after_each(index, name)` after each one.
    template<class After>
    void run(world &w, After &&after_each) const {
        for (std::size_t i = 0; i < systems_.size(); ++i) {
            systems_[i].fn(w);
            after_each(i, std::string_view{systems_[i].name});
        }
    }

    /// @brief Runs only the first @p count systems, in order.
    void run_first(world &w, std::size_t count) const {
        for (std::size_t i = 0; i < count && i < systems_.size(); ++i) systems_[i].fn(w);
    }

    [[nodiscard]] std::size_t size() const noexcept { return systems_.size(); }
    /// @brief Name of system @p i.
    [[nodiscard]] std::string_view name(std::size_t i) const noexcept { return systems_[i].name; }
    /// @brief The query system @p i declared (empty for whole-world systems), e.g.
    /// "Position, const Velocity".
    [[nodiscard]] std::string_view query(std::size_t i) const noexcept { return systems_[i].query; }

private:
    struct system {
        std::string name{};
        std::string query{};
        system_fn fn{};
    };
    std::vector<system> systems_;
};

} // namespace retcon

#endif
