// The field-kind table (ecs/internal/retcon/internal/field_kinds.hpp) and its mirrors: the C
// API's rc_kind in capi/include/retcon.h and the kind table of docs/file-format.md must list the
// same kinds with the same values, so adding a kind in one place and not another fails here.
#include <retcon/internal/field_kinds.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

using namespace retcon;
using internal::field_kinds;
using internal::find_field_kind;

namespace {

std::string read_source(const std::string &relative) {
    // A path, not std::string{dir} + "/" + relative: GCC 12 -O2 warns falsely (-Warray-bounds) about
    // that concatenation for some lengths of the source directory, which broke a fresh clone.
    std::ifstream in(std::filesystem::path{RETCON_SOURCE_DIR} / relative, std::ios::binary);
    REQUIRE(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The text between the first @p from and the next @p to after it.
std::string between(const std::string &text, const std::string &from, const std::string &to) {
    const auto a = text.find(from);
    REQUIRE(a != std::string::npos);
    const auto b = text.find(to, a + from.size());
    REQUIRE(b != std::string::npos);
    return text.substr(a, b - a);
}

} // namespace

TEST_CASE("field_kinds: one row per value from 1, found by value and by kind", "[field_kinds]") {
    CHECK(find_field_kind(0u) == nullptr);
    CHECK(find_field_kind(static_cast<std::uint32_t>(field_kinds.size() + 1)) == nullptr);
    CHECK(find_field_kind(0xffu) == nullptr);
    for (std::size_t i = 0; i < field_kinds.size(); ++i) {
        const auto &row = field_kinds[i];
        INFO(row.enumerator);
        CHECK(find_field_kind(static_cast<std::uint32_t>(i + 1)) == &row);
        CHECK(find_field_kind(row.kind) == &row);
        CHECK_FALSE(row.enumerator.empty());
        CHECK_FALSE(row.printed.empty());
    }
    CHECK(field_kinds.back().kind == field_kind::bytes);
    // The scalar kinds and only they have a width of their own.
    CHECK(scalar_width(field_kind::boolean) == 1);
    CHECK(scalar_width(field_kind::entity) == sizeof(entity)); // 4, or 8 with RETCON_ENTITY_64
    CHECK(scalar_width(field_kind::f64) == 8);
    for (const field_kind k : {field_kind::text, field_kind::record, field_kind::bytes}) CHECK(scalar_width(k) == 0);
    CHECK(find_field_kind(field_kind::boolean)->printed == "bool");
    CHECK(find_field_kind(field_kind::record)->c_name == "RC_RECORD");
    CHECK(find_field_kind(field_kind::bytes)->c_name.empty()); // C declares no kind for it
}

TEST_CASE("field_kinds: the C API's rc_kind has the table's C names and values", "[field_kinds]") {
    const std::string en = between(read_source("capi/include/retcon.h"), "typedef enum rc_kind {", "} rc_kind;");
    std::map<std::string, unsigned> in_c;
    const std::regex item{R"((RC_[A-Z0-9_]+)\s*=\s*(\d+))"};
    for (auto it = std::sregex_iterator(en.begin(), en.end(), item); it != std::sregex_iterator(); ++it)
        in_c[(*it)[1].str()] = static_cast<unsigned>(std::stoul((*it)[2].str()));
    std::map<std::string, unsigned> in_table;
    for (const auto &row : field_kinds)
        if (!row.c_name.empty()) in_table[std::string{row.c_name}] = static_cast<unsigned>(row.kind);
    CHECK(in_c.size() >= 14);
    CHECK(in_c == in_table);
}

TEST_CASE("field_kinds: docs/file-format.md lists every kind with its value", "[field_kinds]") {
    const std::string table = between(read_source("docs/file-format.md"), "| value | kind |", "\n\n");
    std::map<unsigned, std::string> in_docs;
    const std::regex cell{R"(\|\s*(\d+)\s*\|\s*([a-z0-9]+))"};
    for (auto it = std::sregex_iterator(table.begin(), table.end(), cell); it != std::sregex_iterator(); ++it)
        in_docs[static_cast<unsigned>(std::stoul((*it)[1].str()))] = (*it)[2].str();
    std::map<unsigned, std::string> in_table;
    for (const auto &row : field_kinds) in_table[static_cast<unsigned>(row.kind)] = std::string{row.enumerator};
    CHECK(in_docs == in_table);
    // The range the schema reader's error text quotes.
    CHECK(read_source("docs/file-format.md").find("kind outside 1.." + std::to_string(field_kinds.size())) !=
          std::string::npos);
}
