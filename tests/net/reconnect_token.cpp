#include <catch2/catch.hpp>

#include <retcon/net/reconnect_token.hpp>

#include <common/sim_match.hpp>

#include <array>
#include <set>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("reconnect tokens: 128 bits, never empty, all different, every bit used", "[net][token]") {
    static_assert(reconnect_token::size * 8 >= 128);
    CHECK(reconnect_token{}.empty());
    constexpr unsigned n = 2000;
    std::set<std::string> seen;
    std::array<unsigned, reconnect_token::size * 8> ones{};
    for (unsigned i = 0; i < n; ++i) {
        const auto t = reconnect_token::generate();
        REQUIRE_FALSE(t.empty());
        seen.insert(t.to_hex());
        for (std::size_t bit = 0; bit < ones.size(); ++bit)
            ones[bit] += (static_cast<unsigned>(t.bytes()[bit / 8]) >> (bit % 8)) & 1u;
    }
    CHECK(seen.size() == n);
    // Each bit is set in about half the tokens; 42..58% is over 7 standard deviations wide, so
    // only a stuck or biased bit fails it.
    for (std::size_t bit = 0; bit < ones.size(); ++bit) {
        INFO("bit " << bit << " set in " << ones[bit] << " of " << n);
        CHECK(ones[bit] > n * 42u / 100u);
        CHECK(ones[bit] < n * 58u / 100u);
    }
}

TEST_CASE("reconnect tokens print as 32 hex digits and parse back, bad text says what is wrong", "[net][token]") {
    const auto t = reconnect_token::generate();
    const auto hex = t.to_hex();
    CHECK(hex.size() == 32);
    auto back = reconnect_token::parse(" " + hex + "\n");
    REQUIRE(back);
    CHECK(*back == t);
    CHECK_FALSE(*back == reconnect_token::generate());
    CHECK(reconnect_token::parse(std::string(32, '0'))->empty());

    const auto short_text = reconnect_token::parse(hex.substr(0, 31));
    REQUIRE_FALSE(short_text);
    CHECK_THAT(short_text.message(), Catch::Contains("32 hexadecimal digits, got 31"));
    auto bad = hex;
    bad[5] = 'g';
    const auto not_hex = reconnect_token::parse(bad);
    REQUIRE_FALSE(not_hex);
    CHECK_THAT(not_hex.message(), Catch::Contains("other characters"));
}

TEST_CASE("reconnect tokens differ in one bit: not equal", "[net][token]") {
    const auto t = reconnect_token::generate();
    for (std::size_t bit = 0; bit < reconnect_token::size * 8; bit += 13) {
        std::array<std::byte, reconnect_token::size> b{};
        std::copy(t.bytes().begin(), t.bytes().end(), b.begin());
        b[bit / 8] ^= std::byte{static_cast<std::uint8_t>(1u << (bit % 8))};
        CHECK_FALSE(reconnect_token{b} == t);
    }
}

TEST_CASE("a server copied into two processes hands the same join two unrelated tokens", "[net][token]") {
    // The generator keeps no state in the process: a copy of the server (fork) cannot predict
    // the original's tokens. A seeded PRNG in the session (std::mt19937_64, as before) gave both
    // copies the same token, and one token gave away the seed of all the others.
    sim_match m{7, 2};
    m.run(10);
    std::array<std::string, 2> tokens;
    for (auto &token : tokens) {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) { // the copy: one player joins, its token goes back through the pipe
            ::close(fds[0]);
            auto &c = m.add_client({10, 0, 0.0}, {10, 0, 0.0});
            m.run(1500);
            const auto hex = c.session->reconnect_token().to_hex();
            const bool ok = c.session->state() == client_state::running &&
                            ::write(fds[1], hex.data(), hex.size()) == static_cast<ssize_t>(hex.size());
            ::_exit(ok ? 0 : 1);
        }
        ::close(fds[1]);
        std::array<char, 64> buf{};
        const auto n = ::read(fds[0], buf.data(), buf.size());
        ::close(fds[0]);
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        REQUIRE(WIFEXITED(status));
        REQUIRE(WEXITSTATUS(status) == 0);
        token.assign(buf.data(), static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    }
    REQUIRE(tokens[0].size() == 32);
    REQUIRE(tokens[1].size() == 32);
    CHECK(tokens[0] != tokens[1]);
}
