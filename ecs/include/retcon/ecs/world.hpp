#ifndef RETCON_ECS_WORLD_HPP
#define RETCON_ECS_WORLD_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "entity.hpp"
#include "error.hpp"
#include "group.hpp"
#include "pool.hpp"
#include "schema.hpp"
#include "type_info.hpp"
#include "view.hpp"

namespace retcon {

/**
 * @brief The whole simulation state: entity table, component pools, group state, resources.
 *
 * Everything a world stores lives in contiguous, index-based, pointer-free arrays, so the
 * snapshot layer can save and restore it with a handful of memcpy calls. Every type it stores
 * is declared up front in a `schema`; the same operations in the same order produce
 * byte-identical state on every peer.
 *
 * Misuse (a stale or null handle, a missing component, an undeclared type) is checked in every
 * build and reported through the misuse handler (see config.hpp) before any state changes.
 * `get` costs one extra compare for that check; `get_unchecked` skips it (debug builds still
 * assert).
 *
 * @code
 * retcon::world w{s};
 * const auto ship = w.create();
 * w.emplace<Position>(ship, 0.f, 0.f);
 * w.emplace<Velocity>(ship, 1.f, 0.f);
 * w.view<Position, const Velocity>().each([](Position &p, const Velocity &v) { p.x += v.x; });
 * @endcode
 */
class world {
public:
    using size_type = std::uint32_t;
    /// @brief A per-pool callback, run after a component is added or before it is removed.
    /// Hooks may only change world state (they also run while re-simulating).
    using hook = std::function<void(world &, entity)>;
    static constexpr size_type npos = ~size_type{0};

    /// @brief The entity free list (part of the world's state and of every snapshot).
    struct free_list_state {
        std::uint32_t head = entity_traits::index_mask; ///< next index to recycle (index_mask: none)
        std::uint32_t tail = entity_traits::index_mask; ///< last index queued for recycling
        std::uint32_t alive = 0;                        ///< number of live entities
        std::uint32_t reserved = 0;                     ///< always zero
    };

    /// @brief An empty world storing exactly what @p s declares. Defined here so the handle
    /// width this program was compiled with reaches the library, which refuses another one.
    explicit world(const schema &s) : world(s, 8u * static_cast<unsigned>(sizeof(entity))) {}
    world(world &&) noexcept = default;
    world &operator=(world &&) noexcept = default;
    world(const world &) = delete;
    world &operator=(const world &) = delete;
    ~world() = default;

    // ------------------------------------------------------------------ entities

    /// @brief Creates an entity, recycling the oldest freed index first.
    entity create();

    /// @brief Destroys @p e: removes all its components (running on_remove hooks) and frees the
    /// index. Destroying a stale or null handle is misuse, and so is destroying, from inside an
    /// on_remove hook, the entity that hook is removing a component from (or destroying).
    void destroy(entity e);

    /// @brief True if @p e refers to a live entity (checked in every build).
    [[nodiscard]] bool valid(entity e) const noexcept {
        const auto idx = to_index(e);
        return idx < entities_.size() && entities_[idx] == e;
    }

    /// @brief Number of live entities.
    [[nodiscard]] size_type alive() const noexcept { return free_.alive; }

    /// @brief Reserves room for @p n entities in the entity table.
    void reserve(size_type n) { entities_.reserve(n); }

    /// @brief Calls `f(entity)` for every live entity, in index order.
    template<class F>
    void each(F &&f) const {
        for (size_type i = 0; i < entities_.size(); ++i)
            if (to_index(entities_[i]) == i) f(entities_[i]);
    }

    /// @brief Destroys every live entity, in index order (versions advance as usual).
    void clear();

    // ------------------------------------------------------------------ components

