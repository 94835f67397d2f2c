#ifndef RETCON_NET_SRC_DESYNC_VERIFIER_HPP
#define RETCON_NET_SRC_DESYNC_VERIFIER_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/schema.hpp>
#include <retcon/ecs/step.hpp>
#include <retcon/ecs/world.hpp>
#include <retcon/net/server_session.hpp>
#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/image.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <retcon/net/events.hpp>

#include "forensic_upload.hpp"
#include "forensics.hpp"
#include "frame_ring.hpp"

namespace retcon::internal {

/**
 * @brief The server's desync verification (docs/net.md, "Desync forensics"): the record of its
 * own checksum frames, whether a client's claim of a mismatch gets an upload request (within
 * the client's quota, a cap sized by the server's image, the server-wide upload budget), the
 * verification of a complete upload against the server's image of that frame (a diff, the
 * divergence named), and the forensic files of both images. It reports facts; the session
 * turns them into events and messages.
 */
class desync_verifier {
public:
    /// @brief What a client's claim leads to (`claim`).
    enum class claim_outcome : std::uint8_t {
        not_held,         ///< the server holds no hash of that frame: nothing to compare
        agrees,           ///< the same hash as the server's
        upload_requested, ///< a mismatch: the client's snapshot of that frame is asked for
        unverified,       ///< a mismatch no upload can verify; the reason is given
    };

    /// @brief A forensic file that could not be written (`verification::files_failed`).
    struct file_failure {
        std::filesystem::path path;
        std::string why;
    };

    /// @brief What a complete upload showed (`verify`).
    struct verification {
        frame_t frame = no_frame; ///< the frame whose hash differed
        int slot = -1;            ///< the client's slot (names its files)
        /// @brief What diverged ("ship_pos.y, entities"), or why nothing was found: "client
        /// snapshot unreadable: ...", the server's image gone or not rebuilt, or "no difference
        /// found in the uploaded snapshot". The text the client is sent and the event's text.
        std::string names;
        /// @brief What diverged, one name each (`session_event::diverging`); empty unless verified.
        std::vector<std::string> diverging;
        bool verified = false;    ///< the upload differs from the server's image: a desync
        bool false_claim = false; ///< the client's own upload contradicts its claim (unreadable, or no difference)
        /// @brief Why it is not verified (`none` when it is).
        unverified_reason reason = unverified_reason::none;
        /// @brief Desync bisection's first diverging point (docs/net.md, "Desync forensics"): a
        /// stage index below `stage_count`, `wire::stage_start`, or `wire::stage_none` (not
        /// bisected).
        std::uint8_t stage = wire::stage_none;
        std::uint8_t stage_count = 0; ///< the frame's stages (0: not bisected)
        std::string stage_name;       ///< "apply inputs", a system, "step", "start of frame"
        /// @brief The verdict on one line ("desync at frame 1234: first diverging system ..."),
        /// the event's text and the forensic record's first line; empty when not verified.
        std::string verdict;
        /// @brief One line per difference (`divergence::lines`), for the forensic record.
        std::vector<std::string> lines;
        /// @brief The forensic files that could not be written (empty: written, or none were
        /// due); the session reports each as `recording_failed` with its path.
        std::vector<file_failure> files_failed;
        /// @brief Where the session's trace goes, under the forensic files' stem (docs/net.md,
        /// "Reading a trace"); empty: no forensic files were due, or the session keeps no trace.
        std::filesystem::path trace_file;
    };

    /// @brief Sizes the checksum record and the upload budget for @p options (checked already:
    /// `server_options_problem`), and forgets every claim, upload budget use and file written.
    void reset(const server_options &options);

    /// @brief @p w is the server's world after checksum frame @p frame, the @p n -th, of hash
    /// @p h (an image is kept every forensic_interval checksum frames).
    void note(const world &w, frame_t frame, std::uint64_t n, std::uint64_t h) { checksums_.note(w, frame, n, h); }

