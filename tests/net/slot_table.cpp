// slot_table (net/src/slot_table.hpp): who holds each player slot, and where a joining player
// goes (docs/net.md, "Spectators, late join, reconnect").
#include <catch2/catch.hpp>

#include <retcon/net/reconnect_token.hpp>

#include "slot_table.hpp"

using namespace retcon;
using internal::slot_table;

TEST_CASE("slot_table: new players take never-used slots first, then the one abandoned longest ago") {
    slot_table t;
    t.reset(3);
    for (peer_id p = 10; p < 13; ++p) {
        const auto c = t.claim(p, {}, -1, 0);
        REQUIRE(c.slot == static_cast<int>(p - 10));
        CHECK(c.replaces == no_peer);
        CHECK_FALSE(t.take(static_cast<std::size_t>(c.slot), p, false, 0).token.empty());
    }
    CHECK(t.occupied() == 3);
    const auto full = t.claim(20, {}, -1, 0);
    CHECK(full.slot == -1);
    CHECK(full.refusal == wire::reject_reason::full);
    CHECK(full.refusal_text == "the match is full");

    t.leave(2, 0, 0); // slot 2 left first, then slot 0
    t.leave(0, 0, 0);
    CHECK(t.occupied() == 1);
    CHECK(t.claim(21, {}, -1, 0).slot == 2);
}

TEST_CASE("slot_table: a reconnect token takes its own slot back, with its quota, and replaces a stale connection") {
    slot_table t;
    t.reset(2);
    const reconnect_token token = t.take(1, 7, false, 0).token;
    t.leave(1, 3, 1);
    const auto back = t.claim(8, token, -1, 0);
    REQUIRE(back.slot == 1);
    CHECK(back.replaces == no_peer);
    const auto &again = t.take(1, 8, true, 0);
    CHECK(again.token == token); // the same player: same token, the quota it had used
    CHECK(again.uploads == 3);
    CHECK(again.false_claims == 1);

    // Connection 8 still holds the slot (crashed, not noticed): the token's owner replaces it.
    const auto stale = t.claim(9, token, -1, 0);
    CHECK(stale.slot == 1);
    CHECK(stale.replaces == 8);

    const auto unknown = t.claim(9, reconnect_token::generate(), -1, 0);
    CHECK(unknown.slot == -1);
    CHECK(unknown.refusal == wire::reject_reason::token);
    CHECK(t.knows(token));
    CHECK_FALSE(t.knows(reconnect_token{}));

    // A newcomer without the token gets a fresh one and a clean quota, invalidating the old.
    t.leave(1, 3, 1);
    REQUIRE(t.claim(10, {}, -1, 0).slot == 0);
    const auto &fresh = t.take(1, 10, false, 0);
    CHECK_FALSE(fresh.token == token);
    CHECK(fresh.uploads == 0);
    CHECK_FALSE(t.knows(token));
}

TEST_CASE("slot_table: a token bound to a player identity goes back only to that player and slot") {
    slot_table t;
    t.reset(2);
    const reconnect_token token = t.take(0, 7, false, 42).token;
    t.leave(0, 0, 0);
    CHECK(t.claim(8, token, -1, 43).refusal == wire::reject_reason::token); // another player
    CHECK(t.claim(8, token, 1, 42).refusal == wire::reject_reason::token);  // another bound slot
    CHECK(t.claim(8, token, 0, 42).slot == 0);
}

TEST_CASE("slot_table: a bound slot is taken from the same player's old connection, refused to anyone else") {
    slot_table t;
    t.reset(2);
    (void)t.take(1, 7, false, 42);
    const auto same = t.claim(8, {}, 1, 42); // a lobby re-issued the player's join token
    CHECK(same.slot == 1);
    CHECK(same.replaces == 7);
    const auto other = t.claim(9, {}, 1, 43);
    CHECK(other.slot == -1);
    CHECK(other.refusal_text == "slot 1 is taken");
    CHECK(t.claim(9, {}, 1, 0).slot == -1);           // no identity said: never a replacement
    CHECK(t.claim(7, {}, 1, 42).replaces == no_peer); // its own connection is not stale
}
