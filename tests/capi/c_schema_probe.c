/*
 * The C side of the C API's interoperability tests (docs/c-api.md). Plain C11 against retcon.h.
 *
 *   c_schema_probe --sizes     sizeof and offsetof of every struct retcon.h defines, one per
 *                              line ("sizeof rc_field 24", "offsetof rc_field.name 0"): the
 *                              Python test compares them with its generated ctypes layouts.
 *   c_schema_probe --hash      declares, through rc_schema_*, the layout tests/capi/cpp_writer.cpp
 *                              declares with RETCON_COMPONENT, and prints "schema hash <16 hex>".
 *   c_schema_probe --renamed   the same layout with body.vy renamed to "vz": prints its hash
 *                              ("renamed hash <16 hex>") and rc_schema_differences against the
 *                              original, one "difference: ..." line per line it returned.
 *
 * A struct added to retcon.h must be added to --sizes (the Python test fails naming it).
 * Keep the layout in step with cpp_writer.cpp and test_python.py.
 */
#include <retcon.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ --sizes */

#define SIZE(T) printf("sizeof %s %zu\n", #T, sizeof(T))
#define OFFSET(T, m) printf("offsetof %s.%s %zu\n", #T, #m, offsetof(T, m))

static int print_sizes(void) {
    SIZE(rc_field);
    OFFSET(rc_field, name);
    OFFSET(rc_field, offset);
    OFFSET(rc_field, size);
    OFFSET(rc_field, kind);
    OFFSET(rc_field, record);

    SIZE(rc_type_desc);
    OFFSET(rc_type_desc, struct_size);
    OFFSET(rc_type_desc, name);
    OFFSET(rc_type_desc, size);
    OFFSET(rc_type_desc, fields);
    OFFSET(rc_type_desc, field_count);

    SIZE(rc_query_desc);
    OFFSET(rc_query_desc, struct_size);
    OFFSET(rc_query_desc, include);
    OFFSET(rc_query_desc, include_count);
    OFFSET(rc_query_desc, exclude);
    OFFSET(rc_query_desc, exclude_count);

    SIZE(rc_chunk);
    OFFSET(rc_chunk, count);
    OFFSET(rc_chunk, entities);
    OFFSET(rc_chunk, columns);
    OFFSET(rc_chunk, rows);

    SIZE(rc_diff_summary);
    OFFSET(rc_diff_summary, struct_size);
    OFFSET(rc_diff_summary, identical);
    OFFSET(rc_diff_summary, schemas_differ);
    OFFSET(rc_diff_summary, groups_differ);
    OFFSET(rc_diff_summary, entity_table_differences);
    OFFSET(rc_diff_summary, pools_differing);
    OFFSET(rc_diff_summary, resource_differences);
    OFFSET(rc_diff_summary, frame_a);
    OFFSET(rc_diff_summary, frame_b);

    SIZE(rc_pool_diff);
    OFFSET(rc_pool_diff, struct_size);
    OFFSET(rc_pool_diff, pool);
    OFFSET(rc_pool_diff, count_a);
    OFFSET(rc_pool_diff, count_b);
    OFFSET(rc_pool_diff, entities_differing);
    OFFSET(rc_pool_diff, order_differs);

    SIZE(rc_replay_settings);
    OFFSET(rc_replay_settings, struct_size);
    OFFSET(rc_replay_settings, players);
    OFFSET(rc_replay_settings, input_size);
    OFFSET(rc_replay_settings, tick_hz);
    OFFSET(rc_replay_settings, keyframe_interval);
    OFFSET(rc_replay_settings, full_keyframe_every);
    OFFSET(rc_replay_settings, frames_per_chunk);
    OFFSET(rc_replay_settings, level);

    SIZE(rc_replay_info);
    OFFSET(rc_replay_info, struct_size);
    OFFSET(rc_replay_info, players);
    OFFSET(rc_replay_info, input_size);
    OFFSET(rc_replay_info, tick_hz);
    OFFSET(rc_replay_info, start_frame);
    OFFSET(rc_replay_info, end_frame);
    OFFSET(rc_replay_info, keyframes);
    OFFSET(rc_replay_info, complete);
    OFFSET(rc_replay_info, schema_hash);

    SIZE(rc_verify_report);
    OFFSET(rc_verify_report, struct_size);
    OFFSET(rc_verify_report, frames_checked);
    OFFSET(rc_verify_report, ok);
    OFFSET(rc_verify_report, first_mismatch);
    OFFSET(rc_verify_report, expected);
    OFFSET(rc_verify_report, actual);

    SIZE(rc_frame_inputs);
    OFFSET(rc_frame_inputs, frame);
    OFFSET(rc_frame_inputs, players);
    OFFSET(rc_frame_inputs, input_size);
    OFFSET(rc_frame_inputs, flags);
    OFFSET(rc_frame_inputs, inputs);
    OFFSET(rc_frame_inputs, record);
    OFFSET(rc_frame_inputs, record_size);

    SIZE(rc_session_config);
    OFFSET(rc_session_config, struct_size);
    OFFSET(rc_session_config, tick_hz);
    OFFSET(rc_session_config, max_players);
    OFFSET(rc_session_config, input_size);
    OFFSET(rc_session_config, input_layout_hash);
    OFFSET(rc_session_config, content_version);
    OFFSET(rc_session_config, input_delay);
    OFFSET(rc_session_config, max_input_delay);
    OFFSET(rc_session_config, prediction_window);
    OFFSET(rc_session_config, checksum_interval);
    OFFSET(rc_session_config, interrupt_ms);
    OFFSET(rc_session_config, disconnect_ms);
    OFFSET(rc_session_config, no_repeat);
    OFFSET(rc_session_config, no_repeat_size);

    SIZE(rc_event);
    OFFSET(rc_event, struct_size);
    OFFSET(rc_event, kind);
    OFFSET(rc_event, frame);
    OFFSET(rc_event, slot);
    OFFSET(rc_event, text);
    OFFSET(rc_event, cause);
    OFFSET(rc_event, reject);
    OFFSET(rc_event, unverified);
    OFFSET(rc_event, reserved);
    OFFSET(rc_event, count);
    OFFSET(rc_event, address);
    OFFSET(rc_event, name);
    OFFSET(rc_event, path);
    OFFSET(rc_event, diverging);
    OFFSET(rc_event, diverging_count);
    OFFSET(rc_event, stage);
    OFFSET(rc_event, stage_index);
    OFFSET(rc_event, stage_count);

    SIZE(rc_session_stats);
    OFFSET(rc_session_stats, struct_size);
    OFFSET(rc_session_stats, rtt_ms);
    OFFSET(rc_session_stats, jitter_ms);
    OFFSET(rc_session_stats, loss);
    OFFSET(rc_session_stats, frames_ahead);
    OFFSET(rc_session_stats, rollbacks_per_s);
    OFFSET(rc_session_stats, resimulated_per_s);
    OFFSET(rc_session_stats, bytes_in_per_s);
    OFFSET(rc_session_stats, bytes_out_per_s);
    OFFSET(rc_session_stats, rollbacks);
    OFFSET(rc_session_stats, resimulated);
    OFFSET(rc_session_stats, stall_frames);
    OFFSET(rc_session_stats, replaced_inputs);
    OFFSET(rc_session_stats, confirmed_frames);
    OFFSET(rc_session_stats, desyncs);
    OFFSET(rc_session_stats, unverified_desyncs);
    OFFSET(rc_session_stats, margin_ms);
    OFFSET(rc_session_stats, input_delay);
    OFFSET(rc_session_stats, current_frame);
    OFFSET(rc_session_stats, confirmed_frame);

    SIZE(rc_frame_telemetry);
    OFFSET(rc_frame_telemetry, struct_size);
    OFFSET(rc_frame_telemetry, rollback_depth);
    OFFSET(rc_frame_telemetry, frame);
    OFFSET(rc_frame_telemetry, resimulated);
    OFFSET(rc_frame_telemetry, resimulate_us);
    OFFSET(rc_frame_telemetry, step_us);
    OFFSET(rc_frame_telemetry, stalls);
    OFFSET(rc_frame_telemetry, bytes_in);
    OFFSET(rc_frame_telemetry, bytes_out);
    OFFSET(rc_frame_telemetry, frames_ahead);
    OFFSET(rc_frame_telemetry, rtt_ms);
    OFFSET(rc_frame_telemetry, jitter_ms);
    OFFSET(rc_frame_telemetry, input_delay);
    OFFSET(rc_frame_telemetry, input_replaced);
    OFFSET(rc_frame_telemetry, confirmed);
    OFFSET(rc_frame_telemetry, hash_checked);

    SIZE(rc_server_frame_telemetry);
    OFFSET(rc_server_frame_telemetry, struct_size);
    OFFSET(rc_server_frame_telemetry, players);
    OFFSET(rc_server_frame_telemetry, frame);
    OFFSET(rc_server_frame_telemetry, tick_us);
    OFFSET(rc_server_frame_telemetry, step_us);
    OFFSET(rc_server_frame_telemetry, replaced_inputs);
    OFFSET(rc_server_frame_telemetry, bytes_in);
    OFFSET(rc_server_frame_telemetry, bytes_out);

    SIZE(rc_server_client_telemetry);
    OFFSET(rc_server_client_telemetry, struct_size);
    OFFSET(rc_server_client_telemetry, margin_ms);
    OFFSET(rc_server_client_telemetry, frame);
    OFFSET(rc_server_client_telemetry, rtt_ms);
    OFFSET(rc_server_client_telemetry, bytes_in);
    OFFSET(rc_server_client_telemetry, bytes_out);
    OFFSET(rc_server_client_telemetry, present);
    OFFSET(rc_server_client_telemetry, input_replaced);

    SIZE(rc_request);
    OFFSET(rc_request, struct_size);
    OFFSET(rc_request, world);
    OFFSET(rc_request, inputs);
    OFFSET(rc_request, resimulating);

    SIZE(rc_link);
    OFFSET(rc_link, struct_size);
    OFFSET(rc_link, latency_ms);
    OFFSET(rc_link, jitter_ms);
    OFFSET(rc_link, loss);
    OFFSET(rc_link, duplicate);
    OFFSET(rc_link, reorder);

    SIZE(rc_server_options);
    OFFSET(rc_server_options, struct_size);
    OFFSET(rc_server_options, record_path);
    OFFSET(rc_server_options, forensics_dir);
    OFFSET(rc_server_options, max_spectators);
    OFFSET(rc_server_options, hello_timeout_ms);
    OFFSET(rc_server_options, load_timeout_ms);
    OFFSET(rc_server_options, max_packets_per_second);
    OFFSET(rc_server_options, max_uploads_per_client);
    OFFSET(rc_server_options, upload_size_factor);
    OFFSET(rc_server_options, max_upload_bytes);
    OFFSET(rc_server_options, upload_budget_bytes);
    OFFSET(rc_server_options, upload_timeout_ms);
    OFFSET(rc_server_options, resync_interval_ms);
    OFFSET(rc_server_options, max_false_claims);
    OFFSET(rc_server_options, max_forensic_files);
    OFFSET(rc_server_options, verify_spectators);
    OFFSET(rc_server_options, history_frames);
    OFFSET(rc_server_options, forensic_frames);
    OFFSET(rc_server_options, end_timeout_ms);
    OFFSET(rc_server_options, telemetry_frames);
    OFFSET(rc_server_options, telemetry_clock);
    OFFSET(rc_server_options, telemetry_clock_user);
    OFFSET(rc_server_options, trace_records);
    OFFSET(rc_server_options, trace_pid);
    OFFSET(rc_server_options, trace_process_name);
    OFFSET(rc_server_options, trace_clock);
    OFFSET(rc_server_options, trace_clock_user);

    SIZE(rc_server_info);
    OFFSET(rc_server_info, struct_size);
    OFFSET(rc_server_info, frame);
    OFFSET(rc_server_info, players);
    OFFSET(rc_server_info, ended);
    OFFSET(rc_server_info, finished);

    SIZE(rc_client_options);
    OFFSET(rc_client_options, struct_size);
    OFFSET(rc_client_options, name);
    OFFSET(rc_client_options, spectator);
    OFFSET(rc_client_options, join_token);
    OFFSET(rc_client_options, join_token_size);
    OFFSET(rc_client_options, reconnect_token);
    OFFSET(rc_client_options, reconnect_token_size);
    OFFSET(rc_client_options, connect_timeout_ms);
    OFFSET(rc_client_options, reconnect_attempts);
    OFFSET(rc_client_options, reconnect_backoff_ms);
    OFFSET(rc_client_options, reconnect_max_backoff_ms);
    OFFSET(rc_client_options, telemetry_frames);
    OFFSET(rc_client_options, telemetry_clock);
    OFFSET(rc_client_options, telemetry_clock_user);
    OFFSET(rc_client_options, trace_records);
    OFFSET(rc_client_options, trace_pid);
    OFFSET(rc_client_options, trace_process_name);
    OFFSET(rc_client_options, trace_clock);
    OFFSET(rc_client_options, trace_clock_user);

    SIZE(rc_client_info);
    OFFSET(rc_client_info, struct_size);
    OFFSET(rc_client_info, state);
    OFFSET(rc_client_info, slot);
    OFFSET(rc_client_info, players);
    OFFSET(rc_client_info, tick_hz);
    OFFSET(rc_client_info, current_frame);
    OFFSET(rc_client_info, confirmed_frame);

    /* Scalar typedefs and enums, so the Python side checks their widths too. */
    SIZE(rc_entity);
    SIZE(rc_frame);
    SIZE(rc_status);
    SIZE(rc_kind);
    SIZE(rc_step_fn);
    SIZE(rc_event_kind);
    SIZE(rc_client_state);
    SIZE(rc_telemetry_clock_fn);
    SIZE(rc_trace_clock_fn);
    return 0;
}

