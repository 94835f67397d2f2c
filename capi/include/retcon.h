/*
 * retcon.h - the C API of retcon: worlds, snapshots, files, replays and network sessions
 * (docs/c-api.md).
 *
 * C11, <stdint.h>/<stddef.h> types only. Every object is an opaque handle; every call returns
 * an rc_status. When a call on a handle fails, the handle keeps a message saying what was
 * wrong (rc_*_last_error), valid until the next call on that handle. Calls that create a
 * handle report failure through the message of their parent handle, or, when there is none,
 * through rc_last_error() (per thread). Nothing crosses this boundary as a C++ exception or
 * an abort: every argument is checked first, and misuse returns an error code.
 *
 * Fixed in the ABI whatever the C++ defaults: entity handles and frame numbers are 64-bit;
 * option structs start with their own size (set it to sizeof the struct you compiled with)
 * so they can grow. Types you declare through rc_schema_* follow retcon's canonical alignment
 * rule: a field's alignment is its width (8 for 64-bit fields), whatever the C compiler's ABI
 * says (docs/determinism.md, "One layout everywhere"). (The API's own structs are plain C.)
 *
 * Caller buffers: functions that copy bytes out take (buffer, capacity, needed). *needed
 * always receives the size; a capacity below it returns RC_ERR_BUFFER_TOO_SMALL (so a call
 * with NULL and 0 is the size query) and copies nothing.
 *
 * Lifetimes: a pointer returned by rc_component_get, rc_resource_get or an rc_chunk is valid
 * until the next structural change of its world (adding or removing a component, creating or
 * destroying an entity, restoring or loading a state) or until the world is destroyed.
 */
#ifndef RETCON_H
#define RETCON_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#    if defined(RETCON_C_BUILDING)
#        define RC_API __declspec(dllexport)
#    else
#        define RC_API __declspec(dllimport)
#    endif
#else
#    define RC_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI version this header describes; rc_abi_version() returns the library's. 2: one
 *  rc_step_fn for replay verification and sessions (rc_session_step_fn is gone). */
#define RC_ABI_VERSION 2u
RC_API uint32_t rc_abi_version(void);

/** What a call did. RC_OK is 0; every other value is a failure with a message. */
typedef enum rc_status {
    RC_OK = 0,
    RC_ERR_NULL = 1,             /* a required pointer argument was NULL */
    RC_ERR_ARGUMENT = 2,         /* an argument is out of range or inconsistent */
    RC_ERR_STALE_ENTITY = 3,     /* the entity handle is not live in this world */
    RC_ERR_NO_COMPONENT = 4,     /* the entity has no such component / the resource is not set */
    RC_ERR_ALREADY_PRESENT = 5,  /* the entity already has the component / the name is taken */
    RC_ERR_SIZE = 6,             /* a value's size differs from the declared type's */
    RC_ERR_BUFFER_TOO_SMALL = 7, /* the caller's buffer is too small: the needed size was written */
    RC_ERR_SCHEMA_MISMATCH = 8,  /* the data was made with another schema */
    RC_ERR_IO = 9,               /* the operating system refused (open, read, write) */
    RC_ERR_CORRUPT = 10,         /* a file or image is damaged, truncated or not retcon's */
    RC_ERR_NOT_FOUND = 11,       /* a frame or item is not there */
    RC_ERR_INTERNAL = 12         /* an unexpected failure inside the library (a bug: report it) */
} rc_status;

/** The message of the last failed handle-less call on this thread ("" if none). */
RC_API const char *rc_last_error(void);
/** A short stable name of a status ("RC_ERR_SIZE"). */
RC_API const char *rc_status_name(rc_status status);

/** An entity handle: 64-bit in the ABI. RC_NULL_ENTITY is never live. */
typedef uint64_t rc_entity;
#define RC_NULL_ENTITY UINT64_C(0xFFFFFFFFFFFFFFFF)
/** A frame number: 64-bit in the ABI (retcon's frames fit in 32 bits; larger is an error). */
typedef uint64_t rc_frame;

/* ------------------------------------------------------------------ schemas */

/** How a field's bytes are read (the values of retcon::field_kind). */
typedef enum rc_kind {
    RC_BOOL = 1,
    RC_I8 = 2,
    RC_I16 = 3,
    RC_I32 = 4,
    RC_I64 = 5,
    RC_U8 = 6,
    RC_U16 = 7,
    RC_U32 = 8,
    RC_U64 = 9,
    RC_F32 = 10,
    RC_F64 = 11,
    RC_ENTITY = 12, /* an entity handle stored in the world, rc_entity_size() bytes: a uint32_t
                       (the low 32 bits of an rc_entity; RC_NULL_ENTITY is stored as
                       0xFFFFFFFF), or the whole uint64_t rc_entity in a library built with
                       RETCON_ENTITY_64 */
    RC_TEXT = 13,   /* char arrays: zero-filled characters */
    RC_RECORD = 14  /* a nested record declared with rc_schema_record */
} rc_kind;

/** One field of a declared type. Use RC_FIELD / RC_FIELD_RECORD: offsets and sizes come from
 *  the compiler (offsetof, sizeof), never from hand-written numbers. */
typedef struct rc_field {
    const char *name;
    uint32_t offset; /* bytes from the start of the type */
    uint32_t size;   /* bytes of the whole field (element size x array extent) */
    uint32_t kind;   /* an rc_kind */
    uint32_t record; /* for RC_RECORD: the id rc_schema_record returned; else 0 */
} rc_field;

#ifdef __cplusplus /* the same macros, without C casts, for C++ built with -Wold-style-cast */
#    define RC_CAST_(type, value) static_cast<type>(value)
#    define RC_MEMBER_SIZE_(T, member) sizeof(static_cast<T *>(nullptr)->member)
#else
#    define RC_CAST_(type, value) ((type)(value))
#    define RC_MEMBER_SIZE_(T, member) sizeof(((T *)0)->member)
#endif
#define RC_FIELD(T, member, kind)                                                                                      \
    {                                                                                                                  \
#        member, RC_CAST_(uint32_t, offsetof(T, member)), RC_CAST_(uint32_t, RC_MEMBER_SIZE_(T, member)),              \
            RC_CAST_(uint32_t, kind), 0u                                                                               \
    }
