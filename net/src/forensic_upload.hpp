#ifndef RETCON_NET_SRC_FORENSIC_UPLOAD_HPP
#define RETCON_NET_SRC_FORENSIC_UPLOAD_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/net/events.hpp>
#include <retcon/net/protocol.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "snapshot_transfer.hpp"

namespace retcon::internal {

/// @brief The bytes all forensic uploads in progress on one server may hold together
/// (server_options::upload_budget_bytes; docs/net.md, "Security model").
class upload_budget {
public:
    explicit upload_budget(std::size_t limit) noexcept : limit_{limit} {}
    /// @brief True if @p bytes more fit.
    [[nodiscard]] bool fits(std::size_t bytes) const noexcept { return used_ + bytes <= limit_; }
    void reserve(std::size_t bytes) noexcept { used_ += bytes; }
    void release(std::size_t bytes) noexcept { used_ -= bytes; }
    /// @brief Bytes reserved now.
    [[nodiscard]] std::size_t used() const noexcept { return used_; }

private:
    std::size_t limit_;
    std::size_t used_ = 0;
};

/**
 * @brief One client's forensic upload, as the server sees it (docs/net.md, "Desync forensics"
 * and "Security model"): the server asks for at most one snapshot at a time, within the
 * client's quota, capped in size and reserved against the server's budget, with a deadline.
 * Chunks of an earlier request (one that timed out or was answered) are late, not hostile;
 * chunks nobody asked for, or that contradict the transfer, are.
 */
class forensic_upload {
public:
    /// @brief What a chunk did.
    enum class chunk : std::uint8_t {
        late,         ///< of an earlier request: ignored
        unrequested,  ///< no request covers it: hostile
        inconsistent, ///< contradicts the transfer or exceeds the cap: hostile
        accepted,     ///< more to come
        complete,     ///< the whole file is here: `bytes()`, then `finish`
    };

    /// @brief Uploads this client used (its quota counts them, across reconnections).
    [[nodiscard]] std::uint32_t used() const noexcept { return used_; }
    void set_used(std::uint32_t n) noexcept { used_ = n; }

    /// @brief True while a requested snapshot is awaited.
    [[nodiscard]] bool awaiting() const noexcept { return frame_ != no_frame; }
    /// @brief The frame the awaited snapshot is for.
    [[nodiscard]] frame_t frame() const noexcept { return frame_; }
    /// @brief The largest file (and decompressed image) accepted for it.
    [[nodiscard]] std::size_t cap() const noexcept { return reserved_; }

    /// @brief Why no new request can be made with a quota of @p quota uploads (`none`: one can).
    [[nodiscard]] unverified_reason refusal(std::uint32_t quota) const noexcept {
        if (awaiting()) return unverified_reason::upload_in_progress;
        if (used_ >= quota) return unverified_reason::quota;
        return unverified_reason::none;
    }

    /// @brief Asks for the snapshot of @p frame, of at most @p cap bytes, at @p now_ms,
    /// reserving the cap from @p budget (the caller checked `refusal` and `budget.fits`).
    void request(frame_t frame, std::size_t cap, std::uint64_t now_ms, upload_budget &budget) {
        ++used_;
        frame_ = last_requested_ = frame;
        started_ = now_ms;
        receiver_ = snapshot_receiver{cap};
        reserved_ = cap;
        budget.reserve(cap);
    }

    /// @brief The server's stage hashes of the awaited frame, sent with the request: a stage
    /// report may then precede the chunks (docs/net.md, "Desync forensics"). Set after `request`.
    void expect_report(wire::stage_hashes server) { server_ = std::move(server); }
    /// @brief The server's stage hashes of the awaited frame (empty: it sent none).
    [[nodiscard]] const wire::stage_hashes &server_stages() const noexcept { return server_; }
    /// @brief The client's stage report, if one came.
    [[nodiscard]] const wire::stage_report_msg *report() const noexcept { return has_report_ ? &report_ : nullptr; }

    /// @brief Takes a stage report: before the first chunk, once, and only for a request that
    /// carried the server's stage hashes (`inconsistent` otherwise; `complete` is never said).
    chunk add(const wire::stage_report_msg &m) {
        if (!awaiting() || m.frame != frame_)
            return last_requested_ != no_frame && m.frame <= last_requested_ ? chunk::late : chunk::unrequested;
        if (has_report_ || chunks_ != 0 || server_.after.empty()) return chunk::inconsistent;
        report_ = m;
        has_report_ = true;
        return chunk::accepted;
    }

    /// @brief Takes a chunk of an upload.
    chunk add(const wire::snapshot_chunk_msg &m) {
        if (!awaiting() || m.frame != frame_)
            return last_requested_ != no_frame && m.frame <= last_requested_ ? chunk::late : chunk::unrequested;
        ++chunks_;
        if (!receiver_.add(m)) return chunk::inconsistent;
        return receiver_.complete() ? chunk::complete : chunk::accepted;
    }

    /// @brief The file received (once `add` said complete).
    [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return receiver_.bytes(); }

    /// @brief True if the awaited snapshot is not complete @p timeout_ms after the request.
    [[nodiscard]] bool overdue(std::uint64_t now_ms, std::uint64_t timeout_ms) const noexcept {
        return awaiting() && now_ms - started_ >= timeout_ms;
    }

    /// @brief Ends the request (answered, overdue, or the client left): its bytes are freed and
    /// its reservation returned to @p budget. Returns the frame it was for (no_frame: none).
    frame_t finish(upload_budget &budget) {
        const frame_t f = frame_;
        frame_ = no_frame;
        budget.release(reserved_);
        reserved_ = 0;
        receiver_ = snapshot_receiver{0}; // frees the bytes received so far
        server_ = {};
        report_ = {};
        has_report_ = false;
        chunks_ = 0;
        return f;
    }

private:
    std::uint32_t used_ = 0;
    frame_t frame_ = no_frame;
    frame_t last_requested_ = no_frame; // frames only grow: late chunks of earlier ones are ignored
    std::uint64_t started_ = 0;
    std::size_t reserved_ = 0;
    snapshot_receiver receiver_{0};
    wire::stage_hashes server_;     // sent with the request (empty: none)
    wire::stage_report_msg report_; // the client's, once `has_report_`
    bool has_report_ = false;
    std::uint32_t chunks_ = 0; // chunks taken for the awaited frame
};

} // namespace retcon::internal

#endif
