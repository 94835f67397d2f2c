#!/usr/bin/env python3
"""capi:python_sessions - a network match driven from Python in poll mode, through ctypes
declarations generated from retcon.h (docs/c-api.md, docs/net.md "Poll mode"). Standard
library only.

    test_python_sessions.py <libretcon_c.so> <retcon_api.json> <scratch dir>
                            --header <retcon.h> [--gen <gen_ctypes.py>]

1. A match over rc_sim_network: one server and two clients, each with its own world of the same
   Python-declared schema, on links with latency, jitter and a little loss. No step function is
   given: every frame comes back as an rc_request, and Python steps the request's world (a
   small game with movement, bolts spawned and destroyed, hits) and calls request_done. Inputs
   vary per frame and slot. The match runs about 600 frames of virtual time, then ends.
   Required: no RC_EVENT_DESYNC_DETECTED (nor session_failed, nor resynchronized) anywhere,
   both clients synchronized, rollbacks on at least one client, and the clients' worlds equal to
   the server's at every confirmed frame (see compare_with_server), reconnect tokens the server
   knows, and the end of the match reaching both clients.
2. Misuse in poll mode: rc_client_request_done with another frame than the outstanding request's
   is refused with a message and changes nothing (the request is then stepped and done as
   usual); rc_client_update with a request outstanding fails with a message and ends that
   client's session with RC_EVENT_SESSION_FAILED.

The ctypes module is generated here from the description by capi/tools/gen_ctypes.py, through
capi_testing.py as in capi:python (test_python.py), which also checks the layouts and exports
against the header.
"""

import argparse
import ctypes
import json
import os
import sys

# capi_testing is next to this script; no __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capi_testing  # noqa: E402
from capi_testing import (DEFAULT_GEN, Sections, TestFailure, call, check, load_generated,  # noqa: E402
                          load_library, sized, text)

rc = None   # the generated module
lib = None  # the loaded library


# ------------------------------------------------------------------ the game's layout

class Pawn(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int32), ("y", ctypes.c_int32), ("vx", ctypes.c_int32), ("vy", ctypes.c_int32),
                ("slot", ctypes.c_uint32), ("hp", ctypes.c_int32)]


class Bolt(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int32), ("y", ctypes.c_int32), ("dx", ctypes.c_int32), ("ttl", ctypes.c_uint32),
                ("shooter", ctypes.c_uint32), ("pad", ctypes.c_uint32)]


class MatchState(ctypes.Structure):
    _fields_ = [("frame", ctypes.c_uint64), ("rng", ctypes.c_uint64), ("bolts_fired", ctypes.c_uint32),
                ("hits", ctypes.c_uint32)]


class Input(ctypes.Structure):
    _fields_ = [("dx", ctypes.c_int8), ("dy", ctypes.c_int8), ("buttons", ctypes.c_uint8), ("pad", ctypes.c_uint8)]


PAWN, BOLT = range(2)
STATE = 0
FIRE = 1
WORLD_SIZE = 1024
KINDS = {
    "Pawn": {"x": "RC_I32", "y": "RC_I32", "vx": "RC_I32", "vy": "RC_I32", "slot": "RC_U32", "hp": "RC_I32"},
    "Bolt": {"x": "RC_I32", "y": "RC_I32", "dx": "RC_I32", "ttl": "RC_U32", "shooter": "RC_U32", "pad": "RC_U32"},
    "MatchState": {"frame": "RC_U64", "rng": "RC_U64", "bolts_fired": "RC_U32", "hits": "RC_U32"},
    "Input": {"dx": "RC_I8", "dy": "RC_I8", "buttons": "RC_U8", "pad": "RC_U8"},
}


def type_desc(name, cls, keep):
    """An rc_type_desc of a padding-free ctypes struct (offsets and sizes from ctypes)."""
    kinds = KINDS[cls.__name__]
    fields = (rc.rc_field * len(cls._fields_))()
    for i, (fname, _) in enumerate(cls._fields_):
        d = getattr(cls, fname)
        fields[i] = rc.rc_field(fname.encode(), d.offset, d.size, getattr(rc, kinds[fname]), 0)
    desc = rc.rc_type_desc(ctypes.sizeof(rc.rc_type_desc), name.encode(), ctypes.sizeof(cls), fields, len(fields))
    keep.extend([fields, desc])
    return desc


