#include "admission.hpp"

#include <retcon/net/protocol.hpp>
#include <retcon/internal/printable.hpp>

#include <algorithm>

#include "host_time.hpp"

namespace retcon {

// ---------------------------------------------------------------------- hello_budget

bool hello_budget::allow(std::string address, std::uint64_t now_us) {
    if (const auto colon = address.rfind(':'); colon != std::string::npos) address.resize(colon);
    auto [it, fresh] = buckets_.try_emplace(std::move(address));
    bucket &b = it->second;
    if (fresh) b.tokens = burst_;
    else
        b.tokens = std::min<double>(burst_, b.tokens + static_cast<double>(now_us - b.at_us) * per_second_ / 1e6);
    b.at_us = now_us;
    if (b.tokens < 1.0) return false;
    b.tokens -= 1.0;
    return true;
}

void hello_budget::forget_refilled(std::uint64_t now_us) {
    std::erase_if(buckets_, [&](const auto &kv) {
        return per_second_ == 0 || now_us - kv.second.at_us > 1'000'000ull * burst_ / per_second_;
    });
}

// ---------------------------------------------------------------------- refusal_log

void refusal_log::note(const std::string &text, std::uint64_t now_us) {
    ++refusals_;
    if (auto report = limiter_.refused(now_us / 1000u, {}, text)) log_("refused: " + report->text);
}

void refusal_log::flush_quiet(std::uint64_t now_us) {
    if (auto report = limiter_.flush(now_us / 1000u)) log_("refused: " + report->text);
}

// ---------------------------------------------------------------------- admission_tickets

server_admission admission_tickets::redeem(std::size_t match, peer_id peer) {
    const auto it = tickets_.find(peer);
    if (it == tickets_.end() || it->second.match != match)
        return server_admission::refuse(wire::reject_reason::join_token, "no verified join token for this connection");
    server_admission a;
    a.slot = it->second.slot;
    a.player_id = it->second.player_id;
    a.name = std::move(it->second.name);
    tickets_.erase(it);
    return a;
}

void admission_tickets::drop_match(std::size_t match) {
    std::erase_if(tickets_, [&](const auto &kv) { return kv.second.match == match; });
}

void admission_tickets::expire(std::uint64_t now_us, std::uint64_t max_age_us) {
    std::erase_if(tickets_, [&](const auto &kv) { return now_us - kv.second.at_us > max_age_us; });
}

// ---------------------------------------------------------------------- admission

admission::admission(const host_options &options, transport_mux &mux, admission_host &host,
                     std::function<void(std::string_view)> log, ended_matches ended)
    : opt_{options}, mux_{mux}, host_{host}, budget_{options.hellos_per_second, options.hello_burst},
      refusals_{std::move(log)}, routed_(options.max_matches),
      token_expiry_(options.max_matches), ended_{std::move(ended)} {
    if (!opt_.token_keys.empty()) {
        token_verifier_options vo;
        vo.fleet = opt_.fleet;
        vo.clock_skew_s = opt_.clock_skew_s;
        verifier_.emplace(opt_.token_keys, vo);
    }
}

std::size_t admission::refuse(peer_id peer, wire::reject_reason reason, const std::string &text) {
    std::vector<std::byte> out;
    wire::encode(wire::reject_msg{reason, text}, out);
    mux_.send_unrouted(peer, wire::channel::control, out);
    mux_.refuse(peer);
    ++counts_.by_reason[static_cast<std::size_t>(reason)]; // every reason has a counter (host_metrics.cpp)
    const auto address = mux_.base().peer_address(peer);
    refusals_.note((address.empty() ? std::string{} : internal::printable(address) + ": ") + text, now_);
    return no_route;
}

std::size_t admission::drop(peer_id peer, std::uint64_t &counter, const std::string &text) {
    mux_.refuse(peer); // no reply: a flood gets nothing back
    ++counter;
    refusals_.note(text, now_);
    return no_route;
}

std::size_t admission::route(peer_id peer, wire::channel ch, std::span<const std::byte> data) {
    if (ch != wire::channel::control) return drop(peer, counts_.malformed, "a packet before the hello");
    // Before anything is decoded or checked: in token mode a hello costs a signature check, in
    // open mode it may hold a place until its session answers.
    if (opt_.hellos_per_second != 0 && !budget_.allow(mux_.base().peer_address(peer), now_))
        return drop(peer, counts_.hello_budget,
                    internal::printable(mux_.base().peer_address(peer)) + ": too many hellos from this address (" +
                        std::to_string(opt_.hellos_per_second) + " a second allowed)");
    wire::hello_msg h;
    if (auto r = wire::decode(data, h); !r) {
        if (r.code() == errc::bad_version)
            return refuse(peer, wire::reject_reason::protocol, wire::version_refusal(wire::peek_hello_version(data)));
        return drop(peer, counts_.malformed, "malformed hello: " + r.message());
    }
    if (host_.draining() && h.reconnect_token.empty())
        return refuse(peer, wire::reject_reason::draining, "the server is shutting down; it admits nobody new");
    return open_mode() ? route_open(peer, h) : route_token(peer, h);
}

std::size_t admission::routed(std::size_t match) {
    if (match >= routed_.size()) return 0;
    // A place is held while the session has not answered: the connection still on the match's
    // route (its session refuses or drops it through the route, which forgets it; a closed one
    // is forgotten too), and not past the hello deadline (a session not yet polled holds it).
    const std::size_t route = host_.route_of(match);
    std::erase_if(routed_[match], [&](const auto &p) {
        return !mux_.holds(route, p.first) || now_ - p.second > opt_.session.hello_timeout_ms * 1000ull;
    });
    return routed_[match].size();
}

std::size_t admission::route_open(peer_id peer, const wire::hello_msg &h) {
    const std::size_t places = host_.places();
    // A returning player goes back to the match that knows its reconnect token.
    if (!h.reconnect_token.empty()) {
        std::optional<std::size_t> any;
        for (std::size_t i = 0; i < places; ++i) {
            if (!host_.running(i)) continue;
            if (host_.knows(i, h.reconnect_token)) return admit_to(i, peer, nullptr);
            any = any.value_or(i);
        }
        // No match knows it: a running session refuses it with the reason (token unknown).
        if (any) return admit_to(*any, peer, nullptr);
    }
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < places; ++i) {
        if (!host_.running(i)) continue;
        if (h.spectator) { // the first match with a player in it, else any
            if (!best || (host_.players(i) > 0 && host_.players(*best) == 0)) best = i;
            continue;
        }
        const auto taken = static_cast<std::size_t>(host_.players(i)) + routed(i);
        if (taken < host_.player_slots(i)) {
            best = i;
            break;
        }
    }
    if (!best) {
        if (host_.draining()) return refuse(peer, wire::reject_reason::draining, "the server is shutting down");
        return refuse(peer, wire::reject_reason::match,
                      h.spectator ? "no match to watch"
                                  : "every match is full (" + std::to_string(opt_.open_matches) + " running)");
    }
    if (!h.spectator) routed_[*best].emplace_back(peer, now_);
    return admit_to(*best, peer, nullptr);
}

