// replay_encoder: one low-priority thread writing the replay chunks of many writers with one
// zstd context (docs/hosting.md, "Threads"). The queue is linked through the writers' own job
// slots, so handing off a job allocates nothing once a writer's slots are warm.
#include <retcon/snapshot/replay_encoder.hpp>

#include <csignal>
#include <ctime>

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "encoder_queue.hpp"

namespace retcon {

namespace internal {

namespace {
/// The lowest priority there is: SCHED_IDLE runs only when no other thread wants the CPU; where
/// it is refused, nice 19 (a per-thread value on Linux) is the next best.
void lower_priority() {
    sched_param none{};
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &none) == 0) return;
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);
}

/// Signals (SIGTERM's drain) go to the ticking thread, whose wait they interrupt.
void block_signals() {
    sigset_t set;
    sigfillset(&set);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

/// The calling thread's CPU time: at the lowest priority a job's wall time counts the time the
/// thread waited for the CPU.
std::uint64_t thread_cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}
} // namespace

encoder_queue::encoder_queue(const replay_encoder_options &options)
    : slots_per_writer_{options.slots_per_writer == 0 ? 1u : options.slots_per_writer} {
    thread_ = std::thread{[this, low = options.low_priority] {
        block_signals();
        tid_.store(static_cast<long>(::syscall(SYS_gettid)), std::memory_order_relaxed);
        pthread_setname_np(pthread_self(), "retcon-encode");
        if (low) lower_priority();
        loop(low);
    }};
}

encoder_queue::~encoder_queue() {
    {
        std::lock_guard lock{mutex_};
        stopping_ = true;
    }
    work_.notify_one();
    if (thread_.joinable()) thread_.join();
}

void encoder_queue::loop(bool) {
    std::unique_lock lock{mutex_};
    for (;;) {
        work_.wait(lock, [&] { return stopping_ || (head_ != nullptr && !held_); });
        if (head_ == nullptr) return; // stopping, and every job written
        replay_job &job = *head_;
        head_ = job.next;
        if (head_ == nullptr) tail_ = nullptr;
        job.next = nullptr;
        --queued_;
        std::shared_ptr<replay_sink> sink = std::move(job.keep);
        sink->running = true;
        lock.unlock();
        const auto t0 = thread_cpu_ns();
        sink->run(job, codec_);
        const auto spent = thread_cpu_ns() - t0;
        lock.lock();
        sink->running = false;
        job.busy = false;
        ++jobs_;
        ++finished_;
        encode_ns_ += spent;
        done_.notify_all();
        if (sink.use_count() == 1) { // the writer is gone: the sink closes its file off the lock
            lock.unlock();
            sink.reset();
            lock.lock();
        }
    }
}

void encoder_queue::add_slots(replay_sink &sink) {
    std::lock_guard lock{mutex_};
    for (std::uint32_t i = 0; i < slots_per_writer_; ++i) sink.slots.push_back(std::make_unique<replay_job>());
}

replay_job *encoder_queue::acquire(replay_sink &sink) {
    std::lock_guard lock{mutex_};
    for (auto &s : sink.slots)
        if (!s->busy) {
            s->busy = true;
            return s.get();
        }
    return nullptr;
}

void encoder_queue::submit(const std::shared_ptr<replay_sink> &sink, replay_job &job) {
    {
        std::lock_guard lock{mutex_};
        job.keep = sink; // a reference count, no allocation
        job.busy = true;
        job.next = nullptr;
        if (tail_) tail_->next = &job;
        else
            head_ = &job;
        tail_ = &job;
        ++queued_;
        ++submitted_;
    }
    work_.notify_one();
}

void encoder_queue::take_back(replay_sink &sink, std::unique_lock<std::mutex> &lock) {
    // Unlink the sink's jobs, keeping their order, into a list of their own.
    replay_job *mine = nullptr, *mine_tail = nullptr, *prev = nullptr;
    for (replay_job *j = head_; j != nullptr;) {
        replay_job *const next = j->next;
        if (j->keep.get() == &sink) {
            if (prev) prev->next = next;
            else
                head_ = next;
            if (tail_ == j) tail_ = prev;
            j->next = nullptr;
            if (mine_tail) mine_tail->next = j;
            else
                mine = j;
            mine_tail = j;
            --queued_;
            ++finished_;
        } else {
            prev = j;
        }
        j = next;
    }
    if (mine == nullptr) return;
    // No other thread touches the sink now: the thread is in none of its jobs and none is queued.
    lock.unlock();
    {
        std::lock_guard here{here_mutex_};
        for (replay_job *j = mine; j != nullptr; j = j->next) sink.run(*j, here_codec_);
    }
    lock.lock();
    for (replay_job *j = mine; j != nullptr;) {
        replay_job *const next = j->next;
        j->next = nullptr;
        j->busy = false;
        j->keep.reset(); // the caller holds the sink too: not the last reference
        j = next;
    }
}

encoder_queue::overflow_slot encoder_queue::overflow(replay_sink &sink) {
    std::unique_lock lock{mutex_};
    ++overflows_;
    if (sink.running) { // the thread is writing one of its jobs: one more slot rather than a wait
        sink.slots.push_back(std::make_unique<replay_job>());
        sink.slots.back()->busy = true;
        return {sink.slots.back().get(), false};
    }
    take_back(sink, lock);
    for (auto &s : sink.slots)
        if (!s->busy) return {s.get(), true};
    return {}; // unreachable: taking back frees every slot of the sink
}

void encoder_queue::settle(replay_sink &sink) {
    std::unique_lock lock{mutex_};
    done_.wait(lock, [&] { return !sink.running; });
    take_back(sink, lock);
}

void encoder_queue::run_here(replay_sink &sink, replay_job &job) {
    std::lock_guard here{here_mutex_};
    sink.run(job, here_codec_);
}

void encoder_queue::hold(bool held) {
    {
        std::lock_guard lock{mutex_};
        held_ = held;
    }
    work_.notify_one();
}

void encoder_queue::flush() {
    std::unique_lock lock{mutex_};
    const std::uint64_t target = submitted_;
    done_.wait(lock, [&] { return finished_ >= target; });
}

replay_encoder_stats encoder_queue::stats() const {
    std::lock_guard lock{mutex_};
    return {jobs_, overflows_, encode_ns_, queued_};
}

} // namespace internal

replay_encoder::replay_encoder(replay_encoder_options options)
    : queue_{std::make_unique<internal::encoder_queue>(options)} {}
replay_encoder::~replay_encoder() = default;
void replay_encoder::flush() { queue_->flush(); }
replay_encoder_stats replay_encoder::stats() const { return queue_->stats(); }
long replay_encoder::thread_id() const noexcept { return queue_->thread_id(); }

} // namespace retcon
