#ifndef RETCON_HOST_RESULT_WRITER_HPP
#define RETCON_HOST_RESULT_WRITER_HPP

#include <retcon/host/match_result.hpp>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>

namespace retcon {

/**
 * @brief The host's results thread: hashes each finished match's replay file, writes the
 * result's JSON line to the log and hands it to the result hook, off the ticking thread (file
 * reads and allocations are its to make: docs/hosting.md, "Threads").
 */
class result_writer {
public:
    explicit result_writer(std::function<void(std::string_view)> log);
    ~result_writer();
    result_writer(const result_writer &) = delete;
    result_writer &operator=(const result_writer &) = delete;

    void on_result(std::function<void(const match_result &)> fn);
    /// @brief Queues a result (the ticking thread); the replay file is complete by then.
    void push(match_result r);
    /// @brief Writes everything queued, then stops the thread (a later push starts nothing).
    void close();

private:
    void loop();
    std::function<void(std::string_view)> log_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<match_result> queue_;
    std::function<void(const match_result &)> hook_;
    bool closing_ = false;
    std::thread thread_;
};

} // namespace retcon

#endif