class Schema:
    """pawn and bolt components, the match_state resource."""

    def __init__(self):
        self.handle = ctypes.POINTER(rc.rc_schema)()
        call(lib.rc_schema_create(ctypes.byref(self.handle)), "rc_schema_create")
        keep = []
        err = lambda: lib.rc_schema_last_error(self.handle)
        ids = []
        for name, cls in (("pawn", Pawn), ("bolt", Bolt)):
            out = ctypes.c_uint32()
            call(lib.rc_schema_component(self.handle, ctypes.byref(type_desc(name, cls, keep)), ctypes.byref(out)),
                 "rc_schema_component(%s)" % name, err)
            ids.append(out.value)
        out = ctypes.c_uint32()
        call(lib.rc_schema_resource(self.handle, ctypes.byref(type_desc("match_state", MatchState, keep)),
                                    ctypes.byref(out)), "rc_schema_resource(match_state)", err)
        check(ids == [PAWN, BOLT] and out.value == STATE, "ids %s, %d are not declaration order" % (ids, out.value))

    def destroy(self):
        lib.rc_schema_destroy(self.handle)


class World(capi_testing.World):
    def each(self, component, cls):
        """[(entity, view into the pool)] of every entity with the component. The views are valid
        until the next structural change (docs/c-api.md, "Lifetimes")."""
        out = []

        def visit(chunk):
            for i in range(chunk.count):
                row = chunk.rows[0][i] if chunk.rows else i
                out.append((chunk.entities[i], cls.from_address(chunk.columns[0] + row * ctypes.sizeof(cls))))

        self.each_chunk(visit, [component])
        return out


# ------------------------------------------------------------------ the game

def xorshift(s):
    s ^= (s << 13) & 0xFFFFFFFFFFFFFFFF
    s ^= s >> 7
    s ^= (s << 17) & 0xFFFFFFFFFFFFFFFF
    return s


def setup_world(w):
    """The server's world before the match (clients receive it as a snapshot)."""
    w.set_resource(STATE, MatchState(frame=0, rng=0x243F6A8885A308D3, bolts_fired=0, hits=0))


def step(w, frame, players, input_size, flags, inputs):
    """One frame of the game: a pure function of the world and the inputs. A slot present in
    the inputs gets a pawn; a slot that left loses it. Pawns move by their input; the fire
    button spawns a bolt that flies for a while and is destroyed when it expires or hits
    another slot's pawn."""
    check(input_size == ctypes.sizeof(Input), "input_size %d" % input_size)
    state = w.resource(STATE, MatchState)
    check(state.frame == frame, "the world is at frame %d, the request steps frame %d" % (state.frame, frame))
    moves = {}
    for s in range(players):
        if flags[s] & 1:
            moves[s] = Input.from_buffer_copy(inputs, s * input_size)

    # Values first, through views into the pools (no structural change meanwhile).
    pawns = {}
    fire = []
    for e, p in w.each(PAWN, Pawn):
        pawns[p.slot] = (e, p)
        m = moves.get(p.slot)
        if m is None:
            continue
        p.vx = max(-40, min(40, p.vx + m.dx))
        p.vy = max(-40, min(40, p.vy + m.dy))
        p.x = (p.x + p.vx) % WORLD_SIZE
        p.y = (p.y + p.vy) % WORLD_SIZE
        if m.buttons & FIRE:
            fire.append((p.slot, p.x, p.y, 1 if p.vx >= 0 else -1))
    expired = []
    hits = 0
    for e, b in w.each(BOLT, Bolt):
        b.x = (b.x + b.dx * 24) % WORLD_SIZE
        b.ttl -= 1
        target = next((p for s, (_, p) in sorted(pawns.items())
                       if s != b.shooter and abs(p.x - b.x) < 64 and abs(p.y - b.y) < 64), None)
        if target is not None:
            target.hp -= 1
            hits += 1
            expired.append(e)
        elif b.ttl == 0:
            expired.append(e)
    rng = state.rng
    spawned = []
    for slot, x, y, d in fire:
        rng = xorshift(rng)
        spawned.append(Bolt(x=x, y=y, dx=d, ttl=10 + rng % 20, shooter=slot, pad=0))
    state.frame = frame + 1
    state.rng = rng
    state.bolts_fired += len(spawned)
    state.hits += hits

    # Structural changes: every view above is stale from here on.
    for e in expired:
        w.destroy_entity(e)
    for b in spawned:
        w.add(w.create(), BOLT, b)
    for s in range(players):
        if s in moves and s not in pawns:
            w.add(w.create(), PAWN, Pawn(x=300 + 300 * s, y=512, vx=0, vy=0, slot=s, hp=100))
        elif s not in moves and s in pawns:
            w.destroy_entity(pawns[s][0])


