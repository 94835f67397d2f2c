#!/usr/bin/env python3
"""Reduces clang's JSON AST of retcon.h to a compact, machine-readable API description.

    api_description.py --header capi/include/retcon.h --out retcon_api.json [--clang clang]
    api_description.py --header retcon.h --ast ast.json --out retcon_api.json

Runs `clang -Xclang -ast-dump=json -fsyntax-only -x c <header>` (or reads a saved dump with
--ast) and keeps only the declarations written in the header itself (not <stdint.h> or
<stddef.h>):

  functions  name, return type, parameters (name and type)
  structs    name, fields (name and type); opaque handles (rc_world, ...) have "opaque": true
  enums      name, constants with their values
  typedefs   name and the type it names (rc_step_fn is a function-pointer type)
  macros     RC_ABI_VERSION, RC_NULL_ENTITY and RC_RECONNECT_TOKEN_SIZE (EXPORTED_MACROS).
             Macros are not in clang's AST: they are read from the header's `#define` lines
             with a simple regular expression, and only object-like macros whose value is an
             integer literal are kept.

Every type is given twice: "spelling", clang's text ("const rc_field *"), and "type", a parsed
tree that needs no C parser to use:

  {"kind": "named", "name": "uint32_t", "const": false}   a builtin, <stdint.h> or header name
  {"kind": "pointer", "to": T, "const": false}             "const" is the pointer's own
  {"kind": "array", "of": T, "count": 16}
  {"kind": "function", "return": T, "params": [T, ...]}    (the target of a function pointer)

The description also records the header's SHA-256, so a consumer can tell that it is stale.
Only the standard library is used. See capi/tools/gen_ctypes.py for a consumer.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

FORMAT = 1

# Object-like macros to export, with what they are.
EXPORTED_MACROS = ("RC_ABI_VERSION", "RC_NULL_ENTITY", "RC_RECONNECT_TOKEN_SIZE")


class DescriptionError(Exception):
    """The header or the AST is not what this tool understands."""


# ------------------------------------------------------------------ C type spellings

_TOKEN = re.compile(r"\s*(\.\.\.|[A-Za-z_][A-Za-z_0-9]*|\d+|[*()\[\],])")
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict"}
_BASE_WORDS = {"void", "char", "short", "int", "long", "signed", "unsigned", "float", "double", "_Bool"}


def _tokenize(text):
    tokens = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise DescriptionError("cannot read the type %r at %r" % (text, text[pos:]))
        tokens.append(m.group(1))
        pos = m.end()
    return tokens


class _TypeParser:
    """Parses the abstract declarators clang prints in qualType ("int (*)(rc_world *, void *)",
    "const uint32_t *const *", "char [16]"). Enough C for a header of plain declarations."""

    def __init__(self, text):
        self.text = text
        self.tokens = _tokenize(text)
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected=None):
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise DescriptionError("cannot read the type %r: expected %r at token %d" % (self.text, expected, self.pos))
        self.pos += 1
        return tok

    def parse(self):
        t = self.type_name()
        if self.peek() is not None:
            raise DescriptionError("cannot read the type %r: trailing %r" % (self.text, self.tokens[self.pos:]))
        return t

    def type_name(self):
        base = self.specifiers()
        return self.abstract_declarator(base)

    def specifiers(self):
        const = False
        words = []
        while True:
            tok = self.peek()
            if tok in _QUALIFIERS:
                self.take()
                const = const or tok == "const"
            elif tok in ("struct", "enum", "union"):
                self.take()
                words.append(tok + " " + self.take())
            elif tok in _BASE_WORDS:
                words.append(self.take())
            elif tok is not None and re.match(r"[A-Za-z_]", tok) and not words:
                words.append(self.take())  # a typedef name
            else:
                break
        if not words:
            raise DescriptionError("cannot read the type %r: no type name" % self.text)
        return {"kind": "named", "name": " ".join(words), "const": const}

    def pointers(self, t):
        """Wraps t in one pointer per "*" ahead, each optionally const."""
        while self.peek() == "*":
            self.take()
            const = False
            while self.peek() in _QUALIFIERS:
                const = const or self.take() == "const"
            t = {"kind": "pointer", "to": t, "const": const}
        return t

    def abstract_declarator(self, base):
        t = self.pointers(base)
        # A parenthesised declarator: a pointer to function or to array.
        if self.peek() == "(" and self.pos + 1 < len(self.tokens) and self.tokens[self.pos + 1] == "*":
            self.take("(")
            inner_start = self.pos
            depth = 1
            while depth:
                tok = self.take()
                depth += {"(": 1, ")": -1}.get(tok, 0)
            inner_tokens = self.tokens[inner_start:self.pos - 1]
            outer = self.suffixes(t)
            sub = _TypeParser(" ".join(inner_tokens) or "")
            sub.tokens = inner_tokens
            return sub.wrap(outer)
        return self.suffixes(t)

    def wrap(self, outer):
        """Applies an inner declarator ("*", "*const") to the type its suffixes built."""
        t = self.pointers(outer)
        if self.peek() is not None:
            raise DescriptionError("cannot read the declarator %r" % self.tokens)
        return t

    def suffixes(self, t):
        if self.peek() == "(":
            self.take("(")
            params = []
            if self.peek() != ")":
                while True:
                    if self.peek() == "...":
                        self.take()
                        params.append({"kind": "varargs"})
                    else:
                        params.append(self.type_name())
                    if self.peek() == ",":
                        self.take()
                        continue
                    break
            self.take(")")
            if len(params) == 1 and params[0] == {"kind": "named", "name": "void", "const": False}:
                params = []
            return {"kind": "function", "return": t, "params": params}
        dims = []
        while self.peek() == "[":
            self.take("[")
            count = None
            if self.peek() != "]":
                count = int(self.take())
            self.take("]")
            dims.append(count)
        for count in reversed(dims):
            t = {"kind": "array", "of": t, "count": count}
        return t


def parse_type(spelling):
    """The parsed tree of a C type spelling (see the module documentation)."""
    return _TypeParser(spelling).parse()


def _type_entry(type_node):
    spelling = type_node["qualType"]
    entry = {"spelling": spelling, "type": parse_type(spelling)}
    return entry


# ------------------------------------------------------------------ the AST walk

def _location_file(loc, current):
    """The file a clang JSON location is in. clang writes "file" only when it changes from the
    previous location it printed, so the caller threads `current` through the walk."""
    if not isinstance(loc, dict):
        return current
    for key in ("spellingLoc", "expansionLoc"):
        if key in loc:
            current = _location_file(loc[key], current)
    if "file" in loc:
        current = loc["file"]
    return current


def _walk_locations(node, current):
    """Visits every location under `node` in document order (the order clang printed them)
    and returns the file in effect after the last one."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("loc", "begin", "end") and isinstance(value, dict):
                current = _location_file(value, current)
                # a location's own sub-dicts are handled by _location_file
            elif key == "range" and isinstance(value, dict):
                current = _walk_locations(value, current)
            elif isinstance(value, (dict, list)):
                current = _walk_locations(value, current)
    elif isinstance(node, list):
        for item in node:
            current = _walk_locations(item, current)
    return current


