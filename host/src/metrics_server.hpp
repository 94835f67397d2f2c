#ifndef RETCON_HOST_METRICS_SERVER_HPP
#define RETCON_HOST_METRICS_SERVER_HPP

#include <retcon/snapshot/error.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace retcon {

/// @brief What the metrics page spends on its callers, at most (docs/hosting.md, "Metrics").
struct metrics_page_limits {
    std::size_t workers = 2;          ///< threads answering; each holds one connection
    std::size_t queued = 8;           ///< accepted connections waiting for a thread
    std::size_t request_bytes = 8192; ///< request line and headers together; no body is read
    std::uint32_t request_ms = 2000;  ///< to receive the whole request, from its first read
    std::uint32_t response_ms = 2000; ///< to send the whole answer
};

/**
 * @brief The metrics page: an HTTP server (cpp-httplib) on its own thread answering
 * `GET /metrics` with Prometheus text from @p render (docs/hosting.md, "Metrics"). Any other
 * method is 405, any other path 404, a request with a body 413, each on a closed connection; a
 * request larger than `request_bytes` or slower than `request_ms` is dropped. Stops when
 * destroyed.
 */
class metrics_server {
public:
    /// @brief Listens on @p bind : @p port (0: a free port); errors name the address.
    static result<metrics_server> start(const std::string &bind, std::uint16_t port,
                                        std::function<std::string()> render, metrics_page_limits limits = {});
    metrics_server(metrics_server &&) noexcept;
    metrics_server &operator=(metrics_server &&) noexcept;
    ~metrics_server();
    [[nodiscard]] std::uint16_t port() const noexcept;
    /// @brief Connections closed unread because the queue was full, and connections cut while
    /// still sending their request to make room for a newer one.
    [[nodiscard]] std::uint64_t refused() const noexcept;
    [[nodiscard]] std::uint64_t evicted() const noexcept;

private:
    struct impl;
    explicit metrics_server(std::unique_ptr<impl> p);
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
