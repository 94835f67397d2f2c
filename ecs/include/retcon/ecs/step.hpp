#ifndef RETCON_ECS_STEP_HPP
#define RETCON_ECS_STEP_HPP

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

#include "frame.hpp"
#include "schedule.hpp"
#include "world.hpp"

namespace retcon {

/**
 * @brief The game's deterministic step: simulate one frame of a world with one frame's
 * confirmed inputs. It may only change the world.
 *
 * One type accepted unchanged by `server_session`, `client_session`, `sync_test`, `verify` and
 * replay re-simulation (docs/frames.md). It is either
 * - *opaque*: any callable `void(world&, const frame_inputs&)`, or
 * - *structured*: an apply-inputs callable followed by a `schedule` of named systems. The step
 *   owns a copy of the schedule (copies of the step share it, including any state a system
 *   keeps in its captures), so a temporary schedule is fine.
 *   The sync test hashes the world after every stage — after the inputs are applied, then after
 *   each system — and names the first stage that is not deterministic.
 *
 * @code
 * retcon::step_function opaque = [](retcon::world &w, const retcon::frame_inputs &in) { ... };
 * retcon::step_function structured{apply_inputs, make_systems()};
 * @endcode
 */
class step_function {
public:
    /// @brief The signature of an opaque step and of the apply-inputs stage.
    using function_type = std::function<void(world &, const frame_inputs &)>;

    /// @brief An empty step (calling it is misuse).
    step_function() = default;

    /// @brief An opaque step.
    template<class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, step_function> &&
                 std::is_invocable_v<F &, world &, const frame_inputs &>)
    step_function(F fn) : apply_{std::move(fn)} {} // NOLINT(google-explicit-constructor): a lambda is a step

    /// @brief A structured step: @p apply_inputs (stores the frame's inputs in the world, e.g. in a
    /// resource), then @p systems in order.
    /// An empty @p apply_inputs is misuse.
    step_function(function_type apply_inputs, schedule systems)
        : apply_{std::move(apply_inputs)}, systems_{std::make_shared<const schedule>(std::move(systems))} {
        if (!apply_) internal::misuse("step_function: a structured step needs an apply-inputs function");
    }

    /// @brief True unless default-constructed.
    explicit operator bool() const noexcept { return static_cast<bool>(apply_); }

    /// @brief A step that must only run inside a session's tick requests (the C API's poll
    /// mode, where the caller steps): desync forensics never re-run it outside a tick, so it
    /// gives no per-stage bisection (docs/net.md, "Desync forensics").
    [[nodiscard]] static step_function requests_only(function_type fn) {
        step_function s{std::move(fn)};
        s.rerunnable_ = false;
        return s;
    }
    /// @brief False for a `requests_only` step.
    [[nodiscard]] bool can_rerun() const noexcept { return rerunnable_; }

    /// @brief A copy that calls @p before and @p after around every frame it simulates (a
    /// host's timing, say), keeping the stages and their names: wrapping the step in a lambda
    /// instead would make it opaque, and desync bisection and the sync test could then name no
    /// system. Either may be empty.
    [[nodiscard]] step_function observed(std::function<void()> before, std::function<void()> after) const {
        step_function s = *this;
        s.before_ = std::move(before);
        s.after_ = std::move(after);
        return s;
    }

    /// @brief Simulates one frame.
    void operator()(world &w, const frame_inputs &inputs) const {
        check();
        if (before_) before_();
        apply_(w, inputs);
        if (systems_) systems_->run(w);
        if (after_) after_();
    }

    /// @brief The systems of a structured step (nullptr for an opaque one).
    [[nodiscard]] const schedule *systems() const noexcept { return systems_.get(); }

    /// @brief Stages a structured step runs: apply-inputs plus one per system (1 if opaque).
    [[nodiscard]] std::size_t stages() const noexcept { return 1u + (systems_ ? systems_->size() : 0u); }
    /// @brief Name of stage @p i: "apply inputs", then the systems' names ("step" if opaque).
    /// @p i past stages() is misuse.
    [[nodiscard]] std::string_view stage_name(std::size_t i) const {
        if (i >= stages()) internal::misuse("step_function::stage_name: stage %zu of %zu", i, stages());
        if (!systems_) return "step";
        return i == 0 ? std::string_view{"apply inputs"} : systems_->name(i - 1u);
    }

    /// @brief Simulates one frame, calling `after_stage(index, name)` after every stage.
    template<class After>
    void run(world &w, const frame_inputs &inputs, After &&after_stage) const {
        check();
        if (before_) before_();
        apply_(w, inputs);
        after_stage(std::size_t{0}, stage_name(0));
        if (systems_) systems_->run(w, [&](std::size_t i, std::string_view name) { after_stage(i + 1u, name); });
        if (after_) after_();
    }
    /// @brief Runs only stages [0, @p count) of one frame (the sync test's forensics).
    void run_stages(world &w, const frame_inputs &inputs, std::size_t count) const {
        check();
        if (count == 0) return;
        apply_(w, inputs);
        if (systems_) systems_->run_first(w, count - 1u);
    }

private:
    void check() const {
        if (!apply_) internal::misuse("step_function: called without a function (default-constructed step)");
    }

    function_type apply_;
    std::shared_ptr<const schedule> systems_;
    std::function<void()> before_, after_; // observed(): around every frame
    bool rerunnable_ = true;               // false: requests_only()
};

} // namespace retcon

#endif
