// rc_world_*, rc_entity_*, rc_component_*, rc_resource_*: a world through the C API. Every
// argument is checked here, before retcon is called, so retcon's misuse handler (process-wide,
// the game's) is never reached from C (docs/c-api.md).
#include "handles.hpp"

using namespace retcon;
using namespace retcon::capi;

namespace {

rc_status check_component(rc_world &w, uint32_t component, const char *what) {
    if (component >= w.world.component_count())
        return fail(w.error, RC_ERR_ARGUMENT, "%s: component id %u, but the schema declares %zu", what, component,
                    w.world.component_count());
    return RC_OK;
}

rc_status check_resource(rc_world &w, uint32_t resource, const char *what) {
    if (resource >= w.world.resource_count())
        return fail(w.error, RC_ERR_ARGUMENT, "%s: resource id %u, but the schema declares %zu", what, resource,
                    w.world.resource_count());
    return RC_OK;
}

rc_status stale(rc_world &w, rc_entity e, const char *what) {
    return fail(w.error, RC_ERR_STALE_ENTITY, "%s: entity %llu is not live in this world", what,
                static_cast<unsigned long long>(e));
}

const char *component_name(const rc_world &w, uint32_t component) {
    return w.world.get_schema().components()[component].name.c_str();
}

} // namespace

extern "C" {

rc_status rc_world_create(const rc_schema *schema, rc_world **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!schema) return fail(err, RC_ERR_NULL, "rc_world_create: schema is NULL");
        if (!out) return fail(err, RC_ERR_NULL, "rc_world_create: out is NULL");
        *out = new rc_world{schema->schema};
        return RC_OK;
    });
}

void rc_world_destroy(rc_world *world) {
    if (world && world->sessions != 0) { // a session still steps it: keep it rather than crash later
        fail(thread_error(), RC_ERR_ARGUMENT,
             "rc_world_destroy: %u session(s) still use this world; destroy them first (the world was kept)",
             world->sessions);
        return;
    }
    delete world;
}

const char *rc_world_last_error(const rc_world *world) { return world ? world->error.c_str() : "world is NULL"; }

uint32_t rc_entity_size(void) { return static_cast<uint32_t>(sizeof(entity)); }

rc_status rc_entity_create(rc_world *w, rc_entity *out) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_entity_create: world is NULL");
    return guarded(w->error, [&] {
        if (!out) return fail(w->error, RC_ERR_NULL, "rc_entity_create: out is NULL");
        *out = to_c(w->world.create());
        ++w->epoch;
        return RC_OK;
    });
}

rc_status rc_entity_destroy(rc_world *w, rc_entity entity) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_entity_destroy: world is NULL");
    return guarded(w->error, [&] {
        const auto e = live_entity(w->world, entity);
        if (!e) return stale(*w, entity, "rc_entity_destroy");
        w->world.destroy(*e);
        ++w->epoch;
        return RC_OK;
    });
}

int rc_entity_valid(const rc_world *w, rc_entity entity) { return w && live_entity(w->world, entity) ? 1 : 0; }

rc_status rc_world_alive(const rc_world *w, uint64_t *out_count) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_world_alive: world is NULL");
    auto &err = const_cast<rc_world *>(w)->error;
    return guarded(err, [&] {
        if (!out_count) return fail(err, RC_ERR_NULL, "rc_world_alive: out_count is NULL");
        *out_count = w->world.alive();
        return RC_OK;
    });
}

rc_status rc_component_add(rc_world *w, rc_entity entity, uint32_t component, const void *value, size_t size) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_component_add: world is NULL");
    return guarded(w->error, [&] {
        if (auto st = check_component(*w, component, "rc_component_add"); st != RC_OK) return st;
        const auto e = live_entity(w->world, entity);
        if (!e) return stale(*w, entity, "rc_component_add");
        const std::size_t declared = w->world.pool_at(component).element_size();
        if (size != declared)
            return fail(w->error, RC_ERR_SIZE, "rc_component_add: %zu bytes for %s, which has %zu", size,
                        component_name(*w, component), declared);
        if (declared && !value) return fail(w->error, RC_ERR_NULL, "rc_component_add: value is NULL");
        if (w->world.has(*e, component))
            return fail(w->error, RC_ERR_ALREADY_PRESENT, "rc_component_add: entity %llu already has %s",
                        static_cast<unsigned long long>(entity), component_name(*w, component));
        w->world.emplace(*e, component, std::span<const std::byte>(static_cast<const std::byte *>(value), size));
        ++w->epoch;
        return RC_OK;
    });
}

