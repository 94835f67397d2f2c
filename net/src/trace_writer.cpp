#include <retcon/net/trace_writer.hpp>

#include <retcon/snapshot/atomic_file.hpp>

#include <algorithm>

namespace retcon {

trace_writer::trace_writer(const trace_writer_options &options)
    : slots_(std::max<std::uint32_t>(options.queue, 1)), paused_{options.paused}, thread_{[this] { run(); }} {}

trace_writer::~trace_writer() {
    {
        std::lock_guard lock{m_};
        stop_ = true;
        paused_ = false; // what is queued is written, as documented
    }
    wake_.notify_all();
    thread_.join();
}

void trace_writer::reserve(const trace_recorder &recorder) {
    std::lock_guard lock{m_};
    // Only the free slots: a queued one holds a trace still to be written.
    for (std::size_t i = count_; i < slots_.size(); ++i) {
        slot &s = slots_[(head_ + i) % slots_.size()];
        recorder.snapshot_into(s.snapshot);
        s.path.reserve(1024);
    }
}

bool trace_writer::submit(const trace_recorder &recorder, std::string_view path) {
    {
        std::lock_guard lock{m_};
        if (count_ == slots_.size()) {
            ++dropped_;
            return false;
        }
        // This slot is outside the queued range, so the thread never reads it while it is filled.
        slot &s = slots_[(head_ + count_) % slots_.size()];
        recorder.snapshot_into(s.snapshot);
        s.path.assign(path);
        ++count_;
    }
    wake_.notify_one();
    return true;
}

void trace_writer::flush() {
    std::unique_lock lock{m_};
    paused_ = false;
    wake_.notify_all();
    done_.wait(lock, [this] { return count_ == 0; });
}

void trace_writer::pause() {
    std::lock_guard lock{m_};
    paused_ = true;
}

void trace_writer::resume() {
    {
        std::lock_guard lock{m_};
        paused_ = false;
    }
    wake_.notify_all();
}

std::uint64_t trace_writer::written() const {
    std::lock_guard lock{m_};
    return written_;
}
std::uint64_t trace_writer::dropped() const {
    std::lock_guard lock{m_};
    return dropped_;
}
std::uint64_t trace_writer::failed() const {
    std::lock_guard lock{m_};
    return failed_;
}
std::size_t trace_writer::pending() const {
    std::lock_guard lock{m_};
    return count_;
}

std::vector<trace_write_failure> trace_writer::take_failures() {
    std::lock_guard lock{m_};
    std::vector<trace_write_failure> out;
    out.swap(failures_);
    return out;
}

void trace_writer::run() {
    std::string text; // kept between writes: its storage grows to the largest trace once
    std::unique_lock lock{m_};
    for (;;) {
        wake_.wait(lock, [this] { return stop_ || (count_ > 0 && !paused_); });
        if (count_ == 0 || paused_) {
            if (stop_) return; // stop_ clears paused_, so this is an empty queue
            continue;
        }
        const slot &s = slots_[head_];
        lock.unlock();
        // Outside the lock: submit fills other slots meanwhile; this one stays queued (counted)
        // until it is written.
        text = s.snapshot.json();
        result<void> r = write_file_atomic(s.path, std::string_view{text});
        lock.lock();
        if (r) {
            ++written_;
        } else {
            ++failed_;
            if (failures_.size() < max_failures_kept) failures_.push_back({s.path, r.message()});
        }
        head_ = (head_ + 1) % slots_.size();
        --count_;
        done_.notify_all();
    }
}

} // namespace retcon