    /**
     * @brief A client claims its world after @p frame has hash @p h. On a mismatch, asks
     * @p upload for the client's snapshot at @p now_ms when its quota, the server's image of
     * that frame (its inputs in @p history) and the budget allow; otherwise the mismatch is
     * unverified: @p reason and @p why say why (a quota used, an upload in progress, the image
     * no longer held, the budget in use).
     */
    claim_outcome claim(frame_t frame, std::uint64_t h, forensic_upload &upload, const frame_ring &history,
                        std::uint64_t now_ms, unverified_reason &reason, std::string &why);

    /**
     * @brief After `claim` requested an upload: re-runs its frame stage by stage from the
     * server's world after the frame before (`checksum_record::run_frame`) and keeps the hashes
     * in @p upload, which then accepts one stage report. False (nothing kept) when the frame
     * cannot be re-run: the upload is then verified after the frame, without bisection.
     */
    bool prepare_bisection(forensic_upload &upload, const schema &schema, const frame_ring &history,
                           const step_function &step, std::size_t players, std::size_t input_size);

    /**
     * @brief Verifies the complete upload in @p upload (which it finishes) against the
     * server's image of its frame, rebuilt if need be with @p step from the confirmed records
     * in @p history (@p players slots of @p input_size bytes; @p schema is the live world's).
     * @p from names the client in messages ("slot 1 'ann'"), @p slot names its files. Writes
     * both images to forensics_dir while max_forensic_files allows; a write that fails is listed
     * in `files_failed`.
     */
    verification verify(forensic_upload &upload, const std::string &from, int slot, const schema &schema,
                        const frame_ring &history, const step_function &step, std::size_t players,
                        std::size_t input_size);

    /// @brief Ends @p upload's request unanswered (overdue, or the client left), returning its
    /// reservation to the budget. Returns the frame it was for (no_frame: none).
    frame_t abandon(forensic_upload &upload) { return upload.finish(budget_); }

    /// @brief The largest upload accepted for a frame whose nearest kept image is @p own: a
    /// small multiple of it, never above max_upload_bytes (docs/net.md, "Security model").
    [[nodiscard]] std::size_t upload_cap(const world_image &own) const noexcept;

    /// @brief The bytes reserved by uploads in progress.
    [[nodiscard]] const upload_budget &budget() const noexcept { return budget_; }
    /// @brief The trace file of an unverified mismatch of @p slot at @p frame, counted as one of
    /// max_forensic_files; empty when no forensics_dir, no trace kept, or the files are used up.
    std::filesystem::path unverified_trace_file(frame_t frame, int slot);

    /// @brief Pairs of forensic files attempted so far (max_forensic_files bounds them).
    [[nodiscard]] std::uint32_t files_attempted() const noexcept { return files_attempted_; }

private:
    /// Writes both images of an upload's frame and names its trace file in @p v; returns the
    /// files that could not be written.
    std::vector<file_failure> write_files(frame_t frame, int slot, const world_image &own, const schema &own_schema,
                                          const world_image &theirs, const schema &their_schema, verification &v);
    /// Verifies an upload that came with a stage report against the server's image at the
    /// same point of the frame; false if the report gives no point to compare (the caller
    /// then verifies after the frame).
    bool verify_stage(verification &v, const wire::stage_hashes &server, const wire::stage_report_msg &report,
                      const snapshot_file &theirs, const schema &schema, const frame_ring &history,
                      const step_function &step, std::size_t players, std::size_t input_size,
                      std::string &not_bisected);

    checksum_record checksums_;
    upload_budget budget_{0}; // server-wide, for all forensic uploads in progress
    std::filesystem::path dir_;
    std::uint32_t max_files_ = 0;
    std::uint32_t files_attempted_ = 0;
    bool traces_ = false; // the session keeps a trace: each desync's files include it
    std::uint32_t max_uploads_ = 0;
    std::uint32_t size_factor_ = 0;
    std::uint32_t max_upload_bytes_ = 0;
};

} // namespace retcon::internal

#endif