rc_status rc_component_get(rc_world *w, rc_entity entity, uint32_t component, void **out) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_component_get: world is NULL");
    return guarded(w->error, [&] {
        if (!out) return fail(w->error, RC_ERR_NULL, "rc_component_get: out is NULL");
        if (auto st = check_component(*w, component, "rc_component_get"); st != RC_OK) return st;
        const auto e = live_entity(w->world, entity);
        if (!e) return stale(*w, entity, "rc_component_get");
        if (w->world.pool_at(component).element_size() == 0)
            return fail(w->error, RC_ERR_ARGUMENT,
                        "rc_component_get: %s is a tag and has no value (use rc_component_has)",
                        component_name(*w, component));
        std::byte *p = w->world.try_get(*e, component);
        if (!p)
            return fail(w->error, RC_ERR_NO_COMPONENT, "rc_component_get: entity %llu has no %s",
                        static_cast<unsigned long long>(entity), component_name(*w, component));
        *out = p;
        return RC_OK;
    });
}

rc_status rc_component_remove(rc_world *w, rc_entity entity, uint32_t component) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_component_remove: world is NULL");
    return guarded(w->error, [&] {
        if (auto st = check_component(*w, component, "rc_component_remove"); st != RC_OK) return st;
        const auto e = live_entity(w->world, entity);
        if (!e) return stale(*w, entity, "rc_component_remove");
        if (!w->world.has(*e, component))
            return fail(w->error, RC_ERR_NO_COMPONENT, "rc_component_remove: entity %llu has no %s",
                        static_cast<unsigned long long>(entity), component_name(*w, component));
        w->world.remove(*e, component);
        ++w->epoch;
        return RC_OK;
    });
}

rc_status rc_component_has(const rc_world *cw, rc_entity entity, uint32_t component, int *out) {
    if (!cw) return fail(thread_error(), RC_ERR_NULL, "rc_component_has: world is NULL");
    auto *w = const_cast<rc_world *>(cw);
    return guarded(w->error, [&] {
        if (!out) return fail(w->error, RC_ERR_NULL, "rc_component_has: out is NULL");
        if (auto st = check_component(*w, component, "rc_component_has"); st != RC_OK) return st;
        const auto e = live_entity(w->world, entity);
        if (!e) return stale(*w, entity, "rc_component_has");
        *out = w->world.has(*e, component) ? 1 : 0;
        return RC_OK;
    });
}

rc_status rc_resource_set(rc_world *w, uint32_t resource, const void *value, size_t size) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_resource_set: world is NULL");
    return guarded(w->error, [&] {
        if (auto st = check_resource(*w, resource, "rc_resource_set"); st != RC_OK) return st;
        const auto &info = w->world.get_schema().resource_info(resource);
        if (size != info.size)
            return fail(w->error, RC_ERR_SIZE, "rc_resource_set: %zu bytes for %.*s, which has %u", size,
                        static_cast<int>(info.name.size()), info.name.data(), info.size);
        if (!value) return fail(w->error, RC_ERR_NULL, "rc_resource_set: value is NULL");
        w->world.set_resource(resource, std::span<const std::byte>(static_cast<const std::byte *>(value), size));
        return RC_OK;
    });
}

rc_status rc_resource_get(rc_world *w, uint32_t resource, void **out) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_resource_get: world is NULL");
    return guarded(w->error, [&] {
        if (!out) return fail(w->error, RC_ERR_NULL, "rc_resource_get: out is NULL");
        if (auto st = check_resource(*w, resource, "rc_resource_get"); st != RC_OK) return st;
        std::byte *p = w->world.try_resource(resource);
        if (!p) {
            const auto name = w->world.get_schema().resource_info(resource).name;
            return fail(w->error, RC_ERR_NO_COMPONENT, "rc_resource_get: resource %.*s is not set",
                        static_cast<int>(name.size()), name.data());
        }
        *out = p;
        return RC_OK;
    });
}

rc_status rc_resource_unset(rc_world *w, uint32_t resource) {
    if (!w) return fail(thread_error(), RC_ERR_NULL, "rc_resource_unset: world is NULL");
    return guarded(w->error, [&] {
        if (auto st = check_resource(*w, resource, "rc_resource_unset"); st != RC_OK) return st;
        w->world.remove_resource(resource);
        return RC_OK;
    });
}

} // extern "C"
