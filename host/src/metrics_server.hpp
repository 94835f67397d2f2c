#ifndef RETCON_HOST_METRICS_SERVER_HPP
#define RETCON_HOST_METRICS_SERVER_HPP

#include <retcon/snapshot/error.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace retcon {

/**
 * @brief The metrics page: an HTTP server (cpp-httplib) on its own thread answering
 * `GET /metrics` with Prometheus text from @p render (docs/hosting.md, "Metrics"). Anything
 * else is 404. Stops when destroyed.
 */
class metrics_server {
public:
    /// @brief Listens on @p bind : @p port (0: a free port); errors name the address.
    static result<metrics_server> start(const std::string &bind, std::uint16_t port,
                                        std::function<std::string()> render);
    metrics_server(metrics_server &&) noexcept;
    metrics_server &operator=(metrics_server &&) noexcept;
    ~metrics_server();
    [[nodiscard]] std::uint16_t port() const noexcept;

private:
    struct impl;
    explicit metrics_server(std::unique_ptr<impl> p);
    std::unique_ptr<impl> impl_;
};

} // namespace retcon

#endif
