#!/usr/bin/env python3
"""deploy:manifests_match_code - the deployment files under deploy/ against the code they deploy.

    check_manifests.py <demo_server> <repo root> [--token-tool <retcon-token>]

Each manifest's environment (and command line) is given to `demo_server --print-config`, which
prints the configuration the server would run with (docs/hosting.md, "Configuration from the
environment"); the manifests' numbers must then agree with it:

- Agones (deploy/agones/fleet.yaml, gameserver.yaml): the UDP port named `default` is the
  server's port; the health period is more than twice the orchestrator's health interval; the
  pod's terminationGracePeriodSeconds exceeds the drain grace by the margin below; the rooms
  counter's capacity is the server's max_matches; the fleet is RETCON_FLEET; every token key
  file is on a read-only Secret mount, the replay directory on a writable volume, the metrics on
  0.0.0.0 at the port the scrape annotations name; gameserver.yaml serves one match.
- deploy/agones/allocation.yaml: the protocol label is net/include/retcon/net/protocol.hpp's
  protocol_version, the fleet label the fleet's name, and the rooms counter is the fleet's.
- deploy/agones/metrics-policy.yaml: a NetworkPolicy selecting the fleet's pods admits the
  metrics port only from a selector (not from every pod) and leaves the game's UDP open.
- deploy/Containerfile: EXPOSE is the server's port, the entry point is demo_server and accepts
  its options, SIGTERM stops it, the user is not root, the replay directory is a volume.
- deploy/systemd/: TimeoutStopSec exceeds the drain grace (with the example environment file's
  values) by the margin, SIGTERM stops it, Restart=on-failure, the replays go to the unit's
  StateDirectory (the only place it may write), LimitNOFILE is a finite number with room for
  the server's descriptors (DESCRIPTORS_BASE plus DESCRIPTORS_PER_MATCH a match).
- Every variable a manifest sets is one the server reads (--print-config lists them).

Each check prints one line, `ok` or `FAIL` and why. Exit status 0 all pass, 1 a check failed,
2 usage error. Needs python3-yaml (scripts/setup.sh installs it).
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # pragma: no cover - reported, not hidden
    print("check_manifests: python3-yaml is missing (scripts/setup.sh installs it)", file=sys.stderr)
    sys.exit(2)

# After SIGTERM the drain grace runs out, then every match is ended (clients acknowledge within
# end_timeout_ms, 2 s), the replays are finished and the orchestrator's last call is made (a 2 s
# timeout on Agones): the stop timeout must leave at least this much after the grace.
STOP_MARGIN_S = 10
# The label the Agones orchestrator sets (host/src/agones.cpp); the SDK stores labels it sets
# under this prefix (docs/hosting.md, "Agones").
PROTOCOL_LABEL = "agones.dev/sdk-retcon-protocol"
# "false" once the host opens no new match (draining, its match limit served).
ACCEPTING_LABEL = "agones.dev/sdk-retcon-accepting"
FLEET_LABEL = "agones.dev/fleet"
# The port Agones gives the game container in AGONES_SDK_HTTP_PORT unless sdkServer.httpPort says.
AGONES_DEFAULT_SDK_HTTP_PORT = 9358
# What the server holds open (docs/hosting.md, "Metrics"): its own ~20 (UDP socket, results file,
# logs, the orchestrator's connections) plus the metrics page's at most 11, with room to spare,
# and per match its replay file and what a match's session opens.
DESCRIPTORS_BASE = 64
DESCRIPTORS_PER_MATCH = 4


class Checks:
    """Collects the results; each is printed as it is made."""

    def __init__(self):
        self.failed = []
        self.count = 0

    def check(self, name, ok, detail):
        self.count += 1
        ok = bool(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")
        if not ok:
            self.failed.append(name)
        return ok


# --- reading the files ---------------------------------------------------------------------

def load_yaml_doc(path, kind):
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    found = [d for d in docs if d.get("kind") == kind]
    if len(found) != 1:
        raise ValueError(f"{path}: expected one {kind}, found {len(found)}")
    return found[0]


def read_systemd_unit(path):
    """{section: {key: [values]}}; continuation lines joined, comments dropped."""
    sections, current = {}, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        while line.endswith("\\") and i < len(lines):
            line = line[:-1] + " " + lines[i].strip()
            i += 1
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        if current is None or "=" not in line:
            raise ValueError(f"{path}: cannot read the line {line!r}")
        key, value = line.split("=", 1)
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def read_env_file(path):
    """An EnvironmentFile: VAR=value lines, # comments, optional quotes around the value."""
    env = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("export "):
                line = line[len("export "):].strip()
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)", line)
            if not m:
                raise ValueError(f"{path}:{n}: not VAR=value: {line!r}")
            value = m.group(2)
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            env[m.group(1)] = value
    return env


