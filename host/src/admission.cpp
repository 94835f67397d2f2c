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
                     std::function<void(std::string_view)> log)
    : opt_{options}, mux_{mux}, host_{host}, budget_{options.hellos_per_second, options.hello_burst},
      refusals_{std::move(log)}, routed_(options.max_matches) {
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
    const auto address = mux_.base().peer_address(peer);
    refusals_.note((address.empty() ? std::string{} : internal::printable(address) + ": ") + text, now_);
    return no_route;
}

std::size_t admission::route(peer_id peer, wire::channel ch, std::span<const std::byte> data) {
    if (ch != wire::channel::control) {
        mux_.refuse(peer);
        refusals_.note("a packet before the hello", now_);
        return no_route;
    }
    wire::hello_msg h;
    if (auto r = wire::decode(data, h); !r) {
        if (r.code() == errc::bad_version)
            return refuse(peer, wire::reject_reason::protocol, wire::version_refusal(wire::peek_hello_version(data)));
        mux_.refuse(peer);
        refusals_.note("malformed hello: " + r.message(), now_);
        return no_route;
    }
    if (host_.draining() && h.reconnect_token.empty())
        return refuse(peer, wire::reject_reason::draining, "the server is shutting down; it admits nobody new");
    return open_mode() ? route_open(peer, h) : route_token(peer, h);
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
        auto &routed = routed_[i];
        std::erase_if(routed, [&](const auto &p) { return now_ - p.second > opt_.session.hello_timeout_ms * 1000ull; });
        const auto taken = static_cast<std::size_t>(host_.players(i)) + routed.size();
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
    if (opt_.hellos_per_second != 0 && !budget_.allow(mux_.base().peer_address(peer), now_)) {
        mux_.refuse(peer); // no reply: a flood gets nothing back
        refusals_.note(internal::printable(mux_.base().peer_address(peer)) + ": too many hellos from this address (" +
                           std::to_string(opt_.hellos_per_second) + " a second allowed)",
                       now_);
        return no_route;
    }
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
    if (!v.ok->first_use && h.reconnect_token.empty())
        return refuse(peer, wire::reject_reason::join_token,
                      "join token already used (a reconnection presents it with the slot's reconnect token)");
    std::size_t index = 0;
    if (const auto found = host_.find(t.match_id)) {
        index = *found;
        if (host_.ending(index))
            return refuse_token(wire::reject_reason::match, "match '" + t.match_id + "' has ended");
        if (!(host_.params(index) == t.params))
            return refuse_token(wire::reject_reason::match,
                                "join token's match settings differ from running match '" + t.match_id + "'");
    } else {
        if (std::find(ended_ids_.begin(), ended_ids_.end(), t.match_id) != ended_ids_.end())
            return refuse_token(wire::reject_reason::match, "match '" + t.match_id + "' has ended");
        if (spectator_token)
            return refuse_token(wire::reject_reason::match, "match '" + t.match_id + "' is not running");
        if (host_.draining()) return refuse_token(wire::reject_reason::draining, "the server is shutting down");
        if (host_.limit_reached())
            return refuse_token(wire::reject_reason::draining,
                                "this server opens no new match (it serves " + std::to_string(opt_.match_limit) + ")");
        auto opened = host_.open(t.match_id, t.params);
        if (!opened) return refuse_token(wire::reject_reason::match, opened.message());
        index = *opened;
    }
    // The token's slot is below its player count (decode_token checks), which is the match's.
    const admission_tickets::ticket ticket{index, spectator_token ? -1 : t.slot, t.player_id, now_, t.player_name};
    return admit_to(index, peer, &ticket);
}

std::size_t admission::admit_to(std::size_t index, peer_id peer, const admission_tickets::ticket *t) {
    if (t) tickets_.issue(peer, *t);
    ++admissions_;
    return host_.route_of(index);
}

admission_fn admission::session_hook(std::size_t match) {
    return [this, match](peer_id peer, const wire::hello_msg &) { return tickets_.redeem(match, peer); };
}

void admission::player_joined(std::size_t match) {
    if (match < routed_.size() && !routed_[match].empty()) routed_[match].erase(routed_[match].begin());
}

void admission::match_ended(std::size_t match, const std::string &id) {
    tickets_.drop_match(match);
    if (match < routed_.size()) routed_[match].clear();
    ended_ids_.push_back(id);
    if (ended_ids_.size() > max_remembered_ended) ended_ids_.pop_front();
}

void admission::housekeeping() {
    refusals_.flush_quiet(now_);
    budget_.forget_refilled(now_);
    tickets_.expire(now_, 2'000'000ull + opt_.session.hello_timeout_ms * 1000ull);
}

} // namespace retcon
