// The one table of orchestrators and its mirrors: docs/hosting.md's table, demo_server's
// --orchestrator choices and help, and its --print-config (docs/hosting.md, "Orchestrators").
// A new row that is not mirrored, or a mirror that names an orchestrator the table lacks, fails here.
#include <catch2/catch.hpp>

#include <retcon/host/environment.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace retcon;

namespace {

env_lookup env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const std::string &name) -> std::optional<std::string> {
        const auto it = vars.find(name);
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

std::vector<std::string> table_names() {
    std::vector<std::string> names;
    for (const auto &d : orchestrators()) names.emplace_back(d.name);
    return names;
}

/// The rows of the first Markdown table under @p header_start in @p text: first cell of each row.
std::vector<std::string> doc_table_first_cells(const std::string &text, const std::string &header_start) {
    std::vector<std::string> cells;
    const auto at = text.find(header_start);
    if (at == std::string::npos) return cells;
    std::istringstream in{text.substr(at)};
    std::string line;
    std::getline(in, line); // the header
    std::getline(in, line); // |---|
    while (std::getline(in, line) && line.rfind("| ", 0) == 0) {
        const auto cell = line.substr(2, line.find(" |", 2) - 2);
        cells.push_back(cell.size() >= 2 && cell.front() == '`' && cell.back() == '`' ? cell.substr(1, cell.size() - 2)
                                                                                      : cell);
    }
    return cells;
}

#ifdef RETCON_DEMO_SERVER
/// demo_server's output with @p args, its environment this process's plus @p env ("A=1 B=2").
std::string run(const std::string &args, const std::string &env = "") {
    std::string out;
    FILE *p = popen((env + " " + RETCON_DEMO_SERVER + " " + args + " 2>&1").c_str(), "r");
    REQUIRE(p != nullptr);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
    return out;
}
#endif

} // namespace

TEST_CASE("orchestrators: one row per platform, and detection, names and factories follow the rows",
          "[host][orchestrator]") {
    std::set<std::string_view> names, selectors;
    std::set<platform> ids;
    int fallbacks = 0;
    for (const auto &d : orchestrators()) {
        INFO(d.name);
        CHECK(names.insert(d.name).second);
        CHECK(ids.insert(d.id).second);
        CHECK_FALSE(d.help.empty());
        CHECK(d.make != nullptr);
        CHECK(to_string(d.id) == d.name);
        CHECK(platform_from_string(d.name) == d.id);
        CHECK(find_orchestrator(d.name) == &d);
        CHECK(&descriptor_of(d.id) == &d);
        auto made = make_orchestrator(d.id, env_of({}));
        REQUIRE(made.ok());
        CHECK((*made)->name() == d.name);
        if (d.selected_by.empty()) {
            ++fallbacks;
            CHECK(&d == &orchestrators().back()); // tried last
            CHECK(detect_platform(env_of({})) == d.id);
            continue;
        }
        CHECK(selectors.insert(d.selected_by).second);
        CHECK(detect_platform(env_of({{std::string{d.selected_by}, "1"}})) == d.id);
        CHECK(detect_platform(env_of({{std::string{d.selected_by}, ""}})) != d.id); // set but empty: not there
        // Its variables are among those the host lists, the selector first.
        REQUIRE_FALSE(d.variables.empty());
        CHECK(d.variables.front().name == d.selected_by);
        for (const auto &v : d.variables) {
            const auto all = host_environment_variables();
            CHECK(std::count_if(all.begin(), all.end(), [&](const env_variable &x) { return x.name == v.name; }) == 1);
        }
    }
    CHECK(fallbacks == 1);
    CHECK_FALSE(find_orchestrator("kubernetes"));
    // Every platform value has its row.
    for (const auto p : {platform::plain, platform::agones, platform::edgegap, platform::hathora})
        CHECK(ids.count(p) == 1);
}

#ifdef RETCON_SOURCE_DIR
TEST_CASE("orchestrators: docs/hosting.md's table lists exactly the table's rows", "[host][orchestrator]") {
    std::ifstream f{std::filesystem::path{RETCON_SOURCE_DIR} / "docs" / "hosting.md"};
    REQUIRE(f.good());
    std::stringstream text;
    text << f.rdbuf();
    const auto doc = doc_table_first_cells(text.str(), "| orchestrator | chosen when |");
    CHECK(doc == table_names());
    // Each row says which variable selects it.
    for (const auto &d : orchestrators()) {
        if (d.selected_by.empty()) continue;
        const auto row = text.str().find("| `" + std::string{d.name} + "` | `" + std::string{d.selected_by} + "`");
        CHECK(row != std::string::npos);
    }
}
#endif

#ifdef RETCON_DEMO_SERVER
TEST_CASE("orchestrators: demo_server's --help and --print-config list exactly the table's rows",
          "[host][orchestrator]") {
    const auto help = run("--help");
    // CLI11 shows an option's choices as {a,b,c}.
    const auto open = help.find("{auto,");
    REQUIRE(open != std::string::npos);
    std::vector<std::string> choices;
    std::istringstream list{help.substr(open + 1, help.find('}', open) - open - 1)};
    for (std::string c; std::getline(list, c, ',');) choices.push_back(c);
    auto expected = table_names();
    expected.insert(expected.begin(), "auto");
    CHECK(choices == expected);
    for (const auto &d : orchestrators()) CHECK(help.find(std::string{d.help}) != std::string::npos);

    const auto config = nlohmann::json::parse(run("--print-config"), nullptr, false);
    REQUIRE_FALSE(config.is_discarded());
    CHECK(config.at("orchestrators").get<std::vector<std::string>>() == table_names());
    for (const auto &d : orchestrators()) {
        const auto forced =
            nlohmann::json::parse(run("--print-config --orchestrator " + std::string{d.name}), nullptr, false);
        REQUIRE_FALSE(forced.is_discarded());
        CHECK(forced.at("orchestrator") == std::string{d.name});
    }
}

TEST_CASE("orchestrators: --print-config says which environment variables were given", "[host][orchestrator]") {
    // env -i: only what the test sets, whatever the environment ctest runs in.
    const auto config = nlohmann::json::parse(
        run("--print-config", "env -i RETCON_FLEET=eu-9 RETCON_MATCHES=3 UNRELATED=1"), nullptr, false);
    REQUIRE_FALSE(config.is_discarded());
    CHECK(config.at("environment_set").get<std::vector<std::string>>() ==
          std::vector<std::string>{"RETCON_MATCHES", "RETCON_FLEET"});
    CHECK(config.at("fleet") == "eu-9");
    CHECK(config.at("environment").size() > config.at("environment_set").size());
    const auto none = nlohmann::json::parse(run("--print-config", "env -i"), nullptr, false);
    REQUIRE_FALSE(none.is_discarded());
    CHECK(none.at("environment_set").empty());
}
#endif
