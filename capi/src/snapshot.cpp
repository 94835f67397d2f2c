// Hashes, images, the rollback ring, snapshot files and diffs through the C API
// (docs/c-api.md). Bytes that leave the library go to caller-owned buffers with a size query.
#include "handles.hpp"

#include <cstring>

using namespace retcon;
using namespace retcon::capi;

extern "C" {

rc_status rc_world_hash(const rc_world *cw, uint64_t *out_hash) {
    if (!cw) return fail(thread_error(), RC_ERR_NULL, "rc_world_hash: world is NULL");
    auto *w = const_cast<rc_world *>(cw);
    return guarded(w->error, [&] {
        if (!out_hash) return fail(w->error, RC_ERR_NULL, "rc_world_hash: out_hash is NULL");
        *out_hash = hash(w->world);
        return RC_OK;
    });
}

rc_status rc_world_section_hashes(const rc_world *cw, uint64_t *hashes, size_t capacity, size_t *needed) {
    if (!cw) return fail(thread_error(), RC_ERR_NULL, "rc_world_section_hashes: world is NULL");
    auto *w = const_cast<rc_world *>(cw);
    return guarded(w->error, [&] {
        if (!needed) return fail(w->error, RC_ERR_NULL, "rc_world_section_hashes: needed is NULL");
        const auto v = section_hashes(w->world).sections();
        *needed = v.size();
        if (capacity < v.size())
            return fail(w->error, RC_ERR_BUFFER_TOO_SMALL, "rc_world_section_hashes: room for %zu hashes, %zu needed",
                        capacity, v.size());
        if (!hashes) return fail(w->error, RC_ERR_NULL, "rc_world_section_hashes: hashes is NULL");
        std::memcpy(hashes, v.data(), v.size() * sizeof(std::uint64_t));
        return RC_OK;
    });
}

rc_status rc_world_save_image(const rc_world *cw, rc_frame frame, void *buffer, size_t capacity, size_t *needed) {
    if (!cw) return fail(thread_error(), RC_ERR_NULL, "rc_world_save_image: world is NULL");
    auto *w = const_cast<rc_world *>(cw);
    return guarded(w->error, [&] {
        if (!needed) return fail(w->error, RC_ERR_NULL, "rc_world_save_image: needed is NULL");
        if (!to_frame_c(frame)) return bad_frame(w->error, "rc_world_save_image", frame);
        *needed = image_size(w->world);
        if (capacity < *needed) // the size query: nothing is saved
            return fail(w->error, RC_ERR_BUFFER_TOO_SMALL,
                        "rc_world_save_image: the buffer holds %zu bytes, %zu needed", capacity, *needed);
        save(w->world, w->scratch, frame);
        return copy_out(w->error, w->scratch.bytes().data(), w->scratch.size(), buffer, capacity, needed,
                        "rc_world_save_image");
    });
}

rc_status rc_world_load_image(rc_world *w, const void *image, size_t size, rc_frame *out_frame) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_world_load_image: world is NULL");
    return guarded(w->error, [&] {
        if (!image && size) return fail(w->error, RC_ERR_NULL, "rc_world_load_image: image is NULL");
        std::byte *copy = w->scratch.prepare(size); // aligned copy: the image may be anywhere
        if (size) std::memcpy(copy, image, size);
        // Frames are 32-bit inside retcon (docs/frames.md): a larger one is corruption.
        if (size >= sizeof(image_header) && !to_frame_c(w->scratch.frame()))
            return fail(w->error, RC_ERR_CORRUPT,
                        "rc_world_load_image: the image's frame %llu is beyond retcon's last "
                        "frame (%u)",
                        static_cast<unsigned long long>(w->scratch.frame()), max_frame);
        if (auto r = load_image(w->world, w->scratch); !r) return fail_with(w->error, r.err());
        ++w->epoch;
        if (out_frame) *out_frame = w->scratch.frame();
        return RC_OK;
    });
}

rc_status rc_ring_create(uint32_t capacity, rc_ring **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!out) return fail(err, RC_ERR_NULL, "rc_ring_create: out is NULL");
        if (capacity == 0 || capacity > 4096)
            return fail(err, RC_ERR_ARGUMENT, "rc_ring_create: capacity %u (1..4096 frames)", capacity);
        *out = new rc_ring{capacity};
        return RC_OK;
    });
}

void rc_ring_destroy(rc_ring *ring) { delete ring; }

const char *rc_ring_last_error(const rc_ring *ring) { return ring ? ring->error.c_str() : "ring is NULL"; }

rc_status rc_ring_save(rc_ring *ring, const rc_world *w, rc_frame frame) {
    if (!ring) return fail(thread_error(), RC_ERR_NULL, "rc_ring_save: ring is NULL");
    return guarded(ring->error, [&] {
        if (!w) return fail(ring->error, RC_ERR_NULL, "rc_ring_save: world is NULL");
        const auto f = to_frame_c(frame);
        if (!f) return bad_frame(ring->error, "rc_ring_save", frame);
        ring->ring.save(w->world, *f);
        return RC_OK;
    });
}

