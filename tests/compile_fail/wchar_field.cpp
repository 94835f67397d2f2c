// Must not compile: a wchar_t field (4 bytes on Linux, 2 on Windows: peers would disagree on
// the schema and on the bytes).
#include <retcon/ecs.hpp>

struct wchar_field {
    wchar_t letter;
};
RETCON_COMPONENT(wchar_field, letter);
