#!/usr/bin/env python3
"""capi:python - retcon's C API from Python, through ctypes declarations generated from the
header (docs/c-api.md). Standard library only.

    test_python.py <libretcon_c.so> <retcon_api.json> <cpp_writer> <scratch dir>
                   --probe <c_schema_probe> --header <retcon.h> [--gen <gen_ctypes.py>]

1. Drift between retcon.h, its description and the library fails the test:
   - the description (made at build time by capi/tools/api_description.py) must carry the
     SHA-256 of the header as it is now;
   - the ctypes module is generated here, now, by capi/tools/gen_ctypes.py; every function of
     the description must be declared in it and exported by the library, and the library must
     export no rc_* function the header lacks (read from the ELF dynamic symbol table);
   - every struct's ctypes size and field offsets must equal what the C compiler says
     (c_schema_probe --sizes), and every struct of the header must appear there.
2. rc_abi_version() == RC_ABI_VERSION.
3. A schema declared from Python (records, text, entity, bool, a u64 after explicit padding, a
   tag, two resources, a group) hashes like the same layout declared in C++ (cpp_writer --hash).
4. 500 frames of a simulation stepped from Python, each frame saved to an rc_ring and restored
   (the hash must not change), with rollbacks that re-simulate and must reproduce the hashes,
   written to a replay; the replay is verified by rc_replay_verify calling the same step as an
   rc_step_fn; a step that changes one frame must be caught at that frame.
5. A snapshot file written by C++ (cpp_writer --write) loads into the Python-declared world:
   the schema hashes agree, the world hash is the one C++ computed, and the values are there.
"""

import argparse
import ctypes
import hashlib
import json
import os
import struct
import subprocess
import sys
import traceback

# capi_testing is next to this script; no __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capi_testing  # noqa: E402
from capi_testing import (DEFAULT_GEN, Sections, TestFailure, call, check, load_generated,  # noqa: E402
                          load_library, sized)

rc = None   # the generated module
lib = None  # the loaded library


# ------------------------------------------------------------------ drift checks

