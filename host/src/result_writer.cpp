#include "result_writer.hpp"

#include <retcon/snapshot/hash.hpp>

#include <csignal>
#include <fstream>
#include <iterator>
#include <vector>

#include <pthread.h>

namespace retcon {

namespace {
/// Signals (SIGTERM's drain) go to the ticking thread, whose wait they interrupt.
void block_signals() {
    sigset_t set;
    sigfillset(&set);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}
} // namespace

result_writer::result_writer(std::function<void(std::string_view)> log) : log_{std::move(log)} {
    thread_ = std::thread{[this] {
        block_signals();
        loop();
    }};
}

result_writer::~result_writer() { close(); }

void result_writer::on_result(std::function<void(const match_result &)> fn) {
    std::lock_guard lock{mutex_};
    hook_ = std::move(fn);
}

void result_writer::push(match_result r) {
    {
        std::lock_guard lock{mutex_};
        queue_.push_back(std::move(r));
    }
    wake_.notify_one();
}

void result_writer::close() {
    {
        std::lock_guard lock{mutex_};
        if (closing_ && !thread_.joinable()) return;
        closing_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
}

void result_writer::loop() {
    for (;;) {
        match_result r;
        std::function<void(const match_result &)> hook;
        {
            std::unique_lock lock{mutex_};
            wake_.wait(lock, [&] { return closing_ || !queue_.empty(); });
            if (queue_.empty()) return; // closing, and everything written
            r = std::move(queue_.front());
            queue_.pop_front();
            hook = hook_;
        }
        if (!r.replay_path.empty()) {
            std::ifstream in{r.replay_path, std::ios::binary};
            const std::vector<char> bytes{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
            if (in.bad() || !in.is_open()) {
                log_("match=" + r.match_id + " replay " + r.replay_path + " could not be read back");
                r.replay_path.clear();
            } else {
                r.replay_bytes = bytes.size();
                r.replay_hash = xxh3({reinterpret_cast<const std::byte *>(bytes.data()), bytes.size()});
            }
        }
        log_(to_json(r));
        if (hook) hook(r);
    }
}

} // namespace retcon
