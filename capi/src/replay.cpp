// rc_replay_*: writing, reading, seeking and verifying replays through the C API, the game's
// step being a C function pointer (docs/c-api.md).
#include "handles.hpp"

#include <cstring>

using namespace retcon;
using namespace retcon::capi;

namespace {

/// Thrown out of verify's step when the C step returns non-zero; caught in rc_replay_verify.
struct step_refused {
    int code;
    frame_t frame;
};

rc_status outside(std::string &err, const char *what, rc_frame frame, const replay_reader &r) {
    return fail(err, RC_ERR_NOT_FOUND, "%s: frame %llu is outside the replay's frames %u..%u", what,
                static_cast<unsigned long long>(frame), r.start_frame(), r.end_frame());
}

} // namespace

extern "C" {

rc_status rc_replay_settings_default(rc_replay_settings *out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!out) return fail(err, RC_ERR_NULL, "rc_replay_settings_default: out is NULL");
        if (auto s = check_struct_size(err, out->struct_size, sizeof(rc_replay_settings), "rc_replay_settings_default",
                                       "out");
            s != RC_OK)
            return s;
        const replay_settings d;
        out->players = d.players;
        out->input_size = d.input_size;
        out->tick_hz = d.tick_hz;
        out->keyframe_interval = d.keyframe_interval;
        out->full_keyframe_every = d.full_keyframe_every;
        out->frames_per_chunk = d.frames_per_chunk;
        out->level = d.level;
        return RC_OK;
    });
}

rc_status rc_replay_writer_create(const char *path, const rc_world *w, rc_frame start_frame,
                                  const rc_replay_settings *settings, rc_replay_writer **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!path || !w || !settings || !out)
            return fail(err, RC_ERR_NULL, "rc_replay_writer_create: path, world, settings or out is NULL");
        if (auto s = check_struct_size(err, settings->struct_size, sizeof(rc_replay_settings),
                                       "rc_replay_writer_create", "settings");
            s != RC_OK)
            return s;
        const auto start = to_frame_c(start_frame);
        if (!start) return bad_frame(err, "rc_replay_writer_create", start_frame);
        replay_settings rs;
        rs.players = settings->players;
        rs.input_size = settings->input_size;
        rs.tick_hz = settings->tick_hz;
        rs.keyframe_interval = settings->keyframe_interval;
        rs.full_keyframe_every = settings->full_keyframe_every;
        rs.frames_per_chunk = settings->frames_per_chunk;
        rs.level = settings->level;
        auto writer = replay_writer::create(path, w->world, *start, rs);
        if (!writer) return fail_with(err, writer.err());
        auto handle = std::make_unique<rc_replay_writer>(std::move(*writer));
        handle->players = rs.players;
        handle->input_size = rs.input_size;
        *out = handle.release();
        return RC_OK;
    });
}

void rc_replay_writer_destroy(rc_replay_writer *writer) { delete writer; }

const char *rc_replay_writer_last_error(const rc_replay_writer *writer) {
    return writer ? writer->error.c_str() : "writer is NULL";
}

rc_status rc_replay_writer_add_frame(rc_replay_writer *wr, const void *record, size_t size, const rc_world *w) {
    if (!wr) return fail(thread_error(), RC_ERR_NULL, "rc_replay_writer_add_frame: writer is NULL");
    return guarded(wr->error, [&] {
        if (!record || !w) return fail(wr->error, RC_ERR_NULL, "rc_replay_writer_add_frame: record or world is NULL");
        const std::size_t expected = input_record_size(wr->players, wr->input_size);
        if (size != expected)
            return fail(wr->error, RC_ERR_SIZE,
                        "rc_replay_writer_add_frame: a %zu-byte record, expected %zu (%u players: "
                        "flag bytes, then %u-byte inputs)",
                        size, expected, wr->players, wr->input_size);
        const frame_inputs in{wr->writer.next_frame(), wr->players, wr->input_size,
                              static_cast<const std::byte *>(record)};
        if (const auto slot = in.first_unknown_flags(); slot != in.players())
            return fail(wr->error, RC_ERR_ARGUMENT, "rc_replay_writer_add_frame: slot %zu has unknown flag bits", slot);
        if (auto r = wr->writer.add_frame(in, w->world); !r) return fail_with(wr->error, r.err());
        return RC_OK;
    });
}

