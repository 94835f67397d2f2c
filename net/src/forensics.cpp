#include "forensics.hpp"

#include <retcon/ecs/entity.hpp>
#include <retcon/snapshot/hash.hpp>

namespace retcon::internal {

const world_image *checksum_record::image_after(frame_t frame, const schema &schema, const frame_ring &inputs,
                                                const step_function &step, std::size_t players, std::size_t input_size,
                                                std::string &why) {
    const world_image *base = base_for(frame, inputs);
    const auto recorded = hash_after(frame);
    if (!base || !recorded) {
        why = "server snapshot of that frame no longer held";
        return nullptr;
    }
    const frame_t from = static_cast<frame_t>(base->frame() - 1u); // images hold the world after their frame
    if (from == frame) return base;
    const std::string failed = "server could not rebuild its snapshot of that frame";
    if (!rebuild_world_) rebuild_world_.emplace(schema);
    world &rw = *rebuild_world_;
    if (auto r = restore(rw, *base); !r) {
        why = failed + " (" + r.message() + ")";
        return nullptr;
    }
    for (frame_t g = from + 1u; g <= frame; ++g) step(rw, frame_inputs{g, players, input_size, inputs.get(g)});
    if (hash(rw) != *recorded) {
        why = failed + " (non-deterministic step?)";
        return nullptr;
    }
    save(rw, rebuilt_, frame + 1u);
    return &rebuilt_;
}

divergence name_divergence(const snapshot_diff &d, const std::string &first, const std::string &second,
                           std::size_t max_lines) {
    divergence out;
    const auto name = [&](const std::string &what) {
        out.summary += (out.summary.empty() ? "" : ", ") + what;
        out.names.push_back(what);
    };
    std::vector<std::string> &all = out.lines;
    for (const auto &s : d.schema_differences) all.push_back("schema: " + s);
    for (const auto &e : d.entity_table) all.push_back("entities: " + e);
    for (const auto &p : d.pools) {
        if (!p.entities.empty() && !p.entities.front().fields.empty())
            name(p.pool + "." + p.entities.front().fields.front().field);
        else
            name(p.pool);
        if (p.entities.empty() && p.order_differs) all.push_back(p.pool + ": same components in a different order");
        for (const auto &e : p.entities) {
            const std::string who = " of entity " + retcon::to_string(e.who);
            if (e.what == entity_difference::kind::only_in_a) all.push_back(p.pool + who + ": only in " + first);
            else if (e.what == entity_difference::kind::only_in_b)
                all.push_back(p.pool + who + ": only in " + second);
            else
                for (const auto &f : e.fields)
                    all.push_back(p.pool + "." + f.field + who + (f.a.empty() ? "" : ": " + f.a + " -> " + f.b));
        }
        if (p.entities_total > p.entities.size())
            all.push_back(p.pool + ": " + std::to_string(p.entities_total - p.entities.size()) +
                          " more entities differ");
    }
    if (!d.entity_table.empty()) name("entities");
    if (d.groups_differ) {
        all.push_back("group lengths");
        name("groups");
    }
    for (const auto &r : d.resources) all.push_back("resource " + r);
    if (!d.resources.empty()) name("resources");
    if (max_lines != 0 && all.size() > max_lines) {
        const std::size_t more = all.size() - (max_lines - 1u);
        all.resize(max_lines - 1u);
        all.push_back("... " + std::to_string(more) + " more differences");
    }
    return out;
}

std::vector<std::string> split_diverging(std::string_view summary) {
    std::vector<std::string> names;
    while (!summary.empty()) {
        const std::size_t comma = summary.find(", ");
        names.emplace_back(summary.substr(0, comma));
        summary = comma == std::string_view::npos ? std::string_view{} : summary.substr(comma + 2u);
    }
    return names;
}

} // namespace retcon::internal
