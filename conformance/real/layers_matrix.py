#!/usr/bin/env python3
"""The real-layers matrix: every Vulkan layer Debian ships here, enabled the way its users enable
it, alone and in the combinations users run, under real tools, through our loader and through
Debian's (the Khronos loader 1.3.239), with Mesa's lavapipe.

Per cell (a layer configuration x a tool x a loader) it records the exit status, what the tool
showed (vulkaninfo's summary and JSON, normalised; frames drawn, captured and replayed) and which
layer libraries the process loaded (the dynamic linker's own account, LD_DEBUG=files). Then, per
configuration and tool, it compares ours with Debian's: every difference is a bug unless
conformance/deviations/real-layers.tsv lists it with its reason. A cell that crashes through both
loaders is the layer's (or tool's) own bug: reported as such, not hidden, and not held against
the loader. Policies: LLP_LOADER_1 (layer discovery), LLP_LOADER_7 (enable/disable environment),
RULE_LYR_ENV_INSTANCE_LAYERS, LLP_LAYER_21/22 (handles through the chain).

  layers_matrix.py --ours=LIB [--out=DIR] [--markdown=FILE] [--only=CONFIG,...] [--deviations=TSV]

Exit: 0 every cell agrees or is listed; 1 an unlisted difference (or a listed one that no longer
occurs: the list must stay true); 2 the environment lacks a tool (ci/bootstrap installs them).
"""

import argparse
import difflib
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

LVP = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
DEBIAN = "/usr/lib/x86_64-linux-gnu/libvulkan.so.1"
LAYER_DIRS = ["/usr/share/vulkan/implicit_layer.d", "/usr/share/vulkan/explicit_layer.d"]
TOOLS = ["vulkaninfo", "vkcube", "Xvfb", "xdotool", "gfxrecon-replay", "renderdoccmd", "mangohud"]

# Layer configurations, each as its users enable it. "env" is added to the clean environment;
# "wrapper" runs the tool through a launcher (MangoHud's own `mangohud` script).
CONFIGS = [
    ("none", {}, None, "no variable: the implicit layers on by default (Mesa's device_select)"),
    ("device_select_off", {"NODEVICE_SELECT": "1"}, None, "device_select's disable_environment"),
    ("validation", {"VK_INSTANCE_LAYERS": "VK_LAYER_KHRONOS_validation"}, None, "VK_INSTANCE_LAYERS"),
    ("validation_enable", {"VK_LOADER_LAYERS_ENABLE": "*validation"}, None, "VK_LOADER_LAYERS_ENABLE glob"),
    ("gfxreconstruct", {"VK_INSTANCE_LAYERS": "VK_LAYER_LUNARG_gfxreconstruct"}, None, "VK_INSTANCE_LAYERS"),
    ("mangohud", {"MANGOHUD": "1"}, None, "MangoHud's enable_environment"),
    ("mangohud_wrapper", {}, ["mangohud"], "the mangohud launcher"),
    ("vkbasalt", {"ENABLE_VKBASALT": "1"}, None, "vkBasalt's enable_environment"),
    ("renderdoc", {"ENABLE_VULKAN_RENDERDOC_CAPTURE": "1"}, None, "RenderDoc's enable_environment"),
    ("overlay", {"VK_INSTANCE_LAYERS": "VK_LAYER_MESA_overlay"}, None, "VK_INSTANCE_LAYERS"),
    ("nullhw", {"VK_INSTANCE_LAYERS": "VK_LAYER_INTEL_nullhw"}, None, "VK_INSTANCE_LAYERS"),
    ("mangohud+vkbasalt", {"MANGOHUD": "1", "ENABLE_VKBASALT": "1"}, None, "both enable_environments"),
    ("gfxreconstruct+mangohud", {"VK_INSTANCE_LAYERS": "VK_LAYER_LUNARG_gfxreconstruct", "MANGOHUD": "1"}, None,
     "a layer above GFXReconstruct's wrapped handles"),
    ("validation+gfxreconstruct", {"VK_INSTANCE_LAYERS": "VK_LAYER_KHRONOS_validation:VK_LAYER_LUNARG_gfxreconstruct"},
     None, "validation above the capture layer"),
    ("overlay+validation", {"VK_INSTANCE_LAYERS": "VK_LAYER_MESA_overlay:VK_LAYER_KHRONOS_validation"}, None,
     "two explicit layers"),
    ("all", {"VK_INSTANCE_LAYERS": "VK_LAYER_KHRONOS_validation:VK_LAYER_LUNARG_gfxreconstruct:VK_LAYER_MESA_overlay",
             "MANGOHUD": "1", "ENABLE_VKBASALT": "1"}, None, "every layer but RenderDoc and nullhw at once"),
]
CAPTURE_CONFIGS = {"gfxreconstruct", "gfxreconstruct+mangohud", "validation+gfxreconstruct"}
LOADERS = ("ours", "debian")


