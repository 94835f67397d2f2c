#include <retcon/ecs/world.hpp>

#include <cstring>
#include <string>

namespace retcon {

namespace {
constexpr std::uint32_t null_index = entity_traits::index_mask;

std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1u) & ~(a - 1u); }
} // namespace

world::world(const schema &s, unsigned program_entity_bits)
    : schema_{(internal::check_entity_bits(program_entity_bits), std::make_shared<const schema>(s))},
      schema_hash_{schema_->hash()} {
    const auto &sc = *schema_;
    const auto comps = sc.components();
    pools_.reserve(comps.size());
    group_of_.assign(comps.size(), npos);
    hooks_.resize(comps.size());
    nonempty_.assign((comps.size() + 63u) / 64u, 0u);
    for (std::size_t id = 0; id < comps.size(); ++id) {
        pools_.emplace_back(sc.component_info(id));
        if (comps[id].seq != schema::npos) {
            if (comps[id].seq >= by_seq_.size()) by_seq_.resize(comps[id].seq + 1u, npos);
            by_seq_[comps[id].seq] = static_cast<size_type>(id);
        }
    }
    const auto groups = sc.groups();
    group_lengths_.assign(groups.size(), 0u);
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (auto id : groups[g]) {
            group_of_[id] = static_cast<size_type>(g);
            pools_[id].set_group(&group_lengths_[g]);
        }

    const auto res = sc.resources();
    std::size_t offset = align_up(res.size(), 16);
    std::size_t max_align = 16;
    for (std::size_t id = 0; id < res.size(); ++id) {
        offset = align_up(offset, res[id].align);
        resource_offsets_.push_back(offset);
        offset += res[id].size;
        max_align = std::max<std::size_t>(max_align, res[id].align);
        if (res[id].seq != schema::npos) {
            if (res[id].seq >= resource_by_seq_.size()) resource_by_seq_.resize(res[id].seq + 1u, npos);
            resource_by_seq_[res[id].seq] = static_cast<size_type>(id);
        }
    }
    resources_ = internal::byte_buffer{max_align};
    resources_.resize(offset); // fresh capacity is zero-filled
}

entity world::create() {
    ++free_.alive;
    if (free_.head != null_index) {
        const auto idx = free_.head;
        const entity slot = entities_[idx];
        free_.head = to_index(slot);
        if (free_.head == null_index) free_.tail = null_index;
        const entity e = entity_traits::construct(idx, to_version(slot));
        entities_[idx] = e;
        return e;
    }
    const auto idx = static_cast<std::uint32_t>(entities_.size());
    if (RETCON_UNLIKELY(idx > entity_traits::max_index)) {
        --free_.alive;
        internal::misuse("create: the entity table is full (%u indices, free list empty)", idx);
    }
    const entity e = entity_traits::construct(idx, 0);
    entities_.push_back(e);
    return e;
}

void world::destroy(entity e) {
    if (RETCON_UNLIKELY(!valid(e))) stale(e, "destroy", npos);
    if (RETCON_UNLIKELY(removing_ != nullptr)) check_destroyable(e); // only inside on_remove hooks
    const removal_scope destroying{*this, e, npos};
    // Two-level walk over the non-empty pools (a summary bit per non-zero word), so the cost
    // does not depend on the number of declared types. Words are visited in order and each is
    // read when reached: a removal can empty pools (and hooks can touch others).
    for (std::uint64_t words = nonempty_words_; words != 0;) {
        const auto w = static_cast<std::size_t>(__builtin_ctzll(words));
        for (std::uint64_t bits = nonempty_[w]; bits != 0; bits &= bits - 1u) {
            const auto id = static_cast<size_type>(w * 64u + static_cast<std::size_t>(__builtin_ctzll(bits)));
            const auto pos = pools_[id].index(e);
            if (pos != pool::npos) erase_one(id, pos);
        }
        words = w == 63u ? 0u : nonempty_words_ & (~std::uint64_t{0} << (w + 1u));
    }
    const auto idx = to_index(e);
    const auto next_version = to_version(e) + 1u;
    --free_.alive;
    if (next_version > entity_traits::max_version) {
        entities_[idx] = null_entity; // retired: this index is never handed out again
        return;
    }
    entities_[idx] = entity_traits::construct(null_index, next_version);
    if (free_.tail == null_index) free_.head = idx;
    else
        entities_[free_.tail] = entity_traits::construct(idx, to_version(entities_[free_.tail]));
    free_.tail = idx;
}