/* ------------------------------------------------------------------ the layout */

typedef struct stat_pair { /* a nested record */
    int16_t hp;
    uint16_t armor;
} stat_pair;

typedef struct body {
    float x, y;
    float vx, vy;
    uint32_t flags;
    uint8_t pad[4]; /* explicit padding: ticks is 8-aligned */
    uint64_t ticks;
} body;

typedef struct spin {
    float angle;
    float rate;
} spin;

typedef struct label {
    char text[12];
    uint32_t owner; /* RC_ENTITY: a 4-byte retcon entity handle */
    bool visible;
    uint8_t pad[3];
} label;

typedef struct fighter {
    stat_pair base;
    stat_pair boosts[2];
    int32_t level;
} fighter;

typedef struct game_clock {
    uint64_t frame;
    double time;
    uint32_t tick_hz;
    uint32_t seed;
} game_clock;

typedef struct rng {
    uint64_t state;
} rng;

static int check(rc_status status, const rc_schema *schema, const char *what) {
    if (status == RC_OK) return 1;
    fprintf(stderr, "c_schema_probe: %s failed: %s: %s\n", what, rc_status_name(status),
            schema ? rc_schema_last_error(schema) : rc_last_error());
    return 0;
}

#define DESC(T, name_text, fields_array)                                                                               \
    {                                                                                                                  \
        (uint32_t)sizeof(rc_type_desc), (name_text), (uint32_t)sizeof(T), (fields_array),                              \
            (uint32_t)(sizeof(fields_array) / sizeof((fields_array)[0]))                                               \
    }

