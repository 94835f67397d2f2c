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
    result_hooks_.push_back(std::move(fn));
}

void result_writer::on_opened(opened_hook fn) {
    std::lock_guard lock{mutex_};
    opened_hooks_.push_back(std::move(fn));
}

void result_writer::on_ended(ended_hook fn) {
    std::lock_guard lock{mutex_};
    ended_hooks_.push_back(std::move(fn));
}

void result_writer::push_ended(std::string match_id, std::uint64_t until_unix_s) {
    {
        std::lock_guard lock{mutex_};
        queue_.emplace_back(ended{std::move(match_id), until_unix_s});
    }
    wake_.notify_one();
}

void result_writer::push_opened(std::string match_id, const match_params &params) {
    {
        std::lock_guard lock{mutex_};
        queue_.emplace_back(opened{std::move(match_id), params});
    }
    wake_.notify_one();
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
        std::variant<opened, match_result, ended> next;
        std::vector<std::function<void(const match_result &)>> hooks;
        std::vector<opened_hook> on_open;
        std::vector<ended_hook> on_end;
        {
            std::unique_lock lock{mutex_};
            wake_.wait(lock, [&] { return closing_ || !queue_.empty(); });
            if (queue_.empty()) return; // closing, and everything written
            next = std::move(queue_.front());
            queue_.pop_front();
            hooks = result_hooks_;
            on_open = opened_hooks_;
            on_end = ended_hooks_;
        }
        if (const auto *e = std::get_if<ended>(&next)) {
            for (const auto &fn : on_end) fn(e->match_id, e->until_unix_s);
            continue;
        }
        if (const auto *o = std::get_if<opened>(&next)) {
            for (const auto &fn : on_open) fn(o->match_id, o->params);
            continue;
        }
        auto &r = std::get<match_result>(next);
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
        for (const auto &fn : hooks) fn(r);
    }
}

} // namespace retcon
