// forensic_upload (net/src/forensic_upload.hpp): one client's forensic upload as the server sees
// it, and the server-wide budget (docs/net.md, "Desync forensics" and "Security model").
#include <catch2/catch.hpp>

#include <retcon/net/protocol.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "forensic_upload.hpp"

using namespace retcon;
using internal::forensic_upload;
using internal::upload_budget;
using chunk = forensic_upload::chunk;

namespace {

wire::snapshot_chunk_msg piece(frame_t frame, std::uint32_t offset, std::uint32_t total, std::size_t n) {
    wire::snapshot_chunk_msg m;
    m.transfer = frame;
    m.frame = frame;
    m.offset = offset;
    m.total = total;
    m.bytes.assign(n, std::byte{0x5a});
    return m;
}

} // namespace

TEST_CASE("forensic_upload: one request at a time, within the quota, its cap reserved from the budget") {
    upload_budget budget{1000};
    forensic_upload u;
    CHECK(u.refusal(2) == unverified_reason::none);
    u.request(40, 600, 5000, budget);
    CHECK(u.awaiting());
    CHECK(u.frame() == 40u);
    CHECK(u.cap() == 600u);
    CHECK(budget.used() == 600u);
    CHECK_FALSE(budget.fits(401));
    CHECK(u.refusal(2) == unverified_reason::upload_in_progress);

    CHECK(u.add(piece(40, 0, 100, 60)) == chunk::accepted);
    CHECK(u.add(piece(40, 60, 100, 40)) == chunk::complete);
    CHECK(u.bytes().size() == 100u);
    CHECK(u.finish(budget) == 40u);
    CHECK_FALSE(u.awaiting());
    CHECK(budget.used() == 0u);
    CHECK(u.bytes().empty()); // the bytes are freed with the request

    u.request(48, 100, 6000, budget);
    (void)u.finish(budget);
    CHECK(u.used() == 2u);
    CHECK(u.refusal(2) == unverified_reason::quota);
    u.set_used(0); // a new player in the slot
    CHECK(u.refusal(2) == unverified_reason::none);
}

TEST_CASE("forensic_upload: late chunks are ignored, unrequested and inconsistent ones are hostile") {
    upload_budget budget{1u << 20};
    forensic_upload u;
    CHECK(u.add(piece(10, 0, 10, 10)) == chunk::unrequested); // nothing was ever asked
    u.request(20, 50, 0, budget);
    CHECK(u.add(piece(30, 0, 10, 10)) == chunk::unrequested);  // a frame not asked for
    CHECK(u.add(piece(20, 0, 51, 10)) == chunk::inconsistent); // more than the cap
    (void)u.finish(budget);
    CHECK(u.add(piece(20, 0, 10, 10)) == chunk::late); // the request was answered or timed out
    CHECK(u.add(piece(12, 0, 10, 10)) == chunk::late); // an even older one
    CHECK(u.add(piece(21, 0, 10, 10)) == chunk::unrequested);
}

TEST_CASE("forensic_upload: overdue after the timeout, counted from the request") {
    upload_budget budget{100};
    forensic_upload u;
    CHECK_FALSE(u.overdue(1'000'000, 10));
    u.request(7, 10, 1000, budget);
    CHECK_FALSE(u.overdue(1999, 1000));
    CHECK(u.overdue(2000, 1000));
    CHECK(u.finish(budget) == 7u);
    CHECK_FALSE(u.overdue(5000, 1000));
    CHECK(u.finish(budget) == no_frame); // finishing nothing releases nothing
    CHECK(budget.used() == 0u);
}

TEST_CASE("forensic_upload: one stage report per request, before its first chunk, when a list was sent") {
    upload_budget budget{10000};
    wire::stage_report_msg r;
    r.frame = 40;
    r.client.after = {1, 2};
    wire::stage_hashes server;
    server.after = {1, 3};
    SECTION("accepted once, then kept until the request ends") {
        forensic_upload u;
        u.request(40, 600, 0, budget);
        u.expect_report(server);
        CHECK(u.add(r) == chunk::accepted);
        REQUIRE(u.report());
        CHECK(u.report()->client.after == r.client.after);
        CHECK(u.add(r) == chunk::inconsistent); // a second one
        (void)u.finish(budget);
        CHECK(u.report() == nullptr);
        CHECK(u.server_stages().after.empty());
        CHECK(u.add(r) == chunk::late); // of the request that ended
    }
    SECTION("after the first chunk") {
        forensic_upload u;
        u.request(40, 600, 0, budget);
        u.expect_report(server);
        CHECK(u.add(piece(40, 0, 500, 100)) == chunk::accepted);
        CHECK(u.add(r) == chunk::inconsistent);
    }
    SECTION("for a request that carried no list") {
        forensic_upload u;
        u.request(40, 600, 0, budget);
        CHECK(u.add(r) == chunk::inconsistent);
    }
    SECTION("with no request") {
        forensic_upload u;
        CHECK(u.add(r) == chunk::unrequested);
    }
}
