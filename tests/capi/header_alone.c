/*
 * retcon.h compiled alone as strict C11 (tests/capi/header_alone.cmake): it must include what it
 * uses, be valid ISO C without extensions, survive a second inclusion, and its field macros must
 * expand to constant initializers.
 */
#include <retcon.h>
#include <retcon.h>

typedef struct header_alone_probe {
    float x;
    uint32_t n;
    uint64_t wide;
    char text[8];
} header_alone_probe;

static const rc_field header_alone_fields[] = {
    RC_FIELD(header_alone_probe, x, RC_F32),
    RC_FIELD(header_alone_probe, n, RC_U32),
    RC_FIELD(header_alone_probe, wide, RC_U64),
    RC_FIELD(header_alone_probe, text, RC_TEXT),
};

/* Referenced so -Wunused does not fire; never called. */
rc_status header_alone_declare(rc_schema *schema, uint32_t *out);
rc_status header_alone_declare(rc_schema *schema, uint32_t *out) {
    const rc_type_desc desc = {sizeof(rc_type_desc), "header_alone_probe", sizeof(header_alone_probe),
                               header_alone_fields, 4u};
    rc_entity none = RC_NULL_ENTITY;
    (void)none;
    return rc_schema_component(schema, &desc, out);
}