#define RC_FIELD_RECORD(T, member, record_id)                                                                          \
    {                                                                                                                  \
#        member, RC_CAST_(uint32_t, offsetof(T, member)), RC_CAST_(uint32_t, RC_MEMBER_SIZE_(T, member)),              \
            RC_CAST_(uint32_t, RC_RECORD), (record_id)                                                                 \
    }

/** A type to declare: a component, a resource or a nested record. */
typedef struct rc_type_desc {
    uint32_t struct_size; /* sizeof(rc_type_desc) */
    const char *name;
    uint32_t size; /* sizeof the C type; 0 declares a tag (components only) */
    const rc_field *fields;
    uint32_t field_count;
} rc_type_desc;

typedef struct rc_schema rc_schema;

RC_API rc_status rc_schema_create(rc_schema **out);
RC_API void rc_schema_destroy(rc_schema *schema);
RC_API const char *rc_schema_last_error(const rc_schema *schema);
/** Declares a nested record type (not stored by itself) for RC_FIELD_RECORD. */
RC_API rc_status rc_schema_record(rc_schema *schema, const rc_type_desc *type, uint32_t *out_record);
/** Declares a component; its id is the number of components declared before it. */
RC_API rc_status rc_schema_component(rc_schema *schema, const rc_type_desc *type, uint32_t *out_component);
/** Declares a resource (a singleton); its id is the number of resources declared before it. */
RC_API rc_status rc_schema_resource(rc_schema *schema, const rc_type_desc *type, uint32_t *out_resource);
/** Declares an owning group over 2 or more components (each in at most one group). */
RC_API rc_status rc_schema_group(rc_schema *schema, const uint32_t *components, uint32_t count);
/** The schema hash (equal to a C++ schema declaring the same layout in the same order). */
RC_API rc_status rc_schema_hash(const rc_schema *schema, uint64_t *out_hash);
/** Lines saying how two schemas differ, one per line, into a caller buffer; *needed gets the
 *  size including the terminating 0 (pass buffer NULL and capacity 0 to ask). "" if equal. */
RC_API rc_status rc_schema_differences(const rc_schema *a, const rc_schema *b, char *buffer, size_t capacity,
                                       size_t *needed);

/* ------------------------------------------------------------------ worlds */

typedef struct rc_world rc_world;

/** A world storing what @p schema declares (the schema is copied). */
RC_API rc_status rc_world_create(const rc_schema *schema, rc_world **out);
RC_API void rc_world_destroy(rc_world *world);
RC_API const char *rc_world_last_error(const rc_world *world);

/** Bytes of an entity handle stored in the world (an RC_ENTITY field): 4, or 8 in a library
    built with RETCON_ENTITY_64 (docs/config.md). */
RC_API uint32_t rc_entity_size(void);
RC_API rc_status rc_entity_create(rc_world *world, rc_entity *out);
RC_API rc_status rc_entity_destroy(rc_world *world, rc_entity entity);
/** 1 if @p entity is live in @p world, 0 otherwise (also for a NULL world). */
RC_API int rc_entity_valid(const rc_world *world, rc_entity entity);
RC_API rc_status rc_world_alive(const rc_world *world, uint64_t *out_count);

/** Adds component @p component to @p entity, copying @p size bytes (the declared size; 0 and
 *  NULL for a tag). */
RC_API rc_status rc_component_add(rc_world *world, rc_entity entity, uint32_t component, const void *value,
                                  size_t size);
/** A pointer to @p entity's component in the world's storage (see Lifetimes above). */
RC_API rc_status rc_component_get(rc_world *world, rc_entity entity, uint32_t component, void **out);
RC_API rc_status rc_component_remove(rc_world *world, rc_entity entity, uint32_t component);
/** *out = 1 if @p entity has the component, else 0. */
RC_API rc_status rc_component_has(const rc_world *world, rc_entity entity, uint32_t component, int *out);

RC_API rc_status rc_resource_set(rc_world *world, uint32_t resource, const void *value, size_t size);
/** A pointer to the resource's bytes; RC_ERR_NO_COMPONENT if it is not set. */
RC_API rc_status rc_resource_get(rc_world *world, uint32_t resource, void **out);
RC_API rc_status rc_resource_unset(rc_world *world, uint32_t resource);

/* ------------------------------------------------------------------ queries */

/** Which entities a query visits: every entity with all of @p include and none of @p exclude. */
typedef struct rc_query_desc {
    uint32_t struct_size; /* sizeof(rc_query_desc) */
    const uint32_t *include;
    uint32_t include_count; /* 1..16 */
    const uint32_t *exclude;
    uint32_t exclude_count; /* 0..16 */
} rc_query_desc;

/**
 * One chunk of a query's results, in the shape of flecs's iterator. For column c (the c-th
 * included component), element i of the chunk lives at
 *   columns[c] + (rows ? rows[c][i] : i) * element_size(c)
 * When the included pools are aligned over the chunk (a group, or pools in the same order),
 * rows is NULL and columns[c] points at the chunk's first element. Otherwise rows[c] holds,
 * per element, its row in that pool and columns[c] points at the pool's first element.
 * Writes go straight to pool memory; tags have a NULL column. Valid until the next
 * rc_query_next or structural change.
 */
typedef struct rc_chunk {
    uint32_t count;
    const rc_entity *entities;
    void *const *columns;
    const uint32_t *const *rows;
} rc_chunk;

typedef struct rc_query rc_query;

RC_API rc_status rc_query_create(rc_world *world, const rc_query_desc *desc, rc_query **out);
RC_API void rc_query_destroy(rc_query *query);
RC_API const char *rc_query_last_error(const rc_query *query);
/** The next chunk; *has_chunk = 0 when the query is done (then it restarts from the top).
 *  A structural change of the world during a pass (see Lifetimes) makes the next call fail
 *  with RC_ERR_ARGUMENT, since the chunks already handed out may point at moved memory; the
 *  call after that starts a new pass. */
RC_API rc_status rc_query_next(rc_query *query, rc_chunk *out, int *has_chunk);

/* ------------------------------------------------------------------ hashes and images */