void world::clear() {
    for (size_type i = 0; i < entities_.size(); ++i)
        if (to_index(entities_[i]) == i) destroy(entities_[i]);
}

void world::added(size_type id, entity e) {
    mark_nonempty(id);
    if (group_of_[id] != npos) enter_group(group_of_[id], e);
    if (hooks_[id].on_add) hooks_[id].on_add(*this, e);
}

void world::erase_at(size_type id, size_type pos) {
    pool &p = pools_[id];
    if (hooks_[id].on_remove) {
        const entity e = p.owners().at(pos);
        if (removing_ != nullptr) check_not_removing(e, id);
        {
            const removal_scope removing{*this, e, id};
            hooks_[id].on_remove(*this, e);
        }
        pos = p.index(e);
        RETCON_ASSERT(pos != pool::npos, "an on_remove hook removed the component being removed");
    }
    if (group_of_[id] != npos) {
        const entity e = p.owners().at(pos);
        if (pos < group_lengths_[group_of_[id]]) pos = leave_group(group_of_[id], e);
    }
    p.erase_at(pos);
    if (p.empty()) mark_empty(id);
}

void world::enter_group(size_type g, entity e) {
    const auto &owned = schema_->groups()[g];
    for (auto id : owned)
        if (!pools_[id].contains(e)) return;
    size_type &length = group_lengths_[g];
    if (pools_[owned[0]].index(e) < length) return;
    for (auto id : owned) pools_[id].swap_at(pools_[id].index(e), length);
    ++length;
}

world::size_type world::leave_group(size_type g, entity e) {
    size_type &length = group_lengths_[g];
    --length;
    for (auto id : schema_->groups()[g]) pools_[id].swap_at(pools_[id].index(e), length);
    return length;
}

world::size_type world::find_group(std::initializer_list<size_type> ids) const {
    const auto groups = schema_->groups();
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (groups[g].size() != ids.size()) continue;
        bool all = true;
        for (auto id : ids) all = all && std::find(groups[g].begin(), groups[g].end(), id) != groups[g].end();
        if (all) return static_cast<size_type>(g);
    }
    std::string names;
    for (auto id : ids) names += (names.empty() ? "" : ", ") + std::string(pools_[id].info().name);
    internal::misuse("group<%s>: no owning group over exactly these types is declared in the schema", names.c_str());
}

void world::check_sortable(size_type id) const {
    if (group_of_[id] != npos)
        internal::misuse("sort: %.*s is owned by a group, whose order the group maintains",
                         static_cast<int>(pools_[id].info().name.size()), pools_[id].info().name.data());
}

void world::apply_order(pool &p) {
    // order_[k] = old position of the element that goes to position k; follow the cycles.
    const size_type n = p.size();
    for (size_type start = 0; start < n; ++start) {
        size_type cur = start;
        while (order_[cur] != start && order_[cur] != npos) {
            const size_type from = order_[cur];
            p.swap_at(cur, from);
            order_[cur] = npos;
            cur = from;
        }
        order_[cur] = npos;
    }
}

void world::rebuild_nonempty() noexcept {
    std::fill(nonempty_.begin(), nonempty_.end(), 0u);
    nonempty_words_ = 0u;
    for (std::size_t id = 0; id < pools_.size(); ++id)
        if (!pools_[id].empty()) {
            nonempty_[id / 64u] |= std::uint64_t{1} << (id % 64u);
            nonempty_words_ |= std::uint64_t{1} << (id / 64u);
        }
}

