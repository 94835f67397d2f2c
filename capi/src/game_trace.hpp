// A game's own trace slices through the C API: names interned once, then begin/end pairs on the
// trace's game track (docs/c-api.md, "Traces"). Private to capi/src.
#ifndef RETCON_CAPI_GAME_TRACE_HPP
#define RETCON_CAPI_GAME_TRACE_HPP

#include "handles.hpp"

#include <retcon/net/trace.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace retcon::capi {

/// @brief The open slices of a session's game track: a C caller has no scope to end a slice, so
/// begin pushes onto a fixed stack and end pops it. Begin and end allocate nothing; with the
/// trace off (a null recorder) they only keep the nesting, so misuse shows either way.
class game_trace {
public:
    /// @brief *out_id = the id of @p name in @p recorder (0 when there is none).
    rc_status name(std::string &err, trace_recorder *recorder, const char *name, std::uint32_t *out_id,
                   const char *what) {
        if (!name || !out_id) return fail(err, RC_ERR_NULL, "%s: name or out_id is NULL", what);
        if (!*name) return fail(err, RC_ERR_ARGUMENT, "%s: the name is empty", what);
        if (!recorder) {
            *out_id = 0; // no trace kept: begin(0) and end record nothing
            return RC_OK;
        }
        const trace_name_id id = recorder->intern(std::string_view{name, std::strlen(name)});
        if (id >= named_.size()) named_.resize(std::size_t{id} + 1);
        named_[id] = true;
        *out_id = id;
        return RC_OK;
    }

    /// @brief Opens slice @p id now.
    rc_status begin(std::string &err, trace_recorder *recorder, std::uint32_t id, const char *what) noexcept {
        if (recorder ? id >= named_.size() || !named_[id] : id != 0)
            return fail(err, RC_ERR_ARGUMENT, "%s: %u is not an id the session's trace_name returned", what, id);
        if (depth_ == open_.size())
            return fail(err, RC_ERR_ARGUMENT, "%s: slices nest at most %zu deep (RC_TRACE_MAX_DEPTH)", what,
                        open_.size());
        open_[depth_++] = {static_cast<trace_name_id>(id), recorder ? recorder->now() : 0};
        return RC_OK;
    }

    /// @brief Closes the slice opened last.
    rc_status end(std::string &err, trace_recorder *recorder, const char *what) noexcept {
        if (depth_ == 0) return fail(err, RC_ERR_ARGUMENT, "%s: no slice is open (an end without its begin)", what);
        const slice s = open_[--depth_];
        if (recorder) recorder->complete(s.name, s.start, recorder->now(), trace_track::game);
        return RC_OK;
    }

    /// @brief Writes @p recorder's trace to @p path; @p option names the option that turns it on.
    static rc_status write(std::string &err, const trace_recorder *recorder, const char *path, const char *what,
                           const char *option) {
        if (!path) return fail(err, RC_ERR_NULL, "%s: path is NULL", what);
        if (!recorder) return fail(err, RC_ERR_ARGUMENT, "%s: no trace is kept (%s is 0)", what, option);
        if (auto r = recorder->write_json(path); !r)
            return fail(err, status_of(r.err().code), "%s: %s", what, r.err().message().c_str());
        return RC_OK;
    }

private:
    struct slice {
        trace_name_id name = 0;
        std::uint64_t start = 0;
    };
    std::array<slice, RC_TRACE_MAX_DEPTH> open_{};
    std::size_t depth_ = 0;
    std::vector<bool> named_; ///< ids trace_name handed out
};

/// @brief The C++ trace_options of the trace fields of a C options struct.
template<class Options>
trace_options trace_options_from_c(const Options &o) {
    trace_options out;
    out.records = o.trace_records;
    out.pid = o.trace_pid;
    if (o.trace_process_name) out.process_name = o.trace_process_name;
    out.clock = {o.trace_clock, o.trace_clock_user};
    return out;
}

} // namespace retcon::capi

#endif
