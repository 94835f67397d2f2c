#include "forensics.hpp"

#include <retcon/ecs/entity.hpp>
#include <retcon/snapshot/hash.hpp>

#include <span>

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

std::uint64_t stage_names_hash(const step_function &step) {
    std::string all = std::to_string(step.stages());
    for (std::size_t i = 0; i < step.stages(); ++i) {
        all.push_back('\0');
        all += step.stage_name(i);
    }
    return xxh3(std::as_bytes(std::span{all.data(), all.size()}));
}

std::uint8_t first_difference(const wire::stage_hashes &a, const wire::stage_hashes &b) noexcept {
    if (a.names != b.names || a.after.size() != b.after.size()) return wire::stage_none;
    if (a.start != b.start) return wire::stage_start;
    for (std::size_t i = 0; i < a.after.size(); ++i)
        if (a.after[i] != b.after[i]) return static_cast<std::uint8_t>(i);
    return wire::stage_none;
}

bool checksum_record::run_frame(frame_t frame, const schema &schema, const frame_ring &inputs,
                                const step_function &step, std::size_t players, std::size_t input_size,
                                wire::stage_hashes &out,
                                const std::function<void(std::uint8_t, const world &)> &on_stage, std::string &why) {
    const world_image *base = frame == 0 ? nullptr : base_for(frame - 1u, inputs);
    const auto recorded = hash_after(frame);
    if (!base || !recorded || !inputs.has(frame)) {
        why = "server snapshot of the frame before no longer held";
        return false;
    }
    if (!can_bisect(step)) {
        why = "the step cannot be re-run stage by stage";
        return false;
    }
    const std::string failed = "server could not re-run the frame";
    if (!rebuild_world_) rebuild_world_.emplace(schema);
    world &rw = *rebuild_world_;
    if (auto r = restore(rw, *base); !r) {
        why = failed + " (" + r.message() + ")";
        return false;
    }
    for (frame_t g = static_cast<frame_t>(base->frame()); g < frame; ++g)
        step(rw, frame_inputs{g, players, input_size, inputs.get(g)});
    run_staged(rw, step, frame_inputs{frame, players, input_size, inputs.get(frame)}, out, on_stage);
    if (hash(rw) != *recorded) {
        why = failed + " (non-deterministic step?)";
        return false;
    }
    return true;
}

result<stage_divergence> name_stage_divergence(const world_image *before, const world_image &server,
                                               const world_image &client, const schema &server_schema,
                                               const schema &client_schema) {
    auto d = diff(server, server_schema, client, client_schema);
    if (!d) return d.err();
    stage_divergence out;
    out.named = name_divergence(*d, "the server's", "the client's");
    std::optional<snapshot_diff> changed; // what the server's stage changed
    if (before)
        if (auto c = diff(*before, server_schema, server, server_schema); c) changed = std::move(*c);
    const auto before_value = [&](const std::string &pool, entity who,
                                  const std::string &field) -> const std::string * {
        if (!changed) return nullptr;
        for (const auto &p : changed->pools)
            if (p.pool == pool)
                for (const auto &e : p.entities)
                    if (e.who == who)
                        for (const auto &f : e.fields)
                            if (f.field == field) return &f.a;
        return nullptr;
    };
    for (const auto &p : d->pools)
        for (const auto &e : p.entities)
            if (e.what == entity_difference::kind::changed && !e.fields.empty() && !e.fields.front().a.empty()) {
                const auto &f = e.fields.front();
                const std::string *was = before_value(p.pool, e.who, f.field);
                out.first_line =
                    p.pool + "." + f.field + " of entity " + retcon::to_string(e.who) + ": " +
                    (was ? *was + " -> " + f.a + " (server)" : f.a + (before ? " (server, unchanged)" : " (server)")) +
                    " vs " + f.b + " (client)";
                return out;
            }
    if (!out.named.lines.empty()) out.first_line = out.named.lines.front();
    return out;
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