rc_status rc_replay_writer_finish(rc_replay_writer *wr) {
    if (!wr) return fail(thread_error(), RC_ERR_NULL, "rc_replay_writer_finish: writer is NULL");
    return guarded(wr->error, [&] {
        if (auto r = wr->writer.finish(); !r) return fail_with(wr->error, r.err());
        return RC_OK;
    });
}

rc_status rc_replay_open(const char *path, rc_replay **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!path || !out) return fail(err, RC_ERR_NULL, "rc_replay_open: path or out is NULL");
        auto reader = replay_reader::open(path);
        if (!reader) return fail_with(err, reader.err());
        *out = new rc_replay{std::move(*reader)};
        return RC_OK;
    });
}

void rc_replay_close(rc_replay *replay) { delete replay; }

const char *rc_replay_last_error(const rc_replay *replay) { return replay ? replay->error.c_str() : "replay is NULL"; }

rc_status rc_replay_get_info(const rc_replay *cr, rc_replay_info *out) {
    if (!cr) return fail(thread_error(), RC_ERR_NULL, "rc_replay_get_info: replay is NULL");
    auto *r = const_cast<rc_replay *>(cr);
    return guarded(r->error, [&] {
        if (!out) return fail(r->error, RC_ERR_NULL, "rc_replay_get_info: out is NULL");
        if (auto s = check_struct_size(r->error, out->struct_size, sizeof(rc_replay_info), "rc_replay_get_info", "out");
            s != RC_OK)
            return s;
        const auto &s = r->reader.settings();
        out->players = s.players;
        out->input_size = s.input_size;
        out->tick_hz = s.tick_hz;
        out->start_frame = r->reader.start_frame();
        out->end_frame = r->reader.end_frame();
        out->keyframes = static_cast<uint32_t>(r->reader.keyframes().size());
        out->complete = r->reader.complete() ? 1 : 0;
        out->schema_hash = r->reader.schema().hash();
        return RC_OK;
    });
}

rc_status rc_replay_inputs(const rc_replay *cr, rc_frame frame, const void **out_record, size_t *out_size) {
    if (!cr) return fail(thread_error(), RC_ERR_NULL, "rc_replay_inputs: replay is NULL");
    auto *r = const_cast<rc_replay *>(cr);
    return guarded(r->error, [&] {
        if (!out_record || !out_size)
            return fail(r->error, RC_ERR_NULL, "rc_replay_inputs: out_record or out_size is NULL");
        if (frame < r->reader.start_frame() || frame >= r->reader.end_frame())
            return outside(r->error, "rc_replay_inputs", frame, r->reader);
        const auto rec = r->reader.inputs(static_cast<frame_t>(frame)).record();
        *out_record = rec.data();
        *out_size = rec.size();
        return RC_OK;
    });
}

rc_status rc_replay_hash(const rc_replay *cr, rc_frame frame, uint64_t *out_hash) {
    if (!cr) return fail(thread_error(), RC_ERR_NULL, "rc_replay_hash: replay is NULL");
    auto *r = const_cast<rc_replay *>(cr);
    return guarded(r->error, [&] {
        if (!out_hash) return fail(r->error, RC_ERR_NULL, "rc_replay_hash: out_hash is NULL");
        if (frame < r->reader.start_frame() || frame >= r->reader.end_frame())
            return outside(r->error, "rc_replay_hash", frame, r->reader);
        *out_hash = r->reader.hash(static_cast<frame_t>(frame));
        return RC_OK;
    });
}

