#include "display.hpp"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace retcon::demo::testing {

namespace {

pid_t xvfb = 0;

void stop_xvfb() {
    if (xvfb > 0) {
        ::kill(xvfb, SIGTERM);
        ::waitpid(xvfb, nullptr, 0);
        xvfb = 0;
    }
}

[[noreturn]] void skip(const std::string &why) {
    std::printf("skipped: no SDL2/Xvfb (%s)\n", why.c_str());
    std::fflush(stdout);
    std::_Exit(77);
}

/// Starts `Xvfb -displayfd`: the server picks a free display number and writes it to the pipe.
std::string start_xvfb() {
    int fds[2];
    if (::pipe(fds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid < 0) return {};
    if (pid == 0) {
        ::close(fds[0]);
        const std::string fd = std::to_string(fds[1]);
        std::freopen("/dev/null", "w", stderr);
        ::execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1280x800x24", "-nolisten", "tcp",
                 static_cast<char *>(nullptr));
        std::_Exit(127);
    }
    ::close(fds[1]);
    xvfb = pid;
    std::atexit(stop_xvfb);
    std::string number;
    char c = 0;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') number += c;
    ::close(fds[0]);
    return number.empty() ? std::string{} : ":" + number;
}

} // namespace

void require_display() {
    static bool ready = false;
    if (ready) return;
    const char *have = std::getenv("DISPLAY");
    if (!have || !*have) {
        const std::string display = start_xvfb();
        if (display.empty()) skip("DISPLAY is not set and Xvfb could not be started");
        ::setenv("DISPLAY", display.c_str(), 1);
    }
    ready = true;
}

std::unique_ptr<canvas> test_canvas(int width, int height) {
    require_display();
    canvas_options o;
    o.width = width;
    o.height = height;
    o.resizable = false;
    o.software = true;
    o.vsync = false;
    std::string error;
    auto c = canvas::open(o, error);
    if (!c) skip(error);
    return c;
}

bool colour_near(const picture &p, point at, rgba colour, int radius) {
    const int cx = static_cast<int>(std::lround(at.x)), cy = static_cast<int>(std::lround(at.y));
    for (int y = cy - radius; y <= cy + radius; ++y)
        for (int x = cx - radius; x <= cx + radius; ++x)
            if (p.at(x, y) == colour) return true;
    return false;
}

} // namespace retcon::demo::testing
