// rc_query_*: iteration by component ids in chunks shaped like flecs's iterator
// (docs/c-api.md). The lead pool is the smallest included one. Where every included pool
// holds the same owners in the same order over a stretch (a group, or pools filled alike),
// a chunk is that stretch and its columns point straight into the pools (rows is NULL).
// Elsewhere each chunk carries, per column, the row of each entity in that pool. Values are
// never copied: writes go to pool memory.
#include "handles.hpp"

#include <algorithm>
#include <cstring>

using namespace retcon;
using namespace retcon::capi;

namespace {
constexpr std::uint32_t chunk_capacity = 1024;
constexpr std::uint32_t max_terms = 16;
} // namespace

struct rc_query {
    rc_world *world = nullptr;
    std::vector<std::uint32_t> include;
    std::vector<std::uint32_t> exclude;
    std::vector<const pool *> pools;    ///< per included column (a world's pools never move)
    std::vector<const pool *> excluded; ///< per excluded component
    std::uint32_t lead = 0;             ///< the column whose pool leads this pass (the smallest)
    std::uint32_t next = 0;             ///< next row of the lead pool
    bool started = false;
    std::uint64_t epoch = 0; ///< the world's epoch when this pass started
    std::vector<rc_entity> entities;
    std::vector<void *> columns;
    std::vector<std::vector<std::uint32_t>> rows;
    std::vector<const std::uint32_t *> row_pointers;
    std::string error;
};

namespace {

/// How many rows from @p lo every included pool holds the lead pool's owners at the same rows
/// (up to @p hi): the aligned stretch a chunk can hand out as pool memory (a group's members).
std::uint32_t aligned_run(const rc_query &q, std::uint32_t lo, std::uint32_t hi) {
    const entity *lead = q.pools[q.lead]->owners().data();
    std::uint32_t end = hi;
    for (std::uint32_t c = 0; c < q.pools.size() && end > lo; ++c) {
        if (c == q.lead) continue;
        const pool &p = *q.pools[c];
        const entity *owners = p.owners().data();
        const std::uint32_t limit = std::min<std::uint32_t>(end, p.size());
        if (limit > lo && std::memcmp(owners + lo, lead + lo, (limit - lo) * sizeof(entity)) == 0) { // the common case
            end = limit;
            continue;
        }
        std::uint32_t i = lo;
        while (i < limit && owners[i] == lead[i]) ++i;
        end = i;
    }
    return end - lo;
}

void *column_base(const rc_query &q, std::uint32_t c) {
    auto &p = const_cast<pool &>(*q.pools[c]);
    return p.element_size() ? static_cast<void *>(p.payload()) : nullptr;
}

} // namespace

extern "C" {

rc_status rc_query_create(rc_world *w, const rc_query_desc *desc, rc_query **out) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_query_create: world is NULL");
    return guarded(w->error, [&] {
        if (!desc || !out) return fail(w->error, RC_ERR_NULL, "rc_query_create: desc or out is NULL");
        if (auto s = check_struct_size(w->error, desc->struct_size, sizeof(rc_query_desc), "rc_query_create", "desc");
            s != RC_OK)
            return s;
        if (desc->include_count == 0 || desc->include_count > max_terms || desc->exclude_count > max_terms)
            return fail(w->error, RC_ERR_ARGUMENT,
                        "rc_query_create: %u included and %u excluded components (1..%u, 0..%u)", desc->include_count,
                        desc->exclude_count, max_terms, max_terms);
        if (!desc->include || (desc->exclude_count && !desc->exclude))
            return fail(w->error, RC_ERR_NULL, "rc_query_create: include or exclude is NULL");
        auto q = std::make_unique<rc_query>();
        q->world = w;
        for (std::uint32_t i = 0; i < desc->include_count + desc->exclude_count; ++i) {
            const bool inc = i < desc->include_count;
            const std::uint32_t id = inc ? desc->include[i] : desc->exclude[i - desc->include_count];
            if (id >= w->world.component_count())
                return fail(w->error, RC_ERR_ARGUMENT, "rc_query_create: component id %u, but the schema declares %zu",
                            id, w->world.component_count());
            if (std::find(q->include.begin(), q->include.end(), id) != q->include.end() ||
                std::find(q->exclude.begin(), q->exclude.end(), id) != q->exclude.end())
                return fail(w->error, RC_ERR_ARGUMENT, "rc_query_create: component id %u appears twice", id);
            (inc ? q->include : q->exclude).push_back(id);
        }
        for (const auto id : q->include) q->pools.push_back(&w->world.pool_at(id));
        for (const auto id : q->exclude) q->excluded.push_back(&w->world.pool_at(id));
        q->columns.resize(q->include.size());
        q->rows.assign(q->include.size(), std::vector<std::uint32_t>(chunk_capacity));
        q->row_pointers.resize(q->include.size());
        q->entities.resize(chunk_capacity);
        *out = q.release();
        return RC_OK;
    });
}