/** The world hash (XXH3 over the section hashes; docs/file-format.md, "Hashes"). */
RC_API rc_status rc_world_hash(const rc_world *world, uint64_t *out_hash);
/** Section hashes: entities, one per component pool, groups, resources (2 + components + 1
 *  values). *needed gets the count; RC_ERR_BUFFER_TOO_SMALL if capacity is less. */
RC_API rc_status rc_world_section_hashes(const rc_world *world, uint64_t *hashes, size_t capacity, size_t *needed);
/** The world's image (docs/file-format.md, "World image") into a caller buffer; *needed gets
 *  its size (pass NULL and 0 to ask). */
RC_API rc_status rc_world_save_image(const rc_world *world, rc_frame frame, void *buffer, size_t capacity,
                                     size_t *needed);
/** Validates an untrusted image and restores it; on error the world is unchanged. */
RC_API rc_status rc_world_load_image(rc_world *world, const void *image, size_t size, rc_frame *out_frame);

/** A ring of saved frames for rollback. */
typedef struct rc_ring rc_ring;
RC_API rc_status rc_ring_create(uint32_t capacity, rc_ring **out);
RC_API void rc_ring_destroy(rc_ring *ring);
RC_API const char *rc_ring_last_error(const rc_ring *ring);
RC_API rc_status rc_ring_save(rc_ring *ring, const rc_world *world, rc_frame frame);
/** RC_ERR_NOT_FOUND if the ring does not hold @p frame. */
RC_API rc_status rc_ring_restore(rc_ring *ring, rc_world *world, rc_frame frame);

/* ------------------------------------------------------------------ snapshot files */

RC_API rc_status rc_snapshot_file_write(rc_world *world, const char *path, rc_frame frame, int level);
/** Reads a snapshot file (.rcs) into @p world (its schema must match). */
RC_API rc_status rc_snapshot_file_load(rc_world *world, const char *path, rc_frame *out_frame);
/** Reads and checks a snapshot file without a world; the reason is in rc_last_error(). */
RC_API rc_status rc_snapshot_file_check(const char *path);

/** The differences between two snapshot files, as data. */
typedef struct rc_diff rc_diff;
typedef struct rc_diff_summary {
    uint32_t struct_size; /* sizeof(rc_diff_summary) */
    int identical;
    int schemas_differ;
    int groups_differ;
    uint32_t entity_table_differences;
    uint32_t pools_differing;
    uint32_t resource_differences;
    rc_frame frame_a;
    rc_frame frame_b;
} rc_diff_summary;
typedef struct rc_pool_diff {
    uint32_t struct_size; /* sizeof(rc_pool_diff) */
    const char *pool;     /* valid while the rc_diff lives */
    uint32_t count_a;
    uint32_t count_b;
    uint64_t entities_differing;
    int order_differs;
} rc_pool_diff;
RC_API rc_status rc_diff_files(const char *path_a, const char *path_b, rc_diff **out);
RC_API void rc_diff_destroy(rc_diff *diff);
RC_API rc_status rc_diff_get_summary(const rc_diff *diff, rc_diff_summary *out);
RC_API rc_status rc_diff_pool(const rc_diff *diff, uint32_t index, rc_pool_diff *out);
/** The full report as JSON (the `retcon diff --json` object) into a caller buffer. */
RC_API rc_status rc_diff_json(const rc_diff *diff, char *buffer, size_t capacity, size_t *needed);

/* ------------------------------------------------------------------ frames and the step (docs/frames.md) */

/** One frame of every player's input, as the step sees it: the C view of frame_inputs
 *  (docs/frames.md). Slot s's flags are flags[s] (0: empty slot, 1: present, 3: present and
 *  replaced by the server); its input is the input_size bytes at inputs + s * input_size.
 *  record is the whole record (flags, then inputs), as replays store it. Valid during the step. */
typedef struct rc_frame_inputs {
    rc_frame frame;
    uint32_t players;
    uint32_t input_size;
    const uint8_t *flags;
    const uint8_t *inputs;
    const void *record;
    size_t record_size;
} rc_frame_inputs;

/** The game's step, one signature for replay verification and sessions alike (C++
 *  step_function): advance @p world by one frame with @p inputs, changing nothing else; return 0.
 *  Anything else refuses the frame: rc_replay_verify then fails, a session ends
 *  (RC_EVENT_SESSION_FAILED; the update that called it still returns RC_OK). A session call
 *  from inside it that would change the session (update, end_match, leave, destroy) fails and
 *  ends the session too; the update then returns RC_ERR_ARGUMENT. Bindings whose callbacks can
 *  raise (Python's ctypes returns 0 when one does) must catch and return non-zero. */
typedef int (*rc_step_fn)(rc_world *world, const rc_frame_inputs *inputs, void *user);

/* ------------------------------------------------------------------ replays */

typedef struct rc_replay_settings {
    uint32_t struct_size; /* sizeof(rc_replay_settings) */
    uint32_t players;
    uint32_t input_size;
    uint32_t tick_hz;
    uint32_t keyframe_interval;
    uint32_t full_keyframe_every;
    uint32_t frames_per_chunk;
    int level;
} rc_replay_settings;
/** Fills @p out with retcon's defaults (set struct_size first). */
RC_API rc_status rc_replay_settings_default(rc_replay_settings *out);

typedef struct rc_replay_writer rc_replay_writer;
/** Starts a replay of @p world (its state now is the start) at @p start_frame. */
RC_API rc_status rc_replay_writer_create(const char *path, const rc_world *world, rc_frame start_frame,
                                         const rc_replay_settings *settings, rc_replay_writer **out);
RC_API void rc_replay_writer_destroy(rc_replay_writer *writer);
RC_API const char *rc_replay_writer_last_error(const rc_replay_writer *writer);
/** Appends one frame: @p record is players flag bytes (1 = present) then players x input_size
 *  input bytes (docs/frames.md); @p world is the state after the frame. */
RC_API rc_status rc_replay_writer_add_frame(rc_replay_writer *writer, const void *record, size_t size,
                                            const rc_world *world);
RC_API rc_status rc_replay_writer_finish(rc_replay_writer *writer);

