// rc_schema_*: schemas declared at run time from C field tables (docs/c-api.md).
#include "handles.hpp"

#include <algorithm>
#include <cstring>

#include <retcon/internal/field_kinds.hpp>

using namespace retcon;
using namespace retcon::capi;

namespace {

/// Bytes of one element of a C kind (rc_kind's values are retcon::field_kind's); 0 for text,
/// records and values no C kind has (internal/field_kinds.hpp says which kinds C declares).
std::uint32_t element_width(std::uint32_t kind) noexcept {
    const internal::field_kind_row *row = internal::find_field_kind(kind);
    return row && !row->c_name.empty() ? scalar_width(row->kind) : 0u;
}

/// A C type description turned into retcon's, checked: the canonical alignment is computed
/// from the field kinds (a record field brings its record's), never taken from the C ABI.
struct described_type {
    type_info info;
    std::vector<field_info> fields;
    std::vector<std::uint32_t> record_align;
};

rc_status describe(rc_schema &s, const rc_type_desc *desc, const char *what, described_type &out) {
    if (!desc) return fail(s.error, RC_ERR_NULL, "%s: the type description is NULL", what);
    if (auto sized = check_struct_size(s.error, desc->struct_size, sizeof(rc_type_desc), what, "type description");
        sized != RC_OK)
        return sized;
    if (!desc->name) return fail(s.error, RC_ERR_NULL, "%s: the type name is NULL", what);
    if (desc->field_count > schema::max_fields)
        return fail(s.error, RC_ERR_ARGUMENT, "%s %s: %u fields, more than %zu", what, desc->name, desc->field_count,
                    schema::max_fields);
    if (desc->field_count && !desc->fields)
        return fail(s.error, RC_ERR_NULL, "%s %s: fields is NULL but field_count is %u", what, desc->name,
                    desc->field_count);
    std::uint32_t align = 1;
    for (std::uint32_t i = 0; i < desc->field_count; ++i) {
        const rc_field &f = desc->fields[i];
        if (!f.name) return fail(s.error, RC_ERR_NULL, "%s %s: field %u has a NULL name", what, desc->name, i);
        std::uint32_t element = element_width(f.kind);
        std::uint32_t record_align = 0;
        if (f.kind == RC_TEXT) {
            element = 1;
        } else if (f.kind == RC_RECORD) {
            if (f.record >= s.records.size())
                return fail(s.error, RC_ERR_ARGUMENT, "%s %s: field '%s' refers to record %u, but %zu are declared",
                            what, desc->name, f.name, f.record, s.records.size());
            element = s.records[f.record].size;
            record_align = s.records[f.record].align;
        } else if (element == 0) {
            return fail(s.error, RC_ERR_ARGUMENT, "%s %s: field '%s' has unknown kind %u", what, desc->name, f.name,
                        f.kind);
        }
        if (f.size == 0 || f.size % element != 0)
            return fail(s.error, RC_ERR_SIZE, "%s %s: field '%s' is %u bytes, not a whole number of %u-byte elements",
                        what, desc->name, f.name, f.size, element);
        out.fields.push_back(field_info{f.name, f.offset, f.size, f.size / element, static_cast<field_kind>(f.kind)});
        out.record_align.push_back(record_align);
        const std::uint32_t a = record_align ? record_align : (f.kind == RC_TEXT ? 1u : element);
        align = std::max(align, a);
    }
    out.info = type_info{desc->name, desc->size, desc->size ? align : 1u, std::span<const field_info>(out.fields)};
    if (auto r = schema::check_type(out.info, out.record_align); !r)
        return fail(s.error, RC_ERR_ARGUMENT, "%s: %s", what, r.message().c_str());
    return RC_OK;
}

rc_status name_taken(rc_schema &s, const char *name, const char *what) {
    if (s.schema.find_component(name) != schema::npos)
        return fail(s.error, RC_ERR_ALREADY_PRESENT, "%s: %s is already declared as a component", what, name);
    if (s.schema.find_resource(name) != schema::npos)
        return fail(s.error, RC_ERR_ALREADY_PRESENT, "%s: %s is already declared as a resource", what, name);
    return RC_OK;
}

} // namespace

extern "C" {

rc_status rc_schema_create(rc_schema **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!out) return fail(err, RC_ERR_NULL, "rc_schema_create: out is NULL");
        *out = new rc_schema{};
        return RC_OK;
    });
}

void rc_schema_destroy(rc_schema *schema) { delete schema; }

const char *rc_schema_last_error(const rc_schema *schema) { return schema ? schema->error.c_str() : "schema is NULL"; }