def layer_libraries():
    """Basenames of every installed layer's library (from the manifests), to pick them out of
    the dynamic linker's account of what a process loaded."""
    names = set()
    for d in LAYER_DIRS:
        for f in sorted(glob.glob(os.path.join(d, "*.json"))):
            try:
                with open(f, encoding="utf-8") as fh:
                    doc = json.load(fh)
            except (OSError, ValueError):
                continue
            layers = doc.get("layers") or [doc.get("layer") or {}]
            for layer in layers:
                lp = layer.get("library_path")
                if lp:
                    names.add(os.path.basename(lp))
    return names


class Env:
    def __init__(self, ours, tmp):
        self.tmp = tmp
        self.ours_dir = os.path.join(tmp, "ourloader")
        os.makedirs(self.ours_dir, exist_ok=True)
        shutil.copy(ours, os.path.join(self.ours_dir, "libvulkan.so.1"))
        link = os.path.join(self.ours_dir, "libvulkan.so")  # vulkaninfo dlopens libvulkan.so first
        if not os.path.lexists(link):
            os.symlink("libvulkan.so.1", link)
        # Under --config=asan our loader needs its runtime first in the uninstrumented clients.
        ldd = subprocess.run(["ldd", ours], capture_output=True, text=True).stdout
        self.preload = ":".join(m.group(1) for m in re.finditer(r"=> (\S*lib[at]san\S*)", ldd))
        self.display = None
        self.xvfb = None
        self.layer_libs = layer_libraries()

    def start_xvfb(self):
        r, w = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1024x768x24", "-nolisten", "tcp",
                                      "-noreset"], pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        buf = b""
        deadline = time.time() + 20
        while not buf.endswith(b"\n") and time.time() < deadline:
            chunk = os.read(r, 16)
            if not chunk:
                break
            buf += chunk
        os.close(r)
        if not buf.strip():
            raise RuntimeError("Xvfb did not start")
        self.display = ":" + buf.decode().strip()

    def stop(self):
        if self.xvfb:
            self.xvfb.terminate()
            self.xvfb.wait()

    def environ(self, loader, extra, home):
        e = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": home, "DISPLAY": self.display,
             "VK_DRIVER_FILES": LVP, "LD_DEBUG": "files", "LD_DEBUG_OUTPUT": os.path.join(home, "ld"),
             # A crash stays a crash under AddressSanitizer: its own SEGV handler would turn the
             # signal into "exit 1" for our loader only, and the two loaders could not be compared.
             "ASAN_OPTIONS": "detect_leaks=0:verify_asan_link_order=0:handle_segv=0:handle_sigbus=0:handle_abort=0"}
        if loader == "ours":
            e["LD_LIBRARY_PATH"] = self.ours_dir
            if self.preload:
                e["LD_PRELOAD"] = self.preload
        e.update(extra)
        return e

    def loaded_layers(self, home):
        """Layer libraries the process (and its children) initialised, from LD_DEBUG_OUTPUT files."""
        seen = set()
        for f in glob.glob(os.path.join(home, "ld.*")):
            with open(f, errors="replace") as fh:
                for line in fh:
                    m = re.search(r"calling init: (\S+)", line)
                    if m and os.path.basename(m.group(1)) in self.layer_libs:
                        seen.add(os.path.basename(m.group(1)))
            os.unlink(f)
        return sorted(seen)


def status_word(rc):
    if rc is None:
        return "timeout"
    if rc < 0:
        return "signal %s" % signal.Signals(-rc).name
    if rc >= 128 and rc - 128 < 65:
        return "signal %s" % signal.Signals(rc - 128).name
    return "exit %d" % rc


