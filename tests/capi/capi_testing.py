"""What the C API's Python tests share (test_python.py for capi:python, test_python_sessions.py
for capi:python_sessions; docs/c-api.md): failures and status checks, the ctypes module generated
from the build's API description by capi/tools/gen_ctypes.py, a world's calls, and named
sections that count failures. Standard library only.

A test loads the module and the library through load_generated and load_library, which also
bind them here for call(); it keeps its own names for them (rc, lib) for its own code.
"""

import ctypes
import hashlib
import importlib.util
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_GEN = os.path.join(HERE, "..", "..", "capi", "tools", "gen_ctypes.py")

rc = None   # the generated module (load_generated)
lib = None  # the loaded library (load_library)


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def text(message):
    """A C string the library returned, as text (None reads as empty)."""
    return (message or b"").decode(errors="replace")


def call(status, what, handle_error=None):
    """Fails with the library's message unless `status` is RC_OK."""
    if status != rc.RC_OK:
        msg = handle_error() if handle_error else lib.rc_last_error()
        raise TestFailure("%s returned %s: %s" % (what, rc.RC_STATUS_NAMES.get(status, status), text(msg)))


def sized(cls):
    """A struct of the API with its struct_size set."""
    value = cls()
    value.struct_size = ctypes.sizeof(cls)
    return value


def load_generated(gen_path, description_path, scratch, module_file, header=None):
    """Generates the ctypes module from the API description into scratch/module_file (each test
    its own file: the tests share the scratch directory and may run at once) and imports it.
    With `header`, a description made from another retcon.h than that one fails here.
    Returns (the description, the module)."""
    global rc
    sys.path.insert(0, os.path.dirname(os.path.abspath(gen_path)))
    spec = importlib.util.spec_from_file_location("gen_ctypes", gen_path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(description_path) as f:
        desc = json.load(f)
    if header is not None:
        with open(header, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        if desc["header_sha256"] != sha:
            raise TestFailure("the API description %s is stale (rebuild the target retcon_c_api_description)" %
                              description_path)
    out = os.path.join(scratch, module_file)
    with open(out, "w") as f:
        f.write(gen.generate(desc, os.path.basename(description_path)))
    spec = importlib.util.spec_from_file_location("retcon_ctypes", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rc = module
    return desc, module


def load_library(path):
    """The library through the generated module's load() (which raises rc.LibraryDrift when
    the library and the description disagree). Returns it."""
    global lib
    lib = rc.load(path)
    return lib


class World:
    """An rc_world and the calls on it that the tests share; each failed call raises
    TestFailure with the world's message."""

    def __init__(self, schema):
        self.handle = ctypes.POINTER(rc.rc_world)()
        call(lib.rc_world_create(schema.handle, ctypes.byref(self.handle)), "rc_world_create")

    @classmethod
    def wrap(cls, handle):
        """A world the library owns (the one an rc_step_fn is given); not to be destroyed."""
        w = cls.__new__(cls)
        w.handle = handle
        return w

    @property
    def address(self):
        return ctypes.cast(self.handle, ctypes.c_void_p).value

    def error(self):
        return lib.rc_world_last_error(self.handle)

    def valid(self, e):
        return lib.rc_entity_valid(self.handle, e) == 1

    def create(self):
        e = rc.rc_entity()
        call(lib.rc_entity_create(self.handle, ctypes.byref(e)), "rc_entity_create", self.error)
        return e.value

    def destroy_entity(self, e):
        call(lib.rc_entity_destroy(self.handle, e), "rc_entity_destroy", self.error)

    def add(self, e, component, value=None):
        """Adds a component with `value`, or a tag when `value` is None."""
        if value is None:
            call(lib.rc_component_add(self.handle, e, component, None, 0), "rc_component_add(tag)", self.error)
        else:
            call(lib.rc_component_add(self.handle, e, component, ctypes.byref(value), ctypes.sizeof(value)),
                 "rc_component_add", self.error)

    def remove(self, e, component):
        call(lib.rc_component_remove(self.handle, e, component), "rc_component_remove", self.error)

    def has(self, e, component):
        out = ctypes.c_int()
        call(lib.rc_component_has(self.handle, e, component, ctypes.byref(out)), "rc_component_has", self.error)
        return bool(out.value)

    def get(self, e, component, cls):
        p = ctypes.c_void_p()
        call(lib.rc_component_get(self.handle, e, component, ctypes.byref(p)), "rc_component_get", self.error)
        return cls.from_address(p.value)

    def set_resource(self, resource, value):
        call(lib.rc_resource_set(self.handle, resource, ctypes.byref(value), ctypes.sizeof(value)),
             "rc_resource_set", self.error)

    def resource(self, resource, cls):
        p = ctypes.c_void_p()
        call(lib.rc_resource_get(self.handle, resource, ctypes.byref(p)), "rc_resource_get", self.error)
        return cls.from_address(p.value)

    def each_chunk(self, visit, include, exclude=()):
        """Calls visit(chunk) for each chunk of an rc_query over the component ids `include`
        without `exclude` (one rc_chunk, refilled for each), then destroys the query, also when
        visit raises."""
        inc = (ctypes.c_uint32 * len(include))(*include)
        exc = (ctypes.c_uint32 * max(1, len(exclude)))(*exclude)
        desc = rc.rc_query_desc(ctypes.sizeof(rc.rc_query_desc), inc, len(include), exc if exclude else None,
                                len(exclude))
        q = ctypes.POINTER(rc.rc_query)()
        call(lib.rc_query_create(self.handle, ctypes.byref(desc), ctypes.byref(q)), "rc_query_create", self.error)
        try:
            chunk, has = rc.rc_chunk(), ctypes.c_int()
            while True:
                call(lib.rc_query_next(q, ctypes.byref(chunk), ctypes.byref(has)), "rc_query_next",
                     lambda: lib.rc_query_last_error(q))
                if not has.value:
                    return
                visit(chunk)
        finally:
            lib.rc_query_destroy(q)

    def alive(self):
        out = ctypes.c_uint64()
        call(lib.rc_world_alive(self.handle, ctypes.byref(out)), "rc_world_alive", self.error)
        return out.value

    def hash(self):
        out = ctypes.c_uint64()
        call(lib.rc_world_hash(self.handle, ctypes.byref(out)), "rc_world_hash", self.error)
        return out.value

    def destroy(self):
        lib.rc_world_destroy(self.handle)


class Sections:
    """Named parts of a test: each runs, prints "ok" with what it returned or "FAIL" with why,
    and a failure or a crash of one does not stop the others."""

    def __init__(self):
        self.failures = 0

    def run(self, name, fn):
        try:
            print("ok   %s: %s" % (name, fn()))
        except TestFailure as e:
            self.failures += 1
            print("FAIL %s: %s" % (name, e))
        except Exception:  # noqa: BLE001 - a crash of one section is that section's failure
            self.failures += 1
            print("FAIL %s (exception):\n%s" % (name, traceback.format_exc()))
        sys.stdout.flush()

    def finish(self):
        """Prints the count of failed sections; returns the exit status."""
        print("%s: %d section(s) failed" % ("FAILED" if self.failures else "passed", self.failures))
        return 1 if self.failures else 0