    /// @brief Adds a T to @p e built from @p args (aggregate initialisation). Misuse if @p e
    /// already has one, or if @p e is being destroyed (see on_remove). Returns the new
    /// component (nothing for tags).
    template<class T, class... Args>
    decltype(auto) emplace(entity e, Args &&...args) {
        static_assert(!std::is_const_v<T>, "retcon: emplace the plain type, not a const one");
        const auto id = pool_id<T>();
        pool &p = pools_[id];
        check_alive(e, "emplace", id);
        if (RETCON_UNLIKELY(p.contains(e))) already_has(e, id);
        if (RETCON_UNLIKELY(removing_ != nullptr)) check_not_dying(e, id); // only inside on_remove hooks
        const auto pos = p.template emplace_back<T>(e, std::forward<Args>(args)...);
        if (RETCON_LIKELY(group_of_[id] == npos && !hooks_[id].on_add)) { // added(), inline
            mark_nonempty(id);
            if constexpr (!std::is_empty_v<T>) return (p.template data_as<T>()[pos]);
        } else {
            added(id, e); // may move the element (group) or run a hook
            if constexpr (!std::is_empty_v<T>) return (p.template data_as<T>()[p.index(e)]);
        }
    }

    /// @brief Overwrites @p e's existing T with one built from @p args. Misuse if absent.
    template<class T, class... Args>
    T &replace(entity e, Args &&...args) {
        static_assert(!std::is_empty_v<T>, "retcon: tags have no value to replace");
        T &slot = get<T>(e);
        slot = T{std::forward<Args>(args)...};
        return slot;
    }

    /// @brief emplace if absent, replace otherwise.
    template<class T, class... Args>
    decltype(auto) emplace_or_replace(entity e, Args &&...args) {
        if (all_of<T>(e)) {
            if constexpr (std::is_empty_v<T>) return;
            else
                return replace<T>(e, std::forward<Args>(args)...);
        }
        return emplace<T>(e, std::forward<Args>(args)...);
    }

    /// @brief Removes @p e's T (running its on_remove hook). Misuse if @p e has none.
    template<class T>
    void remove(entity e) {
        const auto id = pool_id<T>();
        const auto pos = pools_[id].index(e);
        if (RETCON_UNLIKELY(pos == pool::npos)) missing(e, "remove", id);
        erase_one(id, pos);
    }

    /// @brief Removes @p e's T if it has one; returns whether it did.
    template<class T>
    bool try_remove(entity e) {
        const auto id = pool_id<T>();
        const auto pos = pools_[id].index(e);
        if (pos == pool::npos) return false;
        erase_one(id, pos);
        return true;
    }

    /// @brief @p e's components: `T&` for one type, a tuple of references for several
    /// (`auto [p, v] = w.get<Position, Velocity>(e);`). Misuse if one is missing or @p e is stale.
    template<class... T>
    [[nodiscard]] decltype(auto) get(entity e) {
        if constexpr (sizeof...(T) == 1) return (get_one<T...>(e));
        else
            return std::forward_as_tuple(get_one<T>(e)...);
    }
    /// @copydoc get
    template<class... T>
    [[nodiscard]] decltype(auto) get(entity e) const {
        if constexpr (sizeof...(T) == 1) return (get_one<const T...>(e));
        else
            return std::forward_as_tuple(get_one<const T>(e)...);
    }

    /// @brief @p e's T, or nullptr if @p e has none (or is stale).
    template<class T>
    [[nodiscard]] T *try_get(entity e) {
        static_assert(!std::is_empty_v<std::remove_const_t<T>>, "retcon: tags have no value; use all_of");
        pool &p = pools_[pool_id<T>()];
        const auto pos = p.index(e);
        return pos == pool::npos ? nullptr : p.template data_as<std::remove_const_t<T>>() + pos;
    }
    /// @copydoc try_get
    template<class T>
    [[nodiscard]] const T *try_get(entity e) const {
        return const_cast<world *>(this)->try_get<T>(e);
    }

    /// @brief @p e's T without the stale-handle check (debug builds still assert).
    /// @warning @p e must be live and have a T.
    template<class T>
    [[nodiscard]] T &get_unchecked(entity e) noexcept {
        pool &p = pools_[pool_id_unchecked<T>()];
        const auto pos = p.index(e);
        RETCON_ASSERT(pos != pool::npos, "get_unchecked on an entity without the component");
        return p.template data_as<std::remove_const_t<T>>()[pos];
    }