void world::assign_state(std::span<const entity> table, const free_list_state &free,
                         std::span<const std::span<const entity>> pool_owners,
                         std::span<const std::span<const std::byte>> pool_payloads, std::span<const size_type> groups,
                         std::span<const std::byte> resources) {
    RETCON_ASSERT(pool_owners.size() == pools_.size() && pool_payloads.size() == pools_.size(), "pool count");
    RETCON_ASSERT(groups.size() == group_lengths_.size() && resources.size() == resources_.size(), "state sizes");
    entities_.assign(table.begin(), table.end());
    free_ = free;
    for (std::size_t id = 0; id < pools_.size(); ++id)
        pools_[id].assign(pool_owners[id].data(), pool_payloads[id].data(),
                          static_cast<size_type>(pool_owners[id].size()));
    std::copy(groups.begin(), groups.end(), group_lengths_.begin());
    if (!resources.empty()) std::memcpy(resources_.data(), resources.data(), resources.size());
    rebuild_nonempty();
}

result<void> world::validate_state(std::span<const entity> table, const free_list_state &free,
                                   std::span<const std::span<const entity>> pool_owners,
                                   std::span<const size_type> groups, std::span<const std::byte> resources) const {
    // No byte offsets here: the regions arrive already split up (snapshot/src/image.cpp names
    // the image's offsets). Fixed texts are static; texts with names or numbers are formatted.
    if (table.size() > std::size_t{entity_traits::max_index} + 1u)
        return error{errc::corrupt,
                     "entity table has " + std::to_string(table.size()) + " slots, more than the handle layout allows"};
    if (pool_owners.size() != pools_.size())
        return error{errc::schema_mismatch, "image has " + std::to_string(pool_owners.size()) +
                                                " pools, schema declares " + std::to_string(pools_.size())};
    if (groups.size() != group_lengths_.size())
        return error{errc::schema_mismatch, "group count differs from the schema"};
    if (resources.size() != resources_.size())
        return error{errc::schema_mismatch, "resource block size differs from the schema"};
    for (std::size_t r = 0; r < schema_->resources().size(); ++r)
        if (resources[r] != std::byte{0} && resources[r] != std::byte{1})
            return error{errc::corrupt, "presence byte of resource '" + std::string(schema_->resources()[r].name) +
                                            "' is " + std::to_string(static_cast<unsigned>(resources[r])) +
                                            ", not 0 or 1"};
    // One byte per slot: first "live, retired or reached by the free list", then, per pool,
    // the pool's stamp where it holds the slot. Bytes, not bits: owners mostly come in index
    // order, and setting bits of one word would chain every owner's check on the last store.
    std::vector<std::uint8_t> marks(table.size());
    std::size_t live = 0;
    std::size_t retired = 0;
    bool bad_version = false;
    for (std::size_t i = 0; i < table.size(); ++i) { // no branches: a churned table costs no mispredictions
        const bool is_live = to_index(table[i]) == i;
        const bool is_retired = table[i] == null_entity;
        bad_version |= is_live & (to_version(table[i]) > entity_traits::max_version);
        marks[i] = static_cast<std::uint8_t>(is_live | is_retired);
        live += is_live;
        retired += is_retired;
    }
    if (bad_version)
        for (std::size_t i = 0; i < table.size(); ++i)
            if (to_index(table[i]) == i && to_version(table[i]) > entity_traits::max_version)
                return error{errc::corrupt, "entity slot " + std::to_string(i) + " has a bad version"};
    if (live != free.alive)
        return error{errc::corrupt, "free-list header says " + std::to_string(free.alive) +
                                        " live entities, table has " + std::to_string(live)};
    if (free.reserved != 0) return error{errc::corrupt, "free-list header has a non-zero reserved field"};
    std::size_t linked = 0;
    std::uint32_t prev = null_index;
    for (std::uint32_t cur = free.head; cur != null_index;) {
        if (cur >= table.size() || marks[cur] != 0)
            return error{errc::corrupt, "free list reaches slot " + std::to_string(cur) +
                                            " which is out of range, live, retired or already visited (cycle)"};
        marks[cur] = 1;
        ++linked;
        prev = cur;
        cur = to_index(table[cur]);
    }
    if (prev != free.tail) return error{errc::corrupt, "free list does not end at its recorded tail"};
    if (live + linked + retired != table.size())
        return error{errc::corrupt, "entity table has slots that are neither live, free nor retired"};
    // Pool stamps run 1..255; the bytes are cleared before the first and when they wrap.
    for (std::size_t id = 0; id < pool_owners.size(); ++id) {
        const auto stamp = static_cast<std::uint8_t>(id % 255u + 1u);
        if (stamp == 1u) std::fill(marks.begin(), marks.end(), std::uint8_t{0});
        for (const entity e : pool_owners[id]) {
            const auto idx = to_index(e);
            if (idx >= table.size() || table[idx] != e)
                return error{errc::corrupt,
                             "pool '" + std::string(pools_[id].info().name) + "' holds an entity that is not live"};
            if (marks[idx] == stamp)
                return error{errc::corrupt, "pool '" + std::string(pools_[id].info().name) + "' holds an entity twice"};
            marks[idx] = stamp;
        }
    }
    const auto decl = schema_->groups();
    // seen[idx] = how many of a group's owned pools hold idx (only worlds with groups need it).
    std::vector<std::uint32_t> seen(groups.empty() ? 0u : table.size(), 0u);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        for (auto id : decl[g])
            if (groups[g] > pool_owners[id].size())
                return error{errc::corrupt, "group " + std::to_string(g) + " is longer than its pools"};
        for (std::size_t i = 0; i < groups[g]; ++i)
            for (auto id : decl[g])
                if (pool_owners[id][i] != pool_owners[decl[g][0]][i])
                    return error{errc::corrupt,
                                 "group " + std::to_string(g) + " pools are not packed in the same order"};
        // Complete: no entity past the packed prefix holds every owned type. Count, per entity,
        // the owned pools holding it (each pool is owned by one group at most: O(n) overall).
        for (auto id : decl[g])
            for (const entity e : pool_owners[id]) ++seen[to_index(e)];
        const auto &first = pool_owners[decl[g][0]];
        for (std::size_t i = groups[g]; i < first.size(); ++i)
            if (seen[to_index(first[i])] == decl[g].size())
                return error{errc::corrupt, "group " + std::to_string(g) + " is incomplete: entity " +
                                                std::to_string(to_index(first[i])) + " at position " +
                                                std::to_string(i) +
                                                " holds every owned type but lies past the packed length " +
                                                std::to_string(groups[g])};
        for (auto id : decl[g])
            for (const entity e : pool_owners[id]) seen[to_index(e)] = 0u;
    }
    return {};
}

