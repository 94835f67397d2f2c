#!/usr/bin/env python3
"""Writes a Python module of ctypes declarations from retcon's API description.

    gen_ctypes.py --description retcon_api.json --out retcon_ctypes.py

The description is what capi/tools/api_description.py makes from retcon.h at build time. The
module it writes holds, for everything the header declares:

  - a ctypes.Structure class per struct (opaque handles are empty Structures used through
    POINTER), with _fields_ in the header's order;
  - the enum constants as module integers, and each enum type as a ctypes integer;
  - the scalar typedefs (rc_entity, rc_frame) and the function-pointer typedefs
    (rc_step_fn) as ctypes.CFUNCTYPE types whose parameters also take
    None, a NULL callback (rc_server_create's step: NULL selects poll mode);
  - the macros the description carries (RC_ABI_VERSION, RC_NULL_ENTITY,
    RC_RECONNECT_TOKEN_SIZE);
  - FUNCTIONS: name -> (restype, argtypes) for every function, and load(path), which opens the
    library and sets argtypes and restype on every function. A function the library does not
    export makes load() fail with its name: the header and the library have drifted.

Nothing is written by hand: regenerate after every header change (the build does this).
Only the standard library is used.
"""

import argparse
import json
import os
import sys

# C spellings of builtin and <stdint.h>/<stddef.h> types -> ctypes names.
_SCALARS = {
    "char": "ctypes.c_char",
    "signed char": "ctypes.c_byte",
    "unsigned char": "ctypes.c_ubyte",
    "short": "ctypes.c_short",
    "short int": "ctypes.c_short",
    "unsigned short": "ctypes.c_ushort",
    "unsigned short int": "ctypes.c_ushort",
    "int": "ctypes.c_int",
    "signed int": "ctypes.c_int",
    "signed": "ctypes.c_int",
    "unsigned int": "ctypes.c_uint",
    "unsigned": "ctypes.c_uint",
    "long": "ctypes.c_long",
    "long int": "ctypes.c_long",
    "unsigned long": "ctypes.c_ulong",
    "unsigned long int": "ctypes.c_ulong",
    "long long": "ctypes.c_longlong",
    "long long int": "ctypes.c_longlong",
    "unsigned long long": "ctypes.c_ulonglong",
    "unsigned long long int": "ctypes.c_ulonglong",
    "float": "ctypes.c_float",
    "double": "ctypes.c_double",
    "_Bool": "ctypes.c_bool",
    "int8_t": "ctypes.c_int8",
    "int16_t": "ctypes.c_int16",
    "int32_t": "ctypes.c_int32",
    "int64_t": "ctypes.c_int64",
    "uint8_t": "ctypes.c_uint8",
    "uint16_t": "ctypes.c_uint16",
    "uint32_t": "ctypes.c_uint32",
    "uint64_t": "ctypes.c_uint64",
    "size_t": "ctypes.c_size_t",
    "ptrdiff_t": "ctypes.c_ssize_t",
    "intptr_t": "ctypes.c_ssize_t",
    "uintptr_t": "ctypes.c_size_t",
}


class GenerateError(Exception):
    """The description holds something this generator cannot express in ctypes."""


