// capi:csharp - retcon's C API from C# through P/Invoke, as a Unity game on Mono reaches it
// (docs/c-api.md, "From C# (Unity)"). Console program for Mono (`mcs -unsafe`), static methods
// only, and no delegate is ever handed to native code: sessions run in poll mode, the way
// IL2CPP builds must drive them.
//
//     mono RetconTests.exe <path to libretcon_c.so> <path to c_schema_probe>
//
// 1. The API's structs as declared here have the C compiler's sizes and offsets, as
//    tests/capi/c_schema_probe.c prints them; the game's structs have no implicit padding.
// 2. Rollback basics: a schema declared from C# structs (offsets from Marshal.OffsetOf), a
//    simulation stepped from C# through rc_component_get pointers, every frame saved to an
//    rc_ring; restoring an earlier frame gives that frame's hash back, and re-simulating from
//    it reproduces every later hash.
// 3. A match over rc_sim_network in poll mode: one server and two clients, each with its own
//    world, on links with latency, jitter and loss. The step is a C# static method reading
//    rc_frame_inputs and iterating an rc_query. No desync, rollbacks happen, both clients
//    synchronize and run, and every frame both a client and the server stepped (and the client
//    can no longer roll back) has the same world hash on both.
// Exit code 0 on success; otherwise 1 and a line saying what failed.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;

static class Native {
    // The library's soname: Main dlopens the path it is given first (see Run), and the dynamic
    // loader then answers Mono's dlopen of the bare soname with the library already loaded.
    public const string Lib = "libretcon_c.so.0";

    public const int RC_OK = 0;
    public const int RC_ERR_ARGUMENT = 2;
    public const int RC_ERR_NOT_FOUND = 11;

    public const uint RC_I8 = 2, RC_I32 = 4, RC_U8 = 6, RC_U32 = 8, RC_U64 = 9, RC_F32 = 10;

    public const uint RC_EVENT_SYNCHRONIZED = 1, RC_EVENT_DESYNC_DETECTED = 8, RC_EVENT_MATCH_ENDED = 11,
                      RC_EVENT_SESSION_FAILED = 15, RC_EVENT_KINDS = 16;
    public const uint RC_CLIENT_RUNNING = 2;