rc_status rc_schema_record(rc_schema *s, const rc_type_desc *type, uint32_t *out_record) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_schema_record: schema is NULL");
    return guarded(s->error, [&] {
        if (!out_record) return fail(s->error, RC_ERR_NULL, "rc_schema_record: out_record is NULL");
        described_type d;
        if (auto st = describe(*s, type, "rc_schema_record", d); st != RC_OK) return st;
        if (type->size == 0) return fail(s->error, RC_ERR_ARGUMENT, "rc_schema_record: a record needs fields");
        for (const auto &r : s->records)
            if (r.name == type->name)
                return fail(s->error, RC_ERR_ALREADY_PRESENT, "rc_schema_record: record %s is already declared",
                            type->name);
        s->records.push_back(rc_record_type{type->name, type->size, d.info.align});
        *out_record = static_cast<uint32_t>(s->records.size() - 1u);
        return RC_OK;
    });
}

rc_status rc_schema_component(rc_schema *s, const rc_type_desc *type, uint32_t *out_component) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_schema_component: schema is NULL");
    return guarded(s->error, [&] {
        if (!out_component) return fail(s->error, RC_ERR_NULL, "rc_schema_component: out_component is NULL");
        described_type d;
        if (auto st = describe(*s, type, "rc_schema_component", d); st != RC_OK) return st;
        if (auto st = name_taken(*s, type->name, "rc_schema_component"); st != RC_OK) return st;
        if (s->schema.components().size() >= schema::max_types)
            return fail(s->error, RC_ERR_ARGUMENT, "rc_schema_component: more than %zu components", schema::max_types);
        s->schema.component(d.info);
        *out_component = static_cast<uint32_t>(s->schema.components().size() - 1u);
        return RC_OK;
    });
}

rc_status rc_schema_resource(rc_schema *s, const rc_type_desc *type, uint32_t *out_resource) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_schema_resource: schema is NULL");
    return guarded(s->error, [&] {
        if (!out_resource) return fail(s->error, RC_ERR_NULL, "rc_schema_resource: out_resource is NULL");
        described_type d;
        if (auto st = describe(*s, type, "rc_schema_resource", d); st != RC_OK) return st;
        if (type->size == 0) return fail(s->error, RC_ERR_ARGUMENT, "rc_schema_resource: a resource needs fields");
        if (auto st = name_taken(*s, type->name, "rc_schema_resource"); st != RC_OK) return st;
        if (s->schema.resources().size() >= schema::max_types)
            return fail(s->error, RC_ERR_ARGUMENT, "rc_schema_resource: more than %zu resources", schema::max_types);
        s->schema.resource(d.info);
        *out_resource = static_cast<uint32_t>(s->schema.resources().size() - 1u);
        return RC_OK;
    });
}

rc_status rc_schema_group(rc_schema *s, const uint32_t *components, uint32_t count) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_schema_group: schema is NULL");
    return guarded(s->error, [&] {
        if (!components) return fail(s->error, RC_ERR_NULL, "rc_schema_group: components is NULL");
        if (count < 2) return fail(s->error, RC_ERR_ARGUMENT, "rc_schema_group: a group owns at least two components");
        const auto declared = s->schema.components().size();
        for (uint32_t i = 0; i < count; ++i) {
            const uint32_t id = components[i];
            if (id >= declared)
                return fail(s->error, RC_ERR_ARGUMENT, "rc_schema_group: component id %u, but %zu are declared", id,
                            declared);
            if (std::find(components, components + i, id) != components + i)
                return fail(s->error, RC_ERR_ARGUMENT, "rc_schema_group: component %u appears twice", id);
            for (const auto &g : s->schema.groups())
                if (std::find(g.begin(), g.end(), id) != g.end())
                    return fail(s->error, RC_ERR_ALREADY_PRESENT,
                                "rc_schema_group: %s is already owned by another group",
                                s->schema.components()[id].name.c_str());
        }
        s->schema.group(std::span<const std::uint32_t>(components, count));
        return RC_OK;
    });
}

rc_status rc_schema_hash(const rc_schema *s, uint64_t *out_hash) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_schema_hash: schema is NULL");
    auto &err = const_cast<rc_schema *>(s)->error;
    return guarded(err, [&] {
        if (!out_hash) return fail(err, RC_ERR_NULL, "rc_schema_hash: out_hash is NULL");
        *out_hash = s->schema.hash();
        return RC_OK;
    });
}

rc_status rc_schema_differences(const rc_schema *a, const rc_schema *b, char *buffer, size_t capacity, size_t *needed) {
    if (!a || !b) return fail(thread_error(), RC_ERR_NULL, "rc_schema_differences: a schema is NULL");
    auto &err = const_cast<rc_schema *>(a)->error;
    return guarded(err, [&] {
        std::string text;
        for (const auto &line : schema::differences(a->schema, b->schema)) text += line + "\n";
        return copy_out(err, text.c_str(), text.size() + 1u, buffer, capacity, needed, "rc_schema_differences");
    });
}

} // extern "C"