class _Generator:
    def __init__(self, desc):
        self.desc = desc
        self.structs = {s["name"]: s for s in desc["structs"]}
        self.enums = {e["name"]: e for e in desc["enums"]}
        self.typedefs = {t["name"]: t for t in desc["typedefs"]}

    # -------------------------------------------------------------- types

    def _is_function_pointer_typedef(self, name):
        t = self.typedefs.get(name)
        return t is not None and t["type"]["kind"] == "pointer" and t["type"]["to"]["kind"] == "function"

    def named(self, name, context):
        """The Python expression for a named type (a value, not a pointee)."""
        if name == "void":
            raise GenerateError("%s: 'void' used as a value type" % context)
        if name in _SCALARS:
            return _SCALARS[name]
        for prefix in ("struct ", "enum "):
            if name.startswith(prefix):
                tag = name[len(prefix):]
                if prefix == "struct " and tag in self.structs:
                    return tag
                if prefix == "enum " and tag in self.enums:
                    return tag
                raise GenerateError("%s: %s is not declared in the header" % (context, name))
        if name in self.typedefs or name in self.structs or name in self.enums:
            return name
        raise GenerateError("%s: no ctypes mapping for the type %r (add it to gen_ctypes.py)" % (context, name))

    def expr(self, t, context):
        """The Python expression for a type tree (see api_description.py)."""
        kind = t["kind"]
        if kind == "named":
            return self.named(t["name"], context)
        if kind == "array":
            if t["count"] is None:
                raise GenerateError("%s: an array without a size" % context)
            return "(%s * %d)" % (self.expr(t["of"], context), t["count"])
        if kind == "pointer":
            to = t["to"]
            if to["kind"] == "named" and to["name"] == "void":
                return "ctypes.c_void_p"
            if to["kind"] == "named" and to["name"] == "char":
                return "ctypes.c_char_p"
            if to["kind"] == "function":
                return self.function_type(to, context)
            return "ctypes.POINTER(%s)" % self.expr(to, context)
        if kind == "function":
            raise GenerateError("%s: a function type used as a value" % context)
        raise GenerateError("%s: unknown type kind %r" % (context, kind))

    def result_expr(self, t, context):
        if t["kind"] == "named" and t["name"] == "void":
            return "None"
        return self.expr(t, context)

    def function_type(self, f, context):
        if any(p["kind"] == "varargs" for p in f["params"]):
            raise GenerateError("%s: a variadic callback cannot be a CFUNCTYPE" % context)
        args = [self.result_expr(f["return"], context)]
        args += [self.expr(p, "%s parameter %d" % (context, i)) for i, p in enumerate(f["params"])]
        return "_callback_type(%s)" % ", ".join(args)

    # -------------------------------------------------------------- ordering

    def _value_deps(self, t):
        """Named types `t` holds by value (which must be complete before it is used)."""
        if t["kind"] == "named":
            return [t["name"]]
        if t["kind"] == "array":
            return self._value_deps(t["of"])
        return []

    def _struct_of(self, name):
        """The struct a name stands for by value, following typedefs, or None."""
        seen = set()
        while name not in seen:
            seen.add(name)
            if name.startswith("struct "):
                return name[len("struct "):]
            if name in self.typedefs:
                t = self.typedefs[name]["type"]
                if t["kind"] != "named":
                    return None
                name = t["name"]
                continue
            return name if name in self.structs else None
        return None

    def struct_order(self):
        order, state = [], {}

        def visit(name, chain):
            if state.get(name) == "done":
                return
            if state.get(name) == "visiting":
                raise GenerateError("structs hold each other by value: %s" % " -> ".join(chain + [name]))
            state[name] = "visiting"
            for field in self.structs[name]["fields"]:
                for dep in self._value_deps(field["type"]):
                    s = self._struct_of(dep)
                    if s is not None:
                        if self.structs[s]["opaque"]:
                            raise GenerateError("struct %s holds the opaque struct %s by value" % (name, s))
                        visit(s, chain + [name])
            state[name] = "done"
            order.append(name)

        for s in self.desc["structs"]:
            visit(s["name"], [])
        return order

    def typedef_order(self):
        """Scalar / enum / struct-alias typedefs, each after the typedefs it names."""
        order, state = [], {}

        def visit(name):
            if state.get(name):
                return
            state[name] = True
            t = self.typedefs[name]["type"]
            if t["kind"] == "named" and t["name"] in self.typedefs:
                visit(t["name"])
            order.append(name)

        for t in self.desc["typedefs"]:
            if not self._is_function_pointer_typedef(t["name"]):
                visit(t["name"])
        return order

    # -------------------------------------------------------------- output

    def module(self, source_name):
        d = self.desc
        out = []
        w = out.append
        w('"""ctypes declarations for retcon\'s C API (%s), generated by capi/tools/gen_ctypes.py' % d["header"])
        w("from %s. Do not edit: regenerate from the header." % source_name)
        w('"""')
        w("")
        w("import ctypes")
        w("")
        w(_CALLBACK_TYPE)
        w("")
        w("")
        w("HEADER = %r" % d["header"])
        w("HEADER_SHA256 = %r" % d["header_sha256"])
        w("")
        w("# Macros (read from the header's #define lines: they are not in clang's AST).")
        for m in d["macros"]:
            w("%s = %d  # %s" % (m["name"], m["value"], m["text"]))
        w("")
        w("# Enums: the constants, and each enum type as a C integer of its width.")
        for e in d["enums"]:
            values = [c["value"] for c in e["constants"]]
            ctype = "ctypes.c_int" if any(v < 0 for v in values) else "ctypes.c_uint"
            w("%s = %s" % (e["name"], ctype))
            for c in e["constants"]:
                w("%s = %d" % (c["name"], c["value"]))
            w("%s_NAMES = {%s}" % (e["name"].upper(), ", ".join("%d: %r" % (c["value"], c["name"]) for c in e["constants"])))
            w("")
        w("# Structs, declared first so pointers to them can be used anywhere below.")
        for s in d["structs"]:
            doc = (" # opaque handle" if s["opaque"] else "")
            w("class %s(ctypes.Structure):%s" % (s["name"], doc))
            w("    pass")
            w("")
        w("")
        w("# Typedefs.")
        for name in self.typedef_order():
            t = self.typedefs[name]
            target = t["type"]
            if target["kind"] == "named" and target["name"] in ("struct " + name, "enum " + name):
                continue  # typedef struct rc_x rc_x: the class above
            w("%s = %s" % (name, self.expr(target, "typedef " + name)))
        for t in d["typedefs"]:
            if self._is_function_pointer_typedef(t["name"]):
                w("%s = %s" % (t["name"], self.function_type(t["type"]["to"], "typedef " + t["name"])))
        w("")
        w("# Struct layouts (ctypes lays them out with the platform C ABI, like the C compiler).")
        for name in self.struct_order():
            s = self.structs[name]
            if s["opaque"]:
                continue
            w("%s._fields_ = [" % name)
            for f in s["fields"]:
                w("    (%r, %s),  # %s" % (f["name"], self.expr(f["type"], "%s.%s" % (name, f["name"])), f["spelling"]))
            w("]")
        w("")
        w("STRUCTS = [%s]" % ", ".join(repr(s["name"]) for s in d["structs"] if not s["opaque"]))
        w("OPAQUE_STRUCTS = [%s]" % ", ".join(repr(s["name"]) for s in d["structs"] if s["opaque"]))
        w("")
        w("# Functions: name -> (restype, argtypes).")
        w("FUNCTIONS = {")
        for f in d["functions"]:
            if f.get("variadic"):
                raise GenerateError("function %s is variadic" % f["name"])
            restype = self.result_expr(f["returns"]["type"], f["name"] + " return")
            args = [self.expr(p["type"], "%s(%s)" % (f["name"], p["name"])) for p in f["params"]]
            w("    %r: (%s, [%s]),  # (%s)" % (f["name"], restype, ", ".join(args),
                                               ", ".join("%s %s" % (p["spelling"], p["name"]) for p in f["params"])))
        w("}")
        w("")
        w(_LOADER)
        return "\n".join(out) + "\n"


