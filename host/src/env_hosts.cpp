// Orchestrators of environment-only hosts (Edgegap, Hathora) (docs/hosting.md, "Environment-only
// hosts"); orchestrators.cpp lists them with the others.
#include <retcon/host/environment.hpp>
#include <retcon/host/match_host.hpp>

#include <httplib.h>

#include <atomic>
#include <optional>
#include <chrono>
#include <thread>

#include "orchestrator_factories.hpp"

namespace retcon {

namespace {

std::string env_or(const env_lookup &env, const char *name, const char *fallback = "") {
    auto v = env(name);
    return v ? *v : std::string{fallback};
}

/// Edgegap: configuration in ARBITRIUM_* variables; when the host is done, the deployment
/// stops itself with `DELETE $ARBITRIUM_DELETE_URL` and the raw `ARBITRIUM_DELETE_TOKEN` as its
/// Authorization header (retried on 429, 5xx and connection errors). Edgegap then sends SIGTERM.
class edgegap_orchestrator final : public orchestrator {
public:
    explicit edgegap_orchestrator(const env_lookup &env)
        : request_id_{env_or(env, "ARBITRIUM_REQUEST_ID")}, public_ip_{env_or(env, "ARBITRIUM_PUBLIC_IP")},
          external_port_{env_or(env, "ARBITRIUM_PORT_GAMEPORT_EXTERNAL")},
          delete_url_{env_or(env, "ARBITRIUM_DELETE_URL")}, delete_token_{env_or(env, "ARBITRIUM_DELETE_TOKEN")} {}

    [[nodiscard]] std::string_view name() const noexcept override { return "edgegap"; }

    void start(match_host &host) override {
        host_ = &host;
        host.log("edgegap: deployment " + request_id_ +
                 (public_ip_.empty() ? "" : ", players connect to " + public_ip_) +
                 (external_port_.empty() ? "" : ":" + external_port_));
    }

    void terminate() noexcept override { terminated_.store(true); }

    int finish(int status) override {
        if (delete_url_.empty()) {
            log("edgegap: no ARBITRIUM_DELETE_URL; the deployment is not stopped by the server");
            return status;
        }
        const auto split = split_url(delete_url_);
        if (!split) {
            log("edgegap: ARBITRIUM_DELETE_URL '" + delete_url_ +
                "' is not an http(s) URL; not stopping the deployment");
            return status;
        }
        httplib::Client client{split->first};
        client.set_connection_timeout(5);
        client.set_read_timeout(10);
        client.set_write_timeout(5);
        const httplib::Headers headers{{"Authorization", delete_token_}};
        for (int attempt = 1; attempt <= 5 && !terminated_.load(); ++attempt) {
            const auto res = client.Delete(split->second, headers);
            if (res && res->status >= 200 && res->status < 300) {
                log("edgegap: self-stop accepted (" + std::to_string(res->status) + ")");
                return status;
            }
            const bool retry = !res || res->status == 429 || res->status >= 500;
            log("edgegap: self-stop " +
                (res ? "answered " + std::to_string(res->status) : "failed: " + httplib::to_string(res.error())) +
                (retry ? ", retrying" : ", giving up"));
            if (!retry) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt));
        }
        return status;
    }

private:
    /// "https://api.example.com:443/v1/self/stop/x/y" → {"https://api.example.com:443", "/v1/self/stop/x/y"}.
    static std::optional<std::pair<std::string, std::string>> split_url(const std::string &url) {
        const auto scheme = url.find("://");
        if (scheme == std::string::npos) return std::nullopt;
        const auto s = url.substr(0, scheme);
        if (s != "http" && s != "https") return std::nullopt;
        const auto path = url.find('/', scheme + 3);
        if (path == scheme + 3) return std::nullopt;
        if (path == std::string::npos) return std::pair{url, std::string{"/"}};
        return std::pair{url.substr(0, path), url.substr(path)};
    }
    void log(const std::string &line) {
        if (host_) host_->log(line);
    }

    std::string request_id_, public_ip_, external_port_, delete_url_, delete_token_;
    match_host *host_ = nullptr;
    std::atomic<bool> terminated_{false};
};

/// Hathora: configuration in HATHORA_* variables (the initial room's parameters: see
/// apply_environment); a process that exits with status 0 is done and its rooms are destroyed,
/// so there is no call to make.
class hathora_orchestrator final : public orchestrator {
public:
    explicit hathora_orchestrator(const env_lookup &env)
        : process_id_{env_or(env, "HATHORA_PROCESS_ID")}, room_id_{env_or(env, "HATHORA_INITIAL_ROOM_ID")},
          hostname_{env_or(env, "HATHORA_HOSTNAME")}, port_{env_or(env, "HATHORA_DEFAULT_PORT")} {}
    [[nodiscard]] std::string_view name() const noexcept override { return "hathora"; }
    void start(match_host &host) override {
        host.log("hathora: process " + process_id_ + (room_id_.empty() ? "" : ", initial room " + room_id_) +
                 (hostname_.empty() ? "" : ", players connect to " + hostname_ + ":" + port_));
    }
    void terminate() noexcept override {}
    int finish(int status) override { return status; }

private:
    std::string process_id_, room_id_, hostname_, port_;
};

} // namespace

result<std::unique_ptr<orchestrator>> make_edgegap_orchestrator(const env_lookup &env) {
    return result<std::unique_ptr<orchestrator>>{std::make_unique<edgegap_orchestrator>(env)};
}

result<std::unique_ptr<orchestrator>> make_hathora_orchestrator(const env_lookup &env) {
    return result<std::unique_ptr<orchestrator>>{std::make_unique<hathora_orchestrator>(env)};
}

} // namespace retcon