rc_status rc_ring_restore(rc_ring *ring, rc_world *w, rc_frame frame) {
    if (!ring) return fail(thread_error(), RC_ERR_NULL, "rc_ring_restore: ring is NULL");
    return guarded(ring->error, [&] {
        if (!w) return fail(ring->error, RC_ERR_NULL, "rc_ring_restore: world is NULL");
        const auto f = to_frame_c(frame);
        if (!f) return bad_frame(ring->error, "rc_ring_restore", frame);
        const world_image *s = ring->ring.find(*f);
        if (!s) return fail(ring->error, RC_ERR_NOT_FOUND, "rc_ring_restore: the ring does not hold frame %u", *f);
        if (s->header().schema_hash != w->world.schema_hash())
            return fail(ring->error, RC_ERR_SCHEMA_MISMATCH,
                        "rc_ring_restore: frame %u was saved from a world with another schema", *f);
        if (auto r = ring->ring.restore(w->world, *f); !r) return fail_with(ring->error, r.err());
        ++w->epoch;
        return RC_OK;
    });
}

rc_status rc_snapshot_file_write(rc_world *w, const char *path, rc_frame frame, int level) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_snapshot_file_write: world is NULL");
    return guarded(w->error, [&] {
        if (!path) return fail(w->error, RC_ERR_NULL, "rc_snapshot_file_write: path is NULL");
        if (level < 1 || level > 19)
            return fail(w->error, RC_ERR_ARGUMENT, "rc_snapshot_file_write: level %d (1..19)", level);
        if (!to_frame_c(frame)) return bad_frame(w->error, "rc_snapshot_file_write", frame);
        if (auto r = write_snapshot_file(path, w->world, frame, level); !r) return fail_with(w->error, r.err());
        return RC_OK;
    });
}

rc_status rc_snapshot_file_load(rc_world *w, const char *path, rc_frame *out_frame) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_snapshot_file_load: world is NULL");
    return guarded(w->error, [&] {
        if (!path) return fail(w->error, RC_ERR_NULL, "rc_snapshot_file_load: path is NULL");
        auto r = load_snapshot_file(path, w->world);
        if (!r) return fail_with(w->error, r.err());
        ++w->epoch;
        if (out_frame) *out_frame = *r;
        return RC_OK;
    });
}

rc_status rc_snapshot_file_check(const char *path) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!path) return fail(err, RC_ERR_NULL, "rc_snapshot_file_check: path is NULL");
        if (auto r = read_snapshot_file(path); !r) return fail_with(err, r.err());
        return RC_OK;
    });
}

rc_status rc_diff_files(const char *path_a, const char *path_b, rc_diff **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!path_a || !path_b) return fail(err, RC_ERR_NULL, "rc_diff_files: a path is NULL");
        if (!out) return fail(err, RC_ERR_NULL, "rc_diff_files: out is NULL");
        auto a = read_snapshot_file(path_a);
        if (!a) return fail_with(err, a.err());
        auto b = read_snapshot_file(path_b);
        if (!b) return fail_with(err, b.err());
        auto d = diff(a->image, a->schema, b->image, b->schema);
        if (!d) return fail_with(err, d.err());
        auto result = std::make_unique<rc_diff>();
        result->diff = std::move(*d);
        result->json = result->diff.to_json();
        *out = result.release();
        return RC_OK;
    });
}

void rc_diff_destroy(rc_diff *diff) { delete diff; }

rc_status rc_diff_get_summary(const rc_diff *d, rc_diff_summary *out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!d || !out) return fail(err, RC_ERR_NULL, "rc_diff_get_summary: diff or out is NULL");
        if (auto s = check_struct_size(err, out->struct_size, sizeof(rc_diff_summary), "rc_diff_get_summary", "out");
            s != RC_OK)
            return s;
        const auto &x = d->diff;
        out->identical = x.identical() ? 1 : 0;
        out->schemas_differ = x.schema_differences.empty() ? 0 : 1;
        out->groups_differ = x.groups_differ ? 1 : 0;
        out->entity_table_differences = static_cast<uint32_t>(x.entity_table.size());
        out->pools_differing = static_cast<uint32_t>(x.pools.size());
        out->resource_differences = static_cast<uint32_t>(x.resources.size());
        out->frame_a = x.frame_a;
        out->frame_b = x.frame_b;
        return RC_OK;
    });
}

rc_status rc_diff_pool(const rc_diff *d, uint32_t index, rc_pool_diff *out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!d || !out) return fail(err, RC_ERR_NULL, "rc_diff_pool: diff or out is NULL");
        if (auto s = check_struct_size(err, out->struct_size, sizeof(rc_pool_diff), "rc_diff_pool", "out"); s != RC_OK)
            return s;
        if (index >= d->diff.pools.size())
            return fail(err, RC_ERR_ARGUMENT, "rc_diff_pool: index %u, but %zu pools differ", index,
                        d->diff.pools.size());
        const auto &p = d->diff.pools[index];
        out->pool = p.pool.c_str();
        out->count_a = p.count_a;
        out->count_b = p.count_b;
        out->entities_differing = p.entities_total;
        out->order_differs = p.order_differs ? 1 : 0;
        return RC_OK;
    });
}

rc_status rc_diff_json(const rc_diff *d, char *buffer, size_t capacity, size_t *needed) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!d) return fail(err, RC_ERR_NULL, "rc_diff_json: diff is NULL");
        return copy_out(err, d->json.c_str(), d->json.size() + 1u, buffer, capacity, needed, "rc_diff_json");
    });
}

} // extern "C"
