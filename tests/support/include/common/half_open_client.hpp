#ifndef RETCON_TESTS_HALF_OPEN_CLIENT_HPP
#define RETCON_TESTS_HALF_OPEN_CLIENT_HPP

// A half-open ENet connection from an address that answers: the attacker of docs/net.md,
// "Security model" whose CONNECT passes the connect cookie (it receives the server's datagrams)
// but who never completes ENet's handshake, so the server's peer for it stays mid-handshake
// until the server gives up on it. Loopback only: each datagram is in the other socket's queue
// when sendto returns, so one poll of each side suffices.
#include <retcon/net/enet_transport.hpp>

#include <memory>
#include <string>

namespace retcon::test {

/// Connects from @p source to 127.0.0.1 : @p port. @p serve must poll the server once (it answers
/// the CONNECT with a cookie); the client then sends its CONNECT with the cookie and is never
/// polled again. Null if the client transport cannot be made.
template<class Serve>
std::unique_ptr<transport> half_open_client(const std::string &source, std::uint16_t port, Serve &&serve) {
    enet_options o;
    o.bind_host = source;
    auto c = make_enet_client("127.0.0.1", port, o);
    if (!c.ok()) return nullptr;
    (*c)->flush(); // the CONNECT without a cookie
    serve();       // answered with a cookie
    struct ignore final : transport_handler {
        void on_connect(peer_id) override {}
        void on_disconnect(peer_id) override {}
        void on_receive(peer_id, wire::channel, std::span<const std::byte>) override {}
    } nobody;
    (*c)->poll(0, nobody); // takes the cookie, sends the CONNECT with it
    return std::move(*c);
}

} // namespace retcon::test

#endif
