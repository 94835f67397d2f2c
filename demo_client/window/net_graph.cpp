#include "net_graph.hpp"

namespace retcon::demo {

void net_graph::note(const session_event &ev) { marks_.push_back({ev.frame, ev.kind}); }

void net_graph::draw(canvas &, float, float, float, float, std::span<const frame_telemetry>, std::uint16_t) {}

} // namespace retcon::demo
