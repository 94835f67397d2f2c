// server_connection (net/src/server_connection.hpp): one client's connection as the server sees
// it, without a transport (docs/net.md, "Inside the sessions" and "Security model").
#include <catch2/catch.hpp>

#include <retcon/net/stats.hpp>
#include <retcon/net/transport.hpp>

#include <string>
#include <vector>

#include "server_connection.hpp"

using namespace retcon;
using internal::connection_deadline;
using internal::connection_limits;
using internal::server_connection;

namespace {

connection_limits test_limits() {
    connection_limits l;
    l.interrupt_ms = 500;
    l.disconnect_ms = 3000;
    l.hello_timeout_ms = 2000;
    l.load_timeout_ms = 30000;
    l.upload_timeout_ms = 5000;
    l.resync_interval_ms = 1000;
    l.max_packets_per_second = 3;
    return l;
}

/// A connection made at @p at whose handshake is done (slot 1, at server frame 100), with the
/// join snapshot of frame 100 sent at @p at.
server_connection joined(std::uint64_t at) {
    server_connection c{7};
    c.connected("127.0.0.1:5000", at);
    c.set_name("ann");
    c.activate(1, 100, 0, 0);
    c.snapshot_sent(100, at);
    return c;
}

} // namespace

TEST_CASE("server_connection: says who it is, before and after its handshake", "[net][parts]") {
    server_connection c{3};
    c.connected("10.0.0.2:7777", 50);
    CHECK(c.peer() == 3u);
    CHECK_FALSE(c.active());
    CHECK(c.describe() == "connection from 10.0.0.2:7777");
    c.set_name("bob");
    CHECK(c.describe() == "connection 'bob' from 10.0.0.2:7777");
    c.activate(2, 40, 1, 1);
    CHECK(c.active());
    CHECK(c.slot() == 2);
    CHECK(c.describe() == "slot 2 'bob' from 10.0.0.2:7777");
    CHECK(c.upload().used() == 1u); // the slot's quota and false claims outlive a connection
    CHECK(c.false_claims() == 1u);

    server_connection s{4};
    s.connected("", 0);
    s.activate(-1, 0, 0, 0);
    CHECK(s.describe() == "spectator");
}

TEST_CASE("server_connection: a hostile name cannot end the log line or its quotes", "[net][parts]") {
    server_connection c{3};
    c.connected("10.0.0.2:7777", 50);
    c.set_name("x' from 1.2.3.4\n{\"event\":\"match_result\"}\xff");
    CHECK(c.describe() == "connection 'x\\x27 from 1.2.3.4\\x0a{\\x22event\\x22:\\x22match_result\\x22}\\xff' from "
                          "10.0.0.2:7777");
    CHECK(c.name() == "x' from 1.2.3.4\n{\"event\":\"match_result\"}\xff"); // the fact stays as it was
}

TEST_CASE("server_connection: the hello deadline passes exactly hello_timeout_ms after connecting", "[net][parts]") {
    const auto l = test_limits();
    server_connection c{1};
    c.connected("", 1000);
    CHECK(c.passed_deadline(2999, l) == connection_deadline::none);
    CHECK(c.passed_deadline(3000, l) == connection_deadline::hello);
    c.activate(0, 0, 0, 0);
    c.snapshot_sent(0, 3000);
    CHECK(c.passed_deadline(3000, l) == connection_deadline::none); // active: no hello deadline
}

TEST_CASE("server_connection: a snapshot not acknowledged within load_timeout_ms is a passed deadline",
          "[net][parts]") {
    const auto l = test_limits();
    server_connection c = joined(1000);
    CHECK(c.passed_deadline(30999, l) == connection_deadline::none);
    CHECK(c.passed_deadline(31000, l) == connection_deadline::load);
    // An acknowledgement at the snapshot's frame loads it: the deadline is gone.
    c.note_feedback(100, 120, 0, 2000);
    CHECK(c.loaded());
    CHECK(c.passed_deadline(100000, l) == connection_deadline::none);
}

