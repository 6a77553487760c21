#!/usr/bin/python3
"""Takes one RenderDoc capture of a running program through RenderDoc's target control, the way
qrenderdoc's "Capture Frame(s) Immediately" does: it finds the target that `renderdoccmd capture`
(process PARENT_PID) launched, connects, triggers one frame and waits for RenderDoc to report the
new capture.

  renderdoc_target_control.py --parent-pid=PID [--timeout=SECONDS]

Prints one JSON object: {"captured": bool, "path": str|null, "frame": int|null, "target": str,
"api": str, "why": str}. Exit 0 when a capture was made, 1 when not (the reason in "why"), 2 when
the renderdoc Python module is missing (Debian's python3-renderdoc is built for /usr/bin/python3).

Used by layers_matrix.py (the RenderDoc cell): pressing F12 in the window also captures, but only
target control says which capture came from which request and fails with a reason when none does.
"""
import argparse
import json
import os
import sys
import time


def parent_of(pid):
    try:
        with open("/proc/%d/stat" % pid, encoding="ascii", errors="replace") as fh:
            # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'
            return int(fh.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parent-pid", type=int, required=True, help="the renderdoccmd process")
    ap.add_argument("--timeout", type=float, default=60.0)
    a = ap.parse_args()
    out = {"captured": False, "path": None, "frame": None, "target": "", "api": "", "why": ""}
    try:
        import renderdoc as rd  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        out["why"] = "no renderdoc Python module (python3-renderdoc): %s" % e
        print(json.dumps(out))
        return 2
    deadline = time.time() + a.timeout
    tc = None
    # The target: a RenderDoc-injected process whose parent is renderdoccmd (several may listen).
    while tc is None and time.time() < deadline:
        ident = rd.EnumerateRemoteTargets("", 0)
        while ident != 0 and tc is None:
            c = rd.CreateTargetControl("", ident, "vkt-real-layers", False)
            if c is not None and c.Connected() and parent_of(c.GetPID()) == a.parent_pid:
                tc = c
            elif c is not None:
                c.Shutdown()
            ident = rd.EnumerateRemoteTargets("", ident)
        if tc is None:
            time.sleep(0.2)
    if tc is None:
        out["why"] = "no RenderDoc target launched by process %d answered within %.0f s" % (a.parent_pid, a.timeout)
        print(json.dumps(out))
        return 1
    out["target"] = tc.GetTarget()
    # The API is known once the program has created its device and presented.
    while tc.GetAPI() == "" and time.time() < deadline:
        msg = tc.ReceiveMessage(None)
        if msg.type == rd.TargetControlMessageType.Disconnected:
            break
    out["api"] = tc.GetAPI()
    if out["api"] == "":
        out["why"] = "the target never reported a graphics API (no frame presented)"
    else:
        tc.TriggerCapture(1)
        while time.time() < deadline:
            msg = tc.ReceiveMessage(None)
            if msg.type == rd.TargetControlMessageType.NewCapture:
                out.update(captured=True, path=msg.newCapture.path, frame=msg.newCapture.frameNumber)
                break
            if msg.type == rd.TargetControlMessageType.Disconnected:
                out["why"] = "the target disconnected before a capture arrived"
                break
        else:
            out["why"] = "no capture within %.0f s of the trigger" % a.timeout
    tc.Shutdown()
    print(json.dumps(out))
    return 0 if out["captured"] else 1


if __name__ == "__main__":
    sys.exit(main())