std::size_t admission::route_token(peer_id peer, const wire::hello_msg &h) {
    auto v = verifier_->verify(h.join_token, host_time::unix_seconds());
    if (!v.ok) return refuse(peer, wire::reject_reason::join_token, v.message);
    const join_token &t = v.ok->token;
    // A refusal that is not the token's fault gives its first use back: the player may retry.
    const auto refuse_token = [&](wire::reject_reason reason, const std::string &text) {
        if (v.ok->first_use) verifier_->release(t);
        return refuse(peer, reason, text);
    };
    const bool spectator_token = t.role == token_role::spectator;
    if (spectator_token != h.spectator)
        return refuse_token(wire::reject_reason::join_token,
                            spectator_token ? "this join token is for a spectator; the client asked to play"
                                            : "this join token is for a player; the client asked to watch");
    // A token admits one connection at a time: a second one without the slot's reconnect token
    // is refused while the first lasts (it would take the slot from it). Once that connection
    // is gone, the token may come back (a lost welcome, a spectator who left), but only into
    // its running match: a used token never opens one.
    auto &held = holders_[t.nonce];
    if (prune_holders(held) && h.reconnect_token.empty())
        return refuse(peer, wire::reject_reason::join_token,
                      "join token in use by another connection (a reconnection presents it with the slot's reconnect "
                      "token)");
    const auto found = host_.find(t.match_id);
    if (!v.ok->first_use && !found)
        return refuse(peer, wire::reject_reason::join_token,
                      "join token already used, and its match is not running here");
    std::size_t index = 0;
    if (found) {
        index = *found;
        if (host_.ending(index))
            return refuse_token(wire::reject_reason::match, "match '" + t.match_id + "' has ended");
        if (!(host_.params(index) == t.params))
            return refuse_token(wire::reject_reason::match,
                                "join token's match settings differ from running match '" + t.match_id + "'");
    } else {
        if (ended_.contains(t.match_id)) {
            // A token of the ended match that expires later keeps its id ended that much longer.
            remember_ended(t.match_id, t.expires_at + opt_.clock_skew_s);
            return refuse_token(wire::reject_reason::match, "match '" + t.match_id + "' has ended");
        }
        if (spectator_token)
            return refuse_token(wire::reject_reason::match, "match '" + t.match_id + "' is not running");
        if (host_.draining()) return refuse_token(wire::reject_reason::draining, "the server is shutting down");
        if (host_.limit_reached())
            return refuse_token(wire::reject_reason::draining,
                                "this server opens no new match (it serves " + std::to_string(opt_.match_limit) + ")");
        auto opened = host_.open(t.match_id, t.params);
        if (!opened) return refuse_token(wire::reject_reason::match, opened.message());
        index = *opened;
        if (index < token_expiry_.size()) token_expiry_[index] = 0;
    }
    if (index < token_expiry_.size()) token_expiry_[index] = std::max(token_expiry_[index], t.expires_at);
    // The token's slot is below its player count (decode_token checks), which is the match's.
    const admission_tickets::ticket ticket{index, spectator_token ? -1 : t.slot, t.player_id, now_, t.player_name};
    held.push_back(token_holder{index, peer});
    return admit_to(index, peer, &ticket);
}