std::size_t world::derived_bytes() const noexcept {
    std::size_t n = 0;
    for (const auto &p : pools_) n += p.sparse_bytes();
    return n;
}

void world::not_declared(std::string_view name, const char *what) const {
    internal::misuse("%.*s is not a %s declared in this world's schema (declare it with schema::%s<T>())",
                     static_cast<int>(name.size()), name.data(), what, what);
}

void world::stale(entity e, const char *what, size_type id) const {
    const auto idx = to_index(e);
    const std::string type = id == npos ? std::string() : "<" + std::string(pools_[id].info().name) + ">";
    if (e == null_entity) internal::misuse("%s%s: null entity handle", what, type.c_str());
    if (idx >= entities_.size())
        internal::misuse("%s%s: entity %u (version %u) was never created", what, type.c_str(), idx, to_version(e));
    if (entities_[idx] == null_entity)
        internal::misuse("%s%s: stale entity handle %u (version %u); that index is retired", what, type.c_str(), idx,
                         to_version(e));
    internal::misuse("%s%s: stale entity handle %u (version %u); the slot is now at version %u", what, type.c_str(),
                     idx, to_version(e), to_version(entities_[idx]));
}

void world::missing(entity e, const char *what, size_type id) const {
    if (!valid(e)) stale(e, what, id);
    const auto name = pools_[id].info().name;
    internal::misuse("%s<%.*s>: entity %u (version %u) has no %.*s", what, static_cast<int>(name.size()), name.data(),
                     to_index(e), to_version(e), static_cast<int>(name.size()), name.data());
}

