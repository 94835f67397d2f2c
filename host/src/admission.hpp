#ifndef RETCON_HOST_ADMISSION_HPP
#define RETCON_HOST_ADMISSION_HPP

#include <retcon/host/host_metrics.hpp>
#include <retcon/host/join_token.hpp>
#include <retcon/host/match_host.hpp>
#include <retcon/net/server_session.hpp>
#include <retcon/net/transport_mux.hpp>
#include <retcon/internal/refusal_limiter.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ended_matches.hpp"

namespace retcon {

/**
 * @brief Hellos each source address may have routed: a bucket of `burst` refilled at
 * `per_second` (in token mode each costs a signature check, ~33 µs: docs/join-tokens.md; in
 * open mode each may hold a place until its session answers). Times are the caller's (µs).
 */
class hello_budget {
public:
    /// @brief @p per_second 0: no limit.
    hello_budget(std::uint32_t per_second, std::uint32_t burst) noexcept : per_second_{per_second}, burst_{burst} {}
    /// @brief Takes one check from the bucket of @p address ("HOST:PORT"; the port is not part
    /// of the key); false when it is empty.
    [[nodiscard]] bool allow(std::string address, std::uint64_t now_us);
    /// @brief Forgets the addresses whose bucket has refilled (the map holds recent senders only).
    void forget_refilled(std::uint64_t now_us);
    /// @brief Addresses remembered.
    [[nodiscard]] std::size_t addresses() const noexcept { return buckets_.size(); }

private:
    struct bucket {
        double tokens = 0;
        std::uint64_t at_us = 0;
    };
    std::uint32_t per_second_, burst_;
    std::unordered_map<std::string, bucket> buckets_;
};

/**
 * @brief The refusal log: every refusal is counted, but logged at most once a second with the
 * number held back since. A flood of bad tokens must not become a flood of log lines.
 */
class refusal_log {
public:
    explicit refusal_log(std::function<void(std::string_view)> log) : log_{std::move(log)} {}
    /// @brief Counts a refusal at @p now_us and logs @p text unless one was logged in the last second.
    void note(const std::string &text, std::uint64_t now_us);
    /// @brief Logs the count held back once a quiet second has passed, even if no later
    /// refusal comes to carry it.
    void flush_quiet(std::uint64_t now_us);
    /// @brief Refusals counted.
    [[nodiscard]] std::uint64_t refusals() const noexcept { return refusals_; }

private:
    std::function<void(std::string_view)> log_;
    internal::refusal_limiter limiter_; // the server session's limiter: one rate, one wording
    std::uint64_t refusals_ = 0;
};

/**
 * @brief What routing verified about a connection, kept until its session asks
 * (server_options::admission): the session decodes the same first packet again for its own
 * checks, then redeems the ticket instead of verifying anything twice.
 */
class admission_tickets {
public:
    struct ticket {
        std::size_t match = 0;
        int slot = -1;
        std::uint64_t player_id = 0;
        std::uint64_t at_us = 0;
        std::string name; ///< the token's signed name: the one logged and recorded, not the hello's
    };
    /// @brief Keeps @p t for @p peer (a later ticket for the same connection replaces it).
    void issue(peer_id peer, const ticket &t) { tickets_[peer] = t; }
    /// @brief The admission verified for @p peer into match @p match, once; a refusal when
    /// there is none (or it is another match's).
    [[nodiscard]] server_admission redeem(std::size_t match, peer_id peer);
    /// @brief Drops the tickets of match @p match (it ended).
    void drop_match(std::size_t match);
    /// @brief Drops tickets older than @p max_age_us (connections that never sent their hello
    /// on to a session).
    void expire(std::uint64_t now_us, std::uint64_t max_age_us);
    [[nodiscard]] std::size_t size() const noexcept { return tickets_.size(); }

private:
    std::unordered_map<peer_id, ticket> tickets_;
};

/**
 * @brief What routing asks of the host about its matches. The host's lifecycle part owns the
 * matches; indices are match places (0 .. places()-1).
 */
class admission_host {
public:
    virtual ~admission_host() = default;
    [[nodiscard]] virtual std::size_t places() const = 0;
    /// @brief True when place @p i holds a match that is not ending.
    [[nodiscard]] virtual bool running(std::size_t i) const = 0;
    /// @brief Players in match @p i, and its player slots.
    [[nodiscard]] virtual int players(std::size_t i) const = 0;
    [[nodiscard]] virtual std::uint32_t player_slots(std::size_t i) const = 0;
    /// @brief True when match @p i issued @p token (a returning player).
    [[nodiscard]] virtual bool knows(std::size_t i, const reconnect_token &token) const = 0;
    /// @brief The place of match @p id, running or ending.
    [[nodiscard]] virtual std::optional<std::size_t> find(const std::string &id) const = 0;
    [[nodiscard]] virtual bool ending(std::size_t i) const = 0;
    [[nodiscard]] virtual const match_params &params(std::size_t i) const = 0;
    /// @brief The transport_mux route of match @p i.
    [[nodiscard]] virtual std::size_t route_of(std::size_t i) const = 0;
    [[nodiscard]] virtual bool draining() const = 0;
    /// @brief The host has opened as many matches as it serves (host_options::match_limit).
    [[nodiscard]] virtual bool limit_reached() const = 0;
    /// @brief Opens match @p id (token mode: its first player's token says what it is).
    [[nodiscard]] virtual result<std::size_t> open(const std::string &id, const match_params &params) = 0;
};

/**
 * @brief The host's admission (docs/hosting.md, "Inside the host"): routes each new connection
 * by its first packet (the hello, decoded once here), refuses with a reason, spends the
 * per-address hello budget, verifies join tokens (and their replay cache), and hands the
 * verified slot and identity to the match's session through its admission hook.
 *
 * Open mode (no token keys): a player goes to the first match with a free slot, a returning
 * player to the match that knows its reconnect token, a spectator to the first match with a
 * player. A player routed to a match holds one of its places until its session admits it (the
 * session hook) or its connection ends (refused, dropped, closed: the mux no longer holds it).
 * Token mode: the token names the match (opened on its first token), slot and player; a token
 * admits one connection at a time (a reconnection presents the slot's reconnect token too); an
 * ended match's id is refused as ended until no token naming it can verify any more
 * (docs/hosting.md, "Ended matches"), across restarts through the ledger `ended` was loaded from.
 */
class admission final : public transport_router {
public:
    /// @brief @p ended: the ids refused as ended from the start (token mode; the host loads them
    /// from the ledger beside the replays).
    admission(const host_options &options, transport_mux &mux, admission_host &host,
              std::function<void(std::string_view)> log, ended_matches ended = {});