typedef struct rc_replay rc_replay;
typedef struct rc_replay_info {
    uint32_t struct_size; /* sizeof(rc_replay_info) */
    uint32_t players;
    uint32_t input_size;
    uint32_t tick_hz;
    rc_frame start_frame;
    rc_frame end_frame; /* one past the last recorded frame */
    uint32_t keyframes;
    int complete; /* 0: the writer did not finish (the readable part is usable) */
    uint64_t schema_hash;
} rc_replay_info;
RC_API rc_status rc_replay_open(const char *path, rc_replay **out);
RC_API void rc_replay_close(rc_replay *replay);
RC_API const char *rc_replay_last_error(const rc_replay *replay);
RC_API rc_status rc_replay_get_info(const rc_replay *replay, rc_replay_info *out);
/** The recorded input record of @p frame (valid while the replay is open). */
RC_API rc_status rc_replay_inputs(const rc_replay *replay, rc_frame frame, const void **out_record, size_t *out_size);
RC_API rc_status rc_replay_hash(const rc_replay *replay, rc_frame frame, uint64_t *out_hash);
RC_API rc_status rc_replay_keyframe_frame(const rc_replay *replay, uint32_t index, rc_frame *out_frame);
/** Restores the latest keyframe at or before @p frame into @p world; *out_frame gets its frame. */
RC_API rc_status rc_replay_seek(const rc_replay *replay, rc_world *world, rc_frame frame, rc_frame *out_frame);

typedef struct rc_verify_report {
    uint32_t struct_size; /* sizeof(rc_verify_report) */
    uint64_t frames_checked;
    int ok;                  /* 1: every frame's hash matched */
    rc_frame first_mismatch; /* when ok == 0 */
    uint64_t expected;
    uint64_t actual;
} rc_verify_report;
/** Re-simulates the replay from its first keyframe with @p step and compares every frame's
 *  hash. @p world must have the replay's schema. A mismatch is reported (ok = 0) with RC_OK;
 *  a damaged keyframe or a replay with no readable frame is an error (RC_ERR_CORRUPT). A replay
 *  recorded with another simulation semantics (another iteration order) is RC_ERR_SCHEMA_MISMATCH
 *  with a message that says so, before any frame is stepped (docs/determinism.md). */
RC_API rc_status rc_replay_verify(const rc_replay *replay, rc_world *world, rc_step_fn step, void *user,
                                  rc_verify_report *out);

/* ------------------------------------------------------------------ sessions (docs/c-api.md, "Sessions") */

/** The settings of a match (C++ session_config; docs/net.md). Fill it with
 *  rc_session_config_default, then set what differs. A client adopts tick_hz, max_players and
 *  the input delays from the server's welcome. */
typedef struct rc_session_config {
    uint32_t struct_size;       /* sizeof(rc_session_config) */
    uint32_t tick_hz;           /* 60 */
    uint32_t max_players;       /* 2 (1..32) */
    uint32_t input_size;        /* 4: bytes of one player's input (1..64) */
    uint64_t input_layout_hash; /* rc_input_layout_hash of the input type; must match */
    uint64_t content_version;   /* the game's own version; must match */
    uint32_t input_delay;       /* 2 frames (0..60) */
    uint32_t max_input_delay;   /* 0: a fixed delay; above input_delay: adapts to the round trip */
    uint32_t prediction_window; /* 16 frames a client may run ahead of confirmed inputs (1..256) */
    uint32_t checksum_interval; /* 1: compare world hashes every Nth confirmed frame (0: never) */
    uint32_t interrupt_ms;      /* 500 */
    uint32_t disconnect_ms;     /* 5000 */
    /* Prediction of a late or missing input: repeat the last one, except the bytes where
     * no_repeat[i] != 0, which are predicted as 0 (a "fire" button). NULL: repeat every byte. */
    const uint8_t *no_repeat;
    uint32_t no_repeat_size; /* at most input_size */
} rc_session_config;
RC_API rc_status rc_session_config_default(rc_session_config *out);
/** The input layout hash of a padding-free input type described like a component: what C++'s
 *  make_session_config<Input> computes for the same layout. */
RC_API rc_status rc_input_layout_hash(const rc_type_desc *input, uint64_t *out_hash);