def _decl_file(node, current):
    """(file of the declaration's own location, file in effect after the whole node). For a
    location inside a macro expansion that is the expansion's file (where it is written)."""
    at_loc = _location_file(node.get("loc", {}), current)
    after = _walk_locations(node, current)
    return at_loc, after


def _doc(node):
    """The declaration's documentation comment (/** ... */) as one line of text, or ""."""
    texts = []

    def collect(n):
        if n.get("kind") == "TextComment":
            texts.append(n.get("text", "").strip())
        elif n.get("kind") == "InlineCommandComment":  # "@p world": keep the word
            texts.extend(n.get("args", []))
        for child in n.get("inner", []):
            collect(child)

    for child in node.get("inner", []):
        if child.get("kind") == "FullComment":
            collect(child)
    return " ".join(t for t in texts if t)


def _enum_value(const_node, previous):
    """The value of an EnumConstantDecl: clang shows explicit values as a ConstantExpr with a
    "value"; implicit ones follow the previous constant."""
    def find_value(n):
        if isinstance(n, dict):
            if n.get("kind") == "ConstantExpr" and "value" in n:
                return int(n["value"])
            for child in n.get("inner", []):
                v = find_value(child)
                if v is not None:
                    return v
        return None

    v = find_value(const_node)
    if v is not None:
        return v
    if any(c.get("kind") != "FullComment" for c in const_node.get("inner", [])):
        raise DescriptionError("enumerator %s has a value this tool cannot evaluate" % const_node.get("name"))
    return 0 if previous is None else previous + 1


