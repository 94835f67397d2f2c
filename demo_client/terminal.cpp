#include "terminal.hpp"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace retcon::demo {

namespace {
struct termios saved {};
std::atomic<bool> raw_active{false};
std::atomic<bool> got_signal{false};
constexpr char leave_seq[] = "\x1b[0m\x1b[?25h\x1b[?1049l";

void restore() noexcept {
    if (!raw_active.exchange(false)) return;
    (void)!::write(STDOUT_FILENO, leave_seq, sizeof leave_seq - 1);
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
}

extern "C" void on_signal(int) {
    restore(); // async-signal-safe: write + tcsetattr
    got_signal = true;
}
} // namespace

terminal::terminal() {
    if (!::isatty(STDIN_FILENO) || !::isatty(STDOUT_FILENO) || ::tcgetattr(STDIN_FILENO, &saved) != 0) return;
    struct termios raw = saved;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (::tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) != 0) return;
    raw_active = true;
    std::atexit(restore);
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    std::signal(SIGHUP, on_signal);
    const char enter[] = "\x1b[?1049h\x1b[?25l\x1b[2J";
    (void)!::write(STDOUT_FILENO, enter, sizeof enter - 1);
    ok_ = true;
}

terminal::~terminal() { restore(); }

bool terminal::interrupted() noexcept { return got_signal; }

key terminal::poll_key() {
    unsigned char c = 0;
    if (::read(STDIN_FILENO, &c, 1) != 1) return key::none;
    if (c == 0x1b) { // arrow keys: ESC [ A/B/C/D
        unsigned char seq[2] = {};
        if (::read(STDIN_FILENO, &seq[0], 1) != 1 || ::read(STDIN_FILENO, &seq[1], 1) != 1) return key::none;
        switch (seq[1]) {
        case 'A': return key::up;
        case 'B': return key::down;
        case 'C': return key::right;
        case 'D': return key::left;
        default: return key::none;
        }
    }
    switch (c) {
    case 'a':
    case 'h': return key::left;
    case 'd':
    case 'l': return key::right;
    case 'w':
    case 'k': return key::up;
    case ' ': return key::fire;
    case 'q':
    case 'Q': return key::quit;
    case 'p': return key::pause;
    case '.': return key::step;
    case '+':
    case '=': return key::faster;
    case '-': return key::slower;
    case '[': return key::seek_back;
    case ']': return key::seek_fwd;
    default: return key::none;
    }
}

void terminal::size(int &cols, int &rows) const {
    struct winsize ws {};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        cols = ws.ws_col;
        rows = ws.ws_row;
    } else {
        cols = 80;
        rows = 24;
    }
}

void terminal::draw(const std::string &frame) {
    std::size_t done = 0;
    while (done < frame.size()) {
        const ssize_t n = ::write(STDOUT_FILENO, frame.data() + done, frame.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

} // namespace retcon::demo
