// The metrics page alone (docs/hosting.md, "Metrics"): what it answers, and what hostile callers
// cannot make it spend. Memory is read from /proc/self/status (VmRSS) and descriptors from
// /proc/self/fd; the bounds are relative to what the caller sent, never to wall-clock time (the
// clients' timeouts only keep a failing run from hanging).
#include <catch2/catch.hpp>

#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "metrics_server.hpp"

using namespace retcon;

namespace {

metrics_server start_page() {
    auto page = metrics_server::start("127.0.0.1", 0, [] { return std::string{"retcon_up 1\n"}; });
    INFO(page.message());
    REQUIRE(page.ok());
    return std::move(*page);
}

/// A connected socket to the page (or -1); reads and writes give up after 10 s.
int connect_to(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// Sends @p bytes until done or the page stops taking them; the bytes it took.
std::size_t send_all(int fd, const std::string &bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const auto n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<std::size_t>(n);
    }
    return sent;
}

/// Whatever the page answers before it closes (empty when it resets the connection first).
std::string read_answer(int fd) {
    std::string out;
    char buf[4096];
    for (;;) {
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

/// One raw request on a fresh connection: the status line of the answer ("" if none).
std::string status_of(std::uint16_t port, const std::string &request) {
    const int fd = connect_to(port);
    REQUIRE(fd >= 0);
    send_all(fd, request);
    const auto answer = read_answer(fd);
    ::close(fd);
    return answer.substr(0, answer.find("\r\n"));
}

std::size_t rss_bytes() {
    std::ifstream in{"/proc/self/status"};
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    return 0;
}

std::size_t open_descriptors() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto &e : std::filesystem::directory_iterator{"/proc/self/fd"}) ++n;
    return n;
}

} // namespace

TEST_CASE("metrics page: GET /metrics is answered, every other method and path refused", "[metrics_server]") {
    auto page = start_page();
    const auto port = page.port();
    httplib::Client c{"127.0.0.1", port};
    c.set_read_timeout(10);
    auto res = c.Get("/metrics");
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(res->body == "retcon_up 1\n");
    CHECK(res->get_header_value("Connection") == "close"); // no keep-alive

    CHECK(status_of(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab") ==
          "HTTP/1.1 405 Method Not Allowed");
    CHECK(status_of(port, "DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 405 Method Not Allowed");
    CHECK(status_of(port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 405 Method Not Allowed");
    CHECK(status_of(port, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 404 Not Found");
    CHECK(status_of(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc") ==
          "HTTP/1.1 413 Payload Too Large");
    CHECK(status_of(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") ==
          "HTTP/1.1 413 Payload Too Large");
    CHECK(status_of(port, "GET /metrics HTTP/1.0\r\n\r\n") == "HTTP/1.1 200 OK");
}

TEST_CASE("metrics page: a large body is refused without being read", "[metrics_server]") {
    auto page = start_page();
    constexpr std::size_t body = 64u << 20;
    const int fd = connect_to(page.port());
    REQUIRE(fd >= 0);
    const auto before = rss_bytes();
    REQUIRE(send_all(fd, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body) + "\r\n\r\n") >
            0);
    const std::string chunk(64u << 10, 'x');
    std::size_t sent = 0;
    while (sent < body) {
        const auto n = send_all(fd, chunk);
        sent += n;
        if (n < chunk.size()) break; // the page answered and closed
    }
    const auto after = rss_bytes();
    ::close(fd);
    INFO("sent " << sent << " bytes; RSS " << before << " -> " << after);
    CHECK(sent < body);
    CHECK(after < before + body / 8);
}

TEST_CASE("metrics page: endless headers are cut at the request budget", "[metrics_server]") {
    auto page = start_page();
    std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 20000; ++i) request += "X-Pad-" + std::to_string(i) + ": " + std::string(40, 'a') + "\r\n";
    request += "\r\n";
    const int fd = connect_to(page.port());
    REQUIRE(fd >= 0);
    const auto sent = send_all(fd, request);
    const auto answer = read_answer(fd);
    ::close(fd);
    INFO("sent " << sent << " of " << request.size() << " bytes; answer: " << answer.substr(0, 40));
    CHECK(answer.rfind("HTTP/1.1 200", 0) != 0);
}

TEST_CASE("metrics page: idle and slow connections beyond the cap neither keep a scraper out nor hold descriptors",
          "[metrics_server]") {
    const metrics_page_limits limits;
    auto page = start_page();
    const auto base = open_descriptors();
    std::vector<int> held;
    for (int i = 0; i < 300; ++i) { // connected and silent, or stopped half way through a request
        const int fd = connect_to(page.port());
        REQUIRE(fd >= 0);
        if (i % 3 == 0) send_all(fd, "GET /metrics HTTP/1.1\r\nHost:");
        held.push_back(fd);
    }
    // A fresh scraper still gets its answer; and the page has accepted every connection before
    // it (the kernel hands them over in order), so the count below sees what the page holds.
    httplib::Client c{"127.0.0.1", page.port()};
    c.set_read_timeout(10);
    auto res = c.Get("/metrics");
    REQUIRE(res);
    CHECK(res->status == 200);
    const auto now = open_descriptors();
    const auto page_holds = now - base - held.size();
    INFO("descriptors: " << base << " before, " << now << " with " << held.size() << " client sockets; refused "
                         << page.refused() << ", evicted " << page.evicted());
    CHECK(now >= base + held.size());
    CHECK(page_holds <= limits.workers + limits.queued);
    CHECK(page.refused() + page.evicted() > 0);
    for (const int fd : held) ::close(fd);
}