rc_status rc_replay_keyframe_frame(const rc_replay *cr, uint32_t index, rc_frame *out_frame) {
    if (!cr) return fail(thread_error(), RC_ERR_NULL, "rc_replay_keyframe_frame: replay is NULL");
    auto *r = const_cast<rc_replay *>(cr);
    return guarded(r->error, [&] {
        if (!out_frame) return fail(r->error, RC_ERR_NULL, "rc_replay_keyframe_frame: out_frame is NULL");
        const auto keys = r->reader.keyframes();
        if (index >= keys.size())
            return fail(r->error, RC_ERR_NOT_FOUND, "rc_replay_keyframe_frame: keyframe %u, but the replay has %zu",
                        index, keys.size());
        *out_frame = keys[index].frame;
        return RC_OK;
    });
}

rc_status rc_replay_seek(const rc_replay *cr, rc_world *w, rc_frame frame, rc_frame *out_frame) {
    if (!cr) return fail(thread_error(), RC_ERR_NULL, "rc_replay_seek: replay is NULL");
    auto *r = const_cast<rc_replay *>(cr);
    return guarded(r->error, [&] {
        if (!w) return fail(r->error, RC_ERR_NULL, "rc_replay_seek: world is NULL");
        const auto f = to_frame_c(frame);
        if (!f) return bad_frame(r->error, "rc_replay_seek", frame);
        if (auto s = check_simulation(r->reader.schema()); !s) // the hashes differ too: say why
            return fail(r->error, RC_ERR_SCHEMA_MISMATCH, "rc_replay_seek: %s", s.message().c_str());
        if (w->world.schema_hash() != r->reader.schema().hash())
            return fail(r->error, RC_ERR_SCHEMA_MISMATCH, "rc_replay_seek: the world's schema is not the replay's");
        auto at = r->reader.restore_keyframe(w->world, *f);
        if (!at) return fail_with(r->error, at.err());
        ++w->epoch;
        if (out_frame) *out_frame = *at;
        return RC_OK;
    });
}

rc_status rc_replay_verify(const rc_replay *cr, rc_world *w, rc_step_fn step, void *user, rc_verify_report *out) {
    if (!cr) return fail(thread_error(), RC_ERR_NULL, "rc_replay_verify: replay is NULL");
    auto *r = const_cast<rc_replay *>(cr);
    return guarded(r->error, [&] {
        if (!w || !step || !out) return fail(r->error, RC_ERR_NULL, "rc_replay_verify: world, step or out is NULL");
        if (auto s = check_struct_size(r->error, out->struct_size, sizeof(rc_verify_report), "rc_replay_verify", "out");
            s != RC_OK)
            return s;
        if (auto s = check_simulation(r->reader.schema()); !s) // the hashes differ too: say why
            return fail(r->error, RC_ERR_SCHEMA_MISMATCH, "rc_replay_verify: %s", s.message().c_str());
        if (w->world.schema_hash() != r->reader.schema().hash())
            return fail(r->error, RC_ERR_SCHEMA_MISMATCH, "rc_replay_verify: the world's schema is not the replay's");
        const step_function c_step = [w, step, user](world &, const frame_inputs &in) {
            const rc_frame_inputs inputs = to_c(in);
            if (const int code = step(w, &inputs, user); code != 0) throw step_refused{code, in.frame()};
        };
        ++w->epoch; // verify restores keyframes into the world
        try {
            auto rep = verify(r->reader, w->world, c_step);
            if (!rep) return fail_with(r->error, rep.err());
            out->frames_checked = rep->frames_checked;
            out->ok = rep->ok() ? 1 : 0;
            out->first_mismatch = rep->first_mismatch.value_or(0);
            out->expected = rep->expected;
            out->actual = rep->actual;
            return RC_OK;
        } catch (const step_refused &s) {
            return fail(r->error, RC_ERR_ARGUMENT, "rc_replay_verify: the step returned %d at frame %u", s.code,
                        s.frame);
        }
    });
}

} // extern "C"