bool admission::holder_live(const token_holder &h) const {
    return host_.running(h.match) && mux_.holds(host_.route_of(h.match), h.peer);
}

bool admission::prune_holders(std::vector<token_holder> &list) const {
    std::erase_if(list, [&](const token_holder &h) { return !holder_live(h); });
    return !list.empty();
}

std::size_t admission::nonce_hash::operator()(const std::array<std::byte, 16> &n) const noexcept {
    // Nonces are random (sign_token), and only tokens whose signature verified get here.
    std::size_t x = 0;
    for (const std::byte b : n) x = x * 131u + static_cast<std::size_t>(b);
    return x;
}

std::size_t admission::admit_to(std::size_t index, peer_id peer, const admission_tickets::ticket *t) {
    if (t) tickets_.issue(peer, *t);
    ++admissions_;
    return host_.route_of(index);
}

admission_fn admission::session_hook(std::size_t match) {
    if (!open_mode())
        return [this, match](peer_id peer, const wire::hello_msg &) { return tickets_.redeem(match, peer); };
    // The session's own checks passed: it seats the player now or refuses it (full, an unknown
    // reconnect token); either way the place routing held for this connection is released.
    return [this, match](peer_id peer, const wire::hello_msg &) {
        if (match < routed_.size()) std::erase_if(routed_[match], [&](const auto &p) { return p.first == peer; });
        return server_admission{};
    };
}

void admission::match_ended(std::size_t match, const std::string &id) {
    tickets_.drop_match(match);
    if (match < routed_.size()) routed_[match].clear();
    for (auto &[nonce, list] : holders_) std::erase_if(list, [&](const token_holder &h) { return h.match == match; });
    std::erase_if(holders_, [](const auto &kv) { return kv.second.empty(); });
    if (open_mode()) return; // no token names an open match
    // Every token that routed here expires by then; a later one extends it when presented.
    const std::uint64_t latest = match < token_expiry_.size() ? token_expiry_[match] : 0;
    remember_ended(id, std::max(latest, host_time::unix_seconds()) + opt_.clock_skew_s);
}

void admission::remember_ended(const std::string &id, std::uint64_t until_unix_s) {
    if (ended_.note(id, until_unix_s) && persist_ended) persist_ended(id, until_unix_s);
}

void admission::housekeeping() {
    refusals_.flush_quiet(now_);
    budget_.forget_refilled(now_);
    if (!open_mode()) ended_.forget_expired(host_time::unix_seconds());
    tickets_.expire(now_, 2'000'000ull + opt_.session.hello_timeout_ms * 1000ull);
    // Holders of connections that ended: bounded by the connections the host holds.
    for (auto it = holders_.begin(); it != holders_.end();)
        it = prune_holders(it->second) ? std::next(it) : holders_.erase(it);
}

} // namespace retcon