def elf_exported_functions(path):
    """Names of the functions a shared library exports (defined, global or weak, default or
    protected visibility), from its ELF .dynsym. None if the file is not ELF."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        return None
    is64 = data[4] == 2
    endian = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(endian + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x3A)
        sh_fmt, sym_fmt = endian + "IIQQQQIIQQ", endian + "IBBHQQ"
    else:
        shoff, = struct.unpack_from(endian + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x2E)
        sh_fmt, sym_fmt = endian + "IIIIIIIIII", endian + "IIIBBH"
    sections = [struct.unpack_from(sh_fmt, data, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for sh in sections:
        if sh[1] != 11:  # SHT_DYNSYM
            continue
        offset, size, link, entsize = sh[4], sh[5], sh[6], sh[9]
        strtab = sections[link]
        str_off = strtab[4]
        for i in range(size // entsize):
            fields = struct.unpack_from(sym_fmt, data, offset + i * entsize)
            if is64:
                name_off, info, other, shndx = fields[0], fields[1], fields[2], fields[3]
            else:
                name_off, info, other, shndx = fields[0], fields[3], fields[4], fields[5]
            bind, stype, vis = info >> 4, info & 0xF, other & 0x3
            if shndx == 0 or stype != 2 or bind not in (1, 2) or vis not in (0, 3):
                continue
            end = data.index(b"\0", str_off + name_off)
            names.add(data[str_off + name_off:end].decode())
    return names


def check_drift(args, desc):
    with open(args.header, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    check(desc["header_sha256"] == sha,
          "the API description %s is stale: it was made from a retcon.h with SHA-256 %s, the header is now %s "
          "(rebuild the target retcon_c_api_description)" % (args.description, desc["header_sha256"], sha))
    check(rc.HEADER_SHA256 == sha, "the generated ctypes module is not from the current header")

    header_functions = [f["name"] for f in desc["functions"]]
    missing = [n for n in header_functions if n not in rc.FUNCTIONS]
    check(not missing, "functions in retcon.h without a generated ctypes declaration: %s" % ", ".join(missing))
    for name in header_functions:
        fn = getattr(lib, name)
        check(fn.argtypes is not None and len(fn.argtypes) == len(rc.FUNCTIONS[name][1]),
              "%s: argtypes not set from the description" % name)

    exported = elf_exported_functions(args.lib)
    if exported is None:
        print("note: %s is not ELF; the exported-symbol comparison is skipped" % args.lib)
    else:
        rc_exported = sorted(n for n in exported if n.startswith("rc_"))
        extra = sorted(set(rc_exported) - set(header_functions))
        absent = sorted(set(header_functions) - set(rc_exported))
        check(not extra, "the library exports rc_* functions retcon.h does not declare: %s" % ", ".join(extra))
        check(not absent, "retcon.h declares functions the library does not export: %s" % ", ".join(absent))
        others = sorted(n for n in exported if not n.startswith("rc_") and n not in ("_init", "_fini"))
        check(not others, "the library exports functions outside the C API: %s" % ", ".join(others[:20]))

    # Layouts: ctypes against the C compiler.
    out = subprocess.run([args.probe, "--sizes"], stdout=subprocess.PIPE, check=True).stdout.decode()
    sizes, offsets = {}, {}
    for line in out.splitlines():
        word, name, value = line.split()
        (sizes if word == "sizeof" else offsets)[name] = int(value)
    for name in rc.STRUCTS:
        cls = getattr(rc, name)
        check(name in sizes, "struct %s of retcon.h is missing from c_schema_probe --sizes: add it there" % name)
        check(ctypes.sizeof(cls) == sizes[name], "struct %s: ctypes says %d bytes, the C compiler %d" %
              (name, ctypes.sizeof(cls), sizes[name]))
        for fname, _ in cls._fields_:
            key = "%s.%s" % (name, fname)
            check(key in offsets, "%s is missing from c_schema_probe --sizes: add it there" % key)
            check(getattr(cls, fname).offset == offsets[key], "%s: ctypes offset %d, the C compiler's %d" %
                  (key, getattr(cls, fname).offset, offsets[key]))
    for key in offsets:
        s, fname = key.split(".")
        check(s in rc.STRUCTS and fname in [f for f, _ in getattr(rc, s)._fields_],
              "c_schema_probe --sizes prints %s, which the description of retcon.h does not have" % key)
    for name in sizes:
        check(name in rc.STRUCTS or hasattr(rc, name), "c_schema_probe prints %s, unknown to the description" % name)
        check(ctypes.sizeof(getattr(rc, name)) == sizes[name], "%s: ctypes says %d bytes, the C compiler %d" %
              (name, ctypes.sizeof(getattr(rc, name)), sizes[name]))
    return "%d functions, %d structs, %d opaque handles" % (len(header_functions), len(rc.STRUCTS),
                                                           len(rc.OPAQUE_STRUCTS))


# ------------------------------------------------------------------ the layout (see cpp_writer.cpp)

class StatPair(ctypes.Structure):
    _fields_ = [("hp", ctypes.c_int16), ("armor", ctypes.c_uint16)]


class Body(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("vx", ctypes.c_float), ("vy", ctypes.c_float),
                ("flags", ctypes.c_uint32), ("pad", ctypes.c_uint8 * 4), ("ticks", ctypes.c_uint64)]


class Spin(ctypes.Structure):
    _fields_ = [("angle", ctypes.c_float), ("rate", ctypes.c_float)]


class Label(ctypes.Structure):
    _fields_ = [("text", ctypes.c_char * 12), ("owner", ctypes.c_uint32), ("visible", ctypes.c_bool),
                ("pad", ctypes.c_uint8 * 3)]


class Fighter(ctypes.Structure):
    _fields_ = [("base", StatPair), ("boosts", StatPair * 2), ("level", ctypes.c_int32)]


class GameClock(ctypes.Structure):
    _fields_ = [("frame", ctypes.c_uint64), ("time", ctypes.c_double), ("tick_hz", ctypes.c_uint32),
                ("seed", ctypes.c_uint32)]


class Rng(ctypes.Structure):
    _fields_ = [("state", ctypes.c_uint64)]


BODY, SPIN, LABEL, FIGHTER, FROZEN = range(5)
CLOCK, RNG = range(2)
ENTITY32_NULL = 0xFFFFFFFF


def entity32(e):
    """An rc_entity as the 4-byte handle an RC_ENTITY field stores (the C API's rc_entity is
    that handle widened; RC_NULL_ENTITY is the null handle)."""
    return ENTITY32_NULL if e == rc.RC_NULL_ENTITY else e & 0xFFFFFFFF


class SchemaBuilder:
    def __init__(self):
        self.handle = ctypes.POINTER(rc.rc_schema)()
        call(lib.rc_schema_create(ctypes.byref(self.handle)), "rc_schema_create")
        self.keep = []

    def error(self):
        return lib.rc_schema_last_error(self.handle)

    def fields(self, cls, kinds, records=None, rename=None):
        records = records or {}
        rename = rename or {}
        arr = (rc.rc_field * len(cls._fields_))()
        for i, (name, _) in enumerate(cls._fields_):
            d = getattr(cls, name)
            kind = kinds[name]
            arr[i] = rc.rc_field(rename.get(name, name).encode(), d.offset, d.size, kind,
                                 records.get(name, 0))
        self.keep.append(arr)
        return arr

    def desc(self, name, cls, kinds=None, records=None, rename=None):
        if cls is None:  # a tag
            return rc.rc_type_desc(ctypes.sizeof(rc.rc_type_desc), name.encode(), 0, None, 0)
        arr = self.fields(cls, kinds, records, rename)
        d = rc.rc_type_desc(ctypes.sizeof(rc.rc_type_desc), name.encode(), ctypes.sizeof(cls), arr, len(arr))
        self.keep.append(d)
        return d

    def record(self, *a, **k):
        out = ctypes.c_uint32()
        call(lib.rc_schema_record(self.handle, ctypes.byref(self.desc(*a, **k)), ctypes.byref(out)),
             "rc_schema_record", self.error)
        return out.value

    def component(self, *a, **k):
        out = ctypes.c_uint32()
        call(lib.rc_schema_component(self.handle, ctypes.byref(self.desc(*a, **k)), ctypes.byref(out)),
             "rc_schema_component(%s)" % a[0], self.error)
        return out.value

    def resource(self, *a, **k):
        out = ctypes.c_uint32()
        call(lib.rc_schema_resource(self.handle, ctypes.byref(self.desc(*a, **k)), ctypes.byref(out)),
             "rc_schema_resource(%s)" % a[0], self.error)
        return out.value

    def group(self, *ids):
        arr = (ctypes.c_uint32 * len(ids))(*ids)
        call(lib.rc_schema_group(self.handle, arr, len(ids)), "rc_schema_group", self.error)

    def hash(self):
        out = ctypes.c_uint64()
        call(lib.rc_schema_hash(self.handle, ctypes.byref(out)), "rc_schema_hash", self.error)
        return out.value

    def destroy(self):
        lib.rc_schema_destroy(self.handle)


def make_schema(rename=None):
    """The layout of cpp_writer.cpp, declared from Python. `rename` renames body's fields."""
    s = SchemaBuilder()
    stat = s.record("stat_pair", StatPair, {"hp": rc.RC_I16, "armor": rc.RC_U16})
    ids = [
        s.component("body", Body, {"x": rc.RC_F32, "y": rc.RC_F32, "vx": rc.RC_F32, "vy": rc.RC_F32,
                                   "flags": rc.RC_U32, "pad": rc.RC_U8, "ticks": rc.RC_U64}, rename=rename),
        s.component("spin", Spin, {"angle": rc.RC_F32, "rate": rc.RC_F32}),
        s.component("label", Label, {"text": rc.RC_TEXT, "owner": rc.RC_ENTITY, "visible": rc.RC_BOOL,
                                     "pad": rc.RC_U8}),
        s.component("fighter", Fighter, {"base": rc.RC_RECORD, "boosts": rc.RC_RECORD, "level": rc.RC_I32},
                    records={"base": stat, "boosts": stat}),
        s.component("frozen", None),
    ]
    check(ids == [BODY, SPIN, LABEL, FIGHTER, FROZEN], "component ids %s are not declaration order" % ids)
    res = [s.resource("game_clock", GameClock, {"frame": rc.RC_U64, "time": rc.RC_F64, "tick_hz": rc.RC_U32,
                                                "seed": rc.RC_U32}),
           s.resource("rng", Rng, {"state": rc.RC_U64})]
    check(res == [CLOCK, RNG], "resource ids %s are not declaration order" % res)
    s.group(BODY, SPIN)
    return s