/** What a session tells the game (C++ session_event_kind; docs/net.md, "Events"). */
typedef enum rc_event_kind {
    RC_EVENT_CONNECTED = 0,
    RC_EVENT_SYNCHRONIZED = 1,
    RC_EVENT_REJECTED = 2,
    RC_EVENT_PLAYER_JOINED = 3,
    RC_EVENT_PLAYER_LEFT = 4,
    RC_EVENT_DISCONNECTED = 5,
    RC_EVENT_NETWORK_INTERRUPTED = 6,
    RC_EVENT_NETWORK_RESUMED = 7,
    RC_EVENT_DESYNC_DETECTED = 8,
    RC_EVENT_RESYNCHRONIZED = 9,
    RC_EVENT_WAIT_RECOMMENDED = 10,
    RC_EVENT_MATCH_ENDED = 11,
    RC_EVENT_RECORDING_FAILED = 12,
    RC_EVENT_DESYNC_UNVERIFIED = 13,
    RC_EVENT_CONNECTION_REFUSED = 14,
    RC_EVENT_SESSION_FAILED = 15, /* a step failed or the session was misused inside one: it has ended */
    RC_EVENT_RECONNECTING =
        16,                   /* client: reconnection attempt `count` starts; `cause`: why the last connection ended */
    RC_EVENT_RECONNECTED = 17 /* client: back in the match after `count` attempts (the world is the server's) */
} rc_event_kind;
/** Why a connection ended (C++ disconnect_cause): rc_event.cause of DISCONNECTED and PLAYER_LEFT. */
typedef enum rc_disconnect_cause {
    RC_DISCONNECT_NONE = 0,
    RC_DISCONNECT_CLOSED = 1,         /* the other side went away */
    RC_DISCONNECT_TIMED_OUT = 2,      /* nothing heard for disconnect_ms */
    RC_DISCONNECT_LEFT = 3,           /* the player said goodbye (server) */
    RC_DISCONNECT_MATCH_ENDED = 4,    /* the match ended */
    RC_DISCONNECT_REJECTED = 5,       /* the hello was refused: rc_event.reject says why */
    RC_DISCONNECT_REPLACED = 6,       /* a reconnection with the slot's token took over (server) */
    RC_DISCONNECT_VIOLATION = 7,      /* the peer broke the protocol or a limit */
    RC_DISCONNECT_CONNECT_FAILED = 8, /* no connection, or no answer to the hello (client) */
    RC_DISCONNECT_BAD_SNAPSHOT = 9    /* the server's snapshot could not be loaded (client) */
} rc_disconnect_cause;
/** Why the server refused a client (C++ wire::reject_reason; docs/protocol.md): rc_event.reject. */
typedef enum rc_reject_reason {
    RC_REJECT_NONE = 0,
    RC_REJECT_PROTOCOL = 1,
    RC_REJECT_SCHEMA = 2,
    RC_REJECT_INPUT = 3,
    RC_REJECT_CONTENT = 4,
    RC_REJECT_FULL = 6,
    RC_REJECT_TOKEN = 7,
    RC_REJECT_SPECTATORS = 9,
    RC_REJECT_JOIN_TOKEN = 10,
    RC_REJECT_MATCH = 11,
    RC_REJECT_DRAINING = 12
} rc_reject_reason;
/** Why a reported mismatch was not verified (C++ unverified_reason): rc_event.unverified. */
typedef enum rc_unverified_reason {
    RC_UNVERIFIED_NONE = 0,
    RC_UNVERIFIED_QUOTA = 1,
    RC_UNVERIFIED_SNAPSHOT_GONE = 2,
    RC_UNVERIFIED_BUDGET = 3,
    RC_UNVERIFIED_UPLOAD_TIMED_OUT = 4,
    RC_UNVERIFIED_UNREADABLE = 5,
    RC_UNVERIFIED_NO_DIFFERENCE = 6,
    RC_UNVERIFIED_REBUILD_FAILED = 7,
    RC_UNVERIFIED_UPLOAD_IN_PROGRESS = 8
} rc_unverified_reason;
/** One event (C++ session_event): decide on the fields, log the text. Strings stay valid until
 *  the next call on the session: copy them. Versioned by struct_size: a caller built against the
 *  first version (up to text, RC_EVENT_SIZE_V1 bytes) or the second (RC_EVENT_SIZE_V2) gets
 *  that version's fields only. */
typedef struct rc_event {
    uint32_t struct_size; /* sizeof(rc_event) */
    uint32_t kind;        /* an rc_event_kind */
    rc_frame frame;       /* the frame it concerns */
    int32_t slot;         /* the player slot concerned, -1 if none */
    const char *text;     /* details for a log, UTF-8 (wording may change between versions) */
    /* Since version 2: */
    uint32_t cause;           /* an rc_disconnect_cause (DISCONNECTED, PLAYER_LEFT) */
    uint32_t reject;          /* an rc_reject_reason (REJECTED; DISCONNECTED with cause REJECTED) */
    uint32_t unverified;      /* an rc_unverified_reason (DESYNC_UNVERIFIED) */
    uint32_t reserved;        /* 0 */
    uint64_t count;           /* WAIT_RECOMMENDED: frames to wait; CONNECTION_REFUSED: connections;
                                 RECONNECTING: the attempt (from 1); RECONNECTED: attempts it took;
                                 client DISCONNECTED: reconnection attempts made before giving up */
    const char *address;      /* server: the peer's "HOST:PORT" ("" if unknown) */
    const char *name;         /* server: the player's name from its hello ("" if none) */
    const char *path;         /* RECORDING_FAILED: the file that could not be written ("" otherwise) */
    const char *diverging;    /* DESYNC_DETECTED: what diverged, "pool.field" names separated by '\n' */
    uint32_t diverging_count; /* how many names are in diverging */
    /* Since version 3 (desync bisection; docs/net.md, "Desync forensics"): */
    const char *stage;    /* DESYNC_DETECTED: the first diverging stage ("apply inputs", a system,
                             "step" for an opaque step, "start of frame"); "" when not bisected */
    int32_t stage_index;  /* its index (0: apply inputs, 1..: the systems); -1: the start of the
                             frame, or not bisected */
    uint32_t stage_count; /* the frame's stages; 0 when not bisected */
} rc_event;
/** The size of the first version of rc_event (struct_size up to and including text). */
#define RC_EVENT_SIZE_V1 (offsetof(rc_event, cause))
/** The size of the second version of rc_event (up to and including diverging_count). */
#define RC_EVENT_SIZE_V2 (offsetof(rc_event, stage))
/** "timed_out", ... ("unknown" for a value that is no cause). */
RC_API const char *rc_disconnect_cause_name(uint32_t cause);
/** "full", ... ("none" for 0, "unknown" for a value no server sends). */
RC_API const char *rc_reject_reason_name(uint32_t reason);
/** "quota", ... ("unknown" for a value that is no reason). */
RC_API const char *rc_unverified_reason_name(uint32_t reason);
/** "desync_detected", ... ("unknown" for a value that is not a kind). */
RC_API const char *rc_event_kind_name(uint32_t kind);

/** Network and rollback figures (C++ session_stats). */
typedef struct rc_session_stats {
    uint32_t struct_size; /* sizeof(rc_session_stats) */
    double rtt_ms;
    double jitter_ms;
    double loss;
    double frames_ahead;
    double rollbacks_per_s;
    double resimulated_per_s;
    double bytes_in_per_s;
    double bytes_out_per_s;
    uint64_t rollbacks;
    uint64_t resimulated;
    uint64_t stall_frames;
    uint64_t replaced_inputs;
    uint64_t confirmed_frames;
    uint64_t desyncs;
    uint64_t unverified_desyncs;
    int32_t margin_ms;
    uint32_t input_delay;
    rc_frame current_frame;
    rc_frame confirmed_frame;
} rc_session_stats;

/** The clock telemetry is timed with: microseconds on any monotonic clock (C++ telemetry_clock). */
typedef uint64_t (*rc_telemetry_clock_fn)(void *user);
/** The clock a trace is timed with: nanoseconds on a monotonic clock (C++ trace_clock). NULL in
 *  the options: CLOCK_MONOTONIC, so traces of two processes on one machine share a timeline. */
typedef uint64_t (*rc_trace_clock_fn)(void *user);

