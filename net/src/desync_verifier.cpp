#include "desync_verifier.hpp"

#include <retcon/snapshot/diff.hpp>
#include <retcon/snapshot/file.hpp>

#include <algorithm>

namespace retcon::internal {

void desync_verifier::reset(const server_options &o) {
    const std::uint64_t covered = std::max<std::uint32_t>(o.forensic_frames, 1u);
    checksums_.reset(static_cast<std::size_t>((covered + o.forensic_interval - 1u) / o.forensic_interval),
                     o.forensic_interval);
    budget_ = upload_budget{o.upload_budget_bytes};
    dir_ = o.forensics_dir;
    max_files_ = o.max_forensic_files;
    files_attempted_ = 0;
    max_uploads_ = o.max_uploads_per_client;
    size_factor_ = o.upload_size_factor;
    max_upload_bytes_ = o.max_upload_bytes;
}

std::size_t desync_verifier::upload_cap(const world_image &own) const noexcept {
    const std::uint64_t cap = std::uint64_t{size_factor_} * own.size() + 4096u;
    return static_cast<std::size_t>(std::min<std::uint64_t>(cap, max_upload_bytes_));
}

desync_verifier::claim_outcome desync_verifier::claim(frame_t frame, std::uint64_t h, forensic_upload &upload,
                                                      const frame_ring &history, std::uint64_t now_ms,
                                                      unverified_reason &reason, std::string &why) {
    const auto expected = checksums_.hash_after(frame);
    if (!expected) return claim_outcome::not_held;
    if (*expected == h) return claim_outcome::agrees;
    // Only an upload that differs from the server's own image makes a desync verified; a claim
    // alone costs the server one rate-limited snapshot at most. The image of that frame is
    // rebuilt when the upload is complete; the kept image it starts from sizes the upload's cap.
    const world_image *own = checksums_.base_for(frame, history);
    std::size_t cap = 0;
    reason = upload.refusal(max_uploads_);
    if (reason == unverified_reason::upload_in_progress) why = "an upload is still in progress";
    else if (reason == unverified_reason::quota)
        why = "upload quota used";
    else if (!own) {
        reason = unverified_reason::snapshot_gone;
        why = "server snapshot of that frame no longer held";
    } else if (cap = upload_cap(*own); !budget_.fits(cap)) {
        reason = unverified_reason::budget;
        why = "the server's upload budget is in use";
    }
    if (reason != unverified_reason::none) return claim_outcome::unverified;
    upload.request(frame, cap, now_ms, budget_);
    return claim_outcome::upload_requested;
}

desync_verifier::verification desync_verifier::verify(forensic_upload &upload, const std::string &from, int slot,
                                                      const schema &schema, const frame_ring &history,
                                                      const step_function &step, std::size_t players,
                                                      std::size_t input_size) {
    verification v;
    v.frame = upload.frame();
    read_limits limits;
    limits.max_image_bytes = upload.cap(); // the decompressed image is capped like the file
    auto theirs = parse_snapshot_file(upload.bytes(), "snapshot uploaded by " + from, limits);
    upload.finish(budget_);
    const world_image *own = nullptr;
    const bool held = checksums_.base_for(v.frame, history) != nullptr && checksums_.hash_after(v.frame).has_value();
    if (!theirs) {
        v.names = "client snapshot unreadable: " + theirs.message();
        v.reason = unverified_reason::unreadable;
    } else if ((own = checksums_.image_after(v.frame, schema, history, step, players, input_size, v.names)) !=
               nullptr) {
        if (auto d = diff(*own, schema, theirs->image, theirs->schema); d) {
            auto named = name_divergence(*d, "the server's", "the client's");
            v.names = std::move(named.summary);
            v.diverging = std::move(named.names);
            v.verified = !v.names.empty();
        }
        if (!dir_.empty() && files_attempted_ < max_files_) {
            ++files_attempted_;
            v.files_failed = write_files(v.frame, slot, *own, schema, theirs->image, theirs->schema);
        }
    } else {
        v.reason = held ? unverified_reason::rebuild_failed : unverified_reason::snapshot_gone;
    }
    if (v.names.empty()) {
        v.names = "no difference found in the uploaded snapshot";
        v.reason = unverified_reason::no_difference;
    }
    // The client's fault: an unreadable upload, or one that shows no difference. The server's
    // image gone or not rebuilt is not.
    v.false_claim = !v.verified && (!theirs || own != nullptr);
    return v;
}

std::vector<desync_verifier::file_failure> desync_verifier::write_files(frame_t frame, int slot, const world_image &own,
                                                                        const schema &own_schema,
                                                                        const world_image &theirs,
                                                                        const schema &their_schema) {
    // Named by the frame whose state the files hold: the hash of frame F differed, so both hold
    // the world after F, i.e. at the start of frame F + 1 (docs/net.md, "Desync forensics").
    const auto stem = "desync-slot" + std::to_string(slot) + "-frame" + std::to_string(frame + 1u);
    std::vector<file_failure> failed;
    const auto write = [&failed](const std::filesystem::path &path, const world_image &image, const schema &s) {
        if (auto r = write_snapshot_file(path, image, s); !r) failed.push_back({path, r.message()});
    };
    write(dir_ / (stem + "-server.rcs"), own, own_schema);
    write(dir_ / (stem + "-client.rcs"), theirs, their_schema);
    return failed;
}

} // namespace retcon::internal
