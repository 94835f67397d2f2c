#ifndef RETCON_HOST_ENDED_MATCHES_HPP
#define RETCON_HOST_ENDED_MATCHES_HPP

#include <retcon/ecs/error.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace retcon {

/**
 * @brief The match ids a token-mode host has ended, each refused until its join tokens can no
 * longer be presented, and their ledger beside the replays (docs/hosting.md, "Ended matches").
 *
 * An id is kept until a time the caller gives: the latest `expires_at` of the tokens seen for
 * the match plus the verifier's clock skew. After that no token naming it verifies, so
 * forgetting it is safe; nothing else bounds the set. The ledger is a text file:
 *
 *     retcon ended matches 1
 *     <refuse until, unix seconds> <match id>
 *     ...
 *
 * `load` reads it (a later line for the same id wins if its time is later), drops what has
 * expired and writes the rest back atomically; `append` adds a line as a match ends. A last
 * line without its newline is an append a crash cut short and is dropped (its match's replay
 * file still keeps the id from reopening: docs/hosting.md); anything else that does not parse
 * is an error naming the file and line, and the host does not start.
 */
class ended_matches {
public:
    /// @brief The ledger's first line.
    static constexpr std::string_view header = "retcon ended matches 1";
    /// @brief The largest ledger `load` reads (about 700,000 entries).
    static constexpr std::uint64_t max_ledger_bytes = 64ull << 20;
    /// @brief The ledger's file name in the replay directory (no match id's replay can have it:
    /// replays end in `.rcr`).
    static constexpr std::string_view ledger_name = "ended-matches.ledger";

    /// @brief An in-memory set with no ledger.
    ended_matches() = default;

    /**
     * @brief Loads the ledger at @p ledger (created when missing), forgets the entries whose
     * time has passed at @p now_unix_s and rewrites it with the others.
     * @return the set, or an error naming the file: `corrupt` (with the line), `too_large`,
     * `io` (not a regular file, unreadable, or the rewrite failed).
     */
    [[nodiscard]] static result<ended_matches> load(std::filesystem::path ledger, std::uint64_t now_unix_s);

    /// @brief Parses ledger text (@p name for messages); entries in file order, torn last line dropped.
    [[nodiscard]] static result<std::vector<std::pair<std::string, std::uint64_t>>> parse(std::string_view text,
                                                                                          const std::string &name);

    /// @brief Appends one entry to the ledger at @p ledger and flushes it to disk (any thread;
    /// the file is opened for this append only).
    [[nodiscard]] static result<void> append(const std::filesystem::path &ledger, const std::string &id,
                                             std::uint64_t until_unix_s);

    /// @brief True while @p id is remembered as ended.
    [[nodiscard]] bool contains(const std::string &id) const { return until_.count(id) != 0; }
    /**
     * @brief Remembers @p id as ended until @p until_unix_s (a time already later is kept).
     * @return true when that is news the ledger does not hold yet (a new id or a later time).
     */
    bool note(const std::string &id, std::uint64_t until_unix_s);
    /// @brief Forgets the ids whose time has passed at @p now_unix_s (cheap when none has).
    void forget_expired(std::uint64_t now_unix_s);
    /// @brief Ids remembered.
    [[nodiscard]] std::size_t size() const noexcept { return until_.size(); }
    /// @brief The ledger's path (empty: memory only).
    [[nodiscard]] const std::filesystem::path &ledger() const noexcept { return ledger_; }

private:
    std::unordered_map<std::string, std::uint64_t> until_;
    std::uint64_t earliest_ = ~std::uint64_t{0}; // no id expires before this
    std::filesystem::path ledger_;
};

} // namespace retcon

#endif
