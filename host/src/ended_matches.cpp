#include "ended_matches.hpp"

#include <retcon/snapshot/atomic_file.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace retcon {

namespace {

error os_error(const std::filesystem::path &path, const char *what) {
    return error{errc::io, path.string() + ": " + what + ": " + std::strerror(errno)};
}

/// Match ids as join tokens allow them (docs/join-tokens.md): 1..64 bytes of [A-Za-z0-9._-].
bool valid_id(std::string_view id) {
    if (id.empty() || id.size() > 64) return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-';
    });
}

/// The start of an entry (digits, then a space and match id characters), as a torn append leaves it.
bool torn_entry(std::string_view l) {
    const auto space = l.find(' ');
    const auto digits = l.substr(0, space);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    return space == std::string_view::npos || l.size() == space + 1 || valid_id(l.substr(space + 1));
}

std::string entry_line(const std::string &id, std::uint64_t until) { return std::to_string(until) + " " + id + "\n"; }

bool write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

/// The ledger's bytes, refusing what is not a regular file or is larger than the limit.
result<std::string> read_ledger(const std::filesystem::path &path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return os_error(path, "cannot open the ended-matches ledger");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return error{errc::io, path.string() + ": the ended-matches ledger is not a regular file"};
    }
    if (static_cast<std::uint64_t>(st.st_size) > ended_matches::max_ledger_bytes) {
        ::close(fd);
        return error{errc::too_large, path.string() + ": the ended-matches ledger is " + std::to_string(st.st_size) +
                                          " bytes, more than the " + std::to_string(ended_matches::max_ledger_bytes) +
                                          " read"};
    }
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd);
            return error{errc::io, path.string() + ": the ended-matches ledger could not be read whole"};
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return text;
}

} // namespace

result<std::vector<std::pair<std::string, std::uint64_t>>> ended_matches::parse(std::string_view text,
                                                                                const std::string &name) {
    using entries = std::vector<std::pair<std::string, std::uint64_t>>;
    const auto corrupt = [&](std::size_t line, const std::string &what) {
        return result<entries>{errc::corrupt, name + ": line " + std::to_string(line) + ": " + what +
                                                  " (the ended-matches ledger is corrupt; docs/hosting.md, "
                                                  "\"Ended matches\", says what to do)"};
    };
    entries out;
    std::size_t line = 0;
    while (!text.empty()) {
        ++line;
        const auto end = text.find('\n');
        // A last line without its newline is an append cut short: what it held is dropped, if
        // it is the start of a line the ledger could hold.
        if (end == std::string_view::npos) {
            if (line == 1 ? header.substr(0, text.size()) == text : torn_entry(text)) break;
            return corrupt(line, "the last line is neither whole nor the start of an entry");
        }
        const std::string_view l = text.substr(0, end);
        text.remove_prefix(end + 1);
        if (line == 1) {
            if (l != header) return corrupt(1, "the first line is not '" + std::string{header} + "'");
            continue;
        }
        const auto space = l.find(' ');
        if (space == std::string_view::npos) return corrupt(line, "not '<unix seconds> <match id>'");
        std::uint64_t until = 0;
        const auto digits = l.substr(0, space);
        const auto [at, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), until);
        if (digits.empty() || ec != std::errc{} || at != digits.data() + digits.size())
            return corrupt(line, "the time is not a number of seconds");
        const auto id = l.substr(space + 1);
        if (!valid_id(id)) return corrupt(line, "the match id is not 1..64 characters of [A-Za-z0-9._-]");
        out.emplace_back(std::string{id}, until);
    }
    return out;
}

result<ended_matches> ended_matches::load(std::filesystem::path ledger, std::uint64_t now_unix_s) {
    ended_matches set;
    std::error_code ec;
    const auto st = std::filesystem::symlink_status(ledger, ec);
    if (st.type() != std::filesystem::file_type::not_found) {
        auto text = read_ledger(ledger);
        if (!text) return text.err();
        auto entries = parse(*text, ledger.string());
        if (!entries) return entries.err();
        for (const auto &[id, until] : *entries) set.note(id, until);
        set.forget_expired(now_unix_s);
    }
    // Rewritten whole: expired entries and a torn last line go, and appends start on a line of their own.
    std::map<std::string, std::uint64_t> sorted{set.until_.begin(), set.until_.end()};
    std::string out{header};
    out += '\n';
    for (const auto &[id, until] : sorted) out += entry_line(id, until);
    if (auto r = write_file_atomic(ledger, out); !r) return r.err();
    set.ledger_ = std::move(ledger);
    return set;
}

result<void> ended_matches::append(const std::filesystem::path &ledger, const std::string &id,
                                   std::uint64_t until_unix_s) {
    const int fd = ::open(ledger.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return os_error(ledger, "cannot open the ended-matches ledger");
    struct stat st {};
    std::string text;
    if (::fstat(fd, &st) == 0 && st.st_size == 0) text = std::string{header} + "\n"; // removed while running
    text += entry_line(id, until_unix_s);
    if (!write_all(fd, text) || ::fdatasync(fd) != 0) {
        const auto e = os_error(ledger, "cannot append to the ended-matches ledger");
        ::close(fd);
        return e;
    }
    if (::close(fd) != 0) return os_error(ledger, "cannot close the ended-matches ledger");
    return {};
}

bool ended_matches::note(const std::string &id, std::uint64_t until_unix_s) {
    auto [it, fresh] = until_.try_emplace(id, until_unix_s);
    if (!fresh && it->second >= until_unix_s) return false;
    it->second = until_unix_s;
    earliest_ = std::min(earliest_, until_unix_s);
    return true;
}

void ended_matches::forget_expired(std::uint64_t now_unix_s) {
    if (now_unix_s <= earliest_) return;
    earliest_ = ~std::uint64_t{0};
    std::erase_if(until_, [&](const auto &kv) { return kv.second < now_unix_s; });
    for (const auto &kv : until_) earliest_ = std::min(earliest_, kv.second);
}

} // namespace retcon