def reduce_ast(ast, header_path):
    """The compact description of the declarations in `header_path` from clang's JSON AST."""
    header_real = os.path.realpath(header_path)
    functions, structs, enums, typedefs = [], [], [], []
    struct_index = {}
    current = None
    for node in ast.get("inner", []):
        at_loc, current = _decl_file(node, current)
        if node.get("isImplicit") or at_loc is None or os.path.realpath(at_loc) != header_real:
            continue
        kind = node.get("kind")
        name = node.get("name")
        if kind == "FunctionDecl":
            ftype = parse_type(node["type"]["qualType"])
            if ftype["kind"] != "function":
                raise DescriptionError("function %s has the type %r" % (name, node["type"]["qualType"]))
            params = []
            for child in node.get("inner", []):
                if child.get("kind") == "ParmVarDecl":
                    param = {"name": child.get("name", "")}
                    param.update(_type_entry(child["type"]))
                    params.append(param)
            if len(params) != len(ftype["params"]):
                raise DescriptionError("function %s: %d named parameters for the type %r" %
                                       (name, len(params), node["type"]["qualType"]))
            ret_spelling = node["type"]["qualType"]
            functions.append({
                "name": name,
                "returns": {"spelling": _return_spelling(ret_spelling), "type": ftype["return"]},
                "params": params,
                "variadic": bool(node.get("variadic", False)),
                "doc": _doc(node),
            })
        elif kind == "RecordDecl":
            if node.get("tagUsed") != "struct":
                raise DescriptionError("%s %s: only structs are described" % (node.get("tagUsed"), name))
            if not name:
                raise DescriptionError("an anonymous struct at line %s" % node.get("loc", {}).get("line"))
            fields = []
            for child in node.get("inner", []):
                if child.get("kind") == "FieldDecl":
                    field = {"name": child["name"]}
                    field.update(_type_entry(child["type"]))
                    if child.get("isBitfield"):
                        raise DescriptionError("struct %s: bit-field %s is not described" % (name, child["name"]))
                    fields.append(field)
                elif child.get("kind") in ("RecordDecl",):
                    raise DescriptionError("struct %s: a nested struct declaration is not described" % name)
            entry = struct_index.get(name)
            if entry is None:
                entry = {"name": name, "opaque": True, "fields": []}
                struct_index[name] = entry
                structs.append(entry)
            if node.get("completeDefinition"):
                entry["opaque"] = False
                entry["fields"] = fields
            entry["doc"] = entry.get("doc") or _doc(node)
        elif kind == "EnumDecl":
            constants = []
            previous = None
            for child in node.get("inner", []):
                if child.get("kind") == "EnumConstantDecl":
                    previous = _enum_value(child, previous)
                    constants.append({"name": child["name"], "value": previous})
            enums.append({"name": name, "constants": constants, "doc": _doc(node)})
        elif kind == "TypedefDecl":
            entry = {"name": name}
            entry.update(_type_entry(node["type"]))
            entry["doc"] = _doc(node)
            typedefs.append(entry)
        elif kind in ("VarDecl",):
            raise DescriptionError("variable %s: the header declares no variables" % name)
    return {"functions": functions, "structs": structs, "enums": enums, "typedefs": typedefs}


def _return_spelling(function_spelling):
    """The return type's text from a function type's text: everything before the parameter
    list's opening parenthesis (clang prints "rc_status (rc_world *, ...)")."""
    depth = 0
    for i in range(len(function_spelling) - 1, -1, -1):
        ch = function_spelling[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                return function_spelling[:i].strip()
    raise DescriptionError("cannot find the return type in %r" % function_spelling)


# ------------------------------------------------------------------ macros

_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z_0-9]*)(?!\()\s+(.*?)\s*(?:/\*.*\*/\s*|//.*)?$")
_INT_LITERAL = re.compile(r"^\(?\s*(?:U?INT\d+_C\(\s*)?(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?\s*\)?$")


def read_macros(header_text):
    """EXPORTED_MACROS from the header's #define lines (not in clang's AST).
    A simple regular expression: an object-like macro whose value is an integer literal,
    optionally with a u/l suffix or wrapped in UINT64_C(...)."""
    found = {}
    for line in header_text.splitlines():
        m = _DEFINE.match(line)
        if not m or m.group(1) not in EXPORTED_MACROS:
            continue
        text = m.group(2)
        v = _INT_LITERAL.match(text)
        if not v:
            raise DescriptionError("macro %s = %r is not an integer literal this tool reads" % (m.group(1), text))
        found[m.group(1)] = {"name": m.group(1), "value": int(v.group(1), 0), "text": text}
    missing = [name for name in EXPORTED_MACROS if name not in found]
    if missing:
        raise DescriptionError("the header defines no %s" % ", ".join(missing))
    return [found[name] for name in EXPORTED_MACROS]


# ------------------------------------------------------------------ main

def run_clang(clang, header):
    cmd = [clang, "-Xclang", "-ast-dump=json", "-fsyntax-only", "-x", "c", "-std=c11", header]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise DescriptionError("%s failed (exit %d):\n%s" % (" ".join(cmd), proc.returncode,
                                                              proc.stderr.decode(errors="replace")))
    return json.loads(proc.stdout)


def describe(header, ast):
    with open(header, "rb") as f:
        raw = f.read()
    out = {
        "format": FORMAT,
        "header": os.path.basename(header),
        "header_sha256": hashlib.sha256(raw).hexdigest(),
        "macros_note": "macros are not in clang's AST; these were read from the header's #define lines",
    }
    out.update(reduce_ast(ast, header))
    out["macros"] = read_macros(raw.decode("utf-8"))
    if not out["functions"]:
        raise DescriptionError("no functions found in %s (is the AST from this header?)" % header)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--header", required=True, help="path to retcon.h")
    ap.add_argument("--out", required=True, help="where to write the description (JSON)")
    ap.add_argument("--clang", default="clang", help="the clang to run (default: clang on PATH)")
    ap.add_argument("--ast", help="read this saved JSON AST instead of running clang")
    args = ap.parse_args(argv)
    try:
        if args.ast:
            with open(args.ast) as f:
                ast = json.load(f)
        else:
            ast = run_clang(args.clang, args.header)
        desc = describe(args.header, ast)
    except (DescriptionError, OSError, ValueError) as e:
        print("api_description: %s" % e, file=sys.stderr)
        return 1
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(desc, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
