#ifndef RETCON_TOOLS_COMMON_EXIT_CODES_HPP
#define RETCON_TOOLS_COMMON_EXIT_CODES_HPP

// What a command-line program's exit statuses mean: each program keeps one table of them,
// which main() returns from and --help prints (docs/cli.md#exit-codes).
#include <array>
#include <cstddef>
#include <cstdio>
#include <string>

namespace retcon::tools {

/// @brief One exit status: its value (an enum of the program's), short name and meaning.
template<class Code>
struct exit_code_row {
    Code code;
    const char *name;
    const char *meaning;
};

/// @brief The process exit status of @p c.
template<class Code>
constexpr int status(Code c) noexcept {
    return static_cast<int>(c);
}

/// @brief "exit codes:" then a line per row, the names padded to @p name_width (for --help).
template<class Code, std::size_t N>
std::string exit_code_help(const std::array<exit_code_row<Code>, N> &rows, int name_width) {
    std::string out = "exit codes:";
    for (const auto &row : rows) {
        char line[64];
        std::snprintf(line, sizeof line, "\n  %d  %-*s ", status(row.code), name_width, row.name);
        out += line;
        out += row.meaning;
    }
    return out;
}

} // namespace retcon::tools

#endif
