#ifndef RETCON_NET_SRC_SLOT_TABLE_HPP
#define RETCON_NET_SRC_SLOT_TABLE_HPP

#include <retcon/net/protocol.hpp>
#include <retcon/net/reconnect_token.hpp>
#include <retcon/net/transport.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace retcon::internal {

/// @brief Where a joining player goes (`slot_table::claim`): a slot, possibly taking it from a
/// stale connection, or a refusal.
struct slot_claim {
    int slot = -1;                   ///< the slot, or -1: refused
    peer_id replaces = no_peer;      ///< a stale connection of the same player to drop first
    const char *replace_reason = ""; ///< why it is dropped
    wire::reject_reason refusal = wire::reject_reason::full;
    std::string refusal_text; ///< non-empty when refused
};

/**
 * @brief Who holds each player slot of a server (docs/net.md, "Spectators, late join,
 * reconnect"; docs/hosting.md for join tokens): its connection, its reconnect token, the player
 * identity the host's admission bound to it, and what outlives a connection (its upload quota
 * and false claims, and when it was abandoned). Decides where a joining player goes.
 */
class slot_table {
public:
    /// @brief One slot.
    struct slot {
        peer_id owner = no_peer;                     ///< the connection holding it, or no_peer
        reconnect_token token;                       ///< the token that gets it back (empty: never used)
        std::uint64_t player = 0;                    ///< the identity admission bound it to (0: none said)
        std::uint32_t uploads = 0, false_claims = 0; // kept across reconnections with the token
        std::uint64_t left_at = 0;                   ///< order in which slots were abandoned (0: never)
    };

    /// @brief @p players empty slots.
    void reset(std::size_t players) {
        slots_.assign(players, slot{});
        departures_ = 0;
    }
    [[nodiscard]] std::size_t size() const noexcept { return slots_.size(); }
    [[nodiscard]] const slot &operator[](std::size_t s) const noexcept { return slots_[s]; }

    /**
     * @brief Where connection @p peer goes, joining with @p token (empty: a new player) and what
     * the host's admission said: the slot @p bound_slot (-1: any) for the player @p player (0:
     * none said).
     *
     * - A token takes its own slot back, only for its player and bound slot; a connection still
     *   holding it is stale (a crashed client the server has not noticed yet) and is replaced.
     * - A bound slot held by the same player (a lobby re-issued its join token) is taken from the
     *   stale connection; held by anyone else, the join is refused.
     * - Otherwise the first slot never used, else the one abandoned longest ago (its player is
     *   the least likely to come back; the newcomer's fresh token invalidates the old one).
     * Every slot's token is compared in constant time, without an early exit.
     */
    [[nodiscard]] slot_claim claim(peer_id peer, const reconnect_token &token, int bound_slot,
                                   std::uint64_t player) const {
        slot_claim c;
        const std::size_t n = slots_.size();
        const auto refuse = [&c](wire::reject_reason why, std::string text) {
            c.slot = -1;
            c.refusal = why;
            c.refusal_text = std::move(text);
            return c;
        };
        if (!token.empty()) {
            for (std::size_t s = 0; s < n; ++s)
                if (slots_[s].token == token) c.slot = static_cast<int>(s);
            if (c.slot < 0)
                return refuse(wire::reject_reason::token,
                              "reconnect token unknown (its slot went to a new player, or the server restarted)");
            if ((bound_slot >= 0 && c.slot != bound_slot) || slots_[static_cast<std::size_t>(c.slot)].player != player)
                return refuse(wire::reject_reason::token,
                              "reconnect token belongs to another player or slot than the join token's");
            const peer_id stale = slots_[static_cast<std::size_t>(c.slot)].owner;
            if (stale != no_peer && stale != peer) {
                c.replaces = stale;
                c.replace_reason = "replaced by a reconnection with its token";
            }
            return c;
        }
        if (bound_slot >= 0) {
            c.slot = bound_slot;
            const slot &held = slots_[static_cast<std::size_t>(bound_slot)];
            if (held.owner != no_peer && held.owner != peer) {
                if (player == 0 || held.player != player)
                    return refuse(wire::reject_reason::full, "slot " + std::to_string(bound_slot) + " is taken");
                c.replaces = held.owner;
                c.replace_reason = "replaced by the same player with a new join token";
            }
            return c;
        }
        for (std::size_t s = 0; s < n && c.slot < 0; ++s)
            if (slots_[s].owner == no_peer && slots_[s].token.empty()) c.slot = static_cast<int>(s);
        if (c.slot < 0)
            for (std::size_t s = 0; s < n; ++s)
                if (slots_[s].owner == no_peer &&
                    (c.slot < 0 || slots_[s].left_at < slots_[static_cast<std::size_t>(c.slot)].left_at))
                    c.slot = static_cast<int>(s);
        if (c.slot < 0) return refuse(wire::reject_reason::full, "the match is full");
        return c;
    }

    /// @brief Connection @p peer takes slot @p s for @p player. Unless it came back with the
    /// slot's token (@p with_token), it is a new player: a fresh token, and no uploads or false
    /// claims. Returns the slot.
    const slot &take(std::size_t s, peer_id peer, bool with_token, std::uint64_t player) {
        slot &x = slots_[s];
        x.owner = peer;
        if (x.token.empty() || !with_token) {
            x.token = reconnect_token::generate();
            x.uploads = x.false_claims = 0;
        }
        x.player = player;
        return x;
    }

    /// @brief The connection of slot @p s left, having used @p uploads uploads and made
    /// @p false_claims false claims (kept for its player's return).
    void leave(std::size_t s, std::uint32_t uploads, std::uint32_t false_claims) noexcept {
        slot &x = slots_[s];
        x.owner = no_peer;
        x.uploads = uploads;
        x.false_claims = false_claims;
        x.left_at = ++departures_;
    }

    /// @brief Slots held by a connection.
    [[nodiscard]] std::size_t occupied() const noexcept {
        std::size_t k = 0;
        for (const auto &x : slots_) k += x.owner != no_peer ? 1u : 0u;
        return k;
    }

    /// @brief True if @p token would get a slot back; every slot is compared in constant time.
    [[nodiscard]] bool knows(const reconnect_token &token) const noexcept {
        if (token.empty()) return false;
        bool found = false;
        for (const auto &x : slots_) found = (x.token == token) || found; // no early exit to time
        return found;
    }

private:
    std::vector<slot> slots_;
    std::uint64_t departures_ = 0;
};

} // namespace retcon::internal

#endif
