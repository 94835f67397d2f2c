// Pieces shared by the load tools that drive a real demo_server over ENet (retcon_attack_load,
// retcon_host_load; docs/benchmarks.md, "Under attack" and "Match host capacity"): the clock,
// /proc figures, CPU pinning, child processes pinned to a CPU whose output is read
// line by line, and the hello the demo game's build sends.
#ifndef RETCON_BENCH_LOAD_COMMON_HPP
#define RETCON_BENCH_LOAD_COMMON_HPP

#include <retcon/net/protocol.hpp>
#include <retcon_demo/game.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace load {

inline std::uint64_t now_ms() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

inline std::uint64_t now_us() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count());
}

inline double mib(std::uint64_t kib) { return static_cast<double>(kib) / 1024.0; }

/// One look at a process: CPU time so far (utime + stime, clock ticks) and memory.
struct proc_sample {
    std::uint64_t at_ms = 0;
    std::uint64_t cpu_ticks = 0; // utime + stime
    std::uint64_t rss_kib = 0;
    std::uint64_t hwm_kib = 0;
};

/// Reads /proc/PID/stat and /proc/PID/status (@p dir: "/proc/PID" or "/proc/self").
inline std::optional<proc_sample> read_proc(const std::string &dir, std::uint64_t now) {
    proc_sample s;
    s.at_ms = now;
    std::ifstream stat{dir + "/stat"};
    std::string line;
    if (!std::getline(stat, line)) return std::nullopt;
    const auto close = line.rfind(')'); // the command name may hold spaces
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields{line.substr(close + 1)};
    std::string field;
    for (int i = 3; i <= 15 && fields >> field; ++i) { // field 3 is the state; 14 utime, 15 stime
        if (i == 14 || i == 15) s.cpu_ticks += std::strtoull(field.c_str(), nullptr, 10);
    }
    std::ifstream status{dir + "/status"};
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) s.rss_kib = std::strtoull(line.c_str() + 6, nullptr, 10);
        if (line.rfind("VmHWM:", 0) == 0) s.hwm_kib = std::strtoull(line.c_str() + 6, nullptr, 10);
    }
    return s;
}

/// CPU % of one core between two samples of the same process.
inline double cpu_percent(const proc_sample &a, const proc_sample &b) {
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double wall = static_cast<double>(b.at_ms - a.at_ms) / 1000.0;
    return wall <= 0 ? 0.0 : static_cast<double>(b.cpu_ticks - a.cpu_ticks) / tick / wall * 100.0;
}

inline bool pin_self(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<std::size_t>(cpu), &set);
    return ::sched_setaffinity(0, sizeof set, &set) == 0;
}

/// A child process on one CPU (-1: any), killed with this tool (PR_SET_PDEATHSIG) and on
/// destruction; its stdout and stderr are read line by line without blocking.
class child_process {
public:
    child_process() = default;
    child_process(const child_process &) = delete;
    child_process &operator=(const child_process &) = delete;
    ~child_process() {
        if (pid_ > 0 && !reaped_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
        if (fd_ >= 0) ::close(fd_);
    }

    bool start(const std::string &path, const std::vector<std::string> &args, int cpu, std::string &error) {
        std::vector<std::string> all{path};
        all.insert(all.end(), args.begin(), args.end());
        std::vector<char *> argv;
        for (auto &a : all) argv.push_back(a.data());
        argv.push_back(nullptr);
        int fds[2];
        if (::pipe(fds) != 0) {
            error = std::string{"pipe: "} + std::strerror(errno);
            return false;
        }
        const pid_t parent = ::getpid();
        pid_ = ::fork();
        if (pid_ < 0) {
            error = std::string{"fork: "} + std::strerror(errno);
            ::close(fds[0]);
            ::close(fds[1]);
            return false;
        }
        if (pid_ == 0) { // child: only async-signal-safe calls until exec
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) ::_exit(126);
            if (cpu >= 0) {
                cpu_set_t set;
                CPU_ZERO(&set);
                CPU_SET(static_cast<std::size_t>(cpu), &set);
                ::sched_setaffinity(0, sizeof set, &set);
            }
            ::dup2(fds[1], STDOUT_FILENO);
            ::dup2(fds[1], STDERR_FILENO);
            ::close(fds[0]);
            ::close(fds[1]);
            ::execv(path.c_str(), argv.data());
            ::_exit(127);
        }
        ::close(fds[1]);
        fd_ = fds[0];
        ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
        return true;
    }

    /// Calls @p fn(line) for every complete line printed so far.
    template<class F>
    void read_lines(F &&fn) {
        if (fd_ >= 0) {
            char buf[65536];
            for (;;) {
                const ssize_t n = ::read(fd_, buf, sizeof buf);
                if (n <= 0) {
                    if (n == 0) {
                        ::close(fd_);
                        fd_ = -1;
                    }
                    break;
                }
                pending_.append(buf, static_cast<std::size_t>(n));
            }
        }
        std::size_t from = 0;
        for (std::size_t nl; (nl = pending_.find('\n', from)) != std::string::npos; from = nl + 1)
            fn(std::string{pending_, from, nl - from});
        pending_.erase(0, from);
    }

    void signal(int sig) {
        if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
    }
    /// True once the process has ended (reaped; status() is then its wait status).
    bool exited() {
        if (pid_ <= 0 || reaped_) return true;
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            reaped_ = true;
            status_ = status;
        }
        return reaped_;
    }
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    [[nodiscard]] std::string proc_dir() const { return "/proc/" + std::to_string(pid_); }
    [[nodiscard]] int status() const noexcept { return status_; }

private:
    pid_t pid_ = -1;
    int fd_ = -1;
    bool reaped_ = false;
    int status_ = 0;
    std::string pending_;
};

/// What a demo client's hello must say to be accepted (the demo game's build), and its input size.
struct demo_build {
    retcon::wire::hello_msg hello;
    std::size_t input_size = 0;
};

inline demo_build demo_hello() {
    demo_build b;
    retcon::world w{retcon::demo::make_schema()};
    const auto cfg = retcon::demo::make_client_config();
    b.hello.schema_hash = w.schema_hash();
    b.hello.input_layout_hash = cfg.input_layout_hash;
    b.hello.content_version = cfg.content_version;
    b.hello.input_size = cfg.input_size;
    b.input_size = cfg.input_size;
    return b;
}

} // namespace load

#endif
