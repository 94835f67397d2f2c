#include <retcon/net/step_requests.hpp>

#include <new>

#include "stage_trace.hpp"

namespace retcon {

namespace {
/// Steps every request of @p requests with `one(request)`; one that throws abandons the rest.
template<class One>
bool step_all(step_requests &requests, One &&one) {
    while (const step_request *r = requests.next()) {
        try {
            one(*r);
        } catch (const std::exception &e) {
            requests.abandon("the step of frame " + std::to_string(r->inputs.frame()) + " threw: " + e.what());
            throw;
        }
    }
    return requests.result();
}

// Before each frame: the coroutine_memory it came from, or nullptr for the heap. 16 bytes keep
// the frame aligned for anything new would align.
constexpr std::size_t frame_header = 16;
static_assert(alignof(std::max_align_t) <= frame_header);
} // namespace

void *step_requests::promise_type::place(std::size_t size, internal::coroutine_memory *owner) {
    void *block = owner != nullptr ? owner->allocate(size + frame_header) : nullptr;
    if (block == nullptr) {
        block = ::operator new(size + frame_header);
        owner = nullptr;
    }
    *static_cast<internal::coroutine_memory **>(block) = owner;
    return static_cast<std::byte *>(block) + frame_header;
}

void step_requests::promise_type::operator delete(void *frame, std::size_t) noexcept {
    std::byte *block = static_cast<std::byte *>(frame) - frame_header;
    if (internal::coroutine_memory *owner = *reinterpret_cast<internal::coroutine_memory **>(block))
        owner->release(block);
    else
        ::operator delete(block);
}

const step_request *step_requests::next() {
    if (!h_) return nullptr;
    promise_type &p = h_.promise();
    if (!h_.done() && p.handed_out) { // the caller stepped it: go on
        p.current.reset();
        h_.resume();
    }
    if (h_.done()) {
        p.current.reset();
        if (p.error) std::rethrow_exception(std::exchange(p.error, nullptr));
        return nullptr;
    }
    p.handed_out = true;
    return &*p.current;
}

bool step_requests::done() const noexcept { return !h_ || h_.done(); }

bool step_requests::result() const noexcept { return h_ && h_.done() && h_.promise().value; }

bool step_requests::run(const step_function &step) {
    return step_all(*this, [&step](const step_request &r) { step(*r.target, r.inputs); });
}

bool internal::run_traced(step_requests &requests, const step_function &step, const stage_trace &stages) {
    return step_all(requests, [&](const step_request &r) { stages.step(step, r); });
}

void step_requests::abandon(std::string why) {
    if (h_ && !h_.done()) h_.promise().abandoned = std::move(why);
    reset();
}

} // namespace retcon
