#!/usr/bin/env python3
"""agreement.surfaces: every surface of peergate says the same thing about one machine.

For every built-in machine (machines/) and every fixture machine (tests/fixtures/machines/),
with no verdict cache, after `doctor --probe` (which probes and writes the cache) and again
reading that cache, collect what each surface says and compare (docs/assessment.md):

  node usable and its state   doctor JSON, doctor page, NFD, Prometheus, DOT's title, gate's
                              exit status and JSON, exec's child environment, the C API
  P2P allowed                 gate JSON, exec's child, the C API (libpeergate.so), NFD, Prometheus
  state per pair              doctor JSON, the doctor page's grid, Prometheus, DOT's edges
  paths tested per pair       doctor JSON against the probe's own verdicts
  host silent-drop risk       doctor JSON, NFD, Prometheus

A disagreement names the machine, the scenario, both surfaces and both answers. The page has no
script, so its DOM is its markup: it is parsed here (browser.doctor_pages renders it in Chromium).

Usage: check_surfaces.py BUILD_DIR SOURCE_DIR [MACHINE...]
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

BUILD, SOURCE = sys.argv[1], sys.argv[2]
PEERGATE = next(os.path.join(root, "peergate") for root, _, files in os.walk(BUILD)
                if root.endswith("/bin") and "peergate" in files)
LIBPEERGATE = next((os.path.join(root, f) for root, _, files in os.walk(BUILD)
                    for f in files if f == "libpeergate.so"), None)
# The doctor page's grid classes for each state (report/doctor/pair_grid.cpp's table).
CSS = {"nvlink": "nvlink", "pcie_proven": "intact", "pcie_unverified": "unverified",
       "staged_only": "off", "slower_than_staged": "slow", "probe_error": "unfinished",
       "data_lost": "lost"}
ORDER = ["nvlink", "pcie_proven", "pcie_unverified", "staged_only", "slower_than_staged",
         "probe_error", "data_lost"]
GATE_EXIT = {"p2p-allowed": 0, "p2p-vetoed": 1, "unusable": 3}
PROBE_GPUS_AT_MOST = 4  # doctor --probe on larger machines costs minutes under the sanitizers


def machines():
    named = sys.argv[3:]
    if named:
        return named
    found = [os.path.join(SOURCE, "machines", f)
             for f in sorted(os.listdir(os.path.join(SOURCE, "machines"))) if f.endswith(".json")]
    fixtures = os.path.join(SOURCE, "tests", "fixtures", "machines")
    return found + [os.path.join(fixtures, f) for f in sorted(os.listdir(fixtures))
                    if f.endswith(".json")]


class Run:
    def __init__(self, machine, home):
        self.machine, self.home = machine, home
        self.env = {"PATH": "/usr/bin:/bin", "HOME": home, "PEERGATE_CACHE_DIR": home + "/cache",
                    "ASAN_OPTIONS": "detect_leaks=0", "PEERGATE_SIMULATE": machine}

    def cli(self, *args, check_json=False):
        done = subprocess.run([PEERGATE, "--simulate", self.machine, *args], env=self.env,
                              capture_output=True, text=True, timeout=300)
        if check_json:
            try:
                return done.returncode, json.loads(done.stdout)
            except json.JSONDecodeError:
                raise AssertionError(f"{' '.join(args)}: not JSON (exit {done.returncode}): "
                                     f"{done.stdout[:300]} {done.stderr[:500]}")
        return done.returncode, done.stdout


class Page(HTMLParser):
    """The node state and each grid cell's state class of a doctor page."""

    def __init__(self):
        super().__init__()
        self.node, self.cells = None, {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id") == "node-state":
            self.node = attrs.get("data-state")
        title = attrs.get("title") or ""
        match = re.fullmatch(r"GPU(\d+) to GPU(\d+)", title)
        if tag == "td" and match and "pair" in (attrs.get("class") or "").split():
            classes = attrs["class"].split()
            self.cells[(int(match[1]), int(match[2]))] = classes[1] if len(classes) > 1 else None


def prometheus_samples(text, family):
    out = []
    for line in text.splitlines():
        if line.startswith(family + "{"):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', line[len(family):line.index("}")]))
            out.append((labels, float(line.rsplit(" ", 1)[1])))
    return out


def one_hot(samples, label):
    given = [labels[label] for labels, value in samples if value == 1]
    return given[0] if len(given) == 1 else f"<{len(given)} states given>"


C_API_CALL = r"""
import ctypes, json, os, sys
lib = ctypes.CDLL(sys.argv[1])
envp_t = ctypes.POINTER(ctypes.c_char_p)
lib.peergate_gate_json.argtypes = [envp_t, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                   ctypes.c_size_t]
items = [f"{k}={v}".encode() for k, v in os.environ.items() if k != "LD_PRELOAD"]
envp = (ctypes.c_char_p * (len(items) + 1))(*items, None)
size = 1 << 16
while True:
    out = ctypes.create_string_buffer(size)
    status = lib.peergate_gate_json(envp, b"all", b"llama.cpp", out, size)
    if status >= 0:
        print(out.value.decode())
        break
    size = -status
"""


def sanitizer_preload():
    """libasan.so where libpeergate.so was built with it: python3 itself is not instrumented."""
    linked = subprocess.run(["ldd", LIBPEERGATE], capture_output=True, text=True).stdout
    if "libasan" not in linked:
        return {}
    runtime = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                             text=True).stdout.strip()
    return {"LD_PRELOAD": runtime, "ASAN_OPTIONS": "detect_leaks=0"}


