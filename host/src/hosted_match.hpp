#ifndef RETCON_HOST_HOSTED_MATCH_HPP
#define RETCON_HOST_HOSTED_MATCH_HPP

#include <retcon/host/host_metrics.hpp>
#include <retcon/host/match_host.hpp>
#include <retcon/host/match_result.hpp>
#include <retcon/net/server_session.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler.hpp"

namespace retcon {

/// @brief One match the host runs: its game, session, route, clock and what its result will say
/// (docs/hosting.md, "Inside the host"). The lifecycle part owns it; the scheduler owns its clock.
struct hosted_match {
    std::string id;
    std::size_t place = 0; ///< its index among the host's match places
    match_params params;
    hosted_game game;
    std::unique_ptr<server_session> session;
    std::size_t route = ~std::size_t{0};
    match_clock clock;
    std::uint64_t opened_us = 0;
    bool ending = false;
    std::string end_reason;
    std::uint64_t ending_since_us = 0;
    std::uint64_t last_poll_us = 0;
    bool had_player = false;
    std::uint64_t empty_since_us = 0;
    std::uint64_t joins = 0;
    std::filesystem::path replay;
    std::filesystem::path trace; ///< written when the match ends (host_options::single_trace_path, trace_dir)
    bool trace_queued = false;   ///< trace goes through the host's trace writer (trace_dir)
    bool recording_failed = false;
    std::string recording_error; ///< the first failure's event text: the path and why
    std::vector<slot_result> slots;
    match_metrics m;
    // Tick timing, written by the wrapped step and the confirmed-frame callback (tick_costs).
    std::uint64_t step_end_ns = 0, confirmed_ns = 0;
    /// The hash of the world after the last confirmed frame (the session computes it anyway).
    std::optional<std::uint64_t> last_hash;
};

} // namespace retcon

#endif