void world::check_not_dying(entity e, size_type id) const {
    for (const removal *r = removing_; r != nullptr; r = r->outer)
        if (r->pool == npos && r->target == e) {
            const auto name = pools_[id].info().name;
            internal::misuse("emplace<%.*s>: entity %u (version %u) is being destroyed; an on_remove hook may not add "
                             "components to it (destroy does not revisit pools, so they would stay on a dead entity)",
                             static_cast<int>(name.size()), name.data(), to_index(e), to_version(e));
        }
}

void world::check_not_removing(entity e, size_type id) const {
    for (const removal *r = removing_; r != nullptr; r = r->outer)
        if (r->pool == id && r->target == e) {
            const auto name = pools_[id].info().name;
            internal::misuse("remove<%.*s>: entity %u (version %u) is already having its %.*s removed; the "
                             "on_remove<%.*s> hook (or a hook it triggers) may not remove it again",
                             static_cast<int>(name.size()), name.data(), to_index(e), to_version(e),
                             static_cast<int>(name.size()), name.data(), static_cast<int>(name.size()), name.data());
        }
}

void world::check_destroyable(entity e) const {
    for (const removal *r = removing_; r != nullptr; r = r->outer)
        if (r->target == e && r->pool == npos)
            internal::misuse("destroy: entity %u (version %u) is already being destroyed; an on_remove hook run by "
                             "that destroy may not destroy it again",
                             to_index(e), to_version(e));
    for (const removal *r = removing_; r != nullptr; r = r->outer) {
        if (r->target != e) continue;
        const auto name = pools_[r->pool].info().name;
        internal::misuse("destroy: entity %u (version %u) is having its %.*s removed; the on_remove<%.*s> hook (or a "
                         "hook it triggers) may not destroy that entity",
                         to_index(e), to_version(e), static_cast<int>(name.size()), name.data(),
                         static_cast<int>(name.size()), name.data());
    }
}

void world::already_has(entity e, size_type id) const {
    const auto name = pools_[id].info().name;
    internal::misuse("emplace<%.*s>: entity %u (version %u) already has one; use replace or emplace_or_replace",
                     static_cast<int>(name.size()), name.data(), to_index(e), to_version(e));
}

void world::not_in_pool(size_type id) const {
    const auto name = pools_[id].info().name;
    internal::misuse("entity_of<%.*s>: the reference does not point into this world's %.*s pool",
                     static_cast<int>(name.size()), name.data(), static_cast<int>(name.size()), name.data());
}

void world::resource_missing(size_type id) const {
    const auto name = schema_->resource_info(id).name;
    internal::misuse("resource<%.*s>: not set (use set_resource first, or try_resource)", static_cast<int>(name.size()),
                     name.data());
}

} // namespace retcon

namespace retcon {
void world::emplace_bytes(size_type id, entity e, const std::byte *bytes, bool or_replace) {
    pool &p = pools_[id];
    const auto pos = p.index(e);
    if (pos != pool::npos) {
        if (!or_replace) already_has(e, id);
        if (p.element_size()) std::memcpy(p.payload() + std::size_t{pos} * p.element_size(), bytes, p.element_size());
        return;
    }
    if (RETCON_UNLIKELY(removing_ != nullptr)) check_not_dying(e, id);
    p.push_bytes(e, bytes);
    added(id, e);
}
} // namespace retcon

