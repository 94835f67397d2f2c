#ifndef RETCON_HOST_CONNECTION_POOL_HPP
#define RETCON_HOST_CONNECTION_POOL_HPP

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace retcon::internal {

/**
 * @brief The metrics page's connections: a fixed number of worker threads and a bounded queue
 * in front of them, so a flood of idle or slow connections holds a bounded number of threads
 * and descriptors (docs/hosting.md, "Metrics").
 *
 * cpp-httplib hands every accepted socket over as an opaque task that processes and closes it.
 * When every worker is busy, a new connection evicts the oldest one still sending its request
 * (its socket is shut, so its worker's read ends at once) and the freed worker takes the
 * newest queued connection; when the queue is full, its oldest task is run at once in
 * *refusing* mode, in which the server closes the socket unread (refusing()). So the newest
 * connection gets the next worker: idle connections cannot keep a scraper out, only a flood of
 * new connections faster than the page answers can.
 */
class connection_pool final : public httplib::TaskQueue {
public:
    /// @brief What a pool has done, kept by its owner: the server makes a new pool each time it listens.
    struct counters {
        std::atomic<std::uint64_t> refused{0}; ///< closed unread: the queue was full, or stopping
        std::atomic<std::uint64_t> evicted{0}; ///< cut while still sending a request, for a newer one
    };

    /// @brief Starts @p workers threads (at least one); at most @p queued (at least one)
    /// connections wait; counts into @p counts, which must outlive the pool.
    connection_pool(std::size_t workers, std::size_t queued, counters &counts);
    ~connection_pool() override;
    connection_pool(const connection_pool &) = delete;
    connection_pool &operator=(const connection_pool &) = delete;

    void enqueue(std::function<void()> fn) override;
    /// @brief Refuses what is queued, shuts the sockets being read, joins the workers.
    void shutdown() override;

    /// @brief True on a thread running a refused connection's task: close its socket unread.
    [[nodiscard]] static bool refusing() noexcept;

    /// @brief A worker's connection @p fd starts reading its request; evictable until answering().
    std::uint64_t begin(int fd);
    /// @brief The request was read: the connection is no longer evicted for a newer one.
    void answering(std::uint64_t ticket);
    /// @brief Before the socket is closed: the pool forgets @p ticket 's descriptor.
    void end(std::uint64_t ticket);

private:
    struct connection {
        std::uint64_t ticket;
        int fd;
        bool reading;
    };

    void work();
    static void refuse(std::function<void()> &fn);
    void evict_oldest_reading(); // under mutex_

    std::size_t workers_;
    std::size_t queued_;
    mutable std::mutex mutex_;
    std::condition_variable cond_;
    std::deque<std::function<void()>> jobs_;
    std::vector<connection> active_; // at most one per worker, oldest first
    std::size_t busy_ = 0;
    std::uint64_t next_ticket_ = 1;
    counters &counts_;
    bool shutdown_ = false;
    std::vector<std::thread> threads_;
};

} // namespace retcon::internal

#endif
