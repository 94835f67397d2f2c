#ifndef RETCON_NET_STEP_REQUESTS_HPP
#define RETCON_NET_STEP_REQUESTS_HPP

#include <coroutine>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/step.hpp>
#include <retcon/ecs/world.hpp>

namespace retcon {

/// @brief One frame the game must simulate now: advance `target` by one frame with `inputs`
/// (docs/net.md, "Poll mode"). retcon has already restored the world where a rollback needs it.
struct step_request {
    world *target{};     ///< the world to step (the session's)
    frame_inputs inputs; ///< the frame and every player's input for it
    bool resimulating{}; ///< true while a rollback re-simulates frames it had simulated before
};

namespace internal {

/// @brief Memory for a session's coroutine frames, reused: its step programs allocate nothing
/// once the first two have run. Two blocks, because `requests = session.tick_requests()` makes
/// the new program before the old one is destroyed; a third live frame comes from the heap.
class coroutine_memory {
public:
    coroutine_memory() = default;
    coroutine_memory(const coroutine_memory &) = delete;
    coroutine_memory &operator=(const coroutine_memory &) = delete;
    ~coroutine_memory() {
        for (block &b : blocks_) ::operator delete(b.memory);
    }

    /// @brief @p size bytes from a free block, or nullptr when both are in use.
    void *allocate(std::size_t size) {
        for (block &b : blocks_) {
            if (b.busy) continue;
            if (size > b.size) {
                ::operator delete(b.memory);
                b.memory = nullptr; // if the next line throws
                b.size = 0;
                b.memory = ::operator new(size);
                b.size = size;
            }
            b.busy = true;
            return b.memory;
        }
        return nullptr;
    }
    /// @brief Gives back the block at @p memory.
    void release(void *memory) noexcept {
        for (block &b : blocks_)
            if (b.memory == memory) b.busy = false;
    }

private:
    struct block {
        void *memory = nullptr;
        std::size_t size = 0;
        bool busy = false;
    };
    block blocks_[2];
};

} // namespace internal

/**
 * @brief The steps one session call needs, handed out one at a time: poll mode
 * (docs/net.md, "Poll mode").
 *
 * `client_session::tick` and `server_session::tick` run the game's step themselves. Their
 * `tick_requests` twins run the same code but hand each step to the caller instead, for
 * engines that cannot be called back (Unity under IL2CPP) and for the C API:
 *
 * @code
 * auto requests = client.tick_requests(input);
 * while (const retcon::step_request *r = requests.next()) game_step(*r->target, r->inputs);
 * bool advanced = requests.result();
 * @endcode
 *
 * `next()` returns the first request, then, at each later call, records the world the caller
 * stepped (retcon saves and hashes it between frames) and returns the next one; nullptr when the
 * call is complete. Between two `next()` calls the caller steps the request's world by exactly
 * one frame with exactly its inputs, and does nothing else to the session or its world.
 *
 * Dropping the object (or `abandon`) before `next()` returned nullptr leaves the world between
 * two frames: the session ends, with a `session_failed` event.
 */
class step_requests {
public:
    struct promise_type;
    using handle = std::coroutine_handle<promise_type>;

    /// @brief No requests (a call that needed no step).
    step_requests() noexcept = default;
    explicit step_requests(handle h) noexcept : h_{h} {}
    step_requests(step_requests &&other) noexcept : h_{std::exchange(other.h_, {})} {}
    step_requests &operator=(step_requests &&other) noexcept {
        if (this != &other) {
            reset();
            h_ = std::exchange(other.h_, {});
        }
        return *this;
    }
    step_requests(const step_requests &) = delete;
    step_requests &operator=(const step_requests &) = delete;
    ~step_requests() { reset(); }

    /// @brief The next frame to step (the previous one counts as stepped), or nullptr when the
    /// call is complete. Rethrows what the session threw.
    const step_request *next();
    /// @brief True once next() returned nullptr.
    [[nodiscard]] bool done() const noexcept;
    /// @brief The call's result once done (tick: whether a frame was simulated).
    [[nodiscard]] bool result() const noexcept;
    /// @brief Gives up the remaining requests: the session ends with a `session_failed` event
    /// whose text is @p why.
    void abandon(std::string why);
    /// @brief Steps every request with @p step: what `tick()` does. A step that throws abandons
    /// the rest (the session ends, its event naming the frame and the exception) and the
    /// exception goes on to the caller. Returns result().
    bool run(const step_function &step);

private:
    void reset() noexcept {
        if (h_) h_.destroy();
        h_ = {};
    }
    handle h_;
};

/// @brief The coroutine machinery behind step_requests (sessions write their ticks as
/// coroutines that `co_yield` a step_request where they used to call the step).
struct step_requests::promise_type {
    std::optional<step_request> current; ///< the request handed out, until it is stepped
    bool handed_out = false;             ///< next() returned `current`
    bool value = false;                  ///< co_return's value
    std::exception_ptr error;            ///< what the body threw
    std::string abandoned;               ///< why the caller gave up (see abandon)
    /// @brief Called when the coroutine is destroyed with a request outstanding (set by the
    /// body with `co_await on_abandon{...}`), with the frame and why.
    void (*abandon_fn)(void *owner, frame_t frame, const std::string &why) noexcept = nullptr;
    void *abandon_owner = nullptr;

    promise_type() = default;
    promise_type(const promise_type &) = delete;
    promise_type &operator=(const promise_type &) = delete;
    ~promise_type() {
        if (abandon_fn != nullptr && current) abandon_fn(abandon_owner, current->inputs.frame(), abandoned);
    }

    step_requests get_return_object() noexcept { return step_requests{handle::from_promise(*this)}; }
    /// Runs eagerly up to its first request: the world is ready when the call returns.
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(const step_request &r) noexcept {
        current.emplace(r);
        handed_out = false;
        return {};
    }
    void return_value(bool v) noexcept { value = v; }
    void unhandled_exception() noexcept { error = std::current_exception(); }

    /// @brief A member coroutine of a class that derives from internal::coroutine_memory reuses
    /// its owner's block; anything else uses the heap. The owner is noted before the frame.
    template<class Owner, class... Args>
        requires std::is_base_of_v<internal::coroutine_memory, Owner>
    static void *operator new(std::size_t size, Owner &owner, Args &&...) {
        return place(size, static_cast<internal::coroutine_memory &>(owner));
    }
    static void *operator new(std::size_t size) { return place(size, nullptr); }
    static void operator delete(void *frame, std::size_t size) noexcept;

    /// @brief `co_await promise_type::on_abandon{fn, owner};` at the top of a body: if the caller
    /// drops the requests with one outstanding, `fn(owner, frame, why)` ends the session (the
    /// world is between two frames). Does not suspend.
    struct on_abandon {
        void (*fn)(void *owner, frame_t frame, const std::string &why) noexcept;
        void *owner{};
        [[nodiscard]] bool await_ready() const noexcept { return false; }
        bool await_suspend(handle h) const noexcept {
            h.promise().abandon_fn = fn;
            h.promise().abandon_owner = owner;
            return false;
        }
        void await_resume() const noexcept {}
    };

private:
    static void *place(std::size_t size, internal::coroutine_memory *owner);
    static void *place(std::size_t size, internal::coroutine_memory &owner) { return place(size, &owner); }
};

} // namespace retcon

#endif
