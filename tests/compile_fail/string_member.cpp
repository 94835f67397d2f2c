// Must not compile: a std::string member (owns heap memory).
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct string_member {
    std::string text;
};
RETCON_COMPONENT(string_member, text);
