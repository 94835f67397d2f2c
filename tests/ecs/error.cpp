// errc names, the error shape (static text + offset + context, formatted on read) and the
// result<T> carrier (docs/frames.md#errors).
#include "common/counting_allocator.hpp"

#include <retcon/ecs/error.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <utility>

using retcon::errc;

TEST_CASE("every errc has a distinct stable name", "[error]") {
    const errc all[] = {
        errc::ok,       errc::io,        errc::truncated, errc::bad_magic,  errc::bad_version, errc::schema_mismatch,
        errc::checksum, errc::too_large, errc::corrupt,   errc::decompress, errc::not_found,   errc::invalid_argument};
    std::set<std::string> names;
    for (const errc c : all) {
        const std::string n = retcon::to_string(c);
        CHECK_FALSE(n.empty());
        CHECK(n != "unknown");
        names.insert(n);
    }
    CHECK(names.size() == std::size(all));
    CHECK(std::string(retcon::to_string(errc::checksum)) == "checksum");
    CHECK(std::string(retcon::to_string(static_cast<errc>(200))) == "unknown");
}

TEST_CASE("result<T> holds a value or an error", "[error]") {
    retcon::result<int> good{42};
    REQUIRE(good.ok());
    CHECK(static_cast<bool>(good));
    CHECK(good.value() == 42);
    CHECK(*good == 42);
    CHECK(good.code() == errc::ok);
    CHECK(good.message().empty());

    retcon::result<int> bad{errc::corrupt, "slot 3 is wrong"};
    REQUIRE_FALSE(bad.ok());
    CHECK_FALSE(static_cast<bool>(bad));
    CHECK(bad.code() == errc::corrupt);
    CHECK(bad.message() == "slot 3 is wrong");
    CHECK(bad.err().code == errc::corrupt);

    retcon::result<std::string> moved{std::string("abc")};
    CHECK(moved->size() == 3);
    const std::string taken = std::move(moved).value();
    CHECK(taken == "abc");

    // An error travels from one result type to another unchanged.
    retcon::result<std::string> forwarded{bad.err()};
    CHECK(forwarded.code() == errc::corrupt);
    CHECK(forwarded.message() == "slot 3 is wrong");
}

TEST_CASE("result<void> is success or an error", "[error]") {
    retcon::result<void> fine;
    CHECK(fine.ok());
    CHECK(fine.code() == errc::ok);
    CHECK(fine.message().empty());
    retcon::result<void> broken{errc::not_found, "frame 7 is not held"};
    CHECK_FALSE(broken.ok());
    CHECK(broken.code() == errc::not_found);
    CHECK(broken.message() == "frame 7 is not held");
    retcon::result<void> copy{broken.err()};
    CHECK(copy.code() == errc::not_found);
}

TEST_CASE("error::message puts what, offset and context together, leaving out what is absent", "[error]") {
    using retcon::error;
    CHECK(error{errc::truncated, "input ends early", 12}.message() == "input ends early at byte 12");
    CHECK(error{errc::truncated, "input ends early"}.message() == "input ends early");
    CHECK(error{errc::truncated, "input ends early", 0}.message() == "input ends early at byte 0");
    CHECK(error{errc::io, std::string{"cannot open /tmp/x"}}.message() == "cannot open /tmp/x");
    CHECK(error{errc::corrupt, "", 7}.message() == "at byte 7");

    error full{errc::checksum, "payload checksum", 40};
    full.context = "expected 0x1, found 0x2";
    CHECK(full.message() == "payload checksum at byte 40: expected 0x1, found 0x2");
    error no_offset{errc::checksum, "payload checksum"};
    no_offset.context = "in /tmp/a.rcs";
    CHECK(no_offset.message() == "payload checksum: in /tmp/a.rcs");

    // Nothing but a code: the code's name, so a message is never empty for an error.
    CHECK(error{errc::not_found, ""}.message() == "not_found");
    CHECK(error{}.message().empty());
    CHECK(error{}.code == errc::ok);
    CHECK(error{}.offset == error::no_offset);

    // result<T> carries the static form unchanged.
    const retcon::result<int> r{errc::truncated, "short header", 3};
    CHECK(r.code() == errc::truncated);
    CHECK(r.err().what == std::string{"short header"});
    CHECK(r.err().offset == 3u);
    CHECK(r.message() == "short header at byte 3");
    const retcon::result<void> v{errc::truncated, "short header", 3};
    CHECK(v.message() == "short header at byte 3");
}

TEST_CASE("an error from a static string allocates nothing until its message is read", "[error][allocations]") {
    using retcon::error;
    using retcon::test::allocation_counter;
    static constexpr const char *text = "a static description that is much longer than any small-string buffer";
    std::size_t made = 0, copied = 0, moved = 0, in_result = 0, read = 0;
    {
        allocation_counter counter;
        error e{errc::corrupt, text, 99};
        made = counter.count();
        const error copy = e;
        copied = counter.count();
        const error taken = std::move(e);
        moved = counter.count();
        retcon::result<std::uint64_t> r{copy};
        const retcon::result<std::uint64_t> r2 = r;
        in_result = counter.count();
        CHECK(taken.what == text);
        CHECK(r2.err().what == text);
        const std::string m = copy.message();
        read = counter.count();
        CHECK(m.size() > 60);
    }
    CHECK(made == 0);
    CHECK(copied == 0);
    CHECK(moved == 0);
    CHECK(in_result == 0);
    CHECK(read > 0); // the negative control: formatting does allocate
}