def read_containerfile(path):
    """The final stage's instructions as (INSTRUCTION, arguments) in order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    instructions, buf = [], ""
    for raw in lines:
        stripped = raw.strip()
        if stripped.startswith("#"):  # comments, also inside a continued instruction
            continue
        if not stripped and not buf:
            continue
        buf += (" " if buf else "") + stripped
        if buf.endswith("\\"):
            buf = buf[:-1].rstrip()
            continue
        if buf:
            word, _, rest = buf.partition(" ")
            instructions.append((word.upper(), rest.strip()))
        buf = ""
    last_from = max(i for i, (w, _) in enumerate(instructions) if w == "FROM")
    return instructions[last_from:]


def containerfile_env(instructions):
    env = {}
    for word, rest in instructions:
        if word != "ENV":
            continue
        parts = shlex.split(rest)
        if parts and "=" not in parts[0]:  # the old form: ENV NAME value...
            env[parts[0]] = " ".join(parts[1:])
            continue
        for p in parts:
            name, _, value = p.partition("=")
            env[name] = value
    return env


def json_or_words(text):
    text = text.strip()
    if text.startswith("["):
        return json.loads(text)
    return shlex.split(text)


def protocol_version(root):
    path = os.path.join(root, "net", "include", "retcon", "net", "protocol.hpp")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"protocol_version\s*=\s*(\d+)\s*;", f.read())
    if not m:
        raise ValueError(f"{path}: no `protocol_version = N;`")
    return int(m.group(1))


def parse_timespan(text):
    """systemd's time span ("60", "90s", "1min 30s", "infinity") in seconds."""
    text = text.strip()
    if text == "infinity":
        return float("inf")
    units = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1, "sec": 1, "second": 1,
             "seconds": 1, "m": 60, "min": 60, "minute": 60, "minutes": 60, "h": 3600, "hr": 3600,
             "hour": 3600, "hours": 3600}
    total, pos = 0.0, 0
    for m in re.finditer(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)", text):
        if m.start() != pos or (m.group(2) and m.group(2) not in units):
            raise ValueError(f"not a systemd time span: {text!r}")
        total += float(m.group(1)) * units.get(m.group(2) or "s")
        pos = m.end()
    if pos != len(text) or not text:
        raise ValueError(f"not a systemd time span: {text!r}")
    return total


def under(path, directory):
    path, directory = os.path.normpath(path), os.path.normpath(directory)
    return path == directory or path.startswith(directory.rstrip("/") + "/")


# --- running the server ----------------------------------------------------------------------