TEST_CASE("server_connection: an overdue upload, then a deferred resync, in that order", "[net][parts]") {
    const auto l = test_limits();
    server_connection c = joined(0);
    c.note_feedback(100, 110, 0, 10);
    internal::upload_budget budget{1u << 20};
    c.upload().request(104, 1000, 200, budget);
    // The resync right after the join snapshot waits for resync_interval_ms.
    CHECK_FALSE(c.want_resync(200, l));
    CHECK(c.resync_due());
    CHECK(c.passed_deadline(999, l) == connection_deadline::none);
    CHECK(c.passed_deadline(1000, l) == connection_deadline::resync);
    CHECK(c.passed_deadline(5200, l) == connection_deadline::upload); // the upload's deadline comes first
    c.upload().finish(budget);
    CHECK(c.passed_deadline(5200, l) == connection_deadline::resync);
    c.snapshot_sent(400, 5200);
    CHECK_FALSE(c.resync_due());
    CHECK(c.want_resync(6200, l)); // a second after the last snapshot: at once
}

TEST_CASE("server_connection: silence interrupts once at interrupt_ms and drops at disconnect_ms", "[net][parts]") {
    const auto l = test_limits();
    server_connection c = joined(0);
    CHECK(c.heard(100, 20) == false);
    auto q = c.quiet(599, l);
    CHECK_FALSE(q.interrupted);
    q = c.quiet(600, l);
    CHECK(q.interrupted);
    CHECK_FALSE(q.silent);
    CHECK_FALSE(c.quiet(700, l).interrupted); // reported once
    CHECK(c.heard(800, 20));                  // ends the interruption
    CHECK_FALSE(c.heard(801, 20));
    q = c.quiet(3800, l); // 2999 ms after the last packet: interrupted again, not silent yet
    CHECK(q.interrupted);
    CHECK_FALSE(q.silent);
    CHECK(c.quiet(3801, l).silent); // silent for disconnect_ms
}

TEST_CASE("server_connection: the flood counter counts packets per second and starts again each second",
          "[net][parts]") {
    const auto l = test_limits(); // 3 packets a second
    server_connection c{1};
    c.connected("", 1000);
    CHECK_FALSE(c.flooding(1000, l, false));
    CHECK_FALSE(c.flooding(1500, l, false));
    CHECK_FALSE(c.flooding(1999, l, false));
    CHECK(c.flooding(1999, l, false)); // the 4th within the second
    // A new second: the count starts again.
    CHECK_FALSE(c.flooding(2000, l, false));
    CHECK_FALSE(c.flooding(2001, l, false));
    // Chunks of an upload the server asked for are not counted.
    for (int i = 0; i < 10; ++i) CHECK_FALSE(c.flooding(2002, l, true));
    CHECK_FALSE(c.flooding(2003, l, false));
    CHECK(c.flooding(2004, l, false));
}

TEST_CASE("server_connection: acknowledgements only move forward, never past the server's frame", "[net][parts]") {
    const auto l = test_limits();
    server_connection c = joined(0);
    CHECK(c.first_unacknowledged() == 100u);
    CHECK_FALSE(c.loaded());
    c.note_feedback(99, 110, 5, 10); // before the snapshot's frame: not loaded yet
    CHECK_FALSE(c.loaded());
    CHECK(c.ack_confirmed() == 100u);
    c.note_feedback(105, 110, 6, 20);
    CHECK(c.loaded());
    CHECK(c.ack_confirmed() == 105u);
    c.note_feedback(103, 110, 7, 30); // late, reordered: ignored
    CHECK(c.ack_confirmed() == 105u);

    // The stream to a client whose acknowledgements stopped for interrupt_ms goes out every
    // 4th frame; one whose acknowledgements move gets every frame.
    CHECK_FALSE(c.throttled(105, 110, 519, l));
    CHECK(c.throttled(105, 110, 520, l));
    CHECK_FALSE(c.throttled(105, 112, 520, l)); // 112 % 4 == 0
    CHECK_FALSE(c.throttled(109, 110, 520, l)); // one frame to send: never held back
    c.note_feedback(106, 110, 9, 600);
    CHECK_FALSE(c.throttled(106, 110, 1000, l));

    // Beyond the server's frame: taken as the server's frame, and not as progress.
    c.note_feedback(500, 110, 8, 700);
    CHECK(c.ack_confirmed() == 110u);
    CHECK(c.throttled(106, 110, 1100, l));
    CHECK(c.echo_time() == 8u);
    CHECK(c.hold_ms(705) == 5u);
    CHECK(c.hold_ms(100000) == 65535u);
}

