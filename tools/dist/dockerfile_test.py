"""The checker image's Dockerfile (tools/dist/Dockerfile, shipped in the release tarball).

Without a Docker daemon (the usual case in a build sandbox) the Dockerfile is checked for syntax and
against the tarball it is built from:
  - parsed as Docker does (comments, parser directives, backslash continuations): every instruction
    is a known Dockerfile instruction, written in upper case; only ARG comes before the first FROM;
    the FROM image, after ARG defaults, is Debian's base image (debian:*) and every variable it uses
    is a declared ARG;
  - COPY/ADD: no URL sources (offline), every source exists in the unpacked tarball's top directory,
    a destination directory (ending in /) for several sources, and the files SHA256SUMS lists are
    all copied (the RUN step verifies them);
  - RUN in shell form passes `sh -n`; CMD/ENTRYPOINT in exec form are JSON arrays of strings whose
    program is one of the tarball's executables on the image's PATH (ENV); ENV/LABEL are KEY=VALUE;
    WORKDIR is absolute;
  - a dry run of the image's filesystem: the COPY sources copied under $TEST_TMPDIR, the RUN command
    run there with the destination directory rewritten (checksums verified, both checkers start),
    then the CMD with the image's PATH, in an environment of PATH only.
With a Docker daemon and the base image already present (nothing is pulled), the image is also
built and `ldp-check --version` run in it.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import unittest

INSTRUCTIONS = {
    "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK", "LABEL",
    "MAINTAINER", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR",
}
DIRECTIVE_RE = re.compile(r"^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$")
TOP = "ldp-check-linux-x86_64"

TARBALL = None
SOURCE_DOCKERFILE = None


def parse_dockerfile(text):
    """[(lineno, INSTRUCTION, arguments)] of the logical lines; directives as a dict."""
    directives = {}
    lines = text.split("\n")
    i = 0
    # Parser directives: only at the very top, before any comment, blank line or instruction.
    while i < len(lines):
        m = DIRECTIVE_RE.match(lines[i])
        if not m:
            break
        directives[m.group(1).lower()] = m.group(2)
        i += 1
    escape = directives.get("escape", "\\")
    result = []
    cur, start = None, None
    for n in range(i, len(lines)):
        raw = lines[n]
        stripped = raw.strip()
        if stripped.startswith("#"):
            continue  # comments, also inside a continued instruction
        if cur is None:
            if not stripped:
                continue
            cur, start = "", n + 1
        elif not stripped:
            continue  # empty continuation lines are allowed (Docker warns, still parses)
        if raw.rstrip().endswith(escape):
            cur += raw.rstrip()[: -len(escape)] + " "
            continue
        cur += raw
        word, _, rest = cur.strip().partition(" ")
        result.append((start, word, rest.strip()))
        cur = None
    if cur is not None:
        raise ValueError("line %d: the last instruction ends in a continuation" % start)
    return directives, result


def split_flags(args):
    flags = []
    while args.startswith("--"):
        flag, _, args = args.partition(" ")
        flags.append(flag)
        args = args.lstrip()
    return flags, args


def exec_form(args):
    """The JSON array of an exec-form argument, or None for shell form."""
    if not args.startswith("["):
        return None
    v = json.loads(args)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v) or not v:
        raise ValueError("exec form is not a non-empty JSON array of strings: " + args)
    return v


def key_values(args):
    out = {}
    for tok in shlex.split(args):
        if "=" not in tok:
            raise ValueError("not KEY=VALUE: %r in %r" % (tok, args))
        k, v = tok.split("=", 1)
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_.\-]*$", k):
            raise ValueError("bad key %r" % k)
        out[k] = v
    return out


def substitute(s, variables):
    def rep(m):
        name = m.group(1) or m.group(2)
        if name not in variables:
            raise KeyError(name)
        return variables[name]
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", rep, s)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)


class DockerfileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = os.environ["TEST_TMPDIR"]
        cls.root = os.path.join(cls.tmp, "unpacked")
        os.makedirs(cls.root)
        with tarfile.open(TARBALL, "r:gz") as t:
            t.extractall(cls.root)
        cls.context = os.path.join(cls.root, TOP)
        with open(os.path.join(cls.context, "Dockerfile")) as f:
            cls.text = f.read()
        cls.directives, cls.instructions = parse_dockerfile(cls.text)

    def instr(self, name):
        return [(n, a) for (n, w, a) in self.instructions if w == name]

    def test_shipped_dockerfile_is_the_source(self):
        with open(SOURCE_DOCKERFILE) as f:
            self.assertEqual(self.text, f.read())
        self.assertTrue(self.instructions)

    def test_parser_self_check(self):
        # The parser itself, on a few shapes Docker accepts and rejects.
        d, ins = parse_dockerfile("# escape=`\nFROM a\nRUN echo 1 `\n  # c\n  && echo 2\n")
        self.assertEqual(d, {"escape": "`"})
        self.assertEqual([w for _, w, _ in ins], ["FROM", "RUN"])
        self.assertIn("echo 2", ins[1][2])
        with self.assertRaises(ValueError):
            parse_dockerfile("FROM a\nRUN echo \\\n")
        self.assertEqual(key_values('A=1 B="x y"'), {"A": "1", "B": "x y"})
        with self.assertRaises(ValueError):
            key_values("A 1")
        self.assertIsNone(exec_form("echo hi"))
        with self.assertRaises(ValueError):
            exec_form("[1, 2]")

    def test_known_instructions_in_upper_case(self):
        for n, word, args in self.instructions:
            self.assertIn(word.upper(), INSTRUCTIONS, "line %d: unknown instruction %r" % (n, word))
            self.assertEqual(word, word.upper(), "line %d: %s in lower case" % (n, word))
            self.assertTrue(args, "line %d: %s without arguments" % (n, word))
        self.assertEqual(set(self.directives) - {"syntax", "escape", "check"}, set())

    def test_from_debian_base_image(self):
        words = [w for _, w, _ in self.instructions]
        first_from = words.index("FROM")
        self.assertEqual(set(words[:first_from]) - {"ARG"}, set(), "only ARG may precede FROM")
        self.assertEqual(words.count("FROM"), 1, "one stage")
        args = {}
        for _, a in self.instr("ARG"):
            name, eq, default = a.partition("=")
            self.assertRegex(name, r"^[A-Za-z_][A-Za-z0-9_]*$")
            if eq:
                args[name] = default.strip('"')
        (n, image), = self.instr("FROM")
        flags, image = split_flags(image)
        self.assertEqual(flags, [])
        image = image.split()[0]
        resolved = substitute(image, args)  # KeyError: a variable no ARG declares
        self.assertRegex(resolved, r"^debian:[a-z0-9.\-]+$", "line %d: base image %s" % (n, resolved))

    def image_path(self):
        env = {}
        for _, a in self.instr("ENV"):
            env.update(key_values(a))
        self.assertIn("PATH", env)
        return substitute(env["PATH"], {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"})

    def copies(self):
        out = []
        for n, a in self.instr("COPY") + self.instr("ADD"):
            flags, rest = split_flags(a)
            for f in flags:
                self.assertRegex(f, r"^--(chown|chmod|link)(=|$)", "line %d: flag %s (no --from: one stage)" % (n, f))
            parts = exec_form(rest) or shlex.split(rest)
            self.assertGreaterEqual(len(parts), 2, "line %d" % n)
            out.append((n, parts[:-1], parts[-1]))
        return out

    def test_copy_sources_in_the_tarball(self):
        copies = self.copies()
        self.assertTrue(copies)
        copied = set()
        for n, srcs, dest in copies:
            if len(srcs) > 1:
                self.assertTrue(dest.endswith("/"), "line %d: several sources need a directory destination" % n)
            for s in srcs:
                self.assertNotRegex(s, r"^[a-z]+://", "line %d: %s (the build is offline)" % (n, s))
                self.assertFalse(os.path.isabs(s) or s.startswith(".."), "line %d: %s outside the context" % (n, s))
                self.assertTrue(os.path.exists(os.path.join(self.context, s)),
                                "line %d: %s is not in the tarball's %s/" % (n, s, TOP))
                copied.add(os.path.normpath(s))
        with open(os.path.join(self.context, "SHA256SUMS")) as f:
            listed = {line.rstrip("\n").split("  ", 1)[1] for line in f if line.strip()}
        if "." not in copied:
            self.assertEqual((listed | {"SHA256SUMS"}) - copied, set(), "files SHA256SUMS lists but COPY leaves out")

    def test_run_cmd_and_the_rest(self):
        for n, a in self.instr("RUN"):
            self.assertIsNone(exec_form(a), "line %d: RUN in exec form" % n)
            r = run(["sh", "-n", "-c", a])
            self.assertEqual(r.returncode, 0, "line %d: sh -n: %s" % (n, r.stderr))
        for n, a in self.instr("WORKDIR"):
            self.assertTrue(a.startswith("/"), "line %d" % n)
        for _, a in self.instr("LABEL"):
            self.assertTrue(key_values(a))
        dests = [d for _, _, d in self.copies()]
        path = self.image_path().split(":")
        for name in ("CMD", "ENTRYPOINT"):
            for n, a in self.instr(name):
                argv = exec_form(a)
                self.assertIsNotNone(argv, "line %d: %s in shell form (signals would go to sh)" % (n, name))
                if name == "CMD" and self.instr("ENTRYPOINT"):
                    continue
                prog = argv[0]
                found = [d for d in path if d.rstrip("/") + "/" in [x.rstrip("/") + "/" for x in dests]]
                self.assertTrue(found, "no COPY destination on the image's PATH %s" % path)
                self.assertTrue(os.access(os.path.join(self.context, prog), os.X_OK),
                                "line %d: %s is not an executable of the tarball" % (n, prog))

    def test_dry_run_of_the_image_filesystem(self):
        fs = os.path.join(self.tmp, "imagefs")
        copies = self.copies()
        for _, srcs, dest in copies:
            target = fs + dest
            os.makedirs(target if dest.endswith("/") else os.path.dirname(target), exist_ok=True)
            for s in srcs:
                src = os.path.join(self.context, s)
                to = os.path.join(target, os.path.basename(s)) if dest.endswith("/") else target
                if os.path.isdir(src):
                    shutil.copytree(src, to, dirs_exist_ok=True)
                else:
                    shutil.copy2(src, to)
        env = {"PATH": "/usr/bin:/bin"}

        def rewrite(s):
            for _, _, dest in copies:
                d = dest.rstrip("/")
                s = re.sub(r"(?<![\w/])" + re.escape(d) + r"(?=[/\s:]|$)", fs + d, s)
            return s
        for n, a in self.instr("RUN"):
            r = run(["sh", "-c", rewrite(a)], env=env, cwd=fs)
            self.assertEqual(r.returncode, 0, "line %d: %s\n%s%s" % (n, rewrite(a), r.stdout, r.stderr))
            self.assertIn("ldp-check ", r.stdout)
            self.assertIn("llp-check ", r.stdout)
        image_env = {"PATH": rewrite(self.image_path())}
        (n, cmd), = self.instr("CMD")
        argv = exec_form(cmd)
        r = run(argv, env=image_env, cwd=fs)
        self.assertEqual(r.returncode, 0, "CMD %s: %s" % (argv, r.stderr))
        self.assertIn("Usage", r.stdout + r.stderr)
        r = run(["llp-check", "--version"], env=image_env, cwd=fs)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_docker_build_when_a_daemon_is_available(self):
        docker = shutil.which("docker")
        if not docker:
            self.skipTest("docker is not installed: the Dockerfile is checked for syntax only")
        if run([docker, "info"], timeout=30).returncode != 0:
            self.skipTest("no Docker daemon: the Dockerfile is checked for syntax only")
        (_, base_arg), = [x for x in self.instr("ARG") if x[1].startswith("BASE=")]
        base = base_arg.split("=", 1)[1]
        if run([docker, "image", "inspect", base], timeout=60).returncode != 0:
            self.skipTest("the base image %s is not present locally (nothing is pulled)" % base)
        tag = "vk-checkers-test:%d" % os.getpid()
        r = run([docker, "build", "--pull=false", "-t", tag, self.context], timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        try:
            r = run([docker, "run", "--rm", tag, "ldp-check", "--version"], timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("ldp-check ", r.stdout)
        finally:
            run([docker, "image", "rm", "-f", tag], timeout=120)


if __name__ == "__main__":
    TARBALL = os.path.abspath(sys.argv.pop(1))
    SOURCE_DOCKERFILE = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