    // ---- the API's structs, field for field as in retcon.h (plain C layout: Sequential)

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_field {
        public IntPtr name;
        public uint offset, size, kind, record;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_type_desc {
        public uint struct_size;
        public IntPtr name;
        public uint size;
        public IntPtr fields;
        public uint field_count;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_query_desc {
        public uint struct_size;
        public IntPtr include;
        public uint include_count;
        public IntPtr exclude;
        public uint exclude_count;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_chunk {
        public uint count;
        public IntPtr entities; // const rc_entity *
        public IntPtr columns;  // void *const *
        public IntPtr rows;     // const uint32_t *const *
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_frame_inputs {
        public ulong frame;
        public uint players;
        public uint input_size;
        public IntPtr flags;  // players bytes
        public IntPtr inputs; // players x input_size bytes
        public IntPtr record;
        public UIntPtr record_size;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_session_config {
        public uint struct_size, tick_hz, max_players, input_size;
        public ulong input_layout_hash, content_version;
        public uint input_delay, max_input_delay, prediction_window, checksum_interval, interrupt_ms, disconnect_ms;
        public IntPtr no_repeat;
        public uint no_repeat_size;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_event {
        public uint struct_size, kind;
        public ulong frame;
        public int slot;
        public IntPtr text; // valid until the next call on the session
        public uint cause, reject, unverified, reserved; // since version 2 (docs/c-api.md, "Events")
        public ulong count;
        public IntPtr address, name, path, diverging;
        public uint diverging_count;
        public IntPtr stage; // since version 3 (docs/c-api.md, "Events")
        public int stage_index;
        public uint stage_count;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_session_stats {
        public uint struct_size;
        public double rtt_ms, jitter_ms, loss, frames_ahead, rollbacks_per_s, resimulated_per_s, bytes_in_per_s,
            bytes_out_per_s;
        public ulong rollbacks, resimulated, stall_frames, replaced_inputs, confirmed_frames, desyncs,
            unverified_desyncs;
        public int margin_ms;
        public uint input_delay;
        public ulong current_frame, confirmed_frame;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_request {
        public uint struct_size;
        public int resimulating;
        public IntPtr world;
        public rc_frame_inputs inputs;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_link {
        public uint struct_size, latency_ms, jitter_ms;
        public double loss, duplicate, reorder;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_server_info {
        public uint struct_size;
        public ulong frame;
        public uint players;
        public int ended, finished;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_client_options {
        public uint struct_size;
        public IntPtr name;
        public int spectator;
        public IntPtr join_token;
        public UIntPtr join_token_size;
        public IntPtr reconnect_token;
        public UIntPtr reconnect_token_size;
        public uint connect_timeout_ms;
        public uint reconnect_attempts, reconnect_backoff_ms, reconnect_max_backoff_ms;
        public uint telemetry_frames;
        public IntPtr telemetry_clock, telemetry_clock_user;
        public uint trace_records, trace_pid; // since version 3 (docs/c-api.md, "Traces")
        public IntPtr trace_process_name, trace_clock, trace_clock_user;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct rc_client_info {
        public uint struct_size, state;
        public int slot;
        public uint players, tick_hz;
        public ulong current_frame, confirmed_frame;
    }

    // ---- functions. A `const char *` the library returns is an IntPtr read with
    // Marshal.PtrToStringAnsi: declared as string, the marshaller would free the library's memory.

    [DllImport("libdl.so.2")] public static extern IntPtr dlopen(string path, int flags);
    [DllImport("libdl.so.2")] public static extern IntPtr dlerror();

    [DllImport(Lib)] public static extern uint rc_abi_version();
    [DllImport(Lib)] public static extern IntPtr rc_last_error();
    [DllImport(Lib)] public static extern IntPtr rc_status_name(int status);

    [DllImport(Lib)] public static extern int rc_schema_create(out IntPtr schema);
    [DllImport(Lib)] public static extern void rc_schema_destroy(IntPtr schema);
    [DllImport(Lib)] public static extern IntPtr rc_schema_last_error(IntPtr schema);
    [DllImport(Lib)] public static extern int rc_schema_component(IntPtr schema, ref rc_type_desc type, out uint id);
    [DllImport(Lib)] public static extern int rc_schema_resource(IntPtr schema, ref rc_type_desc type, out uint id);
    [DllImport(Lib)] public static extern int rc_schema_hash(IntPtr schema, out ulong hash);

    [DllImport(Lib)] public static extern int rc_world_create(IntPtr schema, out IntPtr world);
    [DllImport(Lib)] public static extern void rc_world_destroy(IntPtr world);
    [DllImport(Lib)] public static extern IntPtr rc_world_last_error(IntPtr world);
    [DllImport(Lib)] public static extern int rc_entity_create(IntPtr world, out ulong entity);
    [DllImport(Lib)]
    public static extern int rc_component_add(IntPtr world, ulong entity, uint component, IntPtr value, UIntPtr size);
    [DllImport(Lib)]
    public static extern int rc_component_get(IntPtr world, ulong entity, uint component, out IntPtr p);
    [DllImport(Lib)] public static extern int rc_resource_set(IntPtr world, uint resource, IntPtr value, UIntPtr size);
    [DllImport(Lib)] public static extern int rc_resource_get(IntPtr world, uint resource, out IntPtr p);
    [DllImport(Lib)] public static extern int rc_world_hash(IntPtr world, out ulong hash);

    [DllImport(Lib)] public static extern int rc_query_create(IntPtr world, ref rc_query_desc desc, out IntPtr query);
    [DllImport(Lib)] public static extern void rc_query_destroy(IntPtr query);
    [DllImport(Lib)] public static extern IntPtr rc_query_last_error(IntPtr query);
    [DllImport(Lib)] public static extern int rc_query_next(IntPtr query, out rc_chunk chunk, out int has_chunk);

    [DllImport(Lib)] public static extern int rc_ring_create(uint capacity, out IntPtr ring);
    [DllImport(Lib)] public static extern void rc_ring_destroy(IntPtr ring);
    [DllImport(Lib)] public static extern IntPtr rc_ring_last_error(IntPtr ring);
    [DllImport(Lib)] public static extern int rc_ring_save(IntPtr ring, IntPtr world, ulong frame);
    [DllImport(Lib)] public static extern int rc_ring_restore(IntPtr ring, IntPtr world, ulong frame);

    // Structs that start with struct_size go in by ref (the caller sets the size first).
    [DllImport(Lib)] public static extern int rc_session_config_default(ref rc_session_config config);
    [DllImport(Lib)] public static extern int rc_input_layout_hash(ref rc_type_desc input, out ulong hash);
    [DllImport(Lib)] public static extern IntPtr rc_event_kind_name(uint kind);

    [DllImport(Lib)] public static extern void rc_transport_destroy(IntPtr transport);
    [DllImport(Lib)] public static extern int rc_sim_network_create(ulong seed, out IntPtr network);
    [DllImport(Lib)] public static extern void rc_sim_network_destroy(IntPtr network);
    [DllImport(Lib)] public static extern int rc_sim_network_server(IntPtr network, out IntPtr transport);
    [DllImport(Lib)]
    public static extern int rc_sim_network_connect(IntPtr network, ref rc_link up, ref rc_link down,
                                                    out IntPtr transport);

    // step: IntPtr.Zero (poll mode); options: IntPtr.Zero (the defaults).
    [DllImport(Lib)]
    public static extern int rc_server_create(ref rc_session_config config, IntPtr world, IntPtr transport,
                                              IntPtr step, IntPtr user, IntPtr options, out IntPtr server);
    [DllImport(Lib)] public static extern void rc_server_destroy(IntPtr server);
    [DllImport(Lib)] public static extern IntPtr rc_server_last_error(IntPtr server);
    [DllImport(Lib)] public static extern int rc_server_update(IntPtr server, ulong now_ms);
    [DllImport(Lib)]
    public static extern int rc_server_next_request(IntPtr server, ref rc_request request, out int has);
    [DllImport(Lib)] public static extern int rc_server_request_done(IntPtr server, ulong frame);
    [DllImport(Lib)] public static extern int rc_server_request_failed(IntPtr server, string why);
    [DllImport(Lib)] public static extern int rc_server_next_event(IntPtr server, ref rc_event ev, out int has);
    [DllImport(Lib)] public static extern int rc_server_end_match(IntPtr server);
    [DllImport(Lib)] public static extern int rc_server_get_info(IntPtr server, ref rc_server_info info);
    [DllImport(Lib)] public static extern int rc_server_totals(IntPtr server, ref rc_session_stats stats);

    [DllImport(Lib)]
    public static extern int rc_client_create(ref rc_session_config config, IntPtr world, IntPtr transport,
                                              IntPtr step, IntPtr user, ref rc_client_options options,
                                              out IntPtr client);
    [DllImport(Lib)] public static extern void rc_client_destroy(IntPtr client);
    [DllImport(Lib)] public static extern IntPtr rc_client_last_error(IntPtr client);
    [DllImport(Lib)]
    public static extern int rc_client_update(IntPtr client, ulong now_ms, ref Input input, UIntPtr size);
    [DllImport(Lib)]
    public static extern int rc_client_next_request(IntPtr client, ref rc_request request, out int has);
    [DllImport(Lib)] public static extern int rc_client_request_done(IntPtr client, ulong frame);
    [DllImport(Lib)] public static extern int rc_client_request_failed(IntPtr client, string why);
    [DllImport(Lib)] public static extern int rc_client_next_event(IntPtr client, ref rc_event ev, out int has);
    [DllImport(Lib)] public static extern int rc_client_leave(IntPtr client);
    [DllImport(Lib)] public static extern int rc_client_get_info(IntPtr client, ref rc_client_info info);
    [DllImport(Lib)] public static extern int rc_client_write_trace(IntPtr client, string path);
    [DllImport(Lib)] public static extern int rc_client_trace_name(IntPtr client, string name, out uint id);
    [DllImport(Lib)] public static extern int rc_client_trace_begin(IntPtr client, uint id);
    [DllImport(Lib)] public static extern int rc_client_trace_end(IntPtr client);
    [DllImport(Lib)] public static extern int rc_client_stats(IntPtr client, ref rc_session_stats stats);
}

// ---- the game's types: padding-free, fields at multiples of their width (docs/c-api.md)

[StructLayout(LayoutKind.Sequential)]
struct Body {
    public int slot; // the player slot that drives it, -1 for none
    public int x, y;
    public int vx, vy;
    public float heading;
}

[StructLayout(LayoutKind.Sequential)]
struct GameState {
    public uint frame;
    public uint steps;
    public ulong mix; // folds in every input the step saw
}

[StructLayout(LayoutKind.Sequential)]
struct Input {
    public sbyte dx, dy;
    public byte buttons;
    public byte pad; // explicit: no implicit padding anywhere
}

class TestFailure : Exception {
    public TestFailure(string message) : base(message) {}
}

static unsafe class RetconTests {
    static readonly List<IntPtr> names = new List<IntPtr>(); // C strings the schemas were given

    static void Check(bool condition, string message) {
        if (!condition) throw new TestFailure(message);
    }

    static string Text(IntPtr s) { return s == IntPtr.Zero ? "" : Marshal.PtrToStringAnsi(s); }

    /// Fails with the handle's message unless status is RC_OK (handle_error: its rc_*_last_error).
    static void Call(int status, string what, IntPtr handle_error) {
        if (status == Native.RC_OK) return;
        throw new TestFailure(what + " returned " + Text(Native.rc_status_name(status)) + ": " + Text(handle_error));
    }

    static IntPtr CString(string s) {
        IntPtr p = Marshal.StringToHGlobalAnsi(s);
        names.Add(p);
        return p;
    }

    static Native.rc_field Field(Type t, string member, uint kind) {
        Native.rc_field f;
        f.name = CString(member);
        f.offset = (uint)Marshal.OffsetOf(t, member).ToInt32();
        f.size = (uint)Marshal.SizeOf(t.GetField(member).FieldType);
        f.kind = kind;
        f.record = 0;
        return f;
    }

    /// A type description of @p t for rc_schema_*: offsets and sizes from the marshaller, the way
    /// C takes them from offsetof and sizeof. @p fields lives as long as the caller's frame.
    static Native.rc_type_desc Describe(Type t, Native.rc_field* fields, int count) {
        Native.rc_type_desc d;
        d.struct_size = (uint)sizeof(Native.rc_type_desc);
        d.name = CString(t.Name);
        d.size = (uint)Marshal.SizeOf(t);
        d.fields = (IntPtr)fields;
        d.field_count = (uint)count;
        return d;
    }

    // ---------------------------------------------------------------- 1. layouts

    /// Every rc_* struct declared in Native has the C compiler's size, and the same fields at the
    /// same offsets, as `c_schema_probe --sizes` prints them ("sizeof rc_field 24", "offsetof
    /// rc_field.name 0"): a header change that the declarations here miss fails by name.
    static void Layouts(string probe) {
        var sizes = new Dictionary<string, int>();
        var offsets = new Dictionary<string, int>(); // "rc_field.name"
        var run = new ProcessStartInfo(probe, "--sizes");
        run.UseShellExecute = false;
        run.RedirectStandardOutput = true;
        using (Process p = Process.Start(run)) {
            string line;
            while ((line = p.StandardOutput.ReadLine()) != null) {
                string[] w = line.Split(' ');
                if (w.Length != 3) continue;
                if (w[0] == "sizeof") sizes[w[1]] = int.Parse(w[2]);
                if (w[0] == "offsetof") offsets[w[1]] = int.Parse(w[2]);
            }
            p.WaitForExit();
            Check(p.ExitCode == 0, probe + " --sizes exited with " + p.ExitCode);
        }
        int structs = 0, fields = 0;
        foreach (Type t in typeof(Native).GetNestedTypes()) {
            if (!t.IsValueType || !t.Name.StartsWith("rc_")) continue;
            Check(sizes.ContainsKey(t.Name), t.Name + " is declared here but not in retcon.h (or the probe)");
            Check(Marshal.SizeOf(t) == sizes[t.Name],
                  t.Name + " is " + Marshal.SizeOf(t) + " bytes here, " + sizes[t.Name] + " in C");
            int declared = 0;
            foreach (FieldInfo f in t.GetFields(BindingFlags.Public | BindingFlags.Instance)) {
                string name = t.Name + "." + f.Name;
                Check(offsets.ContainsKey(name), name + " is declared here but not in C");
                int at = Marshal.OffsetOf(t, f.Name).ToInt32();
                Check(at == offsets[name], name + " is at " + at + " here, " + offsets[name] + " in C");
                ++declared;
            }
            foreach (string c in offsets.Keys)
                if (c.StartsWith(t.Name + "."))
                    Check(t.GetField(c.Substring(t.Name.Length + 1)) != null, c + " is missing here");
            ++structs;
            fields += declared;
        }
        // The game's types: Sequential with no implicit padding, the rule rc_schema_* checks.
        foreach (Type t in new Type[] { typeof(Body), typeof(GameState), typeof(Input) }) {
            int sum = 0;
            foreach (FieldInfo f in t.GetFields(BindingFlags.Public | BindingFlags.Instance))
                sum += Marshal.SizeOf(f.FieldType);
            Check(Marshal.SizeOf(t) == sum, t.Name + " has " + (Marshal.SizeOf(t) - sum) + " bytes of padding");
        }
        Console.WriteLine("layouts: " + structs + " structs, " + fields + " fields as the C compiler lays them out");
    }

    // ---------------------------------------------------------------- the game

    struct Schema {
        public IntPtr handle;
        public uint body, state;
    }

    static Schema DeclareSchema() {
        Schema s;
        Call(Native.rc_schema_create(out s.handle), "rc_schema_create", Native.rc_last_error());
        Native.rc_field* body = stackalloc Native.rc_field[6];
        body[0] = Field(typeof(Body), "slot", Native.RC_I32);
        body[1] = Field(typeof(Body), "x", Native.RC_I32);
        body[2] = Field(typeof(Body), "y", Native.RC_I32);
        body[3] = Field(typeof(Body), "vx", Native.RC_I32);
        body[4] = Field(typeof(Body), "vy", Native.RC_I32);
        body[5] = Field(typeof(Body), "heading", Native.RC_F32);
        Native.rc_type_desc d = Describe(typeof(Body), body, 6);
        Call(Native.rc_schema_component(s.handle, ref d, out s.body), "rc_schema_component(Body)",
             Native.rc_schema_last_error(s.handle));
        Native.rc_field* state = stackalloc Native.rc_field[3];
        state[0] = Field(typeof(GameState), "frame", Native.RC_U32);
        state[1] = Field(typeof(GameState), "steps", Native.RC_U32);
        state[2] = Field(typeof(GameState), "mix", Native.RC_U64);
        Native.rc_type_desc r = Describe(typeof(GameState), state, 3);
        Call(Native.rc_schema_resource(s.handle, ref r, out s.state), "rc_schema_resource(GameState)",
             Native.rc_schema_last_error(s.handle));
        return s;
    }

    /// @p count bodies (the first two driven by slots 0 and 1) and the game state.
    static ulong[] Populate(IntPtr world, Schema s, int count) {
        var entities = new ulong[count];
        for (int i = 0; i < count; ++i) {
            Call(Native.rc_entity_create(world, out entities[i]), "rc_entity_create",
                 Native.rc_world_last_error(world));
            Body b;
            b.slot = i < 2 ? i : -1;
            b.x = 100 * i;
            b.y = -50 * i;
            b.vx = i % 3 - 1;
            b.vy = 2 - i % 5;
            b.heading = 0.25f * i;
            Call(Native.rc_component_add(world, entities[i], s.body, (IntPtr)(&b), (UIntPtr)(uint)sizeof(Body)),
                 "rc_component_add", Native.rc_world_last_error(world));
        }
        GameState g;
        g.frame = 0;
        g.steps = 0;
        g.mix = 0x9E3779B97F4A7C15UL;
        Call(Native.rc_resource_set(world, s.state, (IntPtr)(&g), (UIntPtr)(uint)sizeof(GameState)),
             "rc_resource_set", Native.rc_world_last_error(world));
        return entities;
    }

    /// One body's frame: the input steers it, then it moves (integers and floats alike).
    static void Move(Body* b, Input* input) {
        if (input != null) {
            b->vx += input->dx;
            b->vy += input->dy;
            if ((input->buttons & 1) != 0) b->heading = b->heading * 0.5f + 1.5f;
        }
        b->vx = b->vx * 15 / 16;
        b->vy = b->vy * 15 / 16;
        b->x += b->vx;
        b->y += b->vy;
        b->heading = b->heading * 0.875f + 0.0625f * (b->vx - b->vy);
    }

    static void Advance(IntPtr world, Schema s, ulong frame, ulong folded) {
        IntPtr p;
        Call(Native.rc_resource_get(world, s.state, out p), "rc_resource_get", Native.rc_world_last_error(world));
        GameState* g = (GameState*)p;
        g->frame = (uint)frame;
        g->steps += 1;
        g->mix = (g->mix ^ folded) * 0x100000001B3UL;
    }

    static uint Mix(uint h) {
        h ^= h >> 16;
        h *= 0x7FEB352D;
        h ^= h >> 15;
        h *= 0x846CA68B;
        h ^= h >> 16;
        return h;
    }

    /// A player's input: changes every few frames, so a repeated prediction is sometimes wrong.
    static Input InputFor(ulong frame, int slot) {
        uint h = Mix((uint)(frame / 7) * 2654435761u ^ (uint)(slot + 1) * 0x9E3779B9u);
        Input i;
        i.dx = (sbyte)((int)(h % 3) - 1);
        i.dy = (sbyte)((int)((h >> 4) % 3) - 1);
        i.buttons = (byte)((h >> 8) & 1);
        i.pad = 0;
        return i;
    }

    // ---------------------------------------------------------------- 2. rollback basics

    /// Steps the world one frame through rc_component_get pointers.
    static void StepDirect(IntPtr world, Schema s, ulong[] entities, ulong frame) {
        ulong folded = 0;
        for (int i = 0; i < entities.Length; ++i) {
            IntPtr p;
            Call(Native.rc_component_get(world, entities[i], s.body, out p), "rc_component_get",
                 Native.rc_world_last_error(world));
            Body* b = (Body*)p;
            Input input = InputFor(frame, i);
            Move(b, b->slot >= 0 ? &input : null);
            folded = folded * 31 + (ulong)(uint)b->x;
        }
        Advance(world, s, frame, folded);
    }

    static void Rollback(Schema s) {
        const int frames = 120, capacity = 64, back_to = 75;
        IntPtr world, ring;
        Call(Native.rc_world_create(s.handle, out world), "rc_world_create", Native.rc_schema_last_error(s.handle));
        Call(Native.rc_ring_create(capacity, out ring), "rc_ring_create", Native.rc_last_error());
        ulong[] entities = Populate(world, s, 16);

        // hashes[f]: the world after frame f
        var hashes = new ulong[frames];
        ulong before = 0;
        for (int f = 0; f < frames; ++f) {
            Call(Native.rc_ring_save(ring, world, (ulong)f), "rc_ring_save", Native.rc_ring_last_error(ring));
            if (f == back_to)
                Call(Native.rc_world_hash(world, out before), "rc_world_hash", Native.rc_world_last_error(world));
            StepDirect(world, s, entities, (ulong)f);
            Call(Native.rc_world_hash(world, out hashes[f]), "rc_world_hash", Native.rc_world_last_error(world));
            if (f > 0) Check(hashes[f] != hashes[f - 1], "frame " + f + " did not change the world");
        }

        // The ring holds the last 64 frames only.
        int status = Native.rc_ring_restore(ring, world, 10);
        Check(status == Native.RC_ERR_NOT_FOUND,
              "restoring frame 10 from a ring of 64 after 120 frames gave " + Text(Native.rc_status_name(status)));

        Call(Native.rc_ring_restore(ring, world, back_to), "rc_ring_restore", Native.rc_ring_last_error(ring));
        ulong restored;
        Call(Native.rc_world_hash(world, out restored), "rc_world_hash", Native.rc_world_last_error(world));
        Check(restored == before, "the restored frame " + back_to + " hashes " + restored.ToString("x16") +
                                      ", it hashed " + before.ToString("x16") + " when saved");
        Check(restored == hashes[back_to - 1], "the restored frame is not the world after frame " + (back_to - 1));

        // Re-simulate: pointers are fetched again (the restore was a structural change).
        for (int f = back_to; f < frames; ++f) {
            StepDirect(world, s, entities, (ulong)f);
            ulong h;
            Call(Native.rc_world_hash(world, out h), "rc_world_hash", Native.rc_world_last_error(world));
            Check(h == hashes[f], "re-simulated frame " + f + " hashes " + h.ToString("x16") + ", the first run " +
                                      hashes[f].ToString("x16"));
        }
        Native.rc_ring_destroy(ring);
        Native.rc_world_destroy(world);
        Console.WriteLine("rollback: " + frames + " frames saved to a ring, frame " + back_to + " restored, " +
                          (frames - back_to) + " frames re-simulated to the same hashes");
    }

    // ---------------------------------------------------------------- 3. a match in poll mode

    class Peer {
        public string name;
        public IntPtr world, transport, session;
        public bool server;
        public readonly Dictionary<ulong, ulong> hashes = new Dictionary<ulong, ulong>(); // after frame f
        public readonly int[] events = new int[Native.RC_EVENT_KINDS];
        public int steps, resimulated_steps;
        public bool traced; // a "csharp step" slice of the game's around each step (docs/c-api.md, "Traces")
        public uint slice;
    }

    static Schema match_schema;

    /// The game's step as a session asks for it: every slot's flags and input from
    /// rc_frame_inputs, the bodies through an rc_query.
    static void StepMatch(IntPtr world, ref Native.rc_frame_inputs inputs) {
        Check(inputs.input_size == (uint)sizeof(Input), "a request with input_size " + inputs.input_size);
        byte* flags = (byte*)inputs.flags;
        byte* bytes = (byte*)inputs.inputs;
        Check(inputs.record_size.ToUInt64() == inputs.players * (1ul + inputs.input_size),
              "a record of " + inputs.record_size + " bytes for " + inputs.players + " players");

        uint* include = stackalloc uint[1];
        include[0] = match_schema.body;
        Native.rc_query_desc d;
        d.struct_size = (uint)sizeof(Native.rc_query_desc);
        d.include = (IntPtr)include;
        d.include_count = 1;
        d.exclude = IntPtr.Zero;
        d.exclude_count = 0;
        IntPtr query;
        Call(Native.rc_query_create(world, ref d, out query), "rc_query_create", Native.rc_world_last_error(world));
        ulong folded = 0;
        try {
            Native.rc_chunk chunk;
            int more;
            while (true) {
                Call(Native.rc_query_next(query, out chunk, out more), "rc_query_next",
                     Native.rc_query_last_error(query));
                if (more == 0) break;
                Body* column = (Body*)((IntPtr*)chunk.columns)[0];
                uint* rows = chunk.rows == IntPtr.Zero ? null : ((uint**)chunk.rows)[0];
                for (uint i = 0; i < chunk.count; ++i) {
                    Body* b = column + (rows == null ? i : rows[i]);
                    Input* input = null;
                    if (b->slot >= 0 && (uint)b->slot < inputs.players && (flags[b->slot] & 1) != 0)
                        input = (Input*)(bytes + b->slot * inputs.input_size);
                    Move(b, input);
                    folded = folded * 31 + (ulong)(uint)b->x + (input != null ? (ulong)(byte)input->dx << 40 : 0);
                }
            }
        } finally {
            Native.rc_query_destroy(query);
        }
        for (uint s = 0; s < inputs.players; ++s) folded = folded * 131 + flags[s];
        Advance(world, match_schema, inputs.frame, folded);
    }

    /// Poll mode: step every request the update prepared, then report it done.
    static void RunRequests(Peer p) {
        var request = new Native.rc_request();
        while (true) {
            request.struct_size = (uint)sizeof(Native.rc_request);
            int has;
            int status = p.server ? Native.rc_server_next_request(p.session, ref request, out has)
                                  : Native.rc_client_next_request(p.session, ref request, out has);
            Call(status, p.name + ": next_request", LastError(p));
            if (has == 0) return;
            Check(request.world == p.world, p.name + ": a request for another world");
            Check(!p.server || request.resimulating == 0, "the server re-simulates frame " + request.inputs.frame);
            if (p.traced) Call(Native.rc_client_trace_begin(p.session, p.slice), p.name + ": trace_begin", LastError(p));
            try {
                StepMatch(request.world, ref request.inputs);
            } catch (TestFailure e) {
                // The session must hear about it: the match ends (RC_EVENT_SESSION_FAILED).
                if (p.server) Native.rc_server_request_failed(p.session, e.Message);
                else Native.rc_client_request_failed(p.session, e.Message);
                throw;
            }
            if (p.traced) Call(Native.rc_client_trace_end(p.session), p.name + ": trace_end", LastError(p));
            ulong h;
            Call(Native.rc_world_hash(p.world, out h), "rc_world_hash", Native.rc_world_last_error(p.world));
            p.hashes[request.inputs.frame] = h; // a re-simulation overwrites the predicted frame
            p.steps += 1;
            if (request.resimulating != 0) p.resimulated_steps += 1;
            status = p.server ? Native.rc_server_request_done(p.session, request.inputs.frame)
                              : Native.rc_client_request_done(p.session, request.inputs.frame);
            Call(status, p.name + ": request_done", LastError(p));
        }
    }

    static IntPtr LastError(Peer p) {
        return p.server ? Native.rc_server_last_error(p.session) : Native.rc_client_last_error(p.session);
    }

    static void DrainEvents(Peer p, ulong now) {
        var ev = new Native.rc_event();
        while (true) {
            ev.struct_size = (uint)sizeof(Native.rc_event);
            int has;
            int status = p.server ? Native.rc_server_next_event(p.session, ref ev, out has)
                                  : Native.rc_client_next_event(p.session, ref ev, out has);
            Call(status, p.name + ": next_event", LastError(p));
            if (has == 0) return;
            if (ev.kind < Native.RC_EVENT_KINDS) p.events[ev.kind] += 1;
            Console.WriteLine("  " + now + " ms  " + p.name + ": " + Text(Native.rc_event_kind_name(ev.kind)) +
                              " frame " + ev.frame + (ev.slot >= 0 ? " slot " + ev.slot : "") +
                              (ev.text != IntPtr.Zero && Text(ev.text).Length > 0 ? " (" + Text(ev.text) + ")" : ""));
            Check(ev.kind != Native.RC_EVENT_SESSION_FAILED, p.name + ": the session failed: " + Text(ev.text));
        }
    }

    static Native.rc_client_info ClientInfo(Peer p) {
        var info = new Native.rc_client_info();
        info.struct_size = (uint)sizeof(Native.rc_client_info);
        Call(Native.rc_client_get_info(p.session, ref info), "rc_client_get_info", LastError(p));
        return info;
    }

    static Native.rc_server_info ServerInfo(Peer p) {
        var info = new Native.rc_server_info();
        info.struct_size = (uint)sizeof(Native.rc_server_info);
        Call(Native.rc_server_get_info(p.session, ref info), "rc_server_get_info", LastError(p));
        return info;
    }

    static Native.rc_session_stats Stats(Peer p) {
        var stats = new Native.rc_session_stats();
        stats.struct_size = (uint)sizeof(Native.rc_session_stats);
        int status = p.server ? Native.rc_server_totals(p.session, ref stats)
                              : Native.rc_client_stats(p.session, ref stats);
        Call(status, p.name + ": stats", LastError(p));
        return stats;
    }

    /// One millisecond of the match: the server, then each client with its input for the frame
    /// it is at (so it changes over time), every request stepped, every event drained.
    static void Tick(Peer server, Peer[] clients, ulong now) {
        Call(Native.rc_server_update(server.session, now), "rc_server_update", LastError(server));
        RunRequests(server);
        DrainEvents(server, now);
        foreach (Peer c in clients) {
            Native.rc_client_info info = ClientInfo(c);
            Input input = InputFor(info.current_frame, info.slot < 0 ? 0 : info.slot);
            Call(Native.rc_client_update(c.session, now, ref input, (UIntPtr)(uint)sizeof(Input)), c.name + ": update",
                 LastError(c));
            RunRequests(c);
            DrainEvents(c, now);
        }
    }

    static Peer NewPeer(string name, bool server) {
        var p = new Peer();
        p.name = name;
        p.server = server;
        Call(Native.rc_world_create(match_schema.handle, out p.world), "rc_world_create",
             Native.rc_schema_last_error(match_schema.handle));
        Populate(p.world, match_schema, 4);
        return p;
    }

    static void Match() {
        match_schema = DeclareSchema();

        Native.rc_field* fields = stackalloc Native.rc_field[4];
        fields[0] = Field(typeof(Input), "dx", Native.RC_I8);
        fields[1] = Field(typeof(Input), "dy", Native.RC_I8);
        fields[2] = Field(typeof(Input), "buttons", Native.RC_U8);
        fields[3] = Field(typeof(Input), "pad", Native.RC_U8);
        Native.rc_type_desc input_type = Describe(typeof(Input), fields, 4);

        var config = new Native.rc_session_config();
        config.struct_size = (uint)sizeof(Native.rc_session_config);
        Call(Native.rc_session_config_default(ref config), "rc_session_config_default", Native.rc_last_error());
        config.max_players = 2;
        config.input_size = (uint)sizeof(Input);
        Call(Native.rc_input_layout_hash(ref input_type, out config.input_layout_hash), "rc_input_layout_hash",
             Native.rc_last_error());
        config.content_version = 7;
        Check(config.tick_hz == 60 && config.input_delay == 2 && config.checksum_interval == 1,
              "unexpected defaults: tick_hz " + config.tick_hz + ", input_delay " + config.input_delay +
                  ", checksum_interval " + config.checksum_interval);

        IntPtr network;
        Call(Native.rc_sim_network_create(20240611, out network), "rc_sim_network_create", Native.rc_last_error());
        Peer server = NewPeer("server", true);
        Call(Native.rc_sim_network_server(network, out server.transport), "rc_sim_network_server",
             Native.rc_last_error());
        Call(Native.rc_server_create(ref config, server.world, server.transport, IntPtr.Zero, IntPtr.Zero, IntPtr.Zero,
                                     out server.session),
             "rc_server_create", Native.rc_last_error());

        // 30 ms +- 10 each way and 3% loss: the other player's input comes later than the input
        // delay, so clients predict it, mispredict when it changes, and roll back.
        var link = new Native.rc_link();
        link.struct_size = (uint)sizeof(Native.rc_link);
        link.latency_ms = 30;
        link.jitter_ms = 10;
        link.loss = 0.03;
        link.duplicate = 0.01;
        link.reorder = 0.02;
        var clients = new Peer[2];
        for (int i = 0; i < 2; ++i) {
            Peer c = NewPeer("client " + (char)('a' + i), false);
            Call(Native.rc_sim_network_connect(network, ref link, ref link, out c.transport), "rc_sim_network_connect",
                 Native.rc_last_error());
            var options = new Native.rc_client_options();
            options.struct_size = (uint)sizeof(Native.rc_client_options);
            options.name = CString(c.name);
            options.connect_timeout_ms = 5000;
            if (i == 0) options.trace_records = 1u << 16; // client a keeps a trace
            Call(Native.rc_client_create(ref config, c.world, c.transport, IntPtr.Zero, IntPtr.Zero, ref options,
                                         out c.session),
                 c.name + ": rc_client_create", Native.rc_last_error());
            if (i == 0) {
                Call(Native.rc_client_trace_name(c.session, "csharp step", out c.slice), c.name + ": trace_name",
                     LastError(c));
                c.traced = true;
            }
            clients[i] = c;
        }

        // ~600 frames, then the frames the clients had confirmed by then are final: 60 more
        // frames later, every rollback into them has happened.
        const ulong frames = 600, settle = 60, limit_ms = 60000;
        ulong now = 1, cutoff = 0, end_frame = 0;
        for (; now < limit_ms; ++now) {
            Tick(server, clients, now);
            ulong frame = ServerInfo(server).frame;
            if (end_frame == 0 && frame >= frames) {
                cutoff = Math.Min(ClientInfo(clients[0]).confirmed_frame, ClientInfo(clients[1]).confirmed_frame);
                end_frame = frame + settle;
            }
            if (end_frame != 0 && frame >= end_frame) break;
        }
        Check(end_frame != 0 && now < limit_ms, "the server reached frame " + ServerInfo(server).frame + " of " +
                                                    (frames + settle) + " in " + limit_ms + " ms");

        ulong rollbacks = 0;
        foreach (Peer c in clients) {
            Native.rc_client_info info = ClientInfo(c);
            Native.rc_session_stats st = Stats(c);
            Console.WriteLine(c.name + ": slot " + info.slot + ", frame " + info.current_frame + " (confirmed " +
                              info.confirmed_frame + "), " + st.rollbacks + " rollbacks, " + st.resimulated +
                              " frames re-simulated (" + c.resimulated_steps + " requests), rtt " +
                              st.rtt_ms.ToString("F1") + " ms, " + st.replaced_inputs + " inputs replaced");
            Check(c.events[Native.RC_EVENT_SYNCHRONIZED] >= 1, c.name + " never synchronized");
            Check(info.state == Native.RC_CLIENT_RUNNING, c.name + " is in state " + info.state + ", not running");
            Check(c.events[Native.RC_EVENT_DESYNC_DETECTED] == 0, c.name + " saw a desync");
            Check(st.desyncs == 0, c.name + " counts " + st.desyncs + " desyncs");
            Check(st.resimulated == (ulong)c.resimulated_steps,
                  c.name + ": " + st.resimulated + " frames re-simulated, " + c.resimulated_steps + " requests said so");
            rollbacks += st.rollbacks;

            // Every frame both stepped, below what the client had confirmed at the cutoff.
            int compared = 0;
            foreach (KeyValuePair<ulong, ulong> kv in c.hashes) {
                ulong expected;
                if (kv.Key >= cutoff || !server.hashes.TryGetValue(kv.Key, out expected)) continue;
                Check(kv.Value == expected, c.name + ": the world after frame " + kv.Key + " hashes " +
                                                kv.Value.ToString("x16") + ", the server's " +
                                                expected.ToString("x16"));
                ++compared;
            }
            Console.WriteLine(c.name + ": " + compared + " confirmed frames hash like the server's (below frame " +
                              cutoff + ")");
            Check(compared >= 400, c.name + ": only " + compared + " frames compared");
        }
        Native.rc_session_stats totals = Stats(server);
        Check(server.events[Native.RC_EVENT_DESYNC_DETECTED] == 0 && totals.desyncs == 0, "the server saw a desync");
        Check(ServerInfo(server).players == 2, "the server has " + ServerInfo(server).players + " players");
        Check(rollbacks > 0, "no client rolled back: the links did not exercise rollback");

        // The end: the server says goodbye, the clients acknowledge it, the server finishes.
        Call(Native.rc_server_end_match(server.session), "rc_server_end_match", LastError(server));
        ulong ended_at = now;
        for (++now; now < ended_at + 5000 && ServerInfo(server).finished == 0; ++now) Tick(server, clients, now);
        Check(ServerInfo(server).finished != 0, "the server had not finished 5 s after end_match");
        foreach (Peer c in clients)
            Check(c.events[Native.RC_EVENT_MATCH_ENDED] == 1, c.name + " was not told the match ended");
        Console.WriteLine("match: server at frame " + ServerInfo(server).frame + " (" + server.steps + " steps), " +
                          rollbacks + " rollbacks, 0 desyncs, finished " + (now - ended_at) + " ms after end_match");

        // Client a's trace: one "csharp step" slice per step it ran; client b keeps none.
        string trace =
            Path.Combine(Path.GetTempPath(), "retcon_csharp_trace_" + Process.GetCurrentProcess().Id + ".json");
        Call(Native.rc_client_write_trace(clients[0].session, trace), "rc_client_write_trace", LastError(clients[0]));
        const string slice = "\"name\":\"csharp step\",\"cat\":\"retcon\",\"ph\":\"X\",[^}]*\"tid\":3,"; // game track
        int slices = Regex.Matches(File.ReadAllText(trace), slice).Count;
        File.Delete(trace);
        Check(slices == clients[0].steps, "the trace has " + slices + " csharp step slices for " + clients[0].steps +
                                              " steps");
        Check(Native.rc_client_write_trace(clients[1].session, trace) == Native.RC_ERR_ARGUMENT,
              "client b wrote a trace it does not keep");
        Console.WriteLine("trace: " + slices + " csharp step slices");

        foreach (Peer c in clients) Native.rc_client_destroy(c.session);
        Native.rc_server_destroy(server.session);
        foreach (Peer c in clients) Native.rc_transport_destroy(c.transport);
        Native.rc_transport_destroy(server.transport);
        Native.rc_sim_network_destroy(network);
        foreach (Peer c in clients) Native.rc_world_destroy(c.world);
        Native.rc_world_destroy(server.world);
    }

    /// Everything that calls the library. Not inlined into Main: Mono binds a method's P/Invoke
    /// targets when it compiles the method, and Main must have loaded the library by then.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Run(string probe) {
        Check(Native.rc_abi_version() == 2, "rc_abi_version() is " + Native.rc_abi_version() + ", RC_ABI_VERSION 2");
        Layouts(probe);
        Schema schema = DeclareSchema();
        ulong hash;
        Call(Native.rc_schema_hash(schema.handle, out hash), "rc_schema_hash",
             Native.rc_schema_last_error(schema.handle));
        Console.WriteLine("schema: Body and GameState declared from C#, hash " + hash.ToString("x16"));
        Rollback(schema);
        Native.rc_schema_destroy(schema.handle);
        Match();
        Native.rc_schema_destroy(match_schema.handle);
        foreach (IntPtr p in names) Marshal.FreeHGlobal(p);
        names.Clear();
    }

    static int Main(string[] args) {
        if (args.Length != 2) {
            Console.Error.WriteLine("usage: mono RetconTests.exe <path to libretcon_c.so> <path to c_schema_probe>");
            return 2;
        }
        try {
            string path = Path.GetFullPath(args[0]);
            Check(File.Exists(path), "no library at " + path);
            // RTLD_NOW | RTLD_GLOBAL. The DllImports name the soname, and the dynamic loader answers
            // a bare soname with the library already loaded under it: this one, whatever its path.
            if (Native.dlopen(path, 0x2 | 0x100) == IntPtr.Zero)
                throw new TestFailure("dlopen " + path + ": " + Text(Native.dlerror()));
            Run(args[1]);
            Console.WriteLine("capi:csharp: all checks passed");
            return 0;
        } catch (TestFailure e) {
            Console.Error.WriteLine("capi:csharp FAILED: " + e.Message);
            return 1;
        } catch (Exception e) {
            Console.Error.WriteLine("capi:csharp FAILED with an exception: " + e);
            return 1;
        }
    }
}
