#include <retcon/snapshot/diff.hpp>

#include <retcon/ecs/world.hpp>

#include <algorithm>
#include <cstring>
#include <string>

#include "image_layout.hpp"
#include "value_text.hpp"

namespace retcon {

namespace {

std::string slot_text(entity slot, std::size_t index) {
    if (slot == null_entity) return "retired";
    if (to_index(slot) == index) return retcon::to_string(slot) + " (live)";
    return "free, next version " + std::to_string(to_version(slot));
}

std::vector<field_difference> compare_fields(const schema::type &t, const std::byte *a, const std::byte *b) {
    std::vector<field_difference> out;
    for (const auto &f : t.fields) {
        if (std::memcmp(a + f.offset, b + f.offset, f.size) == 0) continue;
        out.push_back(field_difference{f.name, f.offset, f.size, internal::format_value(f, a + f.offset, false),
                                       internal::format_value(f, b + f.offset, false)});
    }
    if (out.empty() && t.size && std::memcmp(a, b, t.size) != 0) // no field table entry: plain bytes
        out.push_back(field_difference{"bytes[0.." + std::to_string(t.size) + ")", 0, t.size, "", ""});
    return out;
}

} // namespace

result<snapshot_diff> diff(const world_image &a, const schema &schema_a, const world_image &b, const schema &schema_b,
                           const diff_options &options) {
    snapshot_diff out;
    out.frame_a = a.frame();
    out.frame_b = b.frame();
    if (schema_a.serialize() != schema_b.serialize()) {
        out.schema_differences = schema::differences(schema_a, schema_b);
        if (out.schema_differences.empty()) out.schema_differences.emplace_back("schemas differ");
        return out;
    }
    const auto sizes = internal::image_layout::element_sizes_of(schema_a);
    auto va = parse_image(a.bytes(), sizes);
    if (!va) return error{va.code(), "first image: " + va.message()};
    auto vb = parse_image(b.bytes(), sizes);
    if (!vb) return error{vb.code(), "second image: " + vb.message()};

    // Entity table and free list.
    const auto &ha = va->header;
    const auto &hb = vb->header;
    auto head_diff = [&out](const char *what, std::uint64_t x, std::uint64_t y) {
        if (x != y)
            out.entity_table.push_back(std::string(what) + ": " + std::to_string(x) + " vs " + std::to_string(y));
    };
    head_diff("entity slots", ha.entity_slots, hb.entity_slots);
    head_diff("live entities", ha.alive, hb.alive);
    head_diff("free-list head", ha.free_head, hb.free_head);
    head_diff("free-list tail", ha.free_tail, hb.free_tail);
    const std::size_t slots = std::min(va->entities.size(), vb->entities.size());
    std::size_t slot_diffs = 0;
    for (std::size_t i = 0; i < slots; ++i) {
        if (va->entities[i] == vb->entities[i]) continue;
        if (++slot_diffs <= options.max_entities)
            out.entity_table.push_back("slot " + std::to_string(i) + ": " + slot_text(va->entities[i], i) + " vs " +
                                       slot_text(vb->entities[i], i));
    }
    if (slot_diffs > options.max_entities)
        out.entity_table.push_back("... " + std::to_string(slot_diffs - options.max_entities) + " more slots differ");

    // Pools, matched by entity handle.
    const std::size_t max_slots = std::max(va->entities.size(), vb->entities.size());
    std::vector<std::uint32_t> pos_b(max_slots, ~0u);
    for (std::size_t i = 0; i < va->owners.size(); ++i) {
        const auto &t = schema_a.components()[i];
        const auto oa = va->owners[i];
        const auto ob = vb->owners[i];
        const auto pa = va->payloads[i];
        const auto pb = vb->payloads[i];
        const bool same_owners = oa.size() == ob.size() && std::equal(oa.begin(), oa.end(), ob.begin());
        if (same_owners && pa.size() == pb.size() && std::equal(pa.begin(), pa.end(), pb.begin())) continue;
        pool_difference pd;
        pd.pool = t.name;
        pd.count_a = static_cast<std::uint32_t>(oa.size());
        pd.count_b = static_cast<std::uint32_t>(ob.size());
        for (std::size_t k = 0; k < ob.size(); ++k) pos_b[to_index(ob[k])] = static_cast<std::uint32_t>(k);
        std::vector<bool> matched(ob.size(), false);
        auto add = [&](entity_difference d) {
            ++pd.entities_total;
            if (pd.entities.size() < options.max_entities) pd.entities.push_back(std::move(d));
        };
        for (std::size_t k = 0; k < oa.size(); ++k) {
            const entity e = oa[k];
            const auto idx = to_index(e);
            const auto kb = idx < max_slots ? pos_b[idx] : ~0u;
            if (kb == ~0u || ob[kb] != e) {
                add(entity_difference{e, entity_difference::kind::only_in_a, {}});
                continue;
            }
            matched[kb] = true;
            if (t.size == 0) continue;
            auto fields = compare_fields(t, pa.data() + k * t.size, pb.data() + std::size_t{kb} * t.size);
            if (!fields.empty()) add(entity_difference{e, entity_difference::kind::changed, std::move(fields)});
        }
        for (std::size_t k = 0; k < ob.size(); ++k)
            if (!matched[k]) add(entity_difference{ob[k], entity_difference::kind::only_in_b, {}});
        for (const entity e : ob) pos_b[to_index(e)] = ~0u;
        pd.order_differs = pd.entities_total == 0; // same members and values, different iteration order
        out.pools.push_back(std::move(pd));
    }

    out.groups_differ = !std::equal(va->group_lengths.begin(), va->group_lengths.end(), vb->group_lengths.begin(),
                                    vb->group_lengths.end());

    // Resources, field by field.
    const world probe{schema_a};
    const auto offsets = probe.resource_offsets();
    for (std::size_t r = 0; r < schema_a.resources().size(); ++r) {
        const auto &t = schema_a.resources()[r];
        const bool in_a = va->resources[r] != std::byte{0};
        const bool in_b = vb->resources[r] != std::byte{0};
        if (in_a != in_b) {
            out.resources.push_back(t.name + ": " + (in_a ? "set" : "unset") + " vs " + (in_b ? "set" : "unset"));
            continue;
        }
        for (const auto &f : compare_fields(t, va->resources.data() + offsets[r], vb->resources.data() + offsets[r]))
            out.resources.push_back(t.name + "." + f.field + ": " + f.a + " -> " + f.b);
    }
    return out;
}

std::string snapshot_diff::to_text() const {
    std::string s;
    if (!schema_differences.empty()) {
        s += "schemas differ:\n";
        for (const auto &d : schema_differences) s += "  " + d + "\n";
        return s;
    }
    if (identical()) return "identical (frames " + std::to_string(frame_a) + " and " + std::to_string(frame_b) + ")\n";
    if (frame_a != frame_b) s += "frames: " + std::to_string(frame_a) + " vs " + std::to_string(frame_b) + "\n";
    if (!entity_table.empty()) {
        s += "entity table:\n";
        for (const auto &d : entity_table) s += "  " + d + "\n";
    }
    for (const auto &p : pools) {
        s += "pool " + p.pool + ": " + std::to_string(p.count_a) + " vs " + std::to_string(p.count_b) + " components";
        s += p.order_differs ? ", same contents in a different order\n" : "\n";
        for (const auto &e : p.entities) {
            s += "  entity " + retcon::to_string(e.who);
            if (e.what == entity_difference::kind::only_in_a) s += ": only in the first\n";
            else if (e.what == entity_difference::kind::only_in_b)
                s += ": only in the second\n";
            else {
                s += ":\n";
                for (const auto &f : e.fields) s += "    " + f.field + ": " + f.a + " -> " + f.b + "\n";
            }
        }
        if (p.entities_total > p.entities.size())
            s += "  ... " + std::to_string(p.entities_total - p.entities.size()) + " more entities differ\n";
    }
    if (groups_differ) s += "group lengths differ\n";
    if (!resources.empty()) {
        s += "resources:\n";
        for (const auto &d : resources) s += "  " + d + "\n";
    }
    return s;
}

std::string snapshot_diff::to_json() const {
    using internal::json_string;
    auto list = [](const std::vector<std::string> &v) {
        std::string s = "[";
        for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + json_string(v[i]);
        return s + "]";
    };
    std::string s = "{\"identical\":" + std::string(identical() ? "true" : "false");
    s += ",\"frame_a\":" + std::to_string(frame_a) + ",\"frame_b\":" + std::to_string(frame_b);
    s += ",\"schema_differences\":" + list(schema_differences);
    s += ",\"entity_table\":" + list(entity_table);
    s += ",\"pools\":[";
    for (std::size_t i = 0; i < pools.size(); ++i) {
        const auto &p = pools[i];
        s += std::string(i ? "," : "") + "{\"pool\":" + json_string(p.pool) +
             ",\"count_a\":" + std::to_string(p.count_a) + ",\"count_b\":" + std::to_string(p.count_b) +
             ",\"order_differs\":" + (p.order_differs ? "true" : "false") +
             ",\"entities_total\":" + std::to_string(p.entities_total) + ",\"entities\":[";
        for (std::size_t k = 0; k < p.entities.size(); ++k) {
            const auto &e = p.entities[k];
            const char *what = e.what == entity_difference::kind::only_in_a   ? "only_in_a"
                               : e.what == entity_difference::kind::only_in_b ? "only_in_b"
                                                                              : "changed";
            s += std::string(k ? "," : "") + "{\"entity\":" + json_string(retcon::to_string(e.who)) + ",\"kind\":\"" +
                 what + "\",\"fields\":[";
            for (std::size_t f = 0; f < e.fields.size(); ++f)
                s += std::string(f ? "," : "") + "{\"field\":" + json_string(e.fields[f].field) +
                     ",\"offset\":" + std::to_string(e.fields[f].offset) +
                     ",\"size\":" + std::to_string(e.fields[f].size) + ",\"a\":" + json_string(e.fields[f].a) +
                     ",\"b\":" + json_string(e.fields[f].b) + "}";
            s += "]}";
        }
        s += "]}";
    }
    s += "],\"groups_differ\":" + std::string(groups_differ ? "true" : "false");
    s += ",\"resources\":" + list(resources) + "}";
    return s;
}

} // namespace retcon