_CALLBACK_TYPE = '''
_CALLBACK_TYPES = {}


def _callback_type(restype, *argtypes):
    """ctypes.CFUNCTYPE(restype, *argtypes), except that a parameter of this type also takes
    None, passed as a NULL function pointer (plain CFUNCTYPE parameters refuse None). One class
    per signature, as CFUNCTYPE caches them."""
    key = (restype, argtypes)
    if key not in _CALLBACK_TYPES:
        base = ctypes.CFUNCTYPE(restype, *argtypes)

        class _Callback(base):
            _argtypes_ = base._argtypes_
            _restype_ = base._restype_
            _flags_ = base._flags_

            @classmethod
            def from_param(cls, obj):
                return cls() if obj is None else type(cls).from_param(cls, obj)

        _CALLBACK_TYPES[key] = _Callback
    return _CALLBACK_TYPES[key]
'''.strip("\n")


_LOADER = '''
class LibraryDrift(Exception):
    """The library does not export a function the header declares."""


def load(path):
    """Opens the retcon C library at `path` and declares every function of the header on it
    (argtypes and restype). Raises LibraryDrift naming the functions the library lacks."""
    lib = ctypes.CDLL(path)
    missing = []
    for name, (restype, argtypes) in FUNCTIONS.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    if missing:
        raise LibraryDrift("%s does not export %s, declared in %s" % (path, ", ".join(missing), HEADER))
    return lib
'''.strip("\n")


def generate(desc, source_name="the API description"):
    """The module's text for a description (a dict)."""
    return _Generator(desc).module(source_name)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--description", required=True, help="retcon_api.json (capi/tools/api_description.py)")
    ap.add_argument("--out", required=True, help="the Python module to write")
    args = ap.parse_args(argv)
    try:
        with open(args.description) as f:
            desc = json.load(f)
        text = generate(desc, os.path.basename(args.description))
    except (GenerateError, OSError, ValueError, KeyError) as e:
        print("gen_ctypes: %s" % e, file=sys.stderr)
        return 1
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
