#ifndef RETCON_NET_SRC_STAGE_TRACE_HPP
#define RETCON_NET_SRC_STAGE_TRACE_HPP

#include <retcon/ecs/step.hpp>
#include <retcon/net/step_requests.hpp>
#include <retcon/net/trace.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace retcon::internal {

/**
 * @brief One slice per stage of a structured step ("apply inputs", then each system), inside the
 * session's `step` slice on the tick track (docs/net.md, "Reading a trace").
 *
 * The stages' names are interned when the session is constructed, so stepping allocates nothing.
 * An opaque step has no stages retcon can see, and a step the caller runs (poll mode) is not run
 * by the session: neither is traced here. Off (no recorder, or an opaque step), the session tests
 * it once per tick and steps as it always did.
 */
class stage_trace {
public:
    /// @brief Traces the stages of @p step on @p recorder (null, or an opaque step: nothing is traced).
    void reset(trace_recorder *recorder, const step_function &step) {
        recorder_ = nullptr;
        ids_.clear();
        if (!recorder || !step || !step.systems()) return;
        for (std::size_t i = 0; i < step.stages(); ++i)
            // "frame" and "stage" as arguments: a system named like a built-in slice ("step",
            // "save") gets a name of its own rather than the built-in's id.
            ids_.push_back(recorder->intern(step.stage_name(i), "frame", "stage"));
        recorder_ = recorder;
    }

    /// @brief True when the stages are traced.
    explicit operator bool() const noexcept { return recorder_ != nullptr; }

    /// @brief Runs request @p r with @p step (the one given to reset), a slice per stage.
    void step(const step_function &step, const step_request &r) const {
        std::uint64_t start = recorder_->now();
        const auto frame = static_cast<std::int64_t>(r.inputs.frame());
        step.run(*r.target, r.inputs, [&](std::size_t i, std::string_view) {
            const std::uint64_t end = recorder_->now();
            recorder_->complete(ids_[i], start, end, trace_track::tick, frame, static_cast<std::int64_t>(i));
            start = end;
        });
    }

private:
    trace_recorder *recorder_ = nullptr;
    std::vector<trace_name_id> ids_; // per stage
};

/// @brief step_requests::run with a slice per stage: steps every request of @p requests with
/// @p step through @p stages (defined beside step_requests::run, which it is, traced).
bool run_traced(step_requests &requests, const step_function &step, const stage_trace &stages);

} // namespace retcon::internal

#endif