    /// @brief True if @p e is live and has every one of T...
    template<class... T>
    [[nodiscard]] bool all_of(entity e) const {
        return (pools_[pool_id<T>()].contains(e) && ...);
    }
    /// @brief True if @p e is live and has at least one of T...
    template<class... T>
    [[nodiscard]] bool any_of(entity e) const {
        return (pools_[pool_id<T>()].contains(e) || ...);
    }
    /// @brief Same as all_of<T>.
    template<class T>
    [[nodiscard]] bool has(entity e) const {
        return all_of<T>(e);
    }

    /// @brief The entity that owns @p component (a reference obtained from this world).
    /// Misuse if @p component does not live in T's pool.
    template<class T>
    [[nodiscard]] entity entity_of(const T &component) const {
        static_assert(!std::is_empty_v<T>, "retcon: tags have no storage to point into");
        const auto id = pool_id<T>();
        const pool &p = pools_[id];
        const T *first = p.template data_as<T>();
        if (RETCON_UNLIKELY(&component < first || &component >= first + p.size())) not_in_pool(id);
        return p.owners().at(static_cast<size_type>(&component - first));
    }

    /// @brief Number of entities that have a T.
    template<class T>
    [[nodiscard]] size_type size() const {
        return pools_[pool_id<T>()].size();
    }

    /// @brief Removes T from every entity (running on_remove hooks), last first.
    template<class T>
    void clear() {
        const auto id = pool_id<T>();
        while (!pools_[id].empty()) erase_at(id, pools_[id].size() - 1u);
    }

    /// @brief Reserves room for @p n components of type T.
    template<class T>
    void reserve(size_type n) {
        pools_[pool_id<T>()].reserve(n);
    }

    // ------------------------------------------------------------------ queries

    /// @brief A view over every entity with all of Get... and none of Exclude...
    /// Iterating it may reorder its included pools to the lead's order (docs/ecs.md, "Order"):
    /// it is a write, so code that only looks at the world uses the const overload.
    template<class... Get, class... Exclude>
    [[nodiscard]] basic_view<type_list<Get...>, type_list<Exclude...>> view(exclude_t<Exclude...> = {}) {
        return {std::tuple<internal::pool_ptr_t<Get>...>{&pools_[pool_id<Get>()]...},
                std::array<const pool *, sizeof...(Exclude)>{&pools_[pool_id<Exclude>()]...},
                std::array<pool *, sizeof...(Get)>{&pools_[pool_id<Get>()]...}};
    }
    /// @brief A read-only view (every Get must be const).
    template<class... Get, class... Exclude>
    [[nodiscard]] basic_view<type_list<Get...>, type_list<Exclude...>> view(exclude_t<Exclude...> = {}) const {
        static_assert((std::is_const_v<Get> && ...), "retcon: a view of a const world needs const component types");
        return {std::tuple<internal::pool_ptr_t<Get>...>{&pools_[pool_id<Get>()]...},
                std::array<const pool *, sizeof...(Exclude)>{&pools_[pool_id<Exclude>()]...}};
    }

    /// @brief The declared owning group over exactly the types Owned... (any order). Misuse if
    /// no such group was declared in the schema.
    template<class... Owned>
    [[nodiscard]] basic_group<Owned...> group() {
        const auto g = find_group({pool_id<Owned>()...});
        return {std::tuple<internal::pool_ptr_t<Owned>...>{&pools_[pool_id<Owned>()]...}, &group_lengths_[g]};
    }
    /// @copydoc group
    template<class... Owned>
    [[nodiscard]] basic_group<Owned...> group() const {
        static_assert((std::is_const_v<Owned> && ...), "retcon: a group of a const world needs const component types");
        const auto g = find_group({pool_id<Owned>()...});
        return {std::tuple<internal::pool_ptr_t<Owned>...>{&pools_[pool_id<Owned>()]...}, &group_lengths_[g]};
    }

