// The C API's handles and the one way every entry point reports errors (docs/c-api.md).
// Private to capi/src: nothing here is installed.
#ifndef RETCON_CAPI_HANDLES_HPP
#define RETCON_CAPI_HANDLES_HPP

#include <retcon.h>

#include <retcon/ecs.hpp>
#include <retcon/snapshot.hpp>

#include <cstdarg>
#include <cstdio>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

/// A declared nested record: what RC_FIELD_RECORD fields refer to.
struct rc_record_type {
    std::string name;
    std::uint32_t size = 0;
    std::uint32_t align = 1;
};

struct rc_schema {
    retcon::schema schema;
    std::vector<rc_record_type> records;
    std::string error;
};

struct rc_world {
    explicit rc_world(const retcon::schema &s) : world{s} {}
    retcon::world world;
    std::string error;
    retcon::world_image scratch; ///< images for load/save through caller buffers
    /// Advances at every structural change made through the C API (entities, components,
    /// restores, loads) and whenever a session may have restored it: a query that sees it move
    /// mid-pass knows its chunks are stale.
    std::uint64_t epoch = 0;
    /// Sessions stepping this world: it outlives them (rc_world_destroy refuses meanwhile).
    std::uint32_t sessions = 0;
};

struct rc_ring {
    explicit rc_ring(std::size_t capacity) : ring{capacity} {}
    retcon::snapshot_ring ring;
    std::string error;
};

struct rc_diff {
    retcon::snapshot_diff diff;
    std::string json;
};

struct rc_replay_writer {
    explicit rc_replay_writer(retcon::replay_writer w) : writer{std::move(w)} {}
    retcon::replay_writer writer;
    std::uint32_t players = 0;
    std::uint32_t input_size = 0;
    std::string error;
};

struct rc_replay {
    explicit rc_replay(retcon::replay_reader r) : reader{std::move(r)} {}
    retcon::replay_reader reader;
    std::string error;
};

namespace retcon::capi {

/// The calling thread's message for calls without a handle to keep it.
std::string &thread_error() noexcept;

/// Formats a message into @p where (a handle's error, or the thread's) and returns @p status.
[[gnu::format(printf, 3, 4)]] rc_status fail(std::string &where, rc_status status, const char *format, ...) noexcept;

/// Runs @p body, turning any exception into RC_ERR_INTERNAL with its message in @p where:
/// nothing crosses the C boundary as an exception.
template<class F>
rc_status guarded(std::string &where, F &&body) noexcept {
    try {
        where.clear();
        return body();
    } catch (const std::bad_alloc &) {
        return fail(where, RC_ERR_INTERNAL, "out of memory");
    } catch (const std::exception &e) {
        return fail(where, RC_ERR_INTERNAL, "internal error: %s", e.what());
    } catch (...) {
        return fail(where, RC_ERR_INTERNAL, "internal error (unknown exception)");
    }
}

/// The status for a retcon error code.
rc_status status_of(errc code) noexcept;
/// Reports @p e (a retcon error) into @p where.
rc_status fail_with(std::string &where, const error &e) noexcept;

/// The world's handle for @p e, or nullopt when it cannot name a live entity of @p w.
inline std::optional<entity> live_entity(const world &w, rc_entity e) noexcept {
    using value_type = entity_traits::value_type;
    if constexpr (sizeof(value_type) < sizeof(rc_entity)) // 32-bit handles: the high bits must be 0
        if (e > rc_entity{~value_type{0}}) return std::nullopt;
    const auto handle = static_cast<entity>(static_cast<value_type>(e));
    if (!w.valid(handle)) return std::nullopt;
    return handle;
}
inline rc_entity to_c(entity e) noexcept { return e == null_entity ? RC_NULL_ENTITY : rc_entity{to_integral(e)}; }

/// A frame number the C++ side can hold, or nullopt (frames are 32-bit inside retcon).
inline std::optional<frame_t> to_frame_c(rc_frame f) noexcept {
    if (f > max_frame) return std::nullopt;
    return static_cast<frame_t>(f);
}

/// The C view of a frame's inputs, as every rc_step_fn sees them (replay verification and
/// sessions): pointers into @p in's record, valid while it is.
inline rc_frame_inputs to_c(const frame_inputs &in) noexcept {
    const auto record = in.record();
    const auto *bytes = reinterpret_cast<const std::uint8_t *>(record.data());
    return {in.frame(),
            static_cast<std::uint32_t>(in.players()),
            static_cast<std::uint32_t>(in.input_size()),
            bytes,
            bytes + in.players(),
            record.data(),
            record.size()};
}

/// Reports @p frame as beyond retcon's 32-bit frames (what to_frame_c refused).
rc_status bad_frame(std::string &where, const char *what, rc_frame frame) noexcept;

/// RC_OK when @p struct_size covers @p expected bytes; otherwise the message.
rc_status check_struct_size(std::string &where, std::uint32_t struct_size, std::size_t expected, const char *what,
                            const char *name) noexcept;

/// Copies @p bytes into a caller buffer with the size query every such call shares.
rc_status copy_out(std::string &where, const void *bytes, std::size_t size, void *buffer, std::size_t capacity,
                   std::size_t *needed, const char *what) noexcept;

} // namespace retcon::capi

#endif