def c_api_gate(env):
    """The C API's decision (peergate_gate_json), in a python3 of its own as a launcher is."""
    done = subprocess.run([sys.executable, "-c", C_API_CALL, LIBPEERGATE],
                          env={**env, **sanitizer_preload()}, capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"C API: exit {done.returncode}: {done.stderr[-500:]}")
    return json.loads(done.stdout)


def surfaces(run, probe):
    """What every surface says, as {surface: {question: answer}}."""
    said = {}
    page = os.path.join(run.home, "page.html")
    args = ["doctor", "--json", "--html", page] + (["--probe"] if probe else [])
    _, doctor = run.cli(*args, check_json=True)
    a = doctor["assessment"]
    said["doctor JSON"] = {
        "node": a["node"]["state"], "risk": a["silent_drop_risk"],
        "integrity": a["probe"]["result"] or "untested",
        "pairs": {(p["src"], p["dst"]): p["state"] for p in a["pairs"]}}
    parsed = Page()
    with open(page, encoding="utf-8") as f:
        parsed.feed(f.read())
    inverse = {v: k for k, v in CSS.items()}
    said["doctor page"] = {"node": parsed.node,
                           "pairs": {k: inverse.get(v, v) for k, v in parsed.cells.items()}}
    if not probe:  # an export probes nothing: compare it where the doctor did not either
        _, nfd = run.cli("export", "nfd")
        labels = dict(line.split("=", 1) for line in nfd.splitlines()
                      if "=" in line and not line.startswith("#"))
        key = lambda name: next((v for k, v in labels.items() if k.endswith("/" + name)), None)
        said["export nfd"] = {"node": key("node.state"), "risk": key("p2p.silent-drop-risk"),
                              "integrity": key("p2p.integrity"),
                              "p2p": {"ok": True, "vetoed": False}.get(key("p2p.status"))}
        _, prom = run.cli("export", "prometheus")
        states = {}
        for labels_, value in prometheus_samples(prom, "peergate_p2p_pair_state"):
            if value == 1:
                states[(int(labels_["gpu"]), int(labels_["peer_gpu"]))] = labels_["state"]
        said["export prometheus"] = {
            "node": one_hot(prometheus_samples(prom, "peergate_node_state"), "state").replace("_", "-"),
            "risk": one_hot(prometheus_samples(prom, "peergate_host_silent_drop_risk"), "risk"),
            "pairs": states}
        _, dot = run.cli("export", "dot")
        title = re.search(r'label="peergate: ([^"(]*)', dot)
        said["export dot"] = {"node": {"P2P allowed ": "p2p-allowed", "P2P vetoed ": "p2p-vetoed",
                                       "node unusable ": "unusable"}.get(title[1] if title else "", title and title[1]),
                              "marks": dot_marks(dot)}
    status, gate = run.cli("gate", "--gpus", "all", "--json", check_json=True)
    said["gate"] = {"p2p": gate["p2p"], "exit": status, "rule": gate.get("rule")}
    _, child = run.cli("exec", "--gpus", "all", "--", "env")
    said["exec child"] = {"p2p": "GGML_CUDA_P2P=1" in child.splitlines()}
    if LIBPEERGATE:
        capi = c_api_gate(dict(run.env))
        said["C API"] = {"p2p": capi["p2p"], "rule": capi.get("rule")}
    return said