# ------------------------------------------------------------------ a world from Python

class World(capi_testing.World):
    def section_hashes(self):
        needed = ctypes.c_size_t()
        st = lib.rc_world_section_hashes(self.handle, None, 0, ctypes.byref(needed))
        check(st in (rc.RC_OK, rc.RC_ERR_BUFFER_TOO_SMALL), "rc_world_section_hashes size query: %d" % st)
        buf = (ctypes.c_uint64 * needed.value)()
        call(lib.rc_world_section_hashes(self.handle, buf, needed.value, ctypes.byref(needed)),
             "rc_world_section_hashes", self.error)
        return list(buf)

    def query(self, include, exclude=()):
        """[(entity, [column struct or None for tags])] for every match, through rc_query_next's
        chunks (columns, with rows when the pools are not aligned). self.rows_used says whether
        a chunk came with rows."""
        classes = [c for _, c in include]
        out = []
        self.rows_used = False

        def visit(chunk):
            self.rows_used = self.rows_used or bool(chunk.rows)
            for i in range(chunk.count):
                cols = []
                for c, cls in enumerate(classes):
                    if cls is None:
                        check(not chunk.columns[c], "a tag's column is not NULL")
                        cols.append(None)
                        continue
                    row = chunk.rows[c][i] if chunk.rows else i
                    cols.append(cls.from_address(chunk.columns[c] + row * ctypes.sizeof(cls)))
                out.append((chunk.entities[i], cols))

        self.each_chunk(visit, [i for i, _ in include], exclude)
        return out