void rc_query_destroy(rc_query *query) { delete query; }

const char *rc_query_last_error(const rc_query *query) { return query ? query->error.c_str() : "query is NULL"; }

rc_status rc_query_next(rc_query *q, rc_chunk *out, int *has_chunk) {
    if (!q) return fail(thread_error(), RC_ERR_NULL, "rc_query_next: query is NULL");
    return guarded(q->error, [&] {
        if (!out || !has_chunk) return fail(q->error, RC_ERR_NULL, "rc_query_next: out or has_chunk is NULL");
        const std::uint32_t terms = static_cast<std::uint32_t>(q->pools.size());
        if (q->started && q->epoch != q->world->epoch) { // pools moved under the last chunk
            q->started = false;
            *has_chunk = 0;
            return fail(q->error, RC_ERR_ARGUMENT,
                        "rc_query_next: the world changed structurally during this pass "
                        "(an entity or component was added or removed, or a state restored): the chunks handed "
                        "out are stale; the next call starts a new pass");
        }
        if (!q->started) { // a pass starts: lead with the smallest pool
            q->epoch = q->world->epoch;
            q->lead = 0;
            for (std::uint32_t c = 1; c < terms; ++c)
                if (q->pools[c]->size() < q->pools[q->lead]->size()) q->lead = c;
            q->next = 0;
            q->started = true;
        }
        const pool &lead = *q->pools[q->lead];
        const entity *owners = lead.owners().data();
        while (q->next < lead.size()) {
            const std::uint32_t lo = q->next;
            std::uint32_t hi = std::min<std::uint32_t>(lead.size(), lo + chunk_capacity);
            const std::uint32_t run = q->excluded.empty() ? aligned_run(*q, lo, hi) : 0;
            if (run > 0) { // straight into the pools
                hi = lo + run;
                q->next = hi;
                for (std::uint32_t i = lo; i < hi; ++i) q->entities[i - lo] = to_c(owners[i]);
                for (std::uint32_t c = 0; c < terms; ++c) {
                    auto *base = static_cast<std::byte *>(column_base(*q, c));
                    q->columns[c] = base ? base + std::size_t{lo} * q->pools[c]->element_size() : nullptr;
                }
                *out = rc_chunk{hi - lo, q->entities.data(), q->columns.data(), nullptr};
                *has_chunk = 1;
                return RC_OK;
            }
            std::uint32_t k = 0; // row by row: each column's row of each visited entity
            std::uint32_t found[max_terms];
            while (q->next < lead.size() && k < chunk_capacity) {
                const std::uint32_t lead_row = q->next++;
                const entity e = owners[lead_row];
                bool all = true;
                for (std::uint32_t c = 0; c < terms && all; ++c) {
                    found[c] = c == q->lead ? lead_row : q->pools[c]->index(e);
                    all = found[c] != pool::npos;
                }
                if (!all) continue;
                bool out_of_query = false;
                for (const pool *x : q->excluded) out_of_query = out_of_query || x->contains(e);
                if (out_of_query) continue;
                q->entities[k] = to_c(e);
                for (std::uint32_t c = 0; c < terms; ++c) q->rows[c][k] = found[c];
                ++k;
            }
            if (k) {
                for (std::uint32_t c = 0; c < terms; ++c) {
                    q->columns[c] = column_base(*q, c);
                    q->row_pointers[c] = q->rows[c].data();
                }
                *out = rc_chunk{k, q->entities.data(), q->columns.data(), q->row_pointers.data()};
                *has_chunk = 1;
                return RC_OK;
            }
        }
        q->started = false; // done: the next call starts a new pass
        *out = rc_chunk{0, nullptr, nullptr, nullptr};
        *has_chunk = 0;
        return RC_OK;
    });
}

} // extern "C"
