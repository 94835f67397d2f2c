#include "connection_pool.hpp"

#include <csignal>

#include <pthread.h>
#include <sys/socket.h>

namespace retcon::internal {

namespace {
thread_local bool refusing_now = false;
} // namespace

connection_pool::connection_pool(std::size_t workers, std::size_t queued, counters &counts)
    : workers_{workers == 0 ? 1 : workers}, queued_{queued == 0 ? 1 : queued}, counts_{counts} {
    threads_.reserve(workers_);
    for (std::size_t i = 0; i < workers_; ++i) threads_.emplace_back([this] { work(); });
}

connection_pool::~connection_pool() { shutdown(); }

bool connection_pool::refusing() noexcept { return refusing_now; }

void connection_pool::refuse(std::function<void()> &fn) {
    refusing_now = true;
    fn();
    refusing_now = false;
}

void connection_pool::enqueue(std::function<void()> fn) {
    std::function<void()> dropped;
    {
        std::lock_guard lock{mutex_};
        if (shutdown_) {
            ++counts_.refused;
            dropped = std::move(fn);
        } else {
            if (busy_ + jobs_.size() >= workers_) evict_oldest_reading();
            if (jobs_.size() >= queued_ && !jobs_.empty()) { // the oldest waiter goes, not the newest
                dropped = std::move(jobs_.front());
                jobs_.pop_front();
                ++counts_.refused;
            }
            jobs_.push_back(std::move(fn));
        }
    }
    cond_.notify_one();
    if (dropped) refuse(dropped);
}

void connection_pool::evict_oldest_reading() {
    for (auto &c : active_)
        if (c.reading) {
            // Shutting the socket ends its worker's poll at once; the worker closes it.
            ::shutdown(c.fd, SHUT_RDWR);
            c.reading = false;
            ++counts_.evicted;
            return;
        }
}

std::uint64_t connection_pool::begin(int fd) {
    std::lock_guard lock{mutex_};
    active_.push_back({next_ticket_, fd, true});
    if (shutdown_) { // a task that started as the pool stopped: do not wait for its request
        ::shutdown(fd, SHUT_RDWR);
        active_.back().reading = false;
    }
    return next_ticket_++;
}

void connection_pool::answering(std::uint64_t ticket) {
    std::lock_guard lock{mutex_};
    for (auto &c : active_)
        if (c.ticket == ticket) c.reading = false;
}

void connection_pool::end(std::uint64_t ticket) {
    std::lock_guard lock{mutex_};
    std::erase_if(active_, [&](const connection &c) { return c.ticket == ticket; });
}

void connection_pool::work() {
    sigset_t set; // signals belong to the ticking thread (docs/hosting.md, "Drain")
    sigfillset(&set);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    for (;;) {
        std::function<void()> fn;
        {
            std::unique_lock lock{mutex_};
            cond_.wait(lock, [&] { return shutdown_ || !jobs_.empty(); });
            if (jobs_.empty()) return; // shut down
            // Newest first: an honest scraper sends its request as it connects, so the newest
            // connection is the likeliest to have one; idle ones behind it wait or are refused.
            fn = std::move(jobs_.back());
            jobs_.pop_back();
            ++busy_;
        }
        fn();
        std::lock_guard lock{mutex_};
        --busy_;
    }
}

void connection_pool::shutdown() {
    std::deque<std::function<void()>> left;
    {
        std::lock_guard lock{mutex_};
        if (shutdown_ && threads_.empty()) return;
        shutdown_ = true;
        left.swap(jobs_);
        counts_.refused += left.size();
        for (auto &c : active_)
            if (c.reading) ::shutdown(c.fd, SHUT_RDWR);
    }
    cond_.notify_all();
    for (auto &fn : left) refuse(fn);
    for (auto &t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
}

} // namespace retcon::internal