# ------------------------------------------------------------------ the simulation

PLAYERS, INPUT_SIZE = 2, 4
RECORD_SIZE = PLAYERS + PLAYERS * INPUT_SIZE


def make_record(frame):
    """Deterministic inputs for a frame: flags (player 1 is absent every 7th frame), then per
    player dx, dy (int8), buttons, a zero byte."""
    x = (frame * 2654435761 + 12345) & 0xFFFFFFFF
    flags = bytes([1, 0 if frame % 7 == 3 else 1])
    inputs = b""
    for p in range(PLAYERS):
        v = (x >> (8 * p)) & 0xFFFF
        dx = (v & 0xF) - 8
        dy = ((v >> 4) & 0xF) - 8
        buttons = (v >> 8) & 0x7
        inputs += struct.pack("<bbBB", dx, dy, buttons, 0)
    return flags + inputs


def set_text(label, text):
    """Sets a text field the way retcon stores text: the characters, then zeros to the end
    (assigning to a ctypes char array leaves the bytes after the terminator as they were)."""
    check(len(text) <= 12, "text %r is too long" % text)
    ctypes.memset(ctypes.addressof(label) + Label.text.offset, 0, Label.text.size)
    label.text = text


def f32(v):
    """v rounded to a C float, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def xorshift(w):
    r = w.resource(RNG, Rng)
    s = r.state
    s ^= (s << 13) & 0xFFFFFFFFFFFFFFFF
    s ^= s >> 7
    s ^= (s << 17) & 0xFFFFFFFFFFFFFFFF
    r.state = s
    return s


def step(w, frame, record):
    """One frame of the game: a pure function of the world and the inputs (everything it
    reads is in the world), so rc_replay_verify can run it again."""
    check(len(record) == RECORD_SIZE, "a %d-byte record" % len(record))
    clock = w.resource(CLOCK, GameClock)
    check(clock.frame == frame, "the world is at frame %d, stepping frame %d" % (clock.frame, frame))
    clock.frame += 1
    clock.time += 1.0 / clock.tick_hz
    inputs = []
    for p in range(PLAYERS):
        present = record[p]
        dx, dy, buttons, _ = struct.unpack_from("<bbBB", record, PLAYERS + p * INPUT_SIZE)
        inputs.append((dx, dy, buttons) if present else (0, 0, 0))

    # Movement over the group (the pools are aligned: rows is NULL).
    for e, (b, s) in w.query([(BODY, Body), (SPIN, Spin)], exclude=[FROZEN]):
        dx, dy, _ = inputs[e % PLAYERS]
        b.vx = b.vx * 0.99 + dx * 0.01
        b.vy = b.vy * 0.99 + dy * 0.01 - 0.005
        b.x += b.vx
        b.y += b.vy
        b.ticks += 1
        s.angle += s.rate
    # Labels follow their bodies (label and body are not aligned: rows are used).
    for e, (lab, b) in w.query([(LABEL, Label), (BODY, Body)]):
        lab.visible = b.x > 0.0
        set_text(lab, ("L%d:%d" % (e & 0xFFFF, frame % 1000)).encode())
    # Fighters level up through rc_component_get pointers.
    for e, _ in w.query([(FIGHTER, Fighter)]):
        f = w.get(e, FIGHTER, Fighter)
        f.level += 1
        f.boosts[frame % 2].hp += 1

    # Structural changes, decided from the world and the inputs.
    bodies = [e for e, _ in w.query([(BODY, Body)])]
    if inputs[0][2] & 1 or len(bodies) < 4:
        e = w.create()
        r = xorshift(w)
        w.add(e, BODY, Body(x=float(r & 0xFF), y=float((r >> 8) & 0xFF), vx=0.5, vy=0.0, flags=r & 0xF,
                            ticks=r >> 40))
        w.add(e, SPIN, Spin(angle=0.0, rate=0.25))
        if r & 0x100:
            owner = bodies[0] if bodies else rc.RC_NULL_ENTITY
            w.add(e, LABEL, Label(text=b"new", owner=entity32(owner), visible=True))
    if frame % 13 == 0 and len(bodies) > 6:
        w.destroy_entity(bodies[xorshift(w) % len(bodies)])
    if frame % 17 == 0 and bodies:
        e = bodies[xorshift(w) % len(bodies)]
        if w.valid(e):
            if w.has(e, FROZEN):
                w.remove(e, FROZEN)
            else:
                w.add(e, FROZEN)
    if frame % 29 == 0 and bodies:
        e = bodies[xorshift(w) % len(bodies)]
        if w.valid(e) and not w.has(e, FIGHTER):
            w.add(e, FIGHTER, Fighter(base=StatPair(10, 1), boosts=(StatPair * 2)(StatPair(0, 0), StatPair(0, 0)),
                                      level=1))
    if inputs[1][2] & 2 and frame % 5 == 0:
        # Player 2 removes the first label.
        for e, _ in w.query([(LABEL, Label)])[:1]:
            w.remove(e, LABEL)


def setup_world(w):
    w.set_resource(CLOCK, GameClock(frame=0, time=0.0, tick_hz=60, seed=7))
    w.set_resource(RNG, Rng(state=0x243F6A8885A308D3))
    first = None
    for i in range(6):
        e = w.create()
        w.add(e, BODY, Body(x=float(i), y=float(-i), vx=0.1 * i, vy=0.0, flags=i, ticks=i * 1000))
        if i % 2 == 0:
            w.add(e, SPIN, Spin(angle=0.0, rate=0.01 * i))
        if i == 0:
            first = e
        if i % 3 == 1:
            w.add(e, LABEL, Label(text=b"start", owner=entity32(first), visible=False))
    w.add(first, FROZEN)


def run_simulation(args, schema):
    frames = 500
    w = World(schema)
    setup_world(w)
    ring = ctypes.POINTER(rc.rc_ring)()
    call(lib.rc_ring_create(16, ctypes.byref(ring)), "rc_ring_create")
    ring_error = lambda: lib.rc_ring_last_error(ring)

    settings = sized(rc.rc_replay_settings)
    call(lib.rc_replay_settings_default(ctypes.byref(settings)), "rc_replay_settings_default")
    settings.players, settings.input_size, settings.tick_hz = PLAYERS, INPUT_SIZE, 60
    settings.keyframe_interval = 64
    replay_path = os.path.join(args.scratch, "python.rcr")
    if os.path.exists(replay_path):  # a replay is never overwritten: the last run's goes first
        os.remove(replay_path)
    writer = ctypes.POINTER(rc.rc_replay_writer)()
    call(lib.rc_replay_writer_create(replay_path.encode(), w.handle, 0, ctypes.byref(settings), ctypes.byref(writer)),
         "rc_replay_writer_create")
    writer_error = lambda: lib.rc_replay_writer_last_error(writer)

    hashes, records = [], []
    rollbacks = 0
    frames_with_rows = 0
    for frame in range(frames):
        record = make_record(frame)
        records.append(record)
        step(w, frame, record)
        h = w.hash()
        sections = w.section_hashes()
        # Save the frame, restore it at once: nothing may change.
        call(lib.rc_ring_save(ring, w.handle, frame), "rc_ring_save", ring_error)
        call(lib.rc_ring_restore(ring, w.handle, frame), "rc_ring_restore", ring_error)
        check(w.hash() == h, "frame %d: the hash changed across rc_ring_save + rc_ring_restore" % frame)
        check(w.section_hashes() == sections, "frame %d: section hashes changed across save + restore" % frame)
        hashes.append(h)
        # The group's pools are aligned: its chunks come without rows; label + body need them.
        w.query([(BODY, Body), (SPIN, Spin)])
        check(not w.rows_used, "frame %d: a query over the group (body, spin) returned rows" % frame)
        w.query([(LABEL, Label), (BODY, Body)])
        frames_with_rows += w.rows_used
        buf = ctypes.create_string_buffer(record, len(record))
        call(lib.rc_replay_writer_add_frame(writer, buf, len(record), w.handle), "rc_replay_writer_add_frame",
             writer_error)
        # Every 50 frames roll back 5 and re-simulate with the same inputs (what a rollback
        # netcode does on a late input): the hashes must come back.
        if frame % 50 == 49:
            back = frame - 5
            call(lib.rc_ring_restore(ring, w.handle, back), "rc_ring_restore(rollback)", ring_error)
            check(w.hash() == hashes[back], "frame %d: restoring frame %d gave another hash" % (frame, back))
            for f in range(back + 1, frame + 1):
                step(w, f, records[f])
                check(w.hash() == hashes[f], "re-simulated frame %d after a rollback has another hash" % f)
            rollbacks += 1
    # A frame older than the ring holds is not found.
    st = lib.rc_ring_restore(ring, w.handle, 0)
    check(st == rc.RC_ERR_NOT_FOUND, "restoring frame 0 from a 16-frame ring gave %s" % rc.RC_STATUS_NAMES.get(st))
    check(w.hash() == hashes[-1], "a failed restore changed the world")
    check(frames_with_rows > 0, "no query over label + body ever needed rows: the rows path went untested")

    # An image through caller buffers, into a second world.
    needed = ctypes.c_size_t()
    st = lib.rc_world_save_image(w.handle, frames, None, 0, ctypes.byref(needed))
    check(st in (rc.RC_OK, rc.RC_ERR_BUFFER_TOO_SMALL) and needed.value > 0, "rc_world_save_image size query")
    image = ctypes.create_string_buffer(needed.value)
    call(lib.rc_world_save_image(w.handle, frames, image, needed.value, ctypes.byref(needed)), "rc_world_save_image",
         w.error)
    w2 = World(schema)
    got = rc.rc_frame()
    call(lib.rc_world_load_image(w2.handle, image, needed.value, ctypes.byref(got)), "rc_world_load_image", w2.error)
    check(got.value == frames and w2.hash() == w.hash(), "an image loaded into another world differs")
    w2.destroy()

    call(lib.rc_replay_writer_finish(writer), "rc_replay_writer_finish", writer_error)
    lib.rc_replay_writer_destroy(writer)
    alive = w.alive()
    lib.rc_ring_destroy(ring)
    w.destroy()
    return replay_path, hashes, records, "%d frames, %d rollbacks, %d entities alive at the end, rows in %d" % (
        frames, rollbacks, alive, frames_with_rows)


def verify_replay(schema, replay_path, hashes, records):
    replay = ctypes.POINTER(rc.rc_replay)()
    call(lib.rc_replay_open(replay_path.encode(), ctypes.byref(replay)), "rc_replay_open")
    err = lambda: lib.rc_replay_last_error(replay)
    try:
        info = sized(rc.rc_replay_info)
        call(lib.rc_replay_get_info(replay, ctypes.byref(info)), "rc_replay_get_info", err)
        check(info.players == PLAYERS and info.input_size == INPUT_SIZE and info.tick_hz == 60,
              "replay info: players %d input_size %d tick_hz %d" % (info.players, info.input_size, info.tick_hz))
        check(info.start_frame == 0 and info.end_frame == len(hashes) and info.complete == 1,
              "replay info: frames %d..%d complete %d" % (info.start_frame, info.end_frame, info.complete))
        check(info.schema_hash == schema.hash(), "the replay's schema hash is not the world's")
        for f in (0, 1, 137, len(hashes) - 1):
            h = ctypes.c_uint64()
            call(lib.rc_replay_hash(replay, f, ctypes.byref(h)), "rc_replay_hash", err)
            check(h.value == hashes[f], "rc_replay_hash(%d) differs from the hash while recording" % f)
            p, n = ctypes.c_void_p(), ctypes.c_size_t()
            call(lib.rc_replay_inputs(replay, f, ctypes.byref(p), ctypes.byref(n)), "rc_replay_inputs", err)
            check(ctypes.string_at(p.value, n.value) == records[f], "rc_replay_inputs(%d) is not what was written" % f)

        def run_verify(mutate_at=None, refuse_at=None):
            errors = []

            def c_step(world_ptr, inputs_ptr, user):
                # Exceptions must not escape into C (ctypes would print them and return 0,
                # which reads as success): turn them into a non-zero return.
                try:
                    w = World.wrap(world_ptr)
                    inputs = inputs_ptr.contents
                    frame = inputs.frame
                    record = ctypes.string_at(inputs.record, inputs.record_size)
                    check(inputs.players == PLAYERS and inputs.input_size == INPUT_SIZE,
                          "frame %d: the step sees %d players of %d bytes" % (frame, inputs.players, inputs.input_size))
                    check(ctypes.string_at(inputs.flags, inputs.players) == record[:inputs.players],
                          "frame %d: flags are not the record's first bytes" % frame)
                    step(w, frame, record)
                    if frame == mutate_at:
                        w.resource(RNG, Rng).state ^= 1
                    return 1 if frame == refuse_at else 0
                except Exception:  # noqa: BLE001 - reported after verify returns
                    errors.append(traceback.format_exc())
                    return 1

            cb = rc.rc_step_fn(c_step)  # kept alive for the call
            w = World(schema)
            report = sized(rc.rc_verify_report)
            st = lib.rc_replay_verify(replay, w.handle, cb, None, ctypes.byref(report))
            w.destroy()
            return st, report, errors

        st, report, errors = run_verify()
        check(not errors, "the step raised during rc_replay_verify:\n" + "".join(errors))
        call(st, "rc_replay_verify", err)
        check(report.ok == 1 and report.frames_checked == len(hashes),
              "rc_replay_verify: ok %d after %d of %d frames (first mismatch %d)" %
              (report.ok, report.frames_checked, len(hashes), report.first_mismatch))

        st, report, errors = run_verify(mutate_at=250)
        check(not errors, "the step raised during rc_replay_verify:\n" + "".join(errors))
        call(st, "rc_replay_verify (a changed frame)", err)
        check(report.ok == 0 and report.first_mismatch == 250 and report.expected == hashes[250] and
              report.actual != report.expected,
              "a step that changed frame 250: ok %d first_mismatch %d" % (report.ok, report.first_mismatch))

        st, report, errors = run_verify(refuse_at=40)
        check(not errors, "the step raised during rc_replay_verify:\n" + "".join(errors))
        check(st != rc.RC_OK, "a step returning non-zero at frame 40 did not fail rc_replay_verify")
        message = (lib.rc_replay_last_error(replay) or b"").decode()
        check("40" in message, "the refusal's message does not name the frame: %r" % message)
    finally:
        lib.rc_replay_close(replay)
    return "verified %d frames; a changed frame 250 and a refused frame 40 were caught" % len(hashes)


# ------------------------------------------------------------------ C++ interoperability

def cpp_schema_hash(args):
    out = subprocess.run([args.writer, "--hash"], stdout=subprocess.PIPE, check=True).stdout.decode()
    for line in out.splitlines():
        if line.startswith("schema hash "):
            return int(line.split()[2], 16), out
    raise TestFailure("cpp_writer --hash printed no schema hash:\n" + out)


def check_schema(args, schema):
    cpp_hash, cpp_out = cpp_schema_hash(args)
    py_hash = schema.hash()
    check(py_hash == cpp_hash, "the Python-declared schema hashes to %016x, the C++ one to %016x:\n%s" %
          (py_hash, cpp_hash, cpp_out))
    # A renamed field gives another hash, and the differences say where.
    other = make_schema(rename={"vy": "vz"})
    try:
        check(other.hash() != py_hash, "renaming body.vy did not change the schema hash")
        needed = ctypes.c_size_t()
        st = lib.rc_schema_differences(schema.handle, other.handle, None, 0, ctypes.byref(needed))
        check(st in (rc.RC_OK, rc.RC_ERR_BUFFER_TOO_SMALL), "rc_schema_differences size query: %d" % st)
        buf = ctypes.create_string_buffer(needed.value)
        call(lib.rc_schema_differences(schema.handle, other.handle, buf, needed.value, ctypes.byref(needed)),
             "rc_schema_differences", schema.error)
        text = buf.value.decode()
        check("body" in text, "rc_schema_differences does not name the component body: %r" % text)
    finally:
        other.destroy()
    return "schema hash %016x, equal to C++'s" % py_hash


def load_cpp_snapshot(args, schema):
    path = os.path.join(args.scratch, "from_cpp.rcs")
    if os.path.exists(path):
        os.remove(path)
    out = subprocess.run([args.writer, "--write", path], stdout=subprocess.PIPE, check=True).stdout.decode()
    expected = json.loads(out)
    call(lib.rc_snapshot_file_check(path.encode()), "rc_snapshot_file_check")

    w = World(schema)
    try:
        frame = rc.rc_frame()
        call(lib.rc_snapshot_file_load(w.handle, path.encode(), ctypes.byref(frame)), "rc_snapshot_file_load",
             w.error)
        check(frame.value == expected["frame"], "loaded frame %d, written %d" % (frame.value, expected["frame"]))
        check("%016x" % w.hash() == expected["world_hash"],
              "the loaded world hashes to %016x, C++'s to %s" % (w.hash(), expected["world_hash"]))
        check(w.alive() == expected["alive"], "%d entities alive, C++ wrote %d" % (w.alive(), expected["alive"]))

        bodies = sorted([b.x, b.y, b.vx, b.vy, b.flags, b.ticks] for _, (b,) in w.query([(BODY, Body)]))
        expected["bodies"] = sorted([f32(x), f32(y), f32(vx), f32(vy), flags, ticks]
                                    for x, y, vx, vy, flags, ticks in expected["bodies"])
        check(bodies == expected["bodies"], "bodies %s, C++ wrote %s" % (bodies, expected["bodies"]))
        labels = {}
        for e, (lab,) in w.query([(LABEL, Label)]):
            labels[lab.text.decode()] = (e, lab)
        check(sorted(labels) == sorted(t for t, _ in expected["labels"]),
              "label texts %s, C++ wrote %s" % (sorted(labels), expected["labels"]))
        for text, visible in expected["labels"]:
            check(int(labels[text][1].visible) == visible, "label %r: visible %s" % (text, labels[text][1].visible))
        # "writer" points at the frozen fighter; "third" at nothing.
        owner = labels["writer"][1].owner
        check(w.valid(owner), "the entity field of label 'writer' (%08x) is not a live entity" % owner)
        check(w.has(owner, FROZEN) and w.has(owner, FIGHTER), "label 'writer' does not point at the frozen fighter")
        f = w.get(owner, FIGHTER, Fighter)
        got = [f.base.hp, f.base.armor, f.boosts[0].hp, f.boosts[0].armor, f.boosts[1].hp, f.boosts[1].armor, f.level]
        check(got == expected["fighter"], "fighter %s, C++ wrote %s" % (got, expected["fighter"]))
        check(labels["third"][1].owner == ENTITY32_NULL, "label 'third' owner is %08x, not null" %
              labels["third"][1].owner)
        clock = w.resource(CLOCK, GameClock)
        check([clock.frame, clock.time, clock.tick_hz, clock.seed] == expected["game_clock"],
              "game_clock %s, C++ wrote %s" % ([clock.frame, clock.time, clock.tick_hz, clock.seed],
                                                expected["game_clock"]))
        check(w.resource(RNG, Rng).state == expected["rng"], "rng differs")
        spins = [(s.angle, s.rate) for _, (s,) in w.query([(SPIN, Spin)])]
        check(spins == [(0.5, 0.125)], "spins %s" % spins)
        before = w.hash()
    finally:
        w.destroy()

    # A world whose schema differs by one field name refuses the file and stays as it was.
    other = make_schema(rename={"vy": "vz"})
    w = World(other)
    try:
        setup_world(w)
        h = w.hash()
        st = lib.rc_snapshot_file_load(w.handle, path.encode(), ctypes.byref(rc.rc_frame()))
        check(st == rc.RC_ERR_SCHEMA_MISMATCH, "loading into a world with body.vz gave %s" %
              rc.RC_STATUS_NAMES.get(st, st))
        check(w.hash() == h, "a refused load changed the world")
    finally:
        w.destroy()
        other.destroy()
    return "loaded cpp_writer's snapshot (world hash %016x) and found its values" % before


# ------------------------------------------------------------------ main

def main(argv=None):
    global rc, lib
    ap = argparse.ArgumentParser(description="retcon's C API from Python (ctest capi:python)")
    ap.add_argument("lib", help="libretcon_c.so")
    ap.add_argument("description", help="retcon_api.json")
    ap.add_argument("writer", help="the cpp_writer program")
    ap.add_argument("scratch", help="a scratch directory")
    ap.add_argument("--probe", required=True, help="the c_schema_probe program")
    ap.add_argument("--header", required=True, help="retcon.h")
    ap.add_argument("--gen", default=DEFAULT_GEN, help="capi/tools/gen_ctypes.py")
    args = ap.parse_args(argv)
    os.makedirs(args.scratch, exist_ok=True)

    desc, rc = load_generated(args.gen, args.description, args.scratch, "retcon_ctypes.py")
    try:
        lib = load_library(args.lib)
    except rc.LibraryDrift as e:
        print("FAIL drift: %s" % e)
        return 1

    sections = Sections()
    section = sections.run
    state = {}

    def abi():
        check(lib.rc_abi_version() == rc.RC_ABI_VERSION,
              "rc_abi_version() is %d, the header's RC_ABI_VERSION %d" % (lib.rc_abi_version(), rc.RC_ABI_VERSION))
        return "ABI %d" % rc.RC_ABI_VERSION

    def simulate():
        state["replay"] = run_simulation(args, state["schema"])
        return state["replay"][3]

    section("drift", lambda: check_drift(args, desc))
    section("abi_version", abi)
    try:
        state["schema"] = make_schema()
    except TestFailure as e:
        print("FAIL schema: %s" % e)
        return 1
    section("schema_matches_cpp", lambda: check_schema(args, state["schema"]))
    section("simulate_rollback_record", simulate)
    if "replay" in state:
        section("replay_verify", lambda: verify_replay(state["schema"], *state["replay"][:3]))
    section("load_cpp_snapshot", lambda: load_cpp_snapshot(args, state["schema"]))
    state["schema"].destroy()
    return sections.finish()


if __name__ == "__main__":
    sys.exit(main())
