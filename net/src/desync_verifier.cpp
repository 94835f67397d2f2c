#include "desync_verifier.hpp"

#include <retcon/snapshot/diff.hpp>
#include <retcon/snapshot/file.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace retcon::internal {

void desync_verifier::reset(const server_options &o) {
    const std::uint64_t covered = std::max<std::uint32_t>(o.forensic_frames, 1u);
    checksums_.reset(static_cast<std::size_t>((covered + o.forensic_interval - 1u) / o.forensic_interval),
                     o.forensic_interval);
    budget_ = upload_budget{o.upload_budget_bytes};
    dir_ = o.forensics_dir;
    max_files_ = o.max_forensic_files;
    traces_ = o.trace.records != 0;
    files_attempted_ = 0;
    max_uploads_ = o.max_uploads_per_client;
    size_factor_ = o.upload_size_factor;
    max_upload_bytes_ = o.max_upload_bytes;
}

std::size_t desync_verifier::upload_cap(const world_image &own) const noexcept {
    const std::uint64_t cap = std::uint64_t{size_factor_} * own.size() + 4096u;
    return static_cast<std::size_t>(std::min<std::uint64_t>(cap, max_upload_bytes_));
}

namespace {
/// The forensic files' common stem: named by the frame whose state they hold, the world after
/// @p frame (docs/net.md, "Desync forensics").
std::string forensic_stem(frame_t frame, int slot) {
    return "desync-slot" + std::to_string(slot) + "-frame" + std::to_string(frame + 1u);
}
} // namespace