    /// @brief Called when an ended id, or a later time for it, must be added to the ledger
    /// (token mode): the id and until when it is refused (unix seconds).
    std::function<void(const std::string &, std::uint64_t)> persist_ended;

    [[nodiscard]] bool open_mode() const noexcept { return !verifier_.has_value(); }
    /// @brief The loop's time for this pass (µs).
    void set_now(std::uint64_t now_us) noexcept { now_ = now_us; }

    std::size_t route(peer_id peer, wire::channel ch, std::span<const std::byte> first_packet) override;
    /// @brief The session hook of match @p match: token mode redeems the connection's ticket;
    /// open mode admits everyone, and the place routing held for the connection is the
    /// session's now (a player it seats counts in its players).
    [[nodiscard]] admission_fn session_hook(std::size_t match);
    /// @brief Match @p match (id @p id) ended: its tickets go, and (token mode) its id is refused
    /// as ended until the latest expiry of the tokens that routed to it, plus the clock skew.
    void match_ended(std::size_t match, const std::string &id);
    /// @brief Once in a while: the held-back refusal count, budgets refilled, stale tickets.
    void housekeeping();

    [[nodiscard]] std::uint64_t admissions() const noexcept { return admissions_; }
    [[nodiscard]] std::uint64_t refusals() const noexcept { return refusals_.refusals(); }
    /// @brief The refusals by reason (their sum is refusals()).
    [[nodiscard]] const refusal_counts &refusals_by_reason() const noexcept { return counts_; }
    /// @brief Open mode: players routed to match @p match that its session has not answered yet
    /// (connections that ended are forgotten first).
    [[nodiscard]] std::size_t routed(std::size_t match);
    [[nodiscard]] const admission_tickets &tickets() const noexcept { return tickets_; }
    /// @brief Ended match ids remembered (refused as "has ended").
    [[nodiscard]] const ended_matches &ended() const noexcept { return ended_; }

private:
    /// A connection routed with a join token: later hellos with the same token without a
    /// reconnect token are refused while one lasts.
    struct token_holder {
        std::size_t match = 0;
        peer_id peer = no_peer;
    };
    struct nonce_hash {
        std::size_t operator()(const std::array<std::byte, 16> &n) const noexcept;
    };

    std::size_t refuse(peer_id peer, wire::reject_reason reason, const std::string &text);
    /// Drops @p peer unanswered (malformed, before its hello, past the hello budget).
    std::size_t drop(peer_id peer, std::uint64_t &counter, const std::string &text);
    [[nodiscard]] bool holder_live(const token_holder &h) const;
    /// Forgets the holders of @p list whose connection ended; true when one is left.
    bool prune_holders(std::vector<token_holder> &list) const;
    std::size_t route_open(peer_id peer, const wire::hello_msg &h);
    std::size_t route_token(peer_id peer, const wire::hello_msg &h);
    std::size_t admit_to(std::size_t index, peer_id peer, const admission_tickets::ticket *t);
    void remember_ended(const std::string &id, std::uint64_t until_unix_s);

    const host_options &opt_;
    transport_mux &mux_;
    admission_host &host_;
    std::optional<token_verifier> verifier_;
    hello_budget budget_;
    refusal_log refusals_;
    admission_tickets tickets_;
    refusal_counts counts_;
    /// Open mode: players routed to each match place that its session has not answered yet, with
    /// when (a place is held at most hello_timeout_ms: the session has the hello by then).
    std::vector<std::vector<std::pair<peer_id, std::uint64_t>>> routed_;
    /// Token mode: the latest expires_at of the tokens routed to each match place.
    std::vector<std::uint64_t> token_expiry_;
    ended_matches ended_;
    /// Token mode: the live connections routed with each join token (by nonce). Every one
    /// counts: a reconnection that the session refuses must not make the player's own
    /// connection look gone.
    std::unordered_map<std::array<std::byte, 16>, std::vector<token_holder>, nonce_hash> holders_;
    std::uint64_t admissions_ = 0;
    std::uint64_t now_ = 0;
};

} // namespace retcon

#endif