def dot_marks(dot):
    marks = {}
    for a, b, label in re.findall(r'gpu(\d+) -- gpu(\d+) \[label="([^"]*)"', dot):
        key = tuple(sorted((int(a), int(b))))
        marks[key] = ("data_lost" if "data lost" in label else
                      "probe_error" if "probe error" in label else None)
    return marks


def disagreements(name, scenario, said):
    out = []

    def differ(what, s1, v1, s2, v2):
        out.append(f"{name} [{scenario}] {what}: {s1} says {v1!r}, {s2} says {v2!r}")

    doc = said["doctor JSON"]
    node = doc["node"]
    for surface, answers in said.items():
        for key in ("node", "risk", "integrity"):
            if key in answers and surface != "doctor JSON" and answers[key] != doc[key]:
                differ(key, "doctor JSON", doc[key], surface, answers[key])
        if "pairs" in answers and surface != "doctor JSON" and answers["pairs"] != doc["pairs"]:
            for pair in sorted(set(answers["pairs"]) | set(doc["pairs"])):
                if answers["pairs"].get(pair) != doc["pairs"].get(pair):
                    differ(f"pair {pair[0]}->{pair[1]}", "doctor JSON", doc["pairs"].get(pair),
                           surface, answers["pairs"].get(pair))
    allowed = node == "p2p-allowed"
    for surface in ("gate", "exec child", "C API", "export nfd"):
        if surface in said and said[surface].get("p2p") is not None and said[surface]["p2p"] != allowed:
            differ("P2P allowed", "doctor JSON node", node, surface, said[surface]["p2p"])
    if said["gate"]["exit"] != GATE_EXIT[node]:
        differ("gate exit status", "doctor JSON node", node, "gate", said["gate"]["exit"])
    if "C API" in said and said["C API"]["rule"] != said["gate"]["rule"]:
        differ("gate rule", "gate", said["gate"]["rule"], "C API", said["C API"]["rule"])
    if "export dot" in said:
        for (a, b), mark in said["export dot"]["marks"].items():
            worst = max((doc["pairs"].get(p) for p in ((a, b), (b, a)) if p in doc["pairs"]),
                        key=ORDER.index, default=None)
            expected = worst if worst in ("data_lost", "probe_error") else None
            if mark != expected:
                differ(f"DOT edge {a}-{b}", "doctor JSON", worst, "export dot", mark)
        for (a, b), state in doc["pairs"].items():
            key = tuple(sorted((a, b)))
            if state in ("data_lost", "probe_error") and key not in said["export dot"]["marks"]:
                differ(f"DOT edge {key[0]}-{key[1]}", "doctor JSON", state, "export dot", "no edge")
    return out


def gpu_count(machine):
    with open(machine, encoding="utf-8") as f:
        return len(json.load(f).get("gpus", []))


def check(machine):
    name = os.path.basename(machine)
    found = []
    with tempfile.TemporaryDirectory() as home:
        run = Run(machine, home)
        found += disagreements(name, "no cache", surfaces(run, probe=False))
        if gpu_count(machine) <= PROBE_GPUS_AT_MOST:
            found += disagreements(name, "doctor --probe", surfaces(run, probe=True))
            found += disagreements(name, "cached verdict", surfaces(run, probe=False))
    return name, found


def main():
    failures, checked = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for name, found in pool.map(check_safely, machines()):
            checked += 1
            failures += found
            print(f"{name}: {'agree' if not found else f'{len(found)} disagreements'}", flush=True)
    for line in failures:
        print("DISAGREE:", line)
    print(f"agreement.surfaces: {checked} machines, {len(failures)} disagreements")
    return 1 if failures else 0


def check_safely(machine):
    try:
        return check(machine)
    except Exception as error:  # a surface that fails to answer is a disagreement too
        return os.path.basename(machine), [f"{os.path.basename(machine)}: {error}"]


if __name__ == "__main__":
    sys.exit(main())