std::filesystem::path desync_verifier::unverified_trace_file(frame_t frame, int slot) {
    if (dir_.empty() || !traces_ || files_attempted_ >= max_files_) return {};
    ++files_attempted_;
    return dir_ / (forensic_stem(frame, slot) + "-trace.json");
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

bool desync_verifier::prepare_bisection(forensic_upload &upload, const schema &schema, const frame_ring &history,
                                        const step_function &step, std::size_t players, std::size_t input_size) {
    if (!can_bisect(step)) return false;
    wire::stage_hashes h;
    std::string why;
    if (!checksums_.run_frame(
            upload.frame(), schema, history, step, players, input_size, h, [](std::uint8_t, const world &) {}, why))
        return false;
    upload.expect_report(std::move(h));
    return true;
}

namespace {
/// The verdict's words for the first diverging point @p k of @p step (docs/net.md, "Desync
/// forensics").
std::string where_text(std::uint8_t k, const step_function &step) {
    if (k == wire::stage_start) return "the world already differed at the start of the frame (before any stage ran)";
    const std::string name{step.stage_name(k)};
    if (!step.systems())
        return "first diverging stage \"" + name +
               "\" (an opaque step: retcon cannot see inside it; give step_function a schedule to name the system)";
    return std::string{"first diverging "} + (k == 0 ? "stage" : "system") + " \"" + name + "\" (stage " +
           std::to_string(k) + " of " + std::to_string(step.stages()) + ")";
}
} // namespace

bool desync_verifier::verify_stage(verification &v, const wire::stage_hashes &server,
                                   const wire::stage_report_msg &report, const snapshot_file &theirs,
                                   const schema &schema, const frame_ring &history, const step_function &step,
                                   std::size_t players, std::size_t input_size, std::string &not_bisected) {
    // The first diverging point is the server's to find from both lists; the client's upload
    // point and image are only evidence, and may only count against it.
    const auto contradicted = [&](const std::string &why) {
        v.names = "the upload contradicts its own stage report (" + why + ")";
        v.reason = unverified_reason::unreadable;
        v.false_claim = true;
        return true;
    };
    const bool same_schedule = server.names == report.client.names && server.after.size() == report.client.after.size();
    const std::uint8_t want = same_schedule ? first_difference(server, report.client) : wire::stage_none;
    if (report.upload_point != want)
        return contradicted("its image is not where its hashes first differ from the server's");
    if (!same_schedule) {
        not_bisected = "not bisected: the client runs another schedule";
        return false;
    }
    if (want == wire::stage_none) {
        not_bisected = "not bisected: the client's re-run of the frame agrees with the server's at every stage (its "
                       "world changed outside the step?)";
        return false;
    }
    const std::uint64_t claimed = want == wire::stage_start ? report.client.start : report.client.after[want];
    if (hash(theirs.image) != claimed) return contradicted("its image's hash is not the one it reported");

    const std::uint8_t before_point = want == wire::stage_start ? wire::stage_none
                                      : want == 0               ? wire::stage_start
                                                                : static_cast<std::uint8_t>(want - 1u);
    std::optional<world_image> mine, before;
    wire::stage_hashes again;
    std::string why;
    const bool ran = checksums_.run_frame(
        v.frame, schema, history, step, players, input_size, again,
        [&](std::uint8_t point, const world &w) {
            if (point == want) mine = save(w, v.frame); // mid-frame images carry frame F itself
            else if (point == before_point)
                before = save(w, v.frame);
        },
        why);
    if (!ran || again.start != server.start || again.after != server.after || !mine) {
        v.names = ran ? "server could not re-run the frame (non-deterministic step?)" : why;
        v.reason = unverified_reason::rebuild_failed;
        return true;
    }
    auto named = name_stage_divergence(before ? &*before : nullptr, *mine, theirs.image, schema, theirs.schema);
    if (!named || named->named.summary.empty()) {
        v.names = named ? "" : "client snapshot not compared: " + named.message();
        if (!named) v.reason = unverified_reason::unreadable;
        v.false_claim = true; // its image equals ours where its own hashes said they differ
        return true;
    }
    v.names = std::move(named->named.summary);
    v.diverging = std::move(named->named.names);
    v.lines = std::move(named->named.lines);
    v.verified = true;
    v.stage = want;
    v.stage_count = static_cast<std::uint8_t>(step.stages());
    v.stage_name = want == wire::stage_start ? "start of frame" : std::string{step.stage_name(want)};
    v.verdict = "desync at frame " + std::to_string(v.frame) + ": " + where_text(want, step) + "; " + named->first_line;
    if (!dir_.empty() && files_attempted_ < max_files_) {
        ++files_attempted_;
        v.files_failed = write_files(v.frame, v.slot, *mine, schema, theirs.image, theirs.schema, v);
    }
    return true;
}

desync_verifier::verification desync_verifier::verify(forensic_upload &upload, const std::string &from, int slot,
                                                      const schema &schema, const frame_ring &history,
                                                      const step_function &step, std::size_t players,
                                                      std::size_t input_size) {
    verification v;
    v.frame = upload.frame();
    v.slot = slot;
    read_limits limits;
    limits.max_image_bytes = upload.cap(); // the decompressed image is capped like the file
    auto theirs = parse_snapshot_file(upload.bytes(), "snapshot uploaded by " + from, limits);
    const wire::stage_hashes server = upload.server_stages();
    std::optional<wire::stage_report_msg> report;
    if (upload.report()) report = *upload.report();
    upload.finish(budget_);
    const world_image *own = nullptr;
    const bool held = checksums_.base_for(v.frame, history) != nullptr && checksums_.hash_after(v.frame).has_value();
    std::string not_bisected = "not bisected";
    if (!server.after.empty() && !report)
        not_bisected = "not bisected: the client sent no stage report (it cannot re-run the frame)";
    if (!theirs) {
        v.names = "client snapshot unreadable: " + theirs.message();
        v.reason = unverified_reason::unreadable;
        v.false_claim = true;
    } else if (report &&
               verify_stage(v, server, *report, *theirs, schema, history, step, players, input_size, not_bisected)) {
        // verified, or not, at the first diverging stage
    } else if ((own = checksums_.image_after(v.frame, schema, history, step, players, input_size, v.names)) !=
               nullptr) {
        if (auto d = diff(*own, schema, theirs->image, theirs->schema); d) {
            auto named = name_divergence(*d, "the server's", "the client's");
            v.names = std::move(named.summary);
            v.diverging = std::move(named.names);
            v.lines = std::move(named.lines);
            v.verified = !v.names.empty();
            if (v.verified)
                v.verdict = "desync at frame " + std::to_string(v.frame) + ": " + not_bisected + "; " + v.lines.front();
        }
        if (!dir_.empty() && files_attempted_ < max_files_) {
            ++files_attempted_;
            v.files_failed = write_files(v.frame, slot, *own, schema, theirs->image, theirs->schema, v);
        }
        // The client's fault: an upload that shows no difference.
        v.false_claim = !v.verified;
    } else {
        v.reason = held ? unverified_reason::rebuild_failed : unverified_reason::snapshot_gone;
    }
    if (v.names.empty()) {
        v.names = "no difference found in the uploaded snapshot";
        v.reason = unverified_reason::no_difference;
    }
    if (v.verified) v.reason = unverified_reason::none;
    return v;
}

std::vector<desync_verifier::file_failure> desync_verifier::write_files(frame_t frame, int slot, const world_image &own,
                                                                        const schema &own_schema,
                                                                        const world_image &theirs,
                                                                        const schema &their_schema, verification &v) {
    // Named by the frame whose state the files hold: the hash of frame F differed, so both hold
    // the world after F, i.e. at the start of frame F + 1 (docs/net.md, "Desync forensics"). A
    // bisected desync's pair holds the world within frame F, after its first diverging stage
    // (or at its start): "-stage<k>" / "-stagestart", under the same stem.
    const auto stem = forensic_stem(frame, slot);
    if (traces_) v.trace_file = dir_ / (stem + "-trace.json"); // written by the session's trace writer
    std::string pair = stem;
    if (v.stage == wire::stage_start) pair += "-stagestart";
    else if (v.stage != wire::stage_none)
        pair += "-stage" + std::to_string(v.stage);
    std::vector<file_failure> failed;
    const auto write = [&failed](const std::filesystem::path &path, const world_image &image, const schema &s) {
        if (auto r = write_snapshot_file(path, image, s); !r) failed.push_back({path, r.message()});
    };
    write(dir_ / (pair + "-server.rcs"), own, own_schema);
    write(dir_ / (pair + "-client.rcs"), theirs, their_schema);
    // The record: the verdict (or what was found), then one line per difference.
    const std::filesystem::path record = dir_ / (stem + ".txt");
    std::string text = (v.verdict.empty() ? v.names : v.verdict) + "\n";
    for (const auto &l : v.lines) text += "  " + l + "\n";
    if (std::FILE *f = std::fopen(record.string().c_str(), "wb")) {
        const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
        if (std::fclose(f) != 0 || !ok) failed.push_back({record, "could not write the record"});
    } else {
        failed.push_back({record, "could not create the record"});
    }
    return failed;
}

} // namespace retcon::internal