    // ------------------------------------------------------------------ ordering

    /**
     * @brief Sorts T's pool by @p compare, called as `compare(const T&, const T&)` or
     * `compare(entity, entity)`. Ties are broken by entity index, so the result is the same on
     * every peer whatever sort algorithm the standard library uses. Misuse on a group-owned pool.
     */
    template<class T, class Compare>
    void sort(Compare compare) {
        const auto id = pool_id<T>();
        pool &p = pools_[id];
        check_sortable(id);
        const entity *owners = p.owners().data();
        auto less = [&](size_type a, size_type b) {
            if constexpr (std::is_invocable_r_v<bool, Compare &, entity, entity>) {
                if (compare(owners[a], owners[b])) return true;
                if (compare(owners[b], owners[a])) return false;
            } else {
                const T *data = p.template data_as<T>();
                if (compare(data[a], data[b])) return true;
                if (compare(data[b], data[a])) return false;
            }
            return to_index(owners[a]) < to_index(owners[b]);
        };
        order_.resize(p.size());
        for (size_type i = 0; i < p.size(); ++i) order_[i] = i;
        std::sort(order_.begin(), order_.end(), less);
        apply_order(p);
    }

    /// @brief Reorders To's pool so the entities it shares with From come first, in From's
    /// order; the rest follow. Misuse if To is group-owned.
    template<class To, class From>
    void sort_as() {
        const auto to = pool_id<To>();
        check_sortable(to);
        pool &p = pools_[to];
        const pool &from = pools_[pool_id<From>()];
        size_type next = 0;
        for (size_type i = 0; i < from.size(); ++i) {
            const auto pos = p.index(from.owners().at(i));
            if (pos != pool::npos) p.swap_at(pos, next++);
        }
    }

    // ------------------------------------------------------------------ hooks

    /// @brief Runs @p fn after a T is added to any entity (replaces a previous hook).
    template<class T>
    void on_add(hook fn) {
        hooks_[pool_id<T>()].on_add = std::move(fn);
    }
    /**
     * @brief Runs @p fn before a T is removed from any entity (also on destroy).
     *
     * The hook sees the entity valid and still holding its T. It may change world state, with
     * three exceptions, each reported as misuse before the offending call changes anything
     * (the removal or destroy already under way stops where it was):
     * - removing T from the entity whose T is being removed (`remove<T>`, `try_remove<T>`,
     *   `clear<T>`, or another hook that does so);
     * - destroying the entity whose T is being removed, or which is being destroyed;
     * - adding a component to an entity that is being destroyed. destroy walks each non-empty
     *   pool once (its cost does not depend on the number of declared types), so a component
     *   added behind the walk would survive on the dead entity; rather than loop until the
     *   entity is empty, retcon reports the add.
     *
     * Tracking stays off the paths without hooks: removals that run no hook stay inline;
     * destroy and emplace test one pointer, non-null only while destroy or an on_remove hook
     * runs (no game code runs inside destroy except hooks).
     */
    template<class T>
    void on_remove(hook fn) {
        hooks_[pool_id<T>()].on_remove = std::move(fn);
    }

    // ------------------------------------------------------------------ resources

