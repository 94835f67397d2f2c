#ifndef RETCON_HOST_RESULT_WRITER_HPP
#define RETCON_HOST_RESULT_WRITER_HPP

#include <retcon/host/match_result.hpp>
#include <retcon/host/join_token.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string_view>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace retcon {

/**
 * @brief The host's results thread: hashes each finished match's replay file, writes the
 * result's JSON line to the log and hands it to the result hook, off the ticking thread (file
 * reads and allocations are its to make: docs/hosting.md, "Threads"). Matches that open are
 * announced through it too, in order with the results, and ended match ids go to the
 * ended-matches ledger through it (docs/hosting.md, "Ended matches").
 */
class result_writer {
public:
    explicit result_writer(std::function<void(std::string_view)> log);
    ~result_writer();
    result_writer(const result_writer &) = delete;
    result_writer &operator=(const result_writer &) = delete;

    using opened_hook = std::function<void(const std::string &, const match_params &)>;
    /// @brief A match id and until when it is refused as ended (unix seconds).
    using ended_hook = std::function<void(const std::string &, std::uint64_t)>;
    /// @brief Adds a hook (every hook added is called, in the order added).
    void on_result(std::function<void(const match_result &)> fn);
    /// @brief Adds a hook for matches that open.
    void on_opened(opened_hook fn);
    /// @brief Adds a hook for ended match ids (the ledger's appends).
    void on_ended(ended_hook fn);
    /// @brief Queues an ended match id for the ended hooks (the ticking thread).
    void push_ended(std::string match_id, std::uint64_t until_unix_s);
    /// @brief Queues a result (the ticking thread); the replay file is complete by then.
    void push(match_result r);
    /// @brief Queues the news that a match opened (the ticking thread).
    void push_opened(std::string match_id, const match_params &params);
    /// @brief Writes everything queued, then stops the thread (a later push starts nothing).
    void close();

private:
    void loop();
    std::function<void(std::string_view)> log_;
    std::mutex mutex_;
    std::condition_variable wake_;
    struct opened {
        std::string match_id;
        match_params params;
    };
    struct ended {
        std::string match_id;
        std::uint64_t until_unix_s = 0;
    };
    std::deque<std::variant<opened, match_result, ended>> queue_;
    std::vector<std::function<void(const match_result &)>> result_hooks_;
    std::vector<opened_hook> opened_hooks_;
    std::vector<ended_hook> ended_hooks_;
    bool closing_ = false;
    std::thread thread_;
};

} // namespace retcon

#endif
