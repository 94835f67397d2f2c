// errc names and the result<T> carrier.
#include <retcon/snapshot/error.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <string>

using retcon::errc;

TEST_CASE("every errc has a distinct stable name", "[snapshot][error]") {
    const errc all[] = {errc::ok,          errc::io,       errc::truncated, errc::bad_magic,
                        errc::bad_version, errc::schema_mismatch, errc::checksum, errc::too_large,
                        errc::corrupt,     errc::decompress, errc::not_found, errc::invalid_argument};
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

TEST_CASE("result<T> holds a value or an error", "[snapshot][error]") {
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

TEST_CASE("result<void> is success or an error", "[snapshot][error]") {
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