class Server:
    def __init__(self, demo_server, token_tool, scratch):
        self.demo_server = demo_server
        self.token_tool = token_tool
        self.scratch = scratch
        self.keys = {}

    def key_for(self, path):
        """A real verify key standing in for a key file the manifest mounts from elsewhere."""
        if path not in self.keys:
            n = len(self.keys) + 1
            secret = os.path.join(self.scratch, f"key{n}.secret")
            public = os.path.join(self.scratch, f"key{n}.pub")
            r = subprocess.run([self.token_tool, "keygen", "--key-id", str(n), "--secret", secret,
                                "--public", public], capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"retcon-token keygen failed: {r.stderr.strip()}")
            self.keys[path] = public
        return self.keys[path]

    def config(self, env, args):
        """(config, None) or (None, why): --print-config with exactly this environment."""
        env = dict(env)
        if env.get("RETCON_TOKEN_KEYS"):
            env["RETCON_TOKEN_KEYS"] = ",".join(
                self.key_for(p) if p else "" for p in env["RETCON_TOKEN_KEYS"].split(","))
        r = subprocess.run([self.demo_server, *args, "--print-config"], env=env,
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            return None, f"demo_server {' '.join(args + ['--print-config'])} exited {r.returncode}: " \
                         f"{(r.stderr or r.stdout).strip()}"
        try:
            return json.loads(r.stdout), None
        except json.JSONDecodeError as e:
            return None, f"--print-config printed no JSON ({e}): {r.stdout[:200]!r}"


# --- the checks --------------------------------------------------------------------------------

def check_env_names(c, name, names, config, where):
    known = set(config["environment"])
    unknown = sorted(n for n in names if n not in known)
    c.check(name, not unknown,
            f"{len(names)} variables in {where}, all read by the server" if not unknown else
            f"{', '.join(unknown)} in {where}: not a variable the server reads (--print-config lists "
            f"{', '.join(config['environment'])})")


def check_grace(c, name, grace_s, config, what):
    """grace_s None: the manifest leaves it to a default it does not control."""
    drain = config["drain_grace_s"]
    if grace_s is None:
        c.check(name, False, f"no {what}: the default is not this file's to rely on; set it to the drain "
                             f"grace ({drain:g} s) plus at least {STOP_MARGIN_S} s")
        return
    c.check(name, grace_s >= drain + STOP_MARGIN_S,
            f"{what} {grace_s:g} s vs drain grace {drain:g} s: at least {STOP_MARGIN_S} s more is needed "
            "for ending the matches, the replay flush and the last orchestrator call")


def game_container(gs_spec, path):
    containers = gs_spec["template"]["spec"]["containers"]
    wanted = gs_spec.get("container")
    if wanted:
        found = [x for x in containers if x.get("name") == wanted]
    else:
        found = containers if len(containers) == 1 else []
    if len(found) != 1:
        raise ValueError(f"{path}: cannot tell the game container (set spec.container)")
    return found[0]


def check_agones_server(c, prefix, path, gs_spec, server, image):
    """The checks shared by a Fleet's GameServer template and a GameServer. Returns the config."""
    container = game_container(gs_spec, path)
    env_entries = container.get("env") or []
    names = [e["name"] for e in env_entries]
    env = dict(image["env"])
    unknown_values = []
    for e in env_entries:
        if "value" in e:
            env[e["name"]] = str(e["value"])
        else:
            unknown_values.append(e["name"])
    # What Agones adds to the game container: the SDK sidecar's HTTP port.
    sdk_port = (gs_spec.get("sdkServer") or {}).get("httpPort", AGONES_DEFAULT_SDK_HTTP_PORT)
    env["AGONES_SDK_HTTP_PORT"] = str(sdk_port)
    args = list(container["command"][1:]) if container.get("command") else list(image["entry_args"])
    args += [str(a) for a in container.get("args") or []]

    config, why = server.config(env, args)
    if not c.check(f"{prefix}:print-config", config is not None,
                   why or f"demo_server --print-config accepts the manifest's environment and options"
                          + (f" (not given: {', '.join(unknown_values)}, set from elsewhere)" if unknown_values else "")):
        return None, container

    check_env_names(c, f"{prefix}:environment", names, config, path)
    c.check(f"{prefix}:orchestrator", config["orchestrator"] == "agones",
            f"with AGONES_SDK_HTTP_PORT set (as Agones does) the server picks {config['orchestrator']!r}, "
            "expected 'agones'")

    default = [p for p in gs_spec.get("ports") or [] if p.get("name") == "default"]
    problems = [] if len(default) == 1 else [f"{len(default)} ports named `default` (one expected: the "
                                             "allocation returns it)"]
    for p in default[:1]:
        if p.get("containerPort") != config["port"]:
            problems.append(f"containerPort {p.get('containerPort')} but the server listens on {config['port']}")
        if p.get("protocol", "UDP") != "UDP":
            problems.append(f"protocol {p.get('protocol')} (the server speaks UDP)")
        if p.get("portPolicy", "Dynamic") != "Dynamic":
            problems.append(f"portPolicy {p.get('portPolicy')} (Dynamic expected)")
    c.check(f"{prefix}:game-port", not problems,
            "; ".join(problems) or f"UDP, Dynamic, containerPort {default[0]['containerPort']} == the server's port")

    health = gs_spec.get("health") or {}
    interval = config["agones"]["health_interval_ms"]
    period = health.get("periodSeconds")
    missing = [k for k in ("initialDelaySeconds", "periodSeconds", "failureThreshold") if k not in health]
    c.check(f"{prefix}:health",
            not missing and not health.get("disabled", False) and period * 1000 > 2 * interval
            and health["failureThreshold"] >= 1,
            f"health {health}: needs initialDelaySeconds, periodSeconds, failureThreshold (missing: "
            f"{', '.join(missing) or 'none'}) and periodSeconds x 1000 > 2 x the server's health interval "
            f"({interval} ms)")

    pod = gs_spec["template"]["spec"]
    grace = pod.get("terminationGracePeriodSeconds")
    check_grace(c, f"{prefix}:grace", grace, config, "terminationGracePeriodSeconds")

    counters = gs_spec.get("counters") or {}
    rooms_name = config["agones"]["rooms_counter"]
    if counters or prefix == "fleet":
        rooms = counters.get(rooms_name)
        c.check(f"{prefix}:rooms-counter",
                rooms is not None and rooms.get("count", 0) == 0 and rooms.get("capacity") == config["max_matches"],
                f"counter {rooms_name!r} {rooms} vs the server's max_matches {config['max_matches']} "
                "(capacity must equal it, count start at 0)")
    return config, container


def check_fleet(c, root, server, image):
    path = os.path.join(root, "deploy", "agones", "fleet.yaml")
    fleet = load_yaml_doc(path, "Fleet")
    gs_spec = fleet["spec"]["template"]["spec"]
    config, container = check_agones_server(c, "fleet", path, gs_spec, server, image)
    if config is None:
        return fleet, None
    name = fleet["metadata"]["name"]
    c.check("fleet:name", config["fleet"] == name,
            f"the server's fleet (RETCON_FLEET) {config['fleet']!r} vs the Fleet's name {name!r}: the "
            "matchmaker signs tokens for the fleet it allocates from")

    pod = gs_spec["template"]["spec"]
    volumes = {v["name"]: v for v in pod.get("volumes") or []}
    mounts = container.get("volumeMounts") or []
    env = {e["name"]: str(e.get("value", "")) for e in container.get("env") or []}

    def mount_of(p):
        found = [m for m in mounts if under(p, m["mountPath"])]
        return max(found, key=lambda m: len(m["mountPath"])) if found else None

    key_files = [k for k in env.get("RETCON_TOKEN_KEYS", "").split(",") if k]
    problems = []
    for k in key_files:
        m = mount_of(k)
        if m is None:
            problems.append(f"{k} is on no volume mount")
        elif not m.get("readOnly") or "secret" not in volumes.get(m["name"], {}):
            problems.append(f"{k} is on mount {m['name']!r}, which is not a read-only Secret")
    c.check("fleet:token-keys",
            key_files and not problems and config["token_keys"] == len(key_files),
            "; ".join(problems) or f"{len(key_files)} key file(s) on a read-only Secret, the server read "
                                   f"{config['token_keys']} (RETCON_TOKEN_KEYS must name at least one)")

    replay = config["replay_dir"]
    m = mount_of(replay) if replay else None
    c.check("fleet:replay-volume", m is not None and not m.get("readOnly") and m["name"] in volumes,
            f"replay_dir {replay!r} on mount {m['name'] if m else None!r} (a writable volume expected)")

    annotations = (gs_spec["template"].get("metadata") or {}).get("annotations") or {}
    ports = [p for p in container.get("ports") or [] if p.get("containerPort") == config["metrics_port"]]
    c.check("fleet:metrics",
            config["metrics_port"] is not None and config["metrics_bind"] == "0.0.0.0"
            and str(annotations.get("prometheus.io/scrape")) == "true"
            and str(annotations.get("prometheus.io/port")) == str(config["metrics_port"])
            and len(ports) == 1 and ports[0].get("protocol", "TCP") == "TCP",
            f"metrics on {config['metrics_bind']}:{config['metrics_port']}, scrape annotations "
            f"scrape={annotations.get('prometheus.io/scrape')!r} port={annotations.get('prometheus.io/port')!r}, "
            f"container port {[p.get('containerPort') for p in ports]} (0.0.0.0, the same port, TCP expected)")
    return fleet, config


def check_gameserver(c, root, server, image):
    path = os.path.join(root, "deploy", "agones", "gameserver.yaml")
    gs = load_yaml_doc(path, "GameServer")
    config, _ = check_agones_server(c, "gameserver", path, gs["spec"], server, image)
    if config is not None:
        c.check("gameserver:one-match", config["match_limit"] == 1 and config["max_matches"] == 1,
                f"match_limit {config['match_limit']}, max_matches {config['max_matches']} (1 and 1: one match "
                "per process)")


def check_network_policy(c, root, fleet, fleet_config):
    path = os.path.join(root, "deploy", "agones", "metrics-policy.yaml")
    policy = load_yaml_doc(path, "NetworkPolicy")
    spec = policy["spec"]
    selector = (spec.get("podSelector") or {}).get("matchLabels") or {}
    c.check("metrics-policy:selects-fleet",
            selector == {"agones.dev/fleet": fleet["metadata"]["name"]} and "Ingress" in (spec.get("policyTypes") or []),
            f"podSelector {selector}, policyTypes {spec.get('policyTypes')} (the fleet's pods, agones.dev/fleet: "
            f"{fleet['metadata']['name']!r}, and Ingress expected)")
    rules = spec.get("ingress") or []

    def ports_of(rule, protocol):
        return [p for p in rule.get("ports") or [] if p.get("protocol", "TCP") == protocol]

    metrics_port = fleet_config["metrics_port"] if fleet_config else None
    metrics_rules = [r for r in rules
                     if any(p.get("port") in (None, metrics_port) for p in ports_of(r, "TCP")) or not r.get("ports")]
    c.check("metrics-policy:metrics-port",
            metrics_port is not None and metrics_rules
            and all(r.get("from") and all(f.get("namespaceSelector") or f.get("podSelector") for f in r["from"])
                    for r in metrics_rules),
            f"{len(metrics_rules)} rule(s) admit TCP port {metrics_port}: each must say `from` whom, by "
            "namespace or pod selector (the page is for the cluster's Prometheus, not every pod)")
    c.check("metrics-policy:game-port",
            any(ports_of(r, "UDP") and not r.get("from") for r in rules),
            "a rule admits UDP from anywhere (players reach the game's port)")


def check_allocation(c, root, fleet, fleet_config):
    path = os.path.join(root, "deploy", "agones", "allocation.yaml")
    alloc = load_yaml_doc(path, "GameServerAllocation")
    spec = alloc["spec"]
    selectors = spec.get("selectors") or []
    version = protocol_version(root)
    labels = [(s.get("matchLabels") or {}) for s in selectors]
    c.check("allocation:protocol-label",
            selectors and all(str(l.get(PROTOCOL_LABEL)) == str(version) for l in labels),
            f"{PROTOCOL_LABEL} in each selector {[l.get(PROTOCOL_LABEL) for l in labels]} vs protocol_version "
            f"{version} (net/include/retcon/net/protocol.hpp)")
    c.check("allocation:accepting-label", selectors and all(str(l.get(ACCEPTING_LABEL)) == "true" for l in labels),
            f"{ACCEPTING_LABEL} in each selector {[l.get(ACCEPTING_LABEL) for l in labels]} must be \"true\" (a "
            "draining server must not be chosen)")
    name = fleet["metadata"]["name"]
    c.check("allocation:fleet-label", selectors and all(l.get(FLEET_LABEL) == name for l in labels),
            f"{FLEET_LABEL} in each selector {[l.get(FLEET_LABEL) for l in labels]} vs the Fleet {name!r}")
    rooms = fleet_config["agones"]["rooms_counter"] if fleet_config else "rooms"
    states = [s.get("gameServerState", "Ready") for s in selectors]
    free = [((s.get("counters") or {}).get(rooms) or {}).get("minAvailable", 0) for s in selectors]
    action = (spec.get("counters") or {}).get(rooms) or {}
    priorities = spec.get("priorities") or []
    c.check("allocation:rooms",
            states == ["Allocated", "Ready"] and all(f >= 1 for f in free)
            and action.get("action") == "Increment" and action.get("amount") == 1
            and any(p.get("type") == "Counter" and p.get("key") == rooms and p.get("order") == "Ascending"
                    for p in priorities),
            f"selectors {states} with {rooms}.minAvailable {free}, action {action}, priorities {priorities} "
            f"(expected Allocated then Ready, minAvailable >= 1, Increment 1, Counter {rooms} Ascending)")


def check_containerfile(c, root, server):
    path = os.path.join(root, "deploy", "Containerfile")
    ins = read_containerfile(path)
    env = containerfile_env(ins)

    def last(word):
        found = [rest for w, rest in ins if w == word]
        return found[-1] if found else None

    entry = json_or_words(last("ENTRYPOINT") or "[]")
    entry_ok = (last("ENTRYPOINT") or "").lstrip().startswith("[") and entry \
        and os.path.basename(entry[0]) == "demo_server"
    image = {"env": env, "entry_args": entry[1:] if entry_ok else []}
    config, why = server.config(env, image["entry_args"])
    c.check("containerfile:entrypoint", entry_ok and config is not None,
            why or f"ENTRYPOINT {entry} (exec form, demo_server, its options accepted)")
    if config is None:
        return image
    check_env_names(c, "containerfile:environment", list(env), config, path)

    exposed = [p for w, rest in ins if w == "EXPOSE" for p in rest.split()]
    c.check("containerfile:expose", f"{config['port']}/udp" in exposed,
            f"EXPOSE {exposed} vs the server's port {config['port']}/udp")
    c.check("containerfile:stopsignal", (last("STOPSIGNAL") or "SIGTERM") in ("SIGTERM", "15"),
            f"STOPSIGNAL {last('STOPSIGNAL')} (SIGTERM drains)")
    user = (last("USER") or "root").split(":")[0]
    c.check("containerfile:user", user not in ("root", "0"), f"USER {last('USER')} (not root)")
    volumes = [v for w, rest in ins if w == "VOLUME" for v in json_or_words(rest)]
    c.check("containerfile:replay-volume", config["replay_dir"] in volumes,
            f"replay_dir {config['replay_dir']!r} vs VOLUME {volumes}")
    return image


def check_systemd(c, root, server):
    unit_path = os.path.join(root, "deploy", "systemd", "retcon-server.service")
    env_path = os.path.join(root, "deploy", "systemd", "server.env")
    unit = read_systemd_unit(unit_path)
    service = unit.get("Service", {})
    env = read_env_file(env_path)
    inline = {}
    for value in service.get("Environment", []):
        for item in shlex.split(value):
            name, _, v = item.partition("=")
            inline[name] = v
    files = [f.lstrip("-") for f in service.get("EnvironmentFile", [])]
    exec_start = shlex.split(service.get("ExecStart", [""])[-1].lstrip("-@+!:"))
    c.check("systemd:exec",
            exec_start and os.path.basename(exec_start[0]) == "demo_server"
            and any(os.path.basename(f) == os.path.basename(env_path) for f in files),
            f"ExecStart {exec_start}, EnvironmentFile {files} (demo_server, and a file like "
            f"{os.path.relpath(env_path, root)} expected)")
    full_env = {**inline, **env}  # an EnvironmentFile's values win over Environment= lines
    config, why = server.config(full_env, exec_start[1:])
    if not c.check("systemd:print-config", config is not None,
                   why or "demo_server --print-config accepts the unit's options and the environment file"):
        return
    check_env_names(c, "systemd:environment", list(env) + list(inline), config, f"{env_path} and the unit")
    c.check("systemd:orchestrator", config["orchestrator"] == "plain",
            f"the server picks {config['orchestrator']!r} on a VM (plain expected)")
    timeouts = service.get("TimeoutStopSec") or service.get("TimeoutSec")
    stop = parse_timespan(timeouts[-1]) if timeouts else None
    check_grace(c, "systemd:stop-timeout", stop, config, "TimeoutStopSec")
    signal = service.get("KillSignal", ["SIGTERM"])[-1]
    c.check("systemd:kill-signal", signal in ("SIGTERM", "TERM", "15"), f"KillSignal {signal} (SIGTERM drains)")
    restart = service.get("Restart", ["no"])[-1]
    c.check("systemd:restart", restart == "on-failure", f"Restart={restart} (on-failure expected)")
    state = [d for v in service.get("StateDirectory", []) for d in v.split()]
    replay = config["replay_dir"]
    c.check("systemd:replay-dir",
            bool(replay) and any(under(replay, "/var/lib/" + d.split(":")[0]) for d in state),
            f"replay_dir {replay!r} vs StateDirectory {state} (the replays must go under one: the rest of "
            "the system is read-only to the service)")
    nofile = service.get("LimitNOFILE", [""])[-1].split(":")
    need = DESCRIPTORS_BASE + DESCRIPTORS_PER_MATCH * config["max_matches"]
    c.check("systemd:descriptors",
            all(n.isdigit() for n in nofile) and need <= int(nofile[0]) <= int(nofile[-1]) <= 65536,
            f"LimitNOFILE={':'.join(nofile)} (a number from {need}, the server's descriptors with "
            f"{config['max_matches']} matches, to 65536 expected: a leak or a flood meets it, not the machine's)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("demo_server")
    parser.add_argument("root", help="the repository root")
    parser.add_argument("--token-tool", help="retcon-token (default: host/retcon-token of the same build)")
    a = parser.parse_args()
    build = os.path.dirname(os.path.dirname(os.path.abspath(a.demo_server)))
    token_tool = a.token_tool or os.path.join(build, "host", "retcon-token")
    for p in (a.demo_server, token_tool):
        if not os.access(p, os.X_OK):
            print(f"check_manifests: {p} is not an executable", file=sys.stderr)
            return 2

    c = Checks()

    def section(name, fn, *args, default=None):
        """A file that cannot be read (or lacks a field the checks need) fails its own section."""
        try:
            return fn(*args)
        except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError, yaml.YAMLError) as e:
            c.check(f"{name}:read", False, f"{type(e).__name__}: {e}")
            return default

    with tempfile.TemporaryDirectory(prefix="retcon-deploy-") as scratch:
        server = Server(os.path.abspath(a.demo_server), os.path.abspath(token_tool), scratch)
        image = section("containerfile", check_containerfile, c, a.root, server,
                        default={"env": {}, "entry_args": []})
        fleet, fleet_config = section("fleet", check_fleet, c, a.root, server, image, default=(None, None))
        section("gameserver", check_gameserver, c, a.root, server, image)
        if fleet is None:
            c.check("allocation:read", False, "no Fleet to check the allocation against")
        else:
            section("allocation", check_allocation, c, a.root, fleet, fleet_config)
            section("metrics-policy", check_network_policy, c, a.root, fleet, fleet_config)
        section("systemd", check_systemd, c, a.root, server)
    if c.failed:
        print(f"check_manifests: {len(c.failed)} of {c.count} checks failed: {', '.join(c.failed)}")
        return 1
    print(f"check_manifests: all {c.count} checks pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
