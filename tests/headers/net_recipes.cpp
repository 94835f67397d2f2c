// docs/net.md's "Reconnecting" recipe, as a game would write it, under the project's warnings
// (-Wall -Wextra -Werror): compiling is the test. Keep the two in step.
#include <retcon/net/client_session.hpp>
#include <retcon/net/enet_transport.hpp>

namespace retcon::headers_test {

namespace {
void show_banner(std::uint64_t) {}
void hide_banner() {}
void to_menu(disconnect_cause) {}
} // namespace

void reconnecting_client(const session_config &config, world &client_world, const step_function &game_step) {
    auto link = make_enet_client("game.example.org", 40000);
    if (!link) return;
    // From docs/net.md, "Reconnecting":
    retcon::client_options options{.name = "ada", .reconnect = {.attempts = 5}};
    retcon::client_session client{config, client_world, game_step, **link, options};
    // in the loop, with the other events:
    for (retcon::session_event ev; client.next_event(ev);) {
        switch (ev.kind) {
        case retcon::session_event_kind::reconnecting: show_banner(ev.count); break; // attempt ev.count starts
        case retcon::session_event_kind::reconnected: hide_banner(); break;          // the world is the server's again
        case retcon::session_event_kind::disconnected: to_menu(ev.cause); break;     // final: gave up, or not retried
        default: break;
        }
    }
}

} // namespace retcon::headers_test