/* Declares the layout; the body field called "vy" is named @p vy_name instead. */
static rc_schema *make_schema(const char *vy_name) {
    rc_schema *s = NULL;
    if (!check(rc_schema_create(&s), NULL, "rc_schema_create")) return NULL;

    uint32_t stat_pair_id = 0;
    const rc_field stat_pair_fields[] = {
        RC_FIELD(stat_pair, hp, RC_I16),
        RC_FIELD(stat_pair, armor, RC_U16),
    };
    const rc_type_desc stat_pair_desc = DESC(stat_pair, "stat_pair", stat_pair_fields);

    rc_field body_fields[] = {
        RC_FIELD(body, x, RC_F32),     RC_FIELD(body, y, RC_F32),     RC_FIELD(body, vx, RC_F32),
        RC_FIELD(body, vy, RC_F32),    RC_FIELD(body, flags, RC_U32), RC_FIELD(body, pad, RC_U8),
        RC_FIELD(body, ticks, RC_U64),
    };
    body_fields[3].name = vy_name;
    const rc_type_desc body_desc = DESC(body, "body", body_fields);

    const rc_field spin_fields[] = {
        RC_FIELD(spin, angle, RC_F32),
        RC_FIELD(spin, rate, RC_F32),
    };
    const rc_type_desc spin_desc = DESC(spin, "spin", spin_fields);

    const rc_field label_fields[] = {
        RC_FIELD(label, text, RC_TEXT),
        RC_FIELD(label, owner, RC_ENTITY),
        RC_FIELD(label, visible, RC_BOOL),
        RC_FIELD(label, pad, RC_U8),
    };
    const rc_type_desc label_desc = DESC(label, "label", label_fields);

    const rc_type_desc frozen_desc = {(uint32_t)sizeof(rc_type_desc), "frozen", 0u, NULL, 0u};

    const rc_field game_clock_fields[] = {
        RC_FIELD(game_clock, frame, RC_U64),
        RC_FIELD(game_clock, time, RC_F64),
        RC_FIELD(game_clock, tick_hz, RC_U32),
        RC_FIELD(game_clock, seed, RC_U32),
    };
    const rc_type_desc game_clock_desc = DESC(game_clock, "game_clock", game_clock_fields);

    const rc_field rng_fields[] = {RC_FIELD(rng, state, RC_U64)};
    const rc_type_desc rng_desc = DESC(rng, "rng", rng_fields);

    uint32_t ids[5] = {0, 0, 0, 0, 0};
    uint32_t res[2] = {0, 0};
    int ok = check(rc_schema_record(s, &stat_pair_desc, &stat_pair_id), s, "rc_schema_record(stat_pair)");
    if (ok) {
        const rc_field fighter_fields[] = {
            RC_FIELD_RECORD(fighter, base, stat_pair_id),
            RC_FIELD_RECORD(fighter, boosts, stat_pair_id),
            RC_FIELD(fighter, level, RC_I32),
        };
        const rc_type_desc fighter_desc = DESC(fighter, "fighter", fighter_fields);
        ok = check(rc_schema_component(s, &body_desc, &ids[0]), s, "rc_schema_component(body)") &&
             check(rc_schema_component(s, &spin_desc, &ids[1]), s, "rc_schema_component(spin)") &&
             check(rc_schema_component(s, &label_desc, &ids[2]), s, "rc_schema_component(label)") &&
             check(rc_schema_component(s, &fighter_desc, &ids[3]), s, "rc_schema_component(fighter)") &&
             check(rc_schema_component(s, &frozen_desc, &ids[4]), s, "rc_schema_component(frozen)") &&
             check(rc_schema_resource(s, &game_clock_desc, &res[0]), s, "rc_schema_resource(game_clock)") &&
             check(rc_schema_resource(s, &rng_desc, &res[1]), s, "rc_schema_resource(rng)");
    }
    if (ok) {
        const uint32_t group[2] = {ids[0], ids[1]};
        ok = check(rc_schema_group(s, group, 2), s, "rc_schema_group(body, spin)");
    }
    /* Ids are declaration order, as in C++. */
    for (uint32_t i = 0; ok && i < 5; ++i) {
        if (ids[i] != i) {
            fprintf(stderr, "c_schema_probe: component %u got id %u\n", i, ids[i]);
            ok = 0;
        }
    }
    if (ok && (res[0] != 0 || res[1] != 1)) {
        fprintf(stderr, "c_schema_probe: resources got ids %u, %u\n", res[0], res[1]);
        ok = 0;
    }
    if (!ok) {
        rc_schema_destroy(s);
        return NULL;
    }
    return s;
}

