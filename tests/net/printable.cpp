// printable (ecs/internal/retcon/internal/printable.hpp; the sessions' event texts and the match
// host's log share it): any byte string as one printable line of valid UTF-8 (docs/hosting.md, "Logs").
#include <catch2/catch.hpp>

#include <string>

#include <retcon/internal/printable.hpp>

using namespace retcon;
using internal::printable;
using internal::printable_for;

namespace {

/// True when @p s has no byte below 0x20 and no DEL: it cannot end or split a line.
bool one_line(const std::string &s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
    return true;
}

} // namespace

TEST_CASE("printable: the empty string and plain text are kept", "[net][parts]") {
    CHECK(printable("").empty());
    CHECK(printable("", printable_for::line).empty());
    CHECK(printable("ann-2 (team blue)") == "ann-2 (team blue)");
    CHECK(printable("ann-2 (team blue)", printable_for::line) == "ann-2 (team blue)");
}

TEST_CASE("printable: control characters, newlines and DEL become hex escapes", "[net][parts]") {
    CHECK(printable("a\nb") == "a\\x0ab");
    CHECK(printable("a\r\nb\tc") == "a\\x0d\\x0ab\\x09c");
    CHECK(printable(std::string{"nul\0end", 7}) == "nul\\x00end");
    CHECK(printable("esc\x1b[2Jdel\x7f") == "esc\\x1b[2Jdel\\x7f");
    CHECK(printable("\x1f") == "\\x1f");
    // The same in a whole line: nothing that can break it survives.
    CHECK(printable("a\nb\x7f", printable_for::line) == "a\\x0ab\\x7f");
}

TEST_CASE("printable: a forged log line stays inside its own line", "[net][parts]") {
    const std::string name = "x\n{\"event\":\"match_result\",\"x\":1}";
    const std::string shown = printable(name);
    CHECK(shown == "x\\x0a{\\x22event\\x22:\\x22match_result\\x22,\\x22x\\x22:1}");
    CHECK(one_line(shown));
    CHECK(shown.find('"') == std::string::npos);
    CHECK(one_line(printable(name, printable_for::line)));
}

TEST_CASE("printable: quotes and backslashes are escaped in a value, kept in a line", "[net][parts]") {
    CHECK(printable(R"(O'Brien "the \ one")") == "O\\x27Brien \\x22the \\x5c one\\x22");
    // A value that looks escaped already is escaped again: \xNN always means one escaped byte.
    CHECK(printable("\\x0a") == "\\x5cx0a");
    // A JSON line keeps its quotes and escapes: it is still the same JSON.
    const std::string json = R"({"name":"a\"b\\c\u000a"})";
    CHECK(printable(json, printable_for::line) == json);
}

TEST_CASE("printable: valid UTF-8 is kept", "[net][parts]") {
    const std::string text = "Zo\xc3\xab \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\xae \xe2\x82\xac"; // ë, 日本, 🎮, €
    CHECK(printable(text) == text);
    CHECK(printable(text, printable_for::line) == text);
    // The boundaries of each sequence length.
    CHECK(printable("\xc2\xa0\xdf\xbf") == "\xc2\xa0\xdf\xbf");                                 // U+00A0, U+07FF
    CHECK(printable("\xe0\xa0\x80\xef\xbf\xbf") == "\xe0\xa0\x80\xef\xbf\xbf");                 // U+0800, U+FFFF
    CHECK(printable("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf") == "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"); // U+10000, U+10FFFF
}

TEST_CASE("printable: bytes that are not UTF-8 become hex escapes, one by one", "[net][parts]") {
    CHECK(printable("\xff\xfe") == "\\xff\\xfe");
    CHECK(printable("a\x80z") == "a\\x80z");                        // a lone continuation byte
    CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");                   // an overlong '/'
    CHECK(printable("\xe0\x80\xaf") == "\\xe0\\x80\\xaf");          // an overlong '/' in three bytes
    CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");          // a surrogate (U+D800)
    CHECK(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80"); // above U+10FFFF
    CHECK(printable("\xf5\x80\x80\x80") == "\\xf5\\x80\\x80\\x80"); // never a lead byte
    CHECK(printable("ok\xe6\x97") == "ok\\xe6\\x97");               // cut short at the end
    CHECK(printable("\xe6\x97"
                    "a") == "\\xe6\\x97a"); // cut short before ASCII
    CHECK(printable("\xe6\n\x97\xa5", printable_for::line) == "\\xe6\\x0a\\x97\\xa5");
    // A stray byte before a valid sequence does not swallow it.
    CHECK(printable("\xc3\xc3\xab") == "\\xc3\xc3\xab");
}

TEST_CASE("printable: C1 controls and line separators are escaped in a value, kept in a line", "[net][parts]") {
    // U+0085 (NEL) and U+2028 are line breaks to some readers; U+009B is a terminal's CSI.
    CHECK(printable("a\xc2\x85z\xc2\x9b") == "a\\xc2\\x85z\\xc2\\x9b");
    CHECK(printable("a\xe2\x80\xa8z\xe2\x80\xa9") == "a\\xe2\\x80\\xa8z\\xe2\\x80\\xa9");
    CHECK(printable("\xe2\x80\xa7") == "\xe2\x80\xa7"); // U+2027, their neighbour, is text
    // A JSON encoder writes them raw inside strings: a whole line keeps them, so it stays JSON.
    CHECK(printable("\"a\xc2\x85\xe2\x80\xa8\"", printable_for::line) == "\"a\xc2\x85\xe2\x80\xa8\"");
}

TEST_CASE("printable: a long string is escaped whole, at most four bytes per byte", "[net][parts]") {
    std::string hostile;
    for (int i = 0; i < 100000; ++i) hostile += static_cast<char>(i % 256);
    const std::string shown = printable(hostile);
    CHECK(one_line(shown));
    CHECK(shown.size() <= 4 * hostile.size());
    CHECK(shown.size() > hostile.size()); // nothing was cut
    const std::string plain(100000, 'a');
    CHECK(printable(plain) == plain);
    CHECK(printable(std::string(1000, '\n')).size() == 4000u);
}

TEST_CASE("printable: is_printable is true exactly when printable keeps the text", "[net][parts]") {
    for (const std::string &text :
         {std::string{}, std::string{"ann"}, std::string{"a\nb"}, std::string{"O'Brien"}, std::string{"\"q\""},
          std::string{"\xff"}, std::string{"Zo\xc3\xab"}, std::string{"\xc2\x85"}, std::string{"a\\b"}}) {
        INFO(printable(text));
        CHECK(internal::is_printable(text) == (printable(text) == text));
        CHECK(internal::is_printable(text, printable_for::line) == (printable(text, printable_for::line) == text));
    }
    CHECK(internal::is_printable("O'Brien", printable_for::line));
    CHECK_FALSE(internal::is_printable("O'Brien"));
}