def make_input(index, frame):
    """Deterministic inputs that vary per frame and client: the stick changes every 12 frames
    (so repeat-last predictions are sometimes right, sometimes wrong), fire now and then."""
    x = ((frame // 12) * 2654435761 + (index + 1) * 0x9E3779B9) & 0xFFFFFFFF
    return Input(dx=(x % 9) - 4, dy=((x >> 8) % 7) - 3, buttons=FIRE if (frame + 3 * index) % 9 == 0 else 0, pad=0)


# ------------------------------------------------------------------ sessions

def session_config():
    cfg = sized(rc.rc_session_config)
    call(lib.rc_session_config_default(ctypes.byref(cfg)), "rc_session_config_default")
    keep = []
    layout = ctypes.c_uint64()
    call(lib.rc_input_layout_hash(ctypes.byref(type_desc("Input", Input, keep)), ctypes.byref(layout)),
         "rc_input_layout_hash")
    cfg.max_players = 2
    cfg.input_size = ctypes.sizeof(Input)
    cfg.input_layout_hash = layout.value
    cfg.content_version = 7
    cfg.checksum_interval = 1
    no_repeat = (ctypes.c_uint8 * ctypes.sizeof(Input))()
    no_repeat[Input.buttons.offset] = 1  # fire is edge-triggered: predicted as 0, never repeated
    cfg.no_repeat = no_repeat
    cfg.no_repeat_size = len(no_repeat)
    return cfg, (keep, no_repeat)


def link(latency, jitter, loss):
    out = sized(rc.rc_link)
    out.latency_ms, out.jitter_ms, out.loss = latency, jitter, loss
    return out


class Side:
    """A server or a client handle in poll mode, with its world, the hash after each frame it
    stepped and the record it stepped that frame with (the last time it stepped it), and its
    events."""

    def __init__(self, kind, handle, world, name):
        self.kind, self.handle, self.world, self.name = kind, handle, world, name
        self.steps = {}  # frame -> (record, world hash after the frame), the last stepping of it
        self.first_records = {}  # frame -> the record it was first stepped with (a prediction)
        self.events = []
        self.stepped = 0
        self.resimulated = 0
        self.trace_id = None  # an rc_*_trace_name id: each step is a slice of the game's (section 3)

    def fn(self, what):
        return getattr(lib, "rc_%s_%s" % (self.kind, what))

    def error(self):
        return self.fn("last_error")(self.handle)

    def drain_requests(self):
        req, has = sized(rc.rc_request), ctypes.c_int()
        while True:
            call(self.fn("next_request")(self.handle, ctypes.byref(req), ctypes.byref(has)),
                 "%s next_request" % self.name, self.error)
            if not has.value:
                return
            self.run_request(req)

    def run_request(self, req):
        frame = req.inputs.frame
        try:
            check(ctypes.cast(req.world, ctypes.c_void_p).value == self.world.address,
                  "%s: a request for another world than the session's" % self.name)
            ins = req.inputs
            record = ctypes.string_at(ins.record, ins.record_size)
            n, size = ins.players, ins.input_size
            check(len(record) == n + n * size, "%s frame %d: a %d-byte record for %d x %d" %
                  (self.name, frame, len(record), n, size))
            # flags and inputs point into the record (docs/frames.md).
            flags = ctypes.string_at(ctypes.cast(ins.flags, ctypes.c_void_p), n)
            inputs = ctypes.string_at(ctypes.cast(ins.inputs, ctypes.c_void_p), n * size)
            check(flags == record[:n] and inputs == record[n:], "%s frame %d: flags/inputs are not the record's" %
                  (self.name, frame))
            if self.trace_id is not None:
                call(self.fn("trace_begin")(self.handle, self.trace_id), "%s trace_begin" % self.name, self.error)
            step(self.world, frame, n, size, flags, inputs)
            if self.trace_id is not None:
                call(self.fn("trace_end")(self.handle), "%s trace_end" % self.name, self.error)
            self.steps[frame] = (record, self.world.hash())
            self.first_records.setdefault(frame, record)
        except Exception as e:
            call(self.fn("request_failed")(self.handle, ("step raised: %s" % e).encode()),
                 "%s request_failed" % self.name, self.error)
            raise
        self.stepped += 1
        self.resimulated += 1 if req.resimulating else 0
        call(self.fn("request_done")(self.handle, frame), "%s request_done(%d)" % (self.name, frame), self.error)

    def drain_events(self):
        ev, has = sized(rc.rc_event), ctypes.c_int()
        while True:
            call(self.fn("next_event")(self.handle, ctypes.byref(ev), ctypes.byref(has)),
                 "%s next_event" % self.name, self.error)
            if not has.value:
                return
            self.events.append((ev.kind, ev.frame, ev.slot, text(ev.text)))

    def count(self, kind):
        return sum(1 for e in self.events if e[0] == kind)

    def stats(self):
        out = sized(rc.rc_session_stats)
        call(lib.rc_client_stats(self.handle, ctypes.byref(out)), "rc_client_stats", self.error)
        return out

    def info(self):
        cls = rc.rc_server_info if self.kind == "server" else rc.rc_client_info
        out = sized(cls)
        call(self.fn("get_info")(self.handle, ctypes.byref(out)), "%s get_info" % self.name, self.error)
        return out


def event_summary(side):
    return ", ".join("%s@%d%s" % (text(lib.rc_event_kind_name(k)), f, (" (%s)" % t) if t else "")
                     for k, f, _, t in side.events[:12])


class Match:
    """A server and clients on one rc_sim_network, all in poll mode. Destroy in reverse."""

    def __init__(self, schema, seed, trace_records=0):
        self.config, self.keep = session_config()
        self.net = ctypes.POINTER(rc.rc_sim_network)()
        call(lib.rc_sim_network_create(seed, ctypes.byref(self.net)), "rc_sim_network_create")
        self.transports = []
        self.worlds = []
        self.clients = []
        self.now = 1
        t = self.transport(lambda out: lib.rc_sim_network_server(self.net, out))
        w = self.world(schema)
        setup_world(w)
        options = sized(rc.rc_server_options)
        call(lib.rc_server_options_default(ctypes.byref(options)), "rc_server_options_default")
        options.trace_records = trace_records
        options.trace_process_name = b"python server"
        handle = ctypes.POINTER(rc.rc_server)()
        # step NULL (None): poll mode.
        call(lib.rc_server_create(ctypes.byref(self.config), w.handle, t, None, None, ctypes.byref(options),
                                  ctypes.byref(handle)), "rc_server_create")
        self.server = Side("server", handle, w, "server")

    def transport(self, make):
        t = ctypes.POINTER(rc.rc_transport)()
        call(make(ctypes.byref(t)), "a transport")
        self.transports.append(t)
        return t

    def world(self, schema):
        w = World(schema)
        self.worlds.append(w)
        return w

    def add_client(self, schema, up, down, name):
        t = self.transport(lambda out: lib.rc_sim_network_connect(self.net, ctypes.byref(up), ctypes.byref(down), out))
        w = self.world(schema)
        options = sized(rc.rc_client_options)
        call(lib.rc_client_options_default(ctypes.byref(options)), "rc_client_options_default")
        options.name = name.encode()
        handle = ctypes.POINTER(rc.rc_client)()
        call(lib.rc_client_create(ctypes.byref(self.config), w.handle, t, None, None, ctypes.byref(options),
                                  ctypes.byref(handle)), "rc_client_create")
        c = Side("client", handle, w, name)
        self.clients.append(c)
        return c

    def update_server(self):
        call(lib.rc_server_update(self.server.handle, self.now), "rc_server_update", self.server.error)
        self.server.drain_requests()
        self.server.drain_events()

    def update_client(self, index, c):
        frame = c.info().current_frame
        inp = make_input(index, frame)
        call(lib.rc_client_update(c.handle, self.now, ctypes.byref(inp), ctypes.sizeof(inp)),
             "rc_client_update(%s)" % c.name, c.error)
        c.drain_requests()
        c.drain_events()

    def tick(self):
        """One millisecond of virtual time."""
        self.update_server()
        for i, c in enumerate(self.clients):
            self.update_client(i, c)
        self.now += 1

    def destroy(self):
        for c in self.clients:
            lib.rc_client_destroy(c.handle)
        lib.rc_server_destroy(self.server.handle)
        for t in self.transports:
            lib.rc_transport_destroy(t)
        lib.rc_sim_network_destroy(self.net)
        for w in self.worlds:
            w.destroy()


def compare_with_server(server, client, below):
    """The client's world after each frame under `below` (confirmed some time ago, so every
    correction has been applied since) against the server's. A client may step a frame several
    times (prediction, then re-simulation after a rollback); the last time counts, and it must
    have used the server's record: a confirmed frame stepped last with a prediction that
    differs would be a rollback that did not happen. Returns (frames compared, frames among
    them first stepped with a wrong prediction and corrected by a rollback)."""
    compared = corrected = 0
    for frame in sorted(f for f in client.steps if f < below):
        record, h = client.steps[frame]
        check(frame in server.steps, "%s stepped frame %d, which the server never stepped" % (client.name, frame))
        server_record, server_hash = server.steps[frame]
        check(record == server_record, "%s stepped confirmed frame %d last with the record %s, the server with %s" %
              (client.name, frame, record.hex(), server_record.hex()))
        check(h == server_hash, "%s's world after frame %d hashes to %016x, the server's to %016x" %
              (client.name, frame, h, server_hash))
        compared += 1
        corrected += 1 if client.first_records[frame] != record else 0
    return compared, corrected


# ------------------------------------------------------------------ 1. the match

def run_match(schema):
    frames = 600
    m = Match(schema, seed=20261126)
    try:
        # Asymmetric, impaired links: remote inputs arrive after they were predicted, and some
        # predictions are wrong (the stick changes every 12 frames), so clients roll back.
        m.add_client(schema, link(35, 10, 0.02), link(45, 12, 0.03), "ada")
        m.add_client(schema, link(60, 20, 0.04), link(50, 15, 0.02), "bob")
        marks = None
        while m.server.info().frame < frames:
            check(m.now < 60000, "the server reached frame %d only after 60 s of virtual time" % m.server.info().frame)
            m.tick()
            if marks is None and m.server.info().frame >= frames - 60:
                # Frames below these are confirmed a second before the comparison.
                marks = [c.info().confirmed_frame for c in m.clients]
        end_frame = m.server.info().frame

        for c in m.clients:
            info = c.info()
            check(info.state == rc.RC_CLIENT_RUNNING, "%s is in state %s: %s" %
                  (c.name, rc.RC_CLIENT_STATE_NAMES.get(info.state), event_summary(c)))
            check(c.count(rc.RC_EVENT_SYNCHRONIZED) == 1, "%s synchronized %d times: %s" %
                  (c.name, c.count(rc.RC_EVENT_SYNCHRONIZED), event_summary(c)))
            check(info.slot in (0, 1) and info.players == 2, "%s: slot %d of %d" % (c.name, info.slot, info.players))
        check(sorted(c.info().slot for c in m.clients) == [0, 1], "the clients do not hold slots 0 and 1")
        for side in [m.server] + m.clients:
            for kind in (rc.RC_EVENT_DESYNC_DETECTED, rc.RC_EVENT_DESYNC_UNVERIFIED, rc.RC_EVENT_SESSION_FAILED,
                         rc.RC_EVENT_RESYNCHRONIZED):
                check(side.count(kind) == 0, "%s: %d %s event(s): %s" % (side.name, side.count(kind),
                                                                          text(lib.rc_event_kind_name(kind)),
                                                                          event_summary(side)))
        check(m.server.count(rc.RC_EVENT_PLAYER_JOINED) == 2, "server events: %s" % event_summary(m.server))

        stats = [c.stats() for c in m.clients]
        check(any(s.rollbacks > 0 for s in stats), "no client rolled back (rollbacks %s): the links are too kind" %
              [s.rollbacks for s in stats])
        for c, s in zip(m.clients, stats):
            check((s.rollbacks > 0) == (c.resimulated > 0),
                  "%s: %d rollbacks but %d requests marked resimulating" % (c.name, s.rollbacks, c.resimulated))
            check(s.desyncs == 0, "%s counts %d desyncs" % (c.name, s.desyncs))

        check_telemetry(m)

        # The server's world is the authority: every confirmed frame of each client equals it.
        compared = []
        for c, mark in zip(m.clients, marks):
            n, corrected = compare_with_server(m.server, c, mark)
            check(n > 300, "%s: only %d frames compared (confirmed below %d)" % (c.name, n, mark))
            compared.append((n, corrected))
        check(any(corrected for _, corrected in compared),
              "no compared frame had been mispredicted: the rollbacks' corrections went unchecked")

        # The reconnect token the welcome gave each client is one the server knows.
        for c in m.clients:
            token = (ctypes.c_uint8 * rc.RC_RECONNECT_TOKEN_SIZE)()
            needed = ctypes.c_size_t()
            call(lib.rc_client_reconnect_token(c.handle, token, len(token), ctypes.byref(needed)),
                 "rc_client_reconnect_token", c.error)
            check(needed.value == rc.RC_RECONNECT_TOKEN_SIZE and any(token), "%s: a %d-byte token %s" %
                  (c.name, needed.value, bytes(token).hex()))
            known = ctypes.c_int()
            call(lib.rc_server_knows_token(m.server.handle, token, len(token), ctypes.byref(known)),
                 "rc_server_knows_token", m.server.error)
            check(known.value == 1, "the server does not know %s's reconnect token" % c.name)

        # The end of the match reaches both clients.
        call(lib.rc_server_end_match(m.server.handle), "rc_server_end_match", m.server.error)
        ended_at = m.now
        while not m.server.info().finished:
            check(m.now - ended_at < 5000, "the server did not finish within 5 s of virtual time")
            m.tick()
        for c in m.clients:
            check(c.count(rc.RC_EVENT_MATCH_ENDED) == 1, "%s: %s" % (c.name, event_summary(c)))

        world_stats = m.server.world.resource(STATE, MatchState)
        return ("%d frames in %d ms; server stepped %d; %s; bolts fired %d, hits %d" % (
            end_frame, m.now, m.server.stepped,
            "; ".join("%s: %d steps (%d re-simulated), %d rollbacks, %d frames equal to the server's "
                      "(%d of them mispredicted first)" % (c.name, c.stepped, c.resimulated, s.rollbacks, n, corrected)
                      for c, s, (n, corrected) in zip(m.clients, stats, compared)),
            world_stats.bolts_fired, world_stats.hits))
    finally:
        m.destroy()


def read_telemetry(fn, cls, handle, error, *slot):
    """A session's telemetry ring through rc_*_telemetry, oldest first (docs/net.md, "Telemetry")."""
    kept = ctypes.c_size_t()
    call(fn(handle, *slot, None, 0, ctypes.byref(kept)), fn.__name__, error)
    out = (cls * kept.value)()
    if kept.value == 0:
        return []
    out[0].struct_size = ctypes.sizeof(cls)
    n = ctypes.c_size_t()
    call(fn(handle, *slot, out, kept.value, ctypes.byref(n)), fn.__name__, error)
    return list(out[:n.value])


def check_telemetry(m):
    """The rings of a played match: the last frames of every client, in order, with the rollbacks
    the stats count; the server's ticks and each slot, agreeing on replaced inputs."""
    resimulated = 0
    for c in m.clients:
        entries = read_telemetry(lib.rc_client_telemetry, rc.rc_frame_telemetry, c.handle, c.error)
        info = c.info()
        # The default keeps 600 frames; the match is about that long.
        check(500 < len(entries) <= 600 and entries[-1].frame in (info.current_frame - 1, info.current_frame),
              "%s: %d telemetry entries ending at frame %d (current %d)" % (c.name, len(entries),
                                                                           entries[-1].frame if entries else -1,
                                                                           info.current_frame))
        check(all(b.frame == a.frame + 1 for a, b in zip(entries, entries[1:])),
              "%s: telemetry frames are not consecutive" % c.name)
        check(all(e.confirmed == (1 if e.frame < info.confirmed_frame else 0) for e in entries),
              "%s: telemetry's confirmed flags disagree with confirmed_frame %d" % (c.name, info.confirmed_frame))
        check(all(e.rollback_depth <= e.resimulated for e in entries), "%s: a rollback deeper than re-simulated"
              % c.name)
        resimulated += sum(e.resimulated for e in entries)
    check(resimulated > 0, "no rollback in the telemetry of the last 600 frames")
    ticks = read_telemetry(lib.rc_server_telemetry, rc.rc_server_frame_telemetry, m.server.handle, m.server.error)
    check(500 < len(ticks) <= 600 and ticks[-1].frame + 1 == m.server.info().frame,
          "server telemetry: %d entries ending at frame %s" % (len(ticks), ticks[-1].frame if ticks else None))
    by_slot = [read_telemetry(lib.rc_server_slot_telemetry, rc.rc_server_client_telemetry, m.server.handle,
                              m.server.error, slot) for slot in range(2)]
    for i, t in enumerate(ticks):
        # Both players are in for the last 300 frames (they joined in the first seconds).
        joined = i >= len(ticks) - 300
        check(all(s[i].frame == t.frame for s in by_slot) and
              (not joined or (t.players == 2 and all(s[i].present for s in by_slot))),
              "server telemetry frame %d: players %d, slots %s" % (t.frame, t.players,
                                                                    [(s[i].frame, s[i].present) for s in by_slot]))
        check(t.replaced_inputs == sum(s[i].input_replaced for s in by_slot),
              "server telemetry frame %d: %d replaced, the slots say otherwise" % (t.frame, t.replaced_inputs))


# ------------------------------------------------------------------ 2. misuse

def run_misuse(schema):
    m = Match(schema, seed=5)
    try:
        perfect = link(10, 0, 0.0)
        a = m.add_client(schema, perfect, perfect, "wrong_frame")
        b = m.add_client(schema, perfect, perfect, "update_inside")

        # Update until each client has a request outstanding; leave it outstanding.
        req = {a.name: sized(rc.rc_request), b.name: sized(rc.rc_request)}
        waiting = {a.name: False, b.name: False}
        while not all(waiting.values()):
            check(m.now < 10000, "no client request within 10 s of virtual time: %s / %s" %
                  (event_summary(a), event_summary(b)))
            m.update_server()
            for i, c in enumerate(m.clients):
                if waiting[c.name]:
                    continue
                inp = make_input(i, c.info().current_frame)
                call(lib.rc_client_update(c.handle, m.now, ctypes.byref(inp), ctypes.sizeof(inp)),
                     "rc_client_update(%s)" % c.name, c.error)
                has = ctypes.c_int()
                call(lib.rc_client_next_request(c.handle, ctypes.byref(req[c.name]), ctypes.byref(has)),
                     "rc_client_next_request", c.error)
                waiting[c.name] = bool(has.value)
                if not has.value:
                    c.drain_events()
            m.now += 1

        # request_done for another frame is refused and changes nothing.
        frame = req[a.name].inputs.frame
        st = lib.rc_client_request_done(a.handle, frame + 1)
        message = text(a.error())
        check(st != rc.RC_OK, "rc_client_request_done(%d) with frame %d outstanding returned RC_OK" %
              (frame + 1, frame))
        check(str(frame) in message, "rc_client_request_done with the wrong frame: the message %r does not name "
              "the outstanding frame %d" % (message, frame))
        a.run_request(req[a.name])  # the outstanding request, stepped and done as usual
        a.drain_requests()
        a.drain_events()
        check(a.count(rc.RC_EVENT_SESSION_FAILED) == 0, "a refused request_done ended the session: %s" %
              event_summary(a))
        refused = "%s: %s" % (rc.RC_STATUS_NAMES.get(st, st), message)

        # An update with a request outstanding fails and ends the session.
        inp = make_input(1, 0)
        st = lib.rc_client_update(b.handle, m.now, ctypes.byref(inp), ctypes.sizeof(inp))
        message = text(b.error())
        check(st != rc.RC_OK, "rc_client_update with a request outstanding returned RC_OK")
        check(message, "rc_client_update with a request outstanding left no message")
        b.drain_events()
        failed = [e for e in b.events if e[0] == rc.RC_EVENT_SESSION_FAILED]
        check(len(failed) == 1 and failed[0][3], "after the misuse: %s" % event_summary(b))

        # The server and the other client play on.
        for _ in range(500):
            m.update_server()
            m.update_client(0, a)
            m.now += 1
        check(a.info().state == rc.RC_CLIENT_RUNNING and a.count(rc.RC_EVENT_SESSION_FAILED) == 0,
              "the other client: %s" % event_summary(a))
        check(m.server.count(rc.RC_EVENT_SESSION_FAILED) == 0, "server: %s" % event_summary(m.server))
        return "wrong frame refused (%s); update with a request outstanding: %s (%s)" % (
            refused, message, failed[0][3])
    finally:
        m.destroy()


# ------------------------------------------------------------------ 3. a trace

def run_trace(schema, scratch):
    """The server keeps a trace (rc_server_options.trace_records) with a slice of the game's around
    every step Python runs (rc_server_trace_name, _begin, _end), and writes it
    (rc_server_write_trace): the file is JSON with one such slice per step, on the game track."""
    m = Match(schema, seed=9, trace_records=1 << 14)
    try:
        perfect = link(10, 0, 0.0)
        m.add_client(schema, perfect, perfect, "tracer")
        trace_id = ctypes.c_uint32()
        call(lib.rc_server_trace_name(m.server.handle, b"python step", ctypes.byref(trace_id)),
             "rc_server_trace_name", m.server.error)
        m.server.trace_id = trace_id.value
        while m.server.info().frame < 120:
            check(m.now < 10000, "the server reached frame %d only after 10 s" % m.server.info().frame)
            m.tick()
        st = lib.rc_server_trace_end(m.server.handle)
        check(st == rc.RC_ERR_ARGUMENT and "no slice is open" in text(m.server.error()),
              "rc_server_trace_end with no slice open: %s, %s" % (text(lib.rc_status_name(st)),
                                                                 text(m.server.error())))
        path = os.path.join(scratch, "python_server_trace.json")
        call(lib.rc_server_write_trace(m.server.handle, path.encode()), "rc_server_write_trace", m.server.error)
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
        slices = [e for e in trace["traceEvents"] if e.get("name") == "python step" and e.get("ph") == "X"]
        check(len(slices) == m.server.stepped and all(e["tid"] == 3 for e in slices),
              "%d 'python step' slices for %d steps, tids %s" % (len(slices), m.server.stepped,
                                                                 sorted({e["tid"] for e in slices})))
        names = [e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "process_name"]
        check(names == ["python server"], "process names %s" % names)
        for c in m.clients:
            st = lib.rc_client_write_trace(c.handle, path.encode())
            check(st == rc.RC_ERR_ARGUMENT and "no trace is kept" in text(c.error()),
                  "rc_client_write_trace without a trace: %s, %s" % (text(lib.rc_status_name(st)), text(c.error())))
        return "%d steps, each a 'python step' slice in %s" % (m.server.stepped, path)
    finally:
        m.destroy()


# ------------------------------------------------------------------ main

def main(argv=None):
    global rc, lib
    ap = argparse.ArgumentParser(description="a network match from Python in poll mode (ctest capi:python_sessions)")
    ap.add_argument("lib", help="libretcon_c.so")
    ap.add_argument("description", help="retcon_api.json")
    ap.add_argument("scratch", help="a scratch directory")
    ap.add_argument("--header", required=True, help="retcon.h")
    ap.add_argument("--gen", default=DEFAULT_GEN, help="capi/tools/gen_ctypes.py")
    args = ap.parse_args(argv)
    os.makedirs(args.scratch, exist_ok=True)
    try:
        _, rc = load_generated(args.gen, args.description, args.scratch, "retcon_ctypes_sessions.py",
                               header=args.header)
        lib = load_library(args.lib)
    except (TestFailure, Exception) as e:  # noqa: BLE001 - nothing can run without the module
        print("FAIL setup: %s" % e)
        return 1

    sections = Sections()
    schema = Schema()
    sections.run("match", lambda: run_match(schema))
    sections.run("misuse", lambda: run_misuse(schema))
    sections.run("trace", lambda: run_trace(schema, args.scratch))
    schema.destroy()
    return sections.finish()


if __name__ == "__main__":
    sys.exit(main())
