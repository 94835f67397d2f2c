#!/usr/bin/env python3
"""Every command the docs quote names a subcommand and options the program has.

Usage: check_doc_commands.py SOURCE_DIR PROGRAM=PATH ...

Reads README.md and docs/*.md. A command is a line of a fenced code block, or an inline code
span, that starts with one of the programs (optionally after "$ " or a path such as
build/release/tools/). For each one, the subcommand (the first word after the program, for
programs that have subcommands) must be listed by `PROGRAM --help`, and each --option must be
listed by `PROGRAM [SUBCOMMAND] --help`. A doc that promised `retcon verify` when the CLI had no
such subcommand failed here.
"""
import os
import re
import subprocess
import sys

# Programs whose first argument is a subcommand.
WITH_SUBCOMMANDS = {"retcon", "retcon-token"}


def help_text(path, *args):
    out = subprocess.run([path, *args, "--help"], capture_output=True, text=True, timeout=30)
    return out.stdout + out.stderr


def subcommands(text):
    """The words listed under "Subcommands:" in CLI11's help."""
    names, inside = set(), False
    for line in text.splitlines():
        if line.strip() == "Subcommands:":
            inside = True
            continue
        if inside:
            m = re.match(r"^  ([a-z][a-z0-9-]*)\b", line)
            if m:
                names.add(m.group(1))
            elif line.strip() and not line.startswith("   "):
                inside = False
    return names


def quoted_commands(source_dir):
    """(file, line number, text) of every command line and inline code span in the docs."""
    files = [os.path.join(source_dir, "README.md")]
    docs = os.path.join(source_dir, "docs")
    files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    for path in files:
        fenced, shell = False, False
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.lstrip().startswith("```"):
                    fenced = not fenced
                    # Commands live in shell blocks (or unmarked ones); ```text, ```json, ```cpp ... are not run.
                    shell = fenced and line.strip()[3:] in ("", "sh", "bash", "shell", "console")
                    continue
                if fenced:
                    if shell:
                        yield path, number, line.strip()
                else:
                    for span in re.findall(r"`([^`]+)`", line):
                        yield path, number, span.strip()


def main():
    source_dir = sys.argv[1]
    programs = dict(arg.split("=", 1) for arg in sys.argv[2:])
    names = "|".join(re.escape(p) for p in sorted(programs, key=len, reverse=True))
    command = re.compile(r"^(?:\$ )?(?:[\w./-]*/)?(" + names + r")((?:\s.*)?)$")
    helps, subs, failures, checked = {}, {}, [], 0
    for path, number, text in quoted_commands(source_dir):
        m = command.match(text)
        if not m:
            continue
        # Up to a comment, a pipe, a command substitution or the next command: those are other programs'.
        program, rest = m.group(1), re.split(r"#|\$\(|\||&&|;", m.group(2))[0]
        words = rest.split()
        where = f"{os.path.relpath(path, source_dir)}:{number}: {text}"
        exe = programs[program]
        key = (program,)
        if program in WITH_SUBCOMMANDS and words and not words[0].startswith("-") and re.match(r"^[a-z][a-z-]*$", words[0]):
            if program not in subs:
                subs[program] = subcommands(help_text(exe))
            if words[0] not in subs[program]:
                failures.append(f"{where}\n    '{program} {words[0]}': no such subcommand (has: {', '.join(sorted(subs[program]))})")
                continue
            key = (program, words[0])
        if key not in helps:
            helps[key] = help_text(exe, *key[1:])
        for word in words:
            option = re.match(r"^(--[a-z][a-z0-9-]*)", word)
            if option and option.group(1) not in ("--help",) and not re.search(re.escape(option.group(1)) + r"\b", helps[key]):
                failures.append(f"{where}\n    '{option.group(1)}' is not an option of '{' '.join(key)}'")
        checked += 1
    for f in failures:
        print(f)
    print(f"{checked} quoted commands checked, {len(failures)} wrong")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