def run(env, loader, extra, wrapper, argv, home, timeout=240, during=None):
    os.makedirs(home, exist_ok=True)
    cmd = (wrapper or []) + argv
    p = subprocess.Popen(cmd, env=env.environ(loader, extra, home), cwd=home, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    if during:
        during(p)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = None
    return rc, out, err, env.loaded_layers(home)


def norm_summary(text):
    """vulkaninfo --summary without what names the loader itself: its version line, and the loader
    extension VK_LUNARG_direct_driver_loading (newer than Debian's 1.3.239) with the count it adds;
    and without GFXReconstruct's line naming its time-stamped capture file."""
    keep = []
    for line in text.splitlines():
        if "Vulkan Instance Version" in line or "VK_LUNARG_direct_driver_loading" in line:
            continue
        if line.startswith("[gfxrecon] INFO - Recording graphics API capture to"):
            continue
        keep.append(re.sub(r"^(Instance Extensions: count = )\d+$", r"\1N", line))
    return "\n".join(keep)


def cell_vulkaninfo(env, cfg, loader, home):
    name, extra, wrapper, _ = cfg
    rc, out, err, libs = run(env, loader, extra, wrapper, ["vulkaninfo", "--summary"], home)
    rc2, _, _, libs2 = run(env, loader, extra, wrapper, ["vulkaninfo", "--json", "-o", os.path.join(home, "vi.json")],
                           home)
    shown = {"summary": norm_summary(out)}
    try:
        with open(os.path.join(home, "vi.json"), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        # RenderDoc writes the time of day into pipelineCacheUUID ("rdoc" and a time stamp).
        text = re.sub(r'"pipelineCacheUUID"\s*:\s*\[[^\]]*\]', '"pipelineCacheUUID": []', text)
        shown["json"] = re.sub(r'\s*"VK_LUNARG_direct_driver_loading"\s*:\s*\{[^}]*\},?', "", text)
    except OSError:
        shown["json"] = None
    return {"status": status_word(rc) + ("" if rc2 == rc else " / --json " + status_word(rc2)),
            "layers": sorted(set(libs) | set(libs2)), "shown": shown,
            "detail": "%d summary lines" % len(shown["summary"].splitlines())}


def cell_vkcube(env, cfg, loader, home):
    name, extra, wrapper, _ = cfg
    rc, out, err, libs = run(env, loader, extra, wrapper, ["vkcube", "--c", "30"], home)
    gpu = re.search(r"Selected GPU \d+: ([^,]+)", out + err)
    return {"status": status_word(rc), "layers": libs, "shown": {"gpu": gpu.group(1) if gpu else None},
            "detail": "30 frames requested"}


def replay_frames(text):
    m = re.search(r"(\d+) frames, framerange", text)
    return int(m.group(1)) if m else 0


def cell_gfxrecon(env, cfg, loader, home, captures):
    """vkcube captured through `loader`; the replays of every capture are filled in later."""
    name, extra, wrapper, _ = cfg
    cap = os.path.join(home, "cap.gfxr")
    extra = dict(extra, GFXRECON_CAPTURE_FILE=cap, GFXRECON_CAPTURE_FILE_TIMESTAMP="false")
    rc, out, err, libs = run(env, loader, extra, wrapper, ["vkcube", "--c", "10"], home)
    ok = os.path.exists(cap) and os.path.getsize(cap) > 0
    captures[loader] = cap if ok else None
    return {"status": status_word(rc), "layers": libs, "shown": {"captured": ok},
            "detail": "capture %s" % ("written" if ok else "missing")}


def cross_replay(env, captures, home):
    """Every capture replayed through both loaders: frames replayed per (capture, replay loader)."""
    res = {}
    for made_by, cap in sorted(captures.items()):
        for loader in LOADERS:
            if cap is None:
                res[(made_by, loader)] = ("no capture", 0)
                continue
            rc, out, err, _ = run(env, loader, {}, None, ["gfxrecon-replay", "--wsi", "xcb", cap],
                                  os.path.join(home, "replay-%s-%s" % (made_by, loader)))
            res[(made_by, loader)] = (status_word(rc), replay_frames(out + err))
    return res


def cell_renderdoc(env, cfg, loader, home):
    """vkcube under `renderdoccmd capture`, one frame captured through RenderDoc's target control
    (renderdoc_target_control.py, as qrenderdoc's "Capture Frame(s) Immediately"); F12 pressed
    (XTest, xdotool) only where the renderdoc Python module is missing."""
    name, extra, wrapper, _ = cfg
    tmpl = os.path.join(home, "rdc", "cap")
    os.makedirs(os.path.dirname(tmpl), exist_ok=True)
    how = {"via": "target control", "why": ""}

    def press(p):
        helper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "renderdoc_target_control.py")
        tc = subprocess.run(["/usr/bin/python3", helper, "--parent-pid", str(p.pid), "--timeout", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        try:
            how["why"] = json.loads(tc.stdout.strip().splitlines()[-1]).get("why", "")
        except (ValueError, IndexError):
            how["why"] = tc.stdout.strip()[-200:]
        if tc.returncode != 2:
            return
        how["via"] = "F12"
        for _ in range(40):
            time.sleep(0.5)
            if p.poll() is not None or glob.glob(tmpl + "*.rdc"):
                return
            subprocess.run(["xdotool", "key", "F12"], env={"DISPLAY": env.display, "PATH": "/usr/bin:/bin"},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    rc, out, err, libs = run(env, loader, extra, wrapper, ["renderdoccmd", "capture", "-w", "-c", tmpl, "vkcube", "--c",
                                                          "600"], home, during=press)
    caps = sorted(glob.glob(tmpl + "*.rdc"))
    replays = []
    for replay_loader in LOADERS:  # the first capture, replayed once through each loader
        if not caps:
            replays.append("no capture")
            continue
        rrc, _, _, _ = run(env, replay_loader, {}, None, ["renderdoccmd", "replay", "-l", "1", caps[0]],
                           os.path.join(home, "replay-" + replay_loader), timeout=120)
        replays.append(status_word(rrc))
    return {"status": status_word(rc), "layers": libs, "shown": {"captured": bool(caps), "replayed": tuple(replays)},
            "detail": "%s (%s); replay %s (ours/Debian)" % (
                "frame captured" if caps else "no capture" + (": " + how["why"] if how["why"] else ""), how["via"],
                "/".join(replays))}


def load_deviations(path):
    rows = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("#") or not line.strip():
                    continue
                f = line.rstrip("\n").split("\t")
                if len(f) >= 4:
                    rows[(f[0], f[1], f[2])] = f[3]
    return rows


def crashed(status):
    return status.startswith("signal") or status == "timeout"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--ours", required=True, help="our libvulkan.so.1")
    ap.add_argument("--out", default=None, help="where each cell's files are kept (default: a temporary folder)")
    ap.add_argument("--markdown", default=None, help="write the table as Markdown to this file")
    ap.add_argument("--only", default="", help="comma-separated configuration names (default: all)")
    ap.add_argument("--deviations", default=None, help="listed differences (TSV: config, tool, field, reason)")
    a = ap.parse_args()
    missing = [t for t in TOOLS if shutil.which(t) is None] + [f for f in (LVP, DEBIAN) if not os.path.exists(f)]
    if missing:
        print("layers_matrix: FAIL: missing %s (ci/bootstrap installs them)" % ", ".join(missing))
        return 2
    only = set(filter(None, a.only.split(",")))
    configs = [c for c in CONFIGS if not only or c[0] in only]
    # Bazel test sharding: configuration i runs in shard i mod TEST_TOTAL_SHARDS.
    shards, index = int(os.environ.get("TEST_TOTAL_SHARDS", "1")), int(os.environ.get("TEST_SHARD_INDEX", "0"))
    if os.environ.get("TEST_SHARD_STATUS_FILE"):
        open(os.environ["TEST_SHARD_STATUS_FILE"], "w").close()
    configs = [c for i, c in enumerate(configs) if i % shards == index]
    only = {c[0] for c in configs}
    tmp = a.out or tempfile.mkdtemp(prefix="layers_matrix.")
    env = Env(a.ours, tmp)
    env.start_xvfb()
    deviations = load_deviations(a.deviations)
    used = set()
    rows = []
    failures = 0
    try:
        for cfg in configs:
            name = cfg[0]
            tools = [("vulkaninfo", cell_vulkaninfo), ("vkcube", cell_vkcube)]
            if name in CAPTURE_CONFIGS:
                tools.append(("gfxrecon capture", None))
            if name == "renderdoc":
                tools.append(("renderdoc capture", cell_renderdoc))
            for tool, fn in tools:
                cells = {}
                captures = {}
                for loader in LOADERS:
                    home = os.path.join(tmp, re.sub(r"[^A-Za-z0-9_.+-]", "_", "%s.%s.%s" % (name, tool, loader)))
                    if fn is None:
                        cells[loader] = cell_gfxrecon(env, cfg, loader, home, captures)
                    else:
                        cells[loader] = fn(env, cfg, loader, home)
                replays = None
                if fn is None:
                    replays = cross_replay(env, captures, os.path.join(tmp, "replays." + name))
                    for made_by in LOADERS:
                        cells[made_by]["shown"]["replayed"] = tuple(replays[(made_by, l)][1] for l in LOADERS)
                        cells[made_by]["detail"] += "; replayed %s frames (ours/Debian)" % "/".join(
                            str(replays[(made_by, l)][1]) for l in LOADERS)
                o, d = cells["ours"], cells["debian"]
                diffs = []
                if o["status"] != d["status"]:
                    diffs.append("status")
                if o["layers"] != d["layers"]:
                    diffs.append("layers")
                for k in sorted(set(o["shown"]) | set(d["shown"])):
                    if o["shown"].get(k) != d["shown"].get(k):
                        diffs.append(k)
                notes = []
                both_crash = crashed(o["status"]) and crashed(d["status"])
                if both_crash:
                    notes.append("crashes through both loaders: the layer's or tool's own bug")
                replayed = [o["shown"].get("replayed"), d["shown"].get("replayed")]
                if all(isinstance(r, tuple) and r and all(isinstance(x, str) and crashed(x) for x in r) for r in replayed):
                    notes.append("the replay crashes through both loaders, whichever loader captured: the tool's own bug")
                verdict = "same"
                if crashed(d["status"]) and not crashed(o["status"]):
                    # Debian's loader crashed and ours did not (RenderDoc with Debian's loader does,
                    # now and then): the reference has no answer to compare with. Reported, never a
                    # failure of ours.
                    notes.append("Debian's loader ended with %s, ours did not: nothing to compare" % d["status"])
                    verdict = "Debian crashed"
                    diffs = []
                    used.update(k for k in deviations if k[0] == name and k[1] == tool)  # not evaluable here
                for field in diffs:
                    key = (name, tool, field)
                    if key in deviations:
                        used.add(key)
                        notes.append("%s differs: listed in the deviations file" % field)
                        verdict = "listed deviation"
                    elif both_crash and field not in ("status", "layers"):
                        notes.append("%s differs after both crashed" % field)
                    else:
                        verdict = "DIFFERENT"
                        failures += 1
                        ov, dv = o["shown"].get(field, o.get(field)), d["shown"].get(field, d.get(field))
                        if isinstance(ov, str) and isinstance(dv, str):
                            print("layers_matrix: FAIL: %s / %s: %s differs (- Debian, + ours):" % (name, tool, field))
                            for line in list(difflib.unified_diff(dv.splitlines(), ov.splitlines(), "debian", "ours",
                                                                  lineterm="", n=1))[2:40]:
                                print("    " + line)
                        else:
                            print("layers_matrix: FAIL: %s / %s: %s differs: ours %.300r, Debian %.300r" % (
                                name, tool, field, ov, dv))
                row = (name, tool, o["status"], d["status"], ",".join(o["layers"]) or "-",
                       ",".join(d["layers"]) or "-", o["detail"], d["detail"], verdict, "; ".join(notes))
                rows.append(row)
                print("layers_matrix: %-26s %-18s ours %-14s Debian %-14s %s%s" % (
                    name, tool, o["status"], d["status"], verdict, (" (" + "; ".join(notes) + ")") if notes else ""))
                sys.stdout.flush()
    finally:
        env.stop()
    for key in sorted(set(deviations) - used):
        if key[0] in only:
            print("layers_matrix: FAIL: listed deviation %s / %s / %s no longer occurs: remove its row" % key)
            failures += 1
    if a.markdown:
        with open(a.markdown, "w", encoding="utf-8") as fh:
            fh.write("| configuration | tool | ours | Debian 1.3.239 | layer libraries (ours) | layer libraries "
                     "(Debian) | ours shows | Debian shows | verdict | notes |\n")
            fh.write("|---|---|---|---|---|---|---|---|---|---|\n")
            for r in rows:
                fh.write("| " + " | ".join(x.replace("|", "/") for x in r) + " |\n")
    print("layers_matrix: %d cells, %d unlisted difference(s)" % (len(rows), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