    /// @brief Sets resource R to a value built from @p args (aggregate initialisation).
    /// @p args may read the current value (`set_resource<R>(r.b, r.a)`): the new value is built
    /// before the slot is written.
    template<class R, class... Args>
    R &set_resource(Args &&...args) {
        const auto id = resource_id<R>();
        const R value{std::forward<Args>(args)...};
        std::memcpy(resource_slot(id), &value, sizeof(R));
        resource_flags()[id] = std::byte{1};
        return *std::launder(reinterpret_cast<R *>(resource_slot(id)));
    }
    /// @brief Resource R. Misuse if it is not set.
    template<class R>
    [[nodiscard]] R &resource() {
        const auto id = resource_id<R>();
        if (RETCON_UNLIKELY(resource_flags()[id] == std::byte{0})) resource_missing(id);
        return *std::launder(reinterpret_cast<R *>(resource_slot(id)));
    }
    /// @copydoc resource
    template<class R>
    [[nodiscard]] const R &resource() const {
        return const_cast<world *>(this)->resource<R>();
    }
    /// @brief Resource R, or nullptr if it is not set.
    template<class R>
    [[nodiscard]] R *try_resource() {
        const auto id = resource_id<R>();
        return resource_flags()[id] == std::byte{0} ? nullptr : std::launder(reinterpret_cast<R *>(resource_slot(id)));
    }
    /// @copydoc try_resource
    template<class R>
    [[nodiscard]] const R *try_resource() const {
        return const_cast<world *>(this)->try_resource<R>();
    }
    /// @brief True if resource R is set.
    template<class R>
    [[nodiscard]] bool has_resource() const {
        return try_resource<R>() != nullptr;
    }
    /// @brief Unsets resource R (its bytes return to zero); returns whether it was set.
    template<class R>
    bool remove_resource() {
        const auto id = resource_id<R>();
        const bool was = resource_flags()[id] != std::byte{0};
        std::memset(resource_slot(id), 0, sizeof(R));
        resource_flags()[id] = std::byte{0};
        return was;
    }

    // ------------------------------------------------------------------ by id (type-erased)
    // The same operations for code that knows its types only at run time (the C API, tools,
    // bindings): a component or resource is named by its id (declaration order in the
    // schema) and its value is its declared size in bytes. Same checks, hooks and groups as
    // the typed calls; an id out of range, a size that differs from the declared one or a
    // tag's value asked for is misuse too. Pointers returned point into pool storage and
    // are valid until the next structural change.

    /// @brief Number of declared components (ids 0..component_count()-1).
    [[nodiscard]] std::size_t component_count() const noexcept { return pools_.size(); }
    /// @brief Number of declared resources.
    [[nodiscard]] std::size_t resource_count() const noexcept { return resource_offsets_.size(); }
    /// @brief Adds component @p id to @p e, copying @p value (its declared size; empty for a
    /// tag). Returns the stored bytes (nullptr for a tag).
    std::byte *emplace(entity e, std::size_t id, std::span<const std::byte> value);
    /// @brief @p e's component @p id. Misuse if it has none or @p e is stale.
    [[nodiscard]] std::byte *get(entity e, std::size_t id);
    /// @brief @p e's component @p id, or nullptr if it has none (or is stale).
    [[nodiscard]] std::byte *try_get(entity e, std::size_t id);
    /// @brief Removes @p e's component @p id (running its on_remove hook). Misuse if absent.
    void remove(entity e, std::size_t id);
    /// @brief True if @p e is live and has component @p id.
    [[nodiscard]] bool has(entity e, std::size_t id) const;
    /// @brief Sets resource @p id to @p value (its declared size); returns its bytes.
    std::byte *set_resource(std::size_t id, std::span<const std::byte> value);
    /// @brief Resource @p id's bytes, or nullptr if it is not set.
    [[nodiscard]] std::byte *try_resource(std::size_t id);
    /// @brief Unsets resource @p id (its bytes return to zero); returns whether it was set.
    bool remove_resource(std::size_t id);

    // ------------------------------------------------------------------ storage (low level)
    // For retcon::snapshot and tools; a game has no need for these.