TEST_CASE("server_connection: a new snapshot restarts the stream at its frame", "[net][parts]") {
    server_connection c = joined(0);
    c.note_feedback(150, 160, 0, 10);
    CHECK(c.first_unacknowledged() == 150u);
    c.snapshot_sent(170, 20);
    CHECK(c.sync_frame() == 170u);
    CHECK(c.first_unacknowledged() == 170u);
    CHECK_FALSE(c.loaded());
}

TEST_CASE("server_connection: the first arrival of each frame's input records its margin", "[net][parts]") {
    server_connection c = joined(0);
    std::vector<frame_t> asked;
    const auto margin = [&](frame_t f) {
        asked.push_back(f);
        return 40.0;
    };
    c.note_arrival(99, margin); // before it joined: not an arrival it is measured by
    c.note_arrival(100, margin);
    c.note_arrival(101, margin);
    c.note_arrival(100, margin); // resent: not measured again
    c.note_arrival(103, margin);
    c.note_arrival(102, margin); // older than the newest measured: a resend
    CHECK(asked == std::vector<frame_t>{100, 101, 103});
    CHECK(c.note_broadcast(110) == 40);
    CHECK(c.stats().margin_ms == 40);
    CHECK(c.stats().current_frame == 110u);
    CHECK(c.stats().confirmed_frames == 1u);
}

TEST_CASE("server_connection: claims are compared once per frame, from its snapshot on, not while a resync is owed",
          "[net][parts]") {
    const auto l = test_limits();
    server_connection c = joined(0);
    CHECK_FALSE(c.wants_claim(99, false)); // before its snapshot
    CHECK(c.wants_claim(100, false));
    c.claim_compared(104);
    CHECK_FALSE(c.wants_claim(104, false));
    CHECK_FALSE(c.wants_claim(100, false));
    CHECK(c.wants_claim(108, false));
    (void)c.want_resync(10, l);
    CHECK_FALSE(c.wants_claim(108, false)); // the same divergence until the snapshot lands
    CHECK(c.add_false_claim() == 1u);
    CHECK(c.add_false_claim() == 2u);

    server_connection spectator{9};
    spectator.connected("", 0);
    spectator.activate(-1, 0, 0, 0);
    CHECK_FALSE(spectator.wants_claim(8, false));
    CHECK(spectator.wants_claim(8, true));
}

TEST_CASE("server_connection: the link's figures and the per-second rates", "[net][parts]") {
    server_connection c = joined(0);
    transport_peer_stats ts;
    c.note_link(ts, 1000); // no round trip measured: nothing taken; starts the rate clock
    CHECK(c.stats().rtt_ms == 0);
    c.count_sent(3000);
    (void)c.heard(1500, 1000);
    ts.rtt_ms = 40;
    ts.rtt_variance_ms = 4;
    c.note_link(ts, 2000);
    CHECK(c.stats().rtt_ms == 40);
    CHECK(c.stats().jitter_ms == 4);
    CHECK(c.stats().bytes_out_per_s == 3000);
    CHECK(c.stats().bytes_in_per_s == 1000);
}
