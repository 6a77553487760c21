"""The CI templates of docs/ci.md, executed (tools/dist/BUILD, :ci_templates_test).

Both YAML blocks are parsed (python3-yaml) and checked for the parts a CI system reads (triggers,
steps, artifacts, report paths that match the files the commands write). Then every `run:` line of
the GitHub workflow and the `script:` of the GitLab job is executed in an empty directory with an
environment of PATH plus the template's own variables, the `curl` download replaced by a copy of
the locally built tarball, twice:
  - the template's ICD_MANIFEST is a copy of Mesa lavapipe's manifest: the job passes and writes a
    SARIF log without errors and a JUnit report;
  - ICD_MANIFEST names a library that does not exist: the job fails, and both reports are still
    written (GitHub: the `if: always()` steps run after the failed check step).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET

import yaml

LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
TARBALL = None
CI_MD = None
CURL_RE = re.compile(r'^curl -fsSL -o (\S+) "\$LDP_CHECK_URL"$')


def yaml_blocks(text):
    return re.findall(r"^```yaml\n(.*?)^```$", text, re.S | re.M)


def replace_download(script):
    """The script with its curl line replaced by a copy of the local tarball; and how many."""
    out, n = [], 0
    for line in script.split("\n"):
        m = CURL_RE.match(line.strip())
        if m:
            n += 1
            line = 'cp "$LOCAL_TARBALL" %s' % m.group(1)
        out.append(line)
    return "\n".join(out), n


class CiTemplatesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(CI_MD) as f:
            blocks = yaml_blocks(f.read())
        assert len(blocks) == 2, "docs/ci.md: expected 2 yaml blocks, found %d" % len(blocks)
        docs = [yaml.safe_load(b) for b in blocks]
        cls.github = next(d for d in docs if "jobs" in d)
        cls.gitlab = next(d for d in docs if "jobs" not in d)

    # ---- structure ----

    def test_github_structure(self):
        g = self.github
        on = g.get("on", g.get(True))  # YAML 1.1 reads a bare `on` as true
        self.assertIn("push", on)
        self.assertIn("pull_request", on)
        self.assertEqual(g["permissions"]["security-events"], "write")
        job = g["jobs"]["ldp-check"]
        self.assertIn("LDP_CHECK_URL", job["env"])
        self.assertIn("ICD_MANIFEST", job["env"])
        steps = job["steps"]
        uses = [s.get("uses", "") for s in steps]
        self.assertTrue(any(u.startswith("actions/checkout@") for u in uses))
        sarif = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
        self.assertEqual(len(sarif), 1)
        self.assertEqual(sarif[0]["if"], "always()")
        runs = "\n".join(s.get("run", "") for s in steps)
        self.assertIn("--output=" + sarif[0]["with"]["sarif_file"], runs)
        art = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
        self.assertEqual(len(art), 1)
        self.assertEqual(art[0]["if"], "always()")
        for p in art[0]["with"]["path"].split():
            self.assertIn("--output=" + p, runs)
        for s in steps:
            self.assertTrue("run" in s or "uses" in s, s)
            self.assertNotIn("${{", s.get("run", ""), "run lines use the shell's variables only")

    def test_gitlab_structure(self):
        self.assertEqual(list(self.gitlab), ["ldp-check"])
        job = self.gitlab["ldp-check"]
        self.assertIn("LDP_CHECK_URL", job["variables"])
        self.assertIn("ICD_MANIFEST", job["variables"])
        self.assertIsInstance(job["script"], list)
        self.assertEqual(job["artifacts"]["when"], "always")
        junit = job["artifacts"]["reports"]["junit"]
        script = "\n".join(job["script"])
        self.assertIn("--output=" + junit, script)
        for p in job["artifacts"]["paths"]:
            self.assertIn("--output=" + p, script)
        # The last line is the one whose status decides the job: the JUnit run without `|| true`.
        self.assertIn("--format=junit", job["script"][-1])
        self.assertNotIn("|| true", job["script"][-1])

    # ---- execution ----

    def workdir(self, name, library_ok):
        d = os.path.join(os.environ["TEST_TMPDIR"], name)
        os.makedirs(d)
        return d

    def place_manifest(self, d, rel, library_ok):
        path = os.path.join(d, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if library_ok:
            shutil.copyfile(LAVAPIPE, path)
        else:
            with open(path, "w") as f:
                json.dump({"file_format_version": "1.0.0",
                           "ICD": {"library_path": os.path.join(d, "build", "libmy_icd_never_built.so"),
                                   "api_version": "1.3.0"}}, f)

    def env_for(self, variables):
        env = {"PATH": "/usr/bin:/bin", "LOCAL_TARBALL": TARBALL}
        env.update({k: str(v) for k, v in variables.items()})
        return env

    def run_github(self, library_ok):
        job = self.github["jobs"]["ldp-check"]
        d = self.workdir("github_%s" % library_ok, library_ok)
        self.place_manifest(d, job["env"]["ICD_MANIFEST"], library_ok)
        env = self.env_for(job["env"])
        failed, log, downloads = False, [], 0
        for s in job["steps"]:
            if "run" not in s:
                continue
            cond = s.get("if", "success()")
            if failed and "always()" not in cond:
                log.append("skipped: " + s.get("name", ""))
                continue
            script, n = replace_download(s["run"])
            downloads += n
            # GitHub's default shell for run: on Linux.
            r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=d, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
            log.append("%s: exit %d\n%s" % (s.get("name", ""), r.returncode, r.stdout))
            if r.returncode != 0:
                failed = True
        self.assertEqual(downloads, 1, "the workflow downloads the tarball once")
        return d, failed, "\n".join(log)

    def run_gitlab(self, library_ok):
        job = self.gitlab["ldp-check"]
        d = self.workdir("gitlab_%s" % library_ok, library_ok)
        self.place_manifest(d, job["variables"]["ICD_MANIFEST"], library_ok)
        env = self.env_for(job["variables"])
        script, n = replace_download("\n".join(job["script"]))
        self.assertEqual(n, 1, "the job downloads the tarball once")
        # GitLab's shell runner: the lines in one shell, stopping at the first that fails.
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=d, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        return d, r.returncode != 0, r.stdout

    def check_reports(self, d, library_ok, log):
        with open(os.path.join(d, "ldp-check.sarif")) as f:
            sarif = json.load(f)
        self.assertEqual(sarif["version"], "2.1.0", log)
        results = sarif["runs"][0]["results"]
        errors = [r for r in results if r.get("level") == "error"]
        junit = ET.parse(os.path.join(d, "ldp-check.xml")).getroot()
        failures = junit.findall(".//failure")
        cases = junit.findall(".//testcase")
        self.assertGreater(len(cases), 10, log)
        if library_ok:
            self.assertEqual(errors, [], log)
            self.assertEqual(failures, [], log)
        else:
            rules = {r["ruleId"] for r in errors}
            self.assertIn("LDP_DRIVER_4", rules, log)
            self.assertTrue(any("libmy_icd_never_built.so" in r["message"]["text"] for r in errors), log)
            self.assertTrue(failures, log)
        # The tarball was verified and unpacked where the templates say.
        self.assertTrue(os.path.isfile(os.path.join(d, "ldp-check-linux-x86_64", "ldp-check")))

    def setUp(self):
        if not os.path.isfile(LAVAPIPE):
            self.skipTest(LAVAPIPE + " is not installed (mesa-vulkan-drivers)")

    def test_github_passing_driver(self):
        d, failed, log = self.run_github(True)
        self.assertFalse(failed, log)
        self.check_reports(d, True, log)

    def test_github_failing_driver(self):
        d, failed, log = self.run_github(False)
        self.assertTrue(failed, log)
        self.assertIn("Check the driver: exit 1", log)
        self.assertIn("JUnit report: exit 0", log)  # ran after the failure (if: always())
        self.check_reports(d, False, log)

    def test_gitlab_passing_driver(self):
        d, failed, log = self.run_gitlab(True)
        self.assertFalse(failed, log)
        self.check_reports(d, True, log)

    def test_gitlab_failing_driver(self):
        d, failed, log = self.run_gitlab(False)
        self.assertTrue(failed, log)
        self.check_reports(d, False, log)


if __name__ == "__main__":
    TARBALL = os.path.abspath(sys.argv.pop(1))
    CI_MD = os.path.abspath(sys.argv.pop(1))
    unittest.main()