    /// @brief The schema this world was built from.
    [[nodiscard]] const schema &get_schema() const noexcept { return *schema_; }
    /// @brief `get_schema().hash()`, computed once at construction.
    [[nodiscard]] std::uint64_t schema_hash() const noexcept { return schema_hash_; }
    /// @brief The entity table: slot i holds the live handle with index i, or a free slot's
    /// next-free link and next version, or null_entity for a retired slot.
    [[nodiscard]] std::span<const entity> entity_table() const noexcept { return entities_; }
    [[nodiscard]] const free_list_state &free_list() const noexcept { return free_; }
    /// @brief Number of pools (= declared component types).
    [[nodiscard]] std::size_t pool_count() const noexcept { return pools_.size(); }
    [[nodiscard]] const pool &pool_at(std::size_t id) const noexcept { return pools_[id]; }
    /// @brief Packed length of each declared group, in declaration order.
    [[nodiscard]] std::span<const size_type> group_lengths() const noexcept { return group_lengths_; }
    /// @brief The resource block: one presence byte per resource, padding, then each resource
    /// at its aligned offset. Unset resources and padding are zero.
    [[nodiscard]] std::span<const std::byte> resource_bytes() const noexcept {
        return {resources_.data(), resources_.size()};
    }
    /// @brief Byte offset of each resource inside resource_bytes(), in declaration order.
    [[nodiscard]] std::span<const std::size_t> resource_offsets() const noexcept { return resource_offsets_; }

    /// @brief Overwrites the whole state with the given regions, rebuilding derived data.
    /// The caller (snapshot restore) vouches that the regions are structurally valid; use
    /// `validate_state` first for untrusted bytes. @p pool_payloads[i] holds
    /// `pool_owners[i].size() * element_size` bytes.
    void assign_state(std::span<const entity> table, const free_list_state &free,
                      std::span<const std::span<const entity>> pool_owners,
                      std::span<const std::span<const std::byte>> pool_payloads, std::span<const size_type> groups,
                      std::span<const std::byte> resources);

    /// @brief O(n) structural check of state regions from an untrusted source (index ranges,
    /// free-list cycles, duplicate owners, group lengths and completeness, resource presence
    /// bytes). Succeeds if sound; otherwise the error says what is wrong: errc::schema_mismatch
    /// when the region counts or sizes differ from this world's schema, errc::corrupt for the
    /// rest. The regions come already split, so the error carries no byte offset.
    [[nodiscard]] result<void> validate_state(std::span<const entity> table, const free_list_state &free,
                                              std::span<const std::span<const entity>> pool_owners,
                                              std::span<const size_type> groups,
                                              std::span<const std::byte> resources) const;

    /// @brief Bytes of derived data (sparse indices) currently held, for memory accounting.
    [[nodiscard]] std::size_t derived_bytes() const noexcept;

private:
    /// The constructor proper; first checks @p program_entity_bits (internal::check_entity_bits).
    world(const schema &s, unsigned program_entity_bits);

    friend class command_buffer;

    struct hooks {
        hook on_add{};
        hook on_remove{};
    };
    /// @brief One removal in progress while an on_remove hook runs: @p pool is the pool whose
    /// hook runs, or npos for "destroy(@p target) is running". Nodes live on the stack of
    /// destroy/erase_at and form a list through @p outer (innermost first).
    struct removal {
        entity target{};
        size_type pool{};
        const removal *outer{};
    };
    /// @brief Pushes a removal node for its lifetime (popped even when a hook throws).
    class removal_scope {
    public:
        removal_scope(world &w, entity e, size_type pool) noexcept : w_{w}, node_{e, pool, w.removing_} {
            w.removing_ = &node_;
        }
        ~removal_scope() { w_.removing_ = node_.outer; }
        removal_scope(const removal_scope &) = delete;
        removal_scope &operator=(const removal_scope &) = delete;

    private:
        world &w_;
        removal node_;
    };

    template<class T>
    size_type pool_id() const {
        const auto seq = internal::type_seq<std::remove_const_t<T>>();
        if (RETCON_LIKELY(seq < by_seq_.size())) {
            const auto id = by_seq_[seq];
            if (RETCON_LIKELY(id != npos)) return id;
        }
        not_declared(type_info_of<T>().name, "component");
    }
    template<class T>
    size_type pool_id_unchecked() const noexcept {
        return by_seq_[internal::type_seq<std::remove_const_t<T>>()];
    }
    template<class R>
    size_type resource_id() const {
        const auto seq = internal::type_seq<std::remove_const_t<R>>();
        if (RETCON_LIKELY(seq < resource_by_seq_.size())) {
            const auto id = resource_by_seq_[seq];
            if (RETCON_LIKELY(id != npos)) return id;
        }
        not_declared(type_info_of<R>().name, "resource");
    }