// ------------------------------------------------------------------ by id (type-erased)
namespace retcon {

namespace {
[[noreturn]] void bad_id(const char *what, std::size_t id, std::size_t count) {
    internal::misuse("%s: id %zu, but the schema declares %zu", what, id, count);
}
} // namespace

std::byte *world::emplace(entity e, std::size_t id, std::span<const std::byte> value) {
    if (id >= pools_.size()) bad_id("emplace", id, pools_.size());
    const auto sid = static_cast<size_type>(id);
    pool &p = pools_[id];
    if (value.size() != p.element_size())
        internal::misuse("emplace(%.*s): %zu bytes given, the type has %zu", static_cast<int>(p.info().name.size()),
                         p.info().name.data(), value.size(), p.element_size());
    check_alive(e, "emplace", sid);
    if (RETCON_UNLIKELY(p.contains(e))) already_has(e, sid);
    emplace_bytes(sid, e, value.data(), false);
    return p.element_size() ? p.payload() + std::size_t{p.index(e)} * p.element_size() : nullptr;
}

std::byte *world::get(entity e, std::size_t id) {
    if (id >= pools_.size()) bad_id("get", id, pools_.size());
    pool &p = pools_[id];
    if (p.element_size() == 0)
        internal::misuse("get(%.*s): a tag has no value; use has", static_cast<int>(p.info().name.size()),
                         p.info().name.data());
    const auto pos = p.index(e);
    if (RETCON_UNLIKELY(pos == pool::npos)) missing(e, "get", static_cast<size_type>(id));
    return p.payload() + std::size_t{pos} * p.element_size();
}

std::byte *world::try_get(entity e, std::size_t id) {
    if (id >= pools_.size()) bad_id("try_get", id, pools_.size());
    pool &p = pools_[id];
    const auto pos = p.index(e);
    return pos == pool::npos || p.element_size() == 0 ? nullptr : p.payload() + std::size_t{pos} * p.element_size();
}

void world::remove(entity e, std::size_t id) {
    if (id >= pools_.size()) bad_id("remove", id, pools_.size());
    const auto pos = pools_[id].index(e);
    if (RETCON_UNLIKELY(pos == pool::npos)) missing(e, "remove", static_cast<size_type>(id));
    erase_one(static_cast<size_type>(id), pos);
}

bool world::has(entity e, std::size_t id) const {
    if (id >= pools_.size()) bad_id("has", id, pools_.size());
    return pools_[id].contains(e);
}

std::byte *world::set_resource(std::size_t id, std::span<const std::byte> value) {
    if (id >= resource_offsets_.size()) bad_id("set_resource", id, resource_offsets_.size());
    const auto &info = schema_->resource_info(id);
    if (value.size() != info.size)
        internal::misuse("set_resource(%.*s): %zu bytes given, the type has %u", static_cast<int>(info.name.size()),
                         info.name.data(), value.size(), info.size);
    std::byte *slot = resource_slot(static_cast<size_type>(id));
    std::memmove(slot, value.data(), value.size()); // the value may be the slot itself
    resource_flags()[id] = std::byte{1};
    return slot;
}

std::byte *world::try_resource(std::size_t id) {
    if (id >= resource_offsets_.size()) bad_id("try_resource", id, resource_offsets_.size());
    return resource_flags()[id] == std::byte{0} ? nullptr : resource_slot(static_cast<size_type>(id));
}

bool world::remove_resource(std::size_t id) {
    if (id >= resource_offsets_.size()) bad_id("remove_resource", id, resource_offsets_.size());
    const bool was = resource_flags()[id] != std::byte{0};
    std::memset(resource_slot(static_cast<size_type>(id)), 0, schema_->resource_info(id).size);
    resource_flags()[id] = std::byte{0};
    return was;
}

} // namespace retcon