/** What a client did on one frame (C++ frame_telemetry; docs/net.md, "Telemetry"). Entries are
 *  keyed by frame; a recent one may still change (confirmed, hash checked later). */
typedef struct rc_frame_telemetry {
    uint32_t struct_size;    /* sizeof(rc_frame_telemetry), in the first element of the array */
    uint32_t rollback_depth; /* frames back the deepest rollback of this frame's ticks went */
    rc_frame frame;
    uint32_t resimulated;   /* frames re-simulated by this frame's ticks */
    uint32_t resimulate_us; /* time re-simulating them (the telemetry clock) */
    uint32_t step_us;       /* time stepping this frame itself */
    uint32_t stalls;        /* ticks refused on this frame (prediction window full) */
    uint32_t bytes_in;      /* payload bytes received since the previous tick */
    uint32_t bytes_out;     /* payload bytes sent since the previous tick */
    float frames_ahead;     /* as of the tick */
    float rtt_ms;
    float jitter_ms;
    uint32_t input_delay;
    int input_replaced; /* the server substituted this player's input for this frame */
    int confirmed;      /* every player's input for this frame is confirmed */
    int hash_checked;   /* the world hash after this frame was computed for the server */
} rc_frame_telemetry;

/** What one server tick cost and carried (C++ server_frame_telemetry). */
typedef struct rc_server_frame_telemetry {
    uint32_t struct_size; /* sizeof(rc_server_frame_telemetry), in the first element of the array */
    uint32_t players;     /* occupied player slots */
    rc_frame frame;
    uint32_t tick_us;         /* the whole tick (the telemetry clock) */
    uint32_t step_us;         /* the step alone */
    uint32_t replaced_inputs; /* occupied slots whose input was substituted */
    uint32_t bytes_in;        /* from all clients since the previous tick */
    uint32_t bytes_out;       /* to all clients since the previous tick */
} rc_server_frame_telemetry;

/** What the server measured of one player slot's client on one frame (C++ server_client_telemetry). */
typedef struct rc_server_client_telemetry {
    uint32_t struct_size; /* sizeof(rc_server_client_telemetry), in the first element of the array */
    int32_t margin_ms;    /* how early its inputs arrive (low percentile), as of the tick */
    rc_frame frame;
    float rtt_ms;
    uint32_t bytes_in;
    uint32_t bytes_out;
    int present;        /* a connected player held the slot */
    int input_replaced; /* the server substituted the slot's input for this frame */
} rc_server_client_telemetry;

/** Poll mode: one frame the game must step now (C++ step_request). retcon has already restored
 *  the world where a rollback needs it. */
typedef struct rc_request {
    uint32_t struct_size;   /* sizeof(rc_request) */
    int resimulating;       /* 1 while a rollback re-simulates frames simulated before */
    rc_world *world;        /* the world to step: the session's */
    rc_frame_inputs inputs; /* the frame and its inputs; valid until rc_*_request_done (last, so it
                               can grow) */
} rc_request;

/** How deep a game's own trace slices (rc_*_trace_begin) nest at most. */
#define RC_TRACE_MAX_DEPTH 32u

/* Transports. A session uses one; destroy the session first. */
typedef struct rc_transport rc_transport;
RC_API void rc_transport_destroy(rc_transport *transport);
/** An ENet server on UDP @p port (0: any free port, see rc_transport_local_port) with peer slots
 *  for @p max_players players and @p max_spectators spectators (the session's
 *  rc_server_options.max_spectators, 8 by default) plus connections mid-handshake. */
RC_API rc_status rc_enet_server_create(uint16_t port, uint32_t max_players, uint32_t max_spectators,
                                       rc_transport **out);
/** An ENet client that connects to @p host : @p port during its session's first update. */
RC_API rc_status rc_enet_client_create(const char *host, uint16_t port, rc_transport **out);
RC_API rc_status rc_transport_local_port(const rc_transport *transport, uint16_t *out_port);

/** A simulated network in the process, on the sessions' clock (for tests: C++ sim_network). */
typedef struct rc_sim_network rc_sim_network;
/** One direction of a simulated link. */
typedef struct rc_link {
    uint32_t struct_size; /* sizeof(rc_link) */
    uint32_t latency_ms;  /* one-way base delay */
    uint32_t jitter_ms;   /* uniform extra delay in [0, jitter] */
    double loss;          /* probability an unreliable packet is dropped */
    double duplicate;     /* ... delivered twice */
    double reorder;       /* ... delayed past later ones */
} rc_link;
RC_API rc_status rc_sim_network_create(uint64_t seed, rc_sim_network **out);
/** Destroy its transports first. */
RC_API void rc_sim_network_destroy(rc_sim_network *network);
/** The network's server end (one per network). */
RC_API rc_status rc_sim_network_server(rc_sim_network *network, rc_transport **out);
/** A new client end, linked to the server with @p up and @p down (NULL: a perfect link). */
RC_API rc_status rc_sim_network_connect(rc_sim_network *network, const rc_link *up, const rc_link *down,
                                        rc_transport **out);
/** Cuts link @p link both ways (@p blackout != 0: nothing delivered, reliable packets held) or
 *  restores it. Links are numbered in the order they were made, from 0: each connect makes one,
 *  and so does each reconnection of a client end (docs/net.md, "Reconnecting"). */
RC_API rc_status rc_sim_network_set_blackout(rc_sim_network *network, uint32_t link, int blackout);