    template<class T>
    std::conditional_t<std::is_const_v<T>, const T &, T &> get_one(entity e) const {
        static_assert(!std::is_empty_v<std::remove_const_t<T>>, "retcon: tags have no value; use all_of");
        const auto id = pool_id<T>();
        pool &p = const_cast<pool &>(pools_[id]);
        const auto pos = p.index(e);
        if (RETCON_UNLIKELY(pos == pool::npos)) missing(e, "get", id);
        return p.template data_as<std::remove_const_t<T>>()[pos];
    }

    std::byte *resource_flags() noexcept { return resources_.data(); }
    std::byte *resource_slot(size_type id) noexcept { return resources_.data() + resource_offsets_[id]; }

    void check_alive(entity e, const char *what, size_type id) const {
        if (RETCON_UNLIKELY(!valid(e))) stale(e, what, id);
    }
    void added(size_type id, entity e);
    void mark_nonempty(size_type id) noexcept {
        nonempty_[id / 64u] |= std::uint64_t{1} << (id % 64u);
        nonempty_words_ |= std::uint64_t{1} << (id / 64u);
    }
    void mark_empty(size_type id) noexcept {
        nonempty_[id / 64u] &= ~(std::uint64_t{1} << (id % 64u));
        if (nonempty_[id / 64u] == 0u) nonempty_words_ &= ~(std::uint64_t{1} << (id / 64u));
    }
    /// @brief erase_at, inline for the common case (no on_remove hook, not group-owned).
    void erase_one(size_type id, size_type pos) {
        if (RETCON_LIKELY(group_of_[id] == npos && !hooks_[id].on_remove)) {
            pool &p = pools_[id];
            p.erase_at(pos);
            if (RETCON_UNLIKELY(p.empty())) mark_empty(id);
        } else {
            erase_at(id, pos);
        }
    }
    void emplace_bytes(size_type id, entity e, const std::byte *bytes, bool or_replace);
    void check_not_dying(entity e, size_type id) const;
    void check_not_removing(entity e, size_type id) const;
    void check_destroyable(entity e) const;
    void erase_at(size_type id, size_type pos);
    void enter_group(size_type g, entity e);
    size_type leave_group(size_type g, entity e);
    size_type find_group(std::initializer_list<size_type> ids) const;
    void check_sortable(size_type id) const;
    void apply_order(pool &p);
    void rebuild_nonempty() noexcept;

    [[noreturn]] void not_declared(std::string_view name, const char *what) const;
    [[noreturn]] void stale(entity e, const char *what, size_type id) const;
    [[noreturn]] void missing(entity e, const char *what, size_type id) const;
    [[noreturn]] void already_has(entity e, size_type id) const;
    [[noreturn]] void not_in_pool(size_type id) const;
    [[noreturn]] void resource_missing(size_type id) const;

    std::shared_ptr<const schema> schema_;
    std::uint64_t schema_hash_ = 0;
    std::vector<entity> entities_;
    free_list_state free_;
    std::vector<pool> pools_;
    std::vector<size_type> group_lengths_;
    std::vector<size_type> group_of_; // pool id -> owning group or npos
    std::vector<hooks> hooks_;
    const removal *removing_ = nullptr;   // removals whose on_remove hook (or destroy) is running
    std::vector<std::uint64_t> nonempty_; // derived: bit per non-empty pool (destroy skips the rest)
    std::uint64_t nonempty_words_ = 0;    // derived: bit per non-zero word of nonempty_
    static_assert(schema::max_types <= 64u * 64u, "retcon: nonempty_words_ needs a bit per 64 pools");
    std::vector<size_type> by_seq_; // process-local type seq -> pool id
    std::vector<size_type> resource_by_seq_;
    std::vector<std::size_t> resource_offsets_;
    internal::byte_buffer resources_{64};
    std::vector<size_type> order_; // scratch for sort
    std::vector<std::byte> swap_scratch_;
};

} // namespace retcon

#endif