static int print_hash(const char *label_text, const rc_schema *s) {
    uint64_t h = 0;
    if (!check(rc_schema_hash(s, &h), s, "rc_schema_hash")) return 0;
    printf("%s %016" PRIx64 "\n", label_text, h);
    return 1;
}

static int run_hash(void) {
    rc_schema *s = make_schema("vy");
    if (!s) return 1;
    const int ok = print_hash("schema hash", s);
    rc_schema_destroy(s);
    return ok ? 0 : 1;
}

static int run_renamed(void) {
    rc_schema *a = make_schema("vy");
    rc_schema *b = make_schema("vz");
    int ok = a && b && print_hash("schema hash", a) && print_hash("renamed hash", b);
    if (ok) {
        size_t needed = 0;
        /* The size query (NULL, 0) answers RC_OK or RC_ERR_BUFFER_TOO_SMALL with *needed set. */
        const rc_status asked = rc_schema_differences(a, b, NULL, 0, &needed);
        ok = asked == RC_ERR_BUFFER_TOO_SMALL || check(asked, a, "rc_schema_differences (size query)");
        char *text = ok ? (char *)malloc(needed ? needed : 1) : NULL;
        if (ok && !text) ok = 0;
        if (ok) ok = check(rc_schema_differences(a, b, text, needed, &needed), a, "rc_schema_differences");
        if (ok) {
            /* One line per difference. */
            const char *line = text;
            while (*line) {
                const char *end = strchr(line, '\n');
                const size_t n = end ? (size_t)(end - line) : strlen(line);
                printf("difference: %.*s\n", (int)n, line);
                line += n + (end ? 1 : 0);
            }
        }
        free(text);
        /* Equal schemas differ in nothing. */
        if (ok) {
            char empty[4] = {'x', 'x', 'x', 'x'};
            ok = check(rc_schema_differences(a, a, empty, sizeof empty, &needed), a, "rc_schema_differences(a, a)");
            if (ok && (needed != 1 || empty[0] != '\0')) {
                fprintf(stderr, "c_schema_probe: a schema differs from itself (needed %zu)\n", needed);
                ok = 0;
            }
        }
    }
    rc_schema_destroy(a);
    rc_schema_destroy(b);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--sizes") == 0) return print_sizes();
    if (argc == 2 && strcmp(argv[1], "--hash") == 0) return run_hash();
    if (argc == 2 && strcmp(argv[1], "--renamed") == 0) return run_renamed();
    fprintf(stderr, "usage: c_schema_probe --sizes | --hash | --renamed\n");
    return 2;
}