/* The server: the clock and the authority on inputs (C++ server_session). */
typedef struct rc_server_options {
    uint32_t struct_size;      /* sizeof(rc_server_options) */
    const char *record_path;   /* record the match as a replay here (NULL: not recorded) */
    const char *forensics_dir; /* write both snapshots of a desync here (NULL: not written) */
    uint32_t max_spectators;   /* 8 */
    uint32_t hello_timeout_ms; /* 2000 */
    uint32_t load_timeout_ms;  /* 30000 */
    uint32_t max_packets_per_second;
    uint32_t max_uploads_per_client;
    uint32_t upload_size_factor;
    uint32_t max_upload_bytes;
    uint64_t upload_budget_bytes;
    uint32_t upload_timeout_ms;
    uint32_t resync_interval_ms;
    uint32_t max_false_claims;
    uint32_t max_forensic_files;
    int verify_spectators;
    uint32_t history_frames;  /* 256 */
    uint32_t forensic_frames; /* 32: an image is kept for every checksum frame of these */
    uint32_t end_timeout_ms;  /* 2000 */
    /* Also since version 2: telemetry (docs/net.md, "Telemetry"): */
    uint32_t telemetry_frames;             /* 600 frames kept (0: off) */
    rc_telemetry_clock_fn telemetry_clock; /* NULL: a monotonic clock of the system */
    void *telemetry_clock_user;            /* passed to telemetry_clock */
    /* Since version 3: a trace (docs/c-api.md, "Traces"): */
    uint32_t trace_records;         /* 0: no trace (the default); else the newest records kept (40 bytes each) */
    uint32_t trace_pid;             /* the pid written; 0: the operating system's process id */
    const char *trace_process_name; /* the process track's name (copied); NULL: "retcon server" */
    rc_trace_clock_fn trace_clock;  /* NULL: CLOCK_MONOTONIC */
    void *trace_clock_user;         /* passed to trace_clock */
} rc_server_options;
/** The size of the second version of rc_server_options (up to telemetry_clock_user): a caller
 *  built against it keeps no trace. */
#define RC_SERVER_OPTIONS_SIZE_V2 (offsetof(rc_server_options, trace_records))
RC_API rc_status rc_server_options_default(rc_server_options *out);

typedef struct rc_server_info {
    uint32_t struct_size; /* sizeof(rc_server_info) */
    rc_frame frame;       /* the next frame to confirm */
    uint32_t players;     /* occupied player slots */
    int ended;            /* end_match was called (or the session failed) */
    int finished;         /* ended and every client acknowledged: destroy it */
} rc_server_info;

typedef struct rc_server rc_server;
/** A server stepping @p world. @p step non-NULL: callback mode (rc_server_update calls it);
 *  NULL: poll mode (rc_server_update prepares requests). @p options NULL: the defaults. The
 *  world and transport must outlive the server. */
RC_API rc_status rc_server_create(const rc_session_config *config, rc_world *world, rc_transport *transport,
                                  rc_step_fn step, void *user, const rc_server_options *options, rc_server **out);
RC_API void rc_server_destroy(rc_server *server);
RC_API const char *rc_server_last_error(const rc_server *server);
/** Receives what arrived by @p now_ms and runs every frame due: callback mode steps them here;
 *  poll mode prepares the first request (rc_server_next_request). */
RC_API rc_status rc_server_update(rc_server *server, uint64_t now_ms);
/** Poll mode: the request to step now; *has_request = 0 when this update is complete. */
RC_API rc_status rc_server_next_request(rc_server *server, rc_request *out, int *has_request);
/** Poll mode: the request for @p frame was stepped; prepares the next one. */
RC_API rc_status rc_server_request_done(rc_server *server, rc_frame frame);
/** Poll mode: the step of the outstanding request failed: the match ends (RC_EVENT_SESSION_FAILED
 *  with @p why). */
RC_API rc_status rc_server_request_failed(rc_server *server, const char *why);
/** The next event; *has_event = 0 when there is none. */
RC_API rc_status rc_server_next_event(rc_server *server, rc_event *out, int *has_event);
/** Ends the match without blocking; keep calling rc_server_update until info.finished. */
RC_API rc_status rc_server_end_match(rc_server *server);
RC_API rc_status rc_server_get_info(const rc_server *server, rc_server_info *out);
/** Figures of the client in @p slot (zeros for an empty slot). */
RC_API rc_status rc_server_client_stats(const rc_server *server, uint32_t slot, rc_session_stats *out);
RC_API rc_status rc_server_totals(const rc_server *server, rc_session_stats *out);
/** *player = the identity the host's admission gave the player of @p slot (0: none). */
RC_API rc_status rc_server_slot_player(const rc_server *server, uint32_t slot, uint64_t *player);
/** *known = 1 if @p token (RC_RECONNECT_TOKEN_SIZE bytes) is the reconnect token of one of
 *  this match's slots. */
RC_API rc_status rc_server_knows_token(const rc_server *server, const void *token, size_t size, int *known);
/** Telemetry of the last ticks, oldest first, into the caller's array of @p capacity entries
 *  (set out[0].struct_size); *count = how many were written (the newest, if fewer fit than are
 *  kept). @p out NULL and @p capacity 0: *count = the frames kept at most. Allocates nothing. */
RC_API rc_status rc_server_telemetry(const rc_server *server, rc_server_frame_telemetry *out, size_t capacity,
                                     size_t *count);
/** As rc_server_telemetry, what the server measured of player slot @p slot's client. */
RC_API rc_status rc_server_slot_telemetry(const rc_server *server, uint32_t slot, rc_server_client_telemetry *out,
                                          size_t capacity, size_t *count);
/** Writes the trace kept so far (rc_server_options.trace_records) to @p path as Trace Event
 *  Format JSON, atomically (docs/c-api.md, "Traces"). Allocates and does I/O: call it between
 *  updates or at exit. RC_ERR_ARGUMENT when the server keeps no trace, RC_ERR_IO when the file
 *  cannot be written. */
RC_API rc_status rc_server_write_trace(rc_server *server, const char *path);
/** The id of the game's slice name @p name (copied) for rc_server_trace_begin. Allocates: call it
 *  once per name, before the match. With no trace kept *out_id is 0, which begin accepts. */
RC_API rc_status rc_server_trace_name(rc_server *server, const char *name, uint32_t *out_id);
/** Starts a slice of the game's own (name @p id from rc_server_trace_name) on the trace's game
 *  track; slices nest up to RC_TRACE_MAX_DEPTH deep. Allocates nothing: call it in the step. */
RC_API rc_status rc_server_trace_begin(rc_server *server, uint32_t id);
/** Ends the slice begun last (RC_ERR_ARGUMENT if none is open). Allocates nothing. */
RC_API rc_status rc_server_trace_end(rc_server *server);

