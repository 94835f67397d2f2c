#ifndef RETCON_TESTS_SNAPSHOT_JSON_CHECK_HPP
#define RETCON_TESTS_SNAPSHOT_JSON_CHECK_HPP

// A strict little JSON syntax checker (RFC 8259 grammar, no semantics) for the tests of the
// JSON that diff and dump produce.
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

namespace retcon::test {

class json_checker {
public:
    /// @brief True if @p text is exactly one JSON value (surrounding whitespace allowed).
    static bool valid(std::string_view text, std::string *error = nullptr) {
        json_checker c{text};
        const bool ok = c.value() && (c.skip_ws(), c.pos_ == text.size());
        if (!ok && error) *error = "invalid JSON near byte " + std::to_string(c.pos_);
        return ok;
    }

private:
    explicit json_checker(std::string_view t) : t_{t} {}

    void skip_ws() {
        while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\n' || t_[pos_] == '\r' || t_[pos_] == '\t'))
            ++pos_;
    }
    bool eat(char c) {
        skip_ws();
        if (pos_ < t_.size() && t_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool literal(std::string_view word) {
        if (t_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }
    bool value() {
        if (++depth_ > 256) return false;
        skip_ws();
        if (pos_ >= t_.size()) return false;
        bool ok = false;
        switch (t_[pos_]) {
        case '{': ok = object(); break;
        case '[': ok = array(); break;
        case '"': ok = string(); break;
        case 't': ok = literal("true"); break;
        case 'f': ok = literal("false"); break;
        case 'n': ok = literal("null"); break;
        default: ok = number(); break;
        }
        --depth_;
        return ok;
    }
    bool object() {
        ++pos_;
        if (eat('}')) return true;
        do {
            skip_ws();
            if (!string() || !eat(':') || !value()) return false;
        } while (eat(','));
        return eat('}');
    }
    bool array() {
        ++pos_;
        if (eat(']')) return true;
        do {
            if (!value()) return false;
        } while (eat(','));
        return eat(']');
    }
    bool string() {
        if (pos_ >= t_.size() || t_[pos_] != '"') return false;
        ++pos_;
        while (pos_ < t_.size()) {
            const auto c = static_cast<unsigned char>(t_[pos_++]);
            if (c == '"') return true;
            if (c < 0x20) return false;
            if (c == '\\') {
                if (pos_ >= t_.size()) return false;
                const char e = t_[pos_++];
                if (e == 'u') {
                    for (int i = 0; i < 4; ++i)
                        if (pos_ >= t_.size() || !std::isxdigit(static_cast<unsigned char>(t_[pos_++]))) return false;
                } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
                    return false;
                }
            }
        }
        return false;
    }
    bool digits() {
        const std::size_t start = pos_;
        while (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_]))) ++pos_;
        return pos_ > start;
    }
    bool number() {
        if (pos_ < t_.size() && t_[pos_] == '-') ++pos_;
        if (pos_ < t_.size() && t_[pos_] == '0') ++pos_;
        else if (!digits())
            return false;
        if (pos_ < t_.size() && t_[pos_] == '.') {
            ++pos_;
            if (!digits()) return false;
        }
        if (pos_ < t_.size() && (t_[pos_] == 'e' || t_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < t_.size() && (t_[pos_] == '+' || t_[pos_] == '-')) ++pos_;
            if (!digits()) return false;
        }
        return true;
    }

    std::string_view t_;
    std::size_t pos_ = 0;
    int depth_ = 0;
};

} // namespace retcon::test

#endif
