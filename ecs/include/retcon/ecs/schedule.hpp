#ifndef RETCON_ECS_SCHEDULE_HPP
#define RETCON_ECS_SCHEDULE_HPP

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "world.hpp"

namespace retcon {

/**
 * @brief An explicit, ordered list of named systems: the deterministic step of a game.
 *
 * Systems run in the order they were added, every time. A system is either a whole-world
 * callable `void(world&)` or a per-entity callable over a declared query:
 *
 * @code
 * retcon::schedule step;
 * step.add<Position, const Velocity>("movement", [](Position &p, const Velocity &v) { p.x += v.x; })
 *     .add("spawner", [](retcon::world &w) { ... });
 * step.run(w);
 * @endcode
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

    /// @brief Appends a per-entity system over `view<Query...>()`; @p fn is called like a view's
    /// `each` callback (with or without the entity).
    template<class... Query, class F>
        requires(sizeof...(Query) > 0)
    schedule &add(std::string name, F fn) {
        std::string query;
        ((query += (query.empty() ? "" : ", ") + std::string(std::is_const_v<Query> ? "const " : "") +
                   std::string(type_info_of<Query>().name)),
         ...);
        systems_.push_back(system{std::move(name), std::move(query),
                                  [fn = std::move(fn)](world &w) mutable { w.view<Query...>().each(fn); }});
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
        std::string name;
        std::string query;
        system_fn fn;
    };
    std::vector<system> systems_;
};

} // namespace retcon

#endif