/* The client: prediction, rollback and re-simulation (C++ client_session). */
#define RC_RECONNECT_TOKEN_SIZE 16u
typedef struct rc_client_options {
    uint32_t struct_size;        /* sizeof(rc_client_options) */
    const char *name;            /* "player" */
    int spectator;               /* watch without a slot */
    const void *join_token;      /* opaque admission bytes from the matchmaker (docs/join-tokens.md) */
    size_t join_token_size;      /* 0: none */
    const void *reconnect_token; /* a previous connection's token, to take its slot back */
    size_t reconnect_token_size; /* 0 or RC_RECONNECT_TOKEN_SIZE */
    uint32_t connect_timeout_ms; /* 5000 (0: wait for the transport) */
    /* Since version 2 (C++ reconnect_policy; docs/net.md, "Reconnecting"): */
    uint32_t reconnect_attempts;       /* 0: never reconnect by itself (the default) */
    uint32_t reconnect_backoff_ms;     /* 500: wait after the first failed attempt, doubling */
    uint32_t reconnect_max_backoff_ms; /* 4000: the longest wait */
    /* Also since version 2: telemetry (docs/net.md, "Telemetry"): */
    uint32_t telemetry_frames;             /* 600 frames kept (0: off) */
    rc_telemetry_clock_fn telemetry_clock; /* NULL: a monotonic clock of the system */
    void *telemetry_clock_user;            /* passed to telemetry_clock */
    /* Since version 3: a trace (docs/c-api.md, "Traces"): */
    uint32_t trace_records;         /* 0: no trace (the default); else the newest records kept (40 bytes each) */
    uint32_t trace_pid;             /* the pid written; 0: the operating system's process id */
    const char *trace_process_name; /* the process track's name (copied); NULL: "retcon client" */
    rc_trace_clock_fn trace_clock;  /* NULL: CLOCK_MONOTONIC */
    void *trace_clock_user;         /* passed to trace_clock */
} rc_client_options;
/** The size of the first version of rc_client_options (up to connect_timeout_ms): a caller
 *  built against it gets no reconnection and the default telemetry. */
#define RC_CLIENT_OPTIONS_SIZE_V1 (offsetof(rc_client_options, reconnect_attempts))
/** The size of the second version (up to telemetry_clock_user): a caller built against it keeps
 *  no trace. */
#define RC_CLIENT_OPTIONS_SIZE_V2 (offsetof(rc_client_options, trace_records))
RC_API rc_status rc_client_options_default(rc_client_options *out);

typedef enum rc_client_state {
    RC_CLIENT_CONNECTING = 0,
    RC_CLIENT_LOADING = 1,
    RC_CLIENT_RUNNING = 2,
    RC_CLIENT_REJECTED = 3,
    RC_CLIENT_DISCONNECTED = 4
} rc_client_state;
typedef struct rc_client_info {
    uint32_t struct_size; /* sizeof(rc_client_info) */
    uint32_t state;       /* an rc_client_state */
    int32_t slot;         /* -1: spectator, or before the welcome */
    uint32_t players;     /* from the welcome (0 before) */
    uint32_t tick_hz;     /* from the welcome (0 before) */
    rc_frame current_frame;
    rc_frame confirmed_frame; /* every frame below is confirmed */
} rc_client_info;

typedef struct rc_client rc_client;
/** A client stepping @p world (step NULL: poll mode, as for rc_server_create). Of @p config it
 *  uses input_size, input_layout_hash, content_version, no_repeat and its local tuning: leave
 *  tick_hz, max_players and the input delays at rc_session_config_default's, the welcome
 *  replaces them with the server's. */
RC_API rc_status rc_client_create(const rc_session_config *config, rc_world *world, rc_transport *transport,
                                  rc_step_fn step, void *user, const rc_client_options *options, rc_client **out);
RC_API void rc_client_destroy(rc_client *client);
RC_API const char *rc_client_last_error(const rc_client *client);
/** Receives what arrived by @p now_ms and runs every frame due with this player's @p input
 *  (input_size bytes; NULL and 0: the previous update's input again, zeros at first; a
 *  spectator's is checked but not used). Callback mode steps the frames here; poll mode prepares the first
 *  request (rc_client_next_request). */
RC_API rc_status rc_client_update(rc_client *client, uint64_t now_ms, const void *input, size_t size);
RC_API rc_status rc_client_next_request(rc_client *client, rc_request *out, int *has_request);
RC_API rc_status rc_client_request_done(rc_client *client, rc_frame frame);
RC_API rc_status rc_client_request_failed(rc_client *client, const char *why);
RC_API rc_status rc_client_next_event(rc_client *client, rc_event *out, int *has_event);
/** Leaves the match (goodbye, disconnect). */
RC_API rc_status rc_client_leave(rc_client *client);
RC_API rc_status rc_client_get_info(const rc_client *client, rc_client_info *out);
RC_API rc_status rc_client_stats(const rc_client *client, rc_session_stats *out);
/** *predicted = 1 when @p slot's input for @p frame is not confirmed yet (draw it as uncertain). */
RC_API rc_status rc_client_is_predicted(const rc_client *client, rc_frame frame, uint32_t slot, int *predicted);
/** The reconnect token the server issued (RC_RECONNECT_TOKEN_SIZE bytes; all zero before the
 *  welcome and for a spectator), into a caller buffer. */
RC_API rc_status rc_client_reconnect_token(const rc_client *client, void *buffer, size_t capacity, size_t *needed);
/** Telemetry of the last frames, oldest first, into the caller's array of @p capacity entries
 *  (set out[0].struct_size); *count = how many were written (the newest, if fewer fit than are
 *  kept). @p out NULL and @p capacity 0: *count = the frames kept at most. Allocates nothing. */
RC_API rc_status rc_client_telemetry(const rc_client *client, rc_frame_telemetry *out, size_t capacity, size_t *count);
/** As rc_server_write_trace, the client's trace (rc_client_options.trace_records). */
RC_API rc_status rc_client_write_trace(rc_client *client, const char *path);
/** As rc_server_trace_name. */
RC_API rc_status rc_client_trace_name(rc_client *client, const char *name, uint32_t *out_id);
/** As rc_server_trace_begin. */
RC_API rc_status rc_client_trace_begin(rc_client *client, uint32_t id);
/** As rc_server_trace_end. */
RC_API rc_status rc_client_trace_end(rc_client *client);

#ifdef __cplusplus
}
#endif

#endif /* RETCON_H */
