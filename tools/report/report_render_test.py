"""The HTML report as a browser shows it: Debian's headless Chromium screenshots and serialises it.

For a report generated from the report_test fixtures (testdata/policies/policies.tsv, 8 policies;
testdata/results/mixed, columns ours and khronos) and for the committed docs/conformance-report.html:
  - the screenshot is a PNG of exactly the window size asked for, and not blank: decoded here with
    the standard library (zlib and the PNG filter reconstruction), white is the most common colour,
    and the verdict cells' background colours (report._COLOURS) are painted;
  - the DOM Chromium dumps has exactly one <tr class="policy"> per policy in <table id="policies">,
    in the table's order, each with the ID, kind, summary and one verdict cell per loader column.
The committed report must list every policy of conformance/policies/policies.tsv (report.py lists
every row of the table it is given), so a stale page fails here.

Chromium runs headless (--headless=new) without its own sandbox (as root it refuses to start with
it, and Bazel's sandbox or a container may lack the user namespaces it needs), GPU, extensions,
D-Bus (both bus addresses are "disabled:"; the errors it logs about that are noise and only shown
when a run fails) and network (no proxy, every host name resolves to nothing; the target is tagged
block-network), with HOME, XDG directories, a fresh profile per run and TMPDIR under $TEST_TMPDIR,
in its own process group, killed after CHROMIUM_TIMEOUT seconds. The same page gives the same PNG,
byte for byte. Debian's binary /usr/lib/chromium/chromium is run directly, so that the
/usr/bin/chromium wrapper's /etc/chromium.d flags (extensions, remote extensions) do not apply;
without it, `chromium` on PATH. Without either, the test prints a SKIP line saying why and passes
(ci/bootstrap installs chromium, so CI runs it).
"""

import html.parser
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import sys
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import policies as policy_table  # noqa: E402
import report  # noqa: E402

DATA = os.path.join(HERE, "testdata")
FIXTURE_TABLE = os.path.join(DATA, "policies", "policies.tsv")
FIXTURE_RESULTS = os.path.join(DATA, "results", "mixed")
CHROMIUM_BINARY = "/usr/lib/chromium/chromium"  # Debian's chromium package; /usr/bin/chromium wraps it
# Seconds per Chromium run (one takes 1-4 s here); under the small target's 120 s limit (.bazelrc)
# so that a hung Chromium is reported by this test, with its stderr, rather than by Bazel's timeout.
CHROMIUM_TIMEOUT = 60


def runfile(env_name):
    """A data dependency named by an environment variable set in BUILD ($(rootpath ...))."""
    rel = os.environ.get(env_name)
    if not rel:
        return None
    for base in (os.environ.get("TEST_SRCDIR", ""), os.getcwd()):
        for path in (os.path.join(base, os.environ.get("TEST_WORKSPACE", ""), rel), os.path.join(base, rel)):
            if os.path.isfile(path):
                return path
    return None


def find_chromium():
    if os.access(CHROMIUM_BINARY, os.X_OK):
        return CHROMIUM_BINARY
    return shutil.which("chromium")


# ---- PNG (standard library only) -----------------------------------------------------------------

class PngError(Exception):
    pass


_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel (8-bit depth)


def png_size(data):
    """(width, height) from the IHDR chunk, which must come first."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise PngError("not a PNG (signature %r)" % data[:8])
    length, ctype = struct.unpack(">I4s", data[8:16])
    if ctype != b"IHDR" or length != 13:
        raise PngError("first chunk is %r, not IHDR" % ctype)
    return struct.unpack(">II", data[16:24])


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def png_decode(data):
    """Returns (width, height, channels, [row bytes]) of an 8-bit, non-interlaced PNG."""
    width, height = png_size(data)
    pos, idat, ihdr = 8, [], None
    while True:
        if pos + 8 > len(data):
            raise PngError("truncated before IEND")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise PngError("truncated %r chunk" % ctype)
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != struct.unpack(">I", crc)[0]:
            raise PngError("bad CRC in %r chunk" % ctype)
        pos += 12 + length
        if ctype == b"IHDR":
            ihdr = body
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
    depth, colour, _, _, interlace = struct.unpack(">BBBBB", ihdr[8:13])
    if depth != 8 or colour not in _CHANNELS or interlace != 0:
        raise PngError("unsupported PNG: depth %d, colour type %d, interlace %d" % (depth, colour, interlace))
    bpp = _CHANNELS[colour]
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    if len(raw) != height * (stride + 1):
        raise PngError("%d bytes of image data, expected %d" % (len(raw), height * (stride + 1)))
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if ftype == 0:
            pass
        elif ftype == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:  # Up
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif ftype == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:  # Paeth
            for i in range(stride):
                if i >= bpp:
                    line[i] = (line[i] + _paeth(line[i - bpp], prev[i], prev[i - bpp])) & 0xFF
                else:
                    line[i] = (line[i] + prev[i]) & 0xFF
        else:
            raise PngError("row %d: unknown filter type %d" % (y, ftype))
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def colour_histogram(width, bpp, rows):
    """{(r, g, b): pixel count}; alpha (if any) is dropped, grey is expanded."""
    hist = {}
    for line in rows:
        for x in range(0, width * bpp, bpp):
            px = line[x:x + bpp]
            key = (px[0], px[0], px[0]) if bpp <= 2 else (px[0], px[1], px[2])
            hist[key] = hist.get(key, 0) + 1
    return hist


def rgb(hex_colour):
    h = hex_colour.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


# ---- the DOM Chromium dumps ----------------------------------------------------------------------

class PolicyRows(html.parser.HTMLParser):
    """Collects the rows <tr class="policy"> of <table id="policies">: [[cell text, ...], ...]."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables = []  # ids of the open tables, innermost last
        self.rows = []
        self.header = []  # the <th> texts of table#policies' header row: ID, kind, summary, loaders...
        self.in_header = False
        self.stray_policy_rows = 0  # class="policy" rows outside table#policies
        self.row = None
        self.cell = None
        self.title = ""
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append(a.get("id", ""))
        elif tag == "tr" and "policy" in (a.get("class") or "").split():
            if self.tables and self.tables[-1] == "policies":
                self.row = []
                self.rows.append(self.row)
            else:
                self.stray_policy_rows += 1
        elif tag == "thead" and self.tables and self.tables[-1] == "policies":
            self.in_header = True
        elif tag == "th" and self.in_header:
            self.cell = []
            self.header.append(self.cell)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []
            self.row.append(self.cell)
        elif tag == "br" and self.cell is not None:
            self.cell.append(" ")
        elif tag == "title":
            self.in_title = True

    def handle_endtag(self, tag):
        if tag == "table" and self.tables:
            self.tables.pop()
            self.row = self.cell = None
        elif tag == "thead":
            self.in_header = False
        elif tag == "tr":
            self.row = self.cell = None
        elif tag in ("td", "th"):
            self.cell = None
        elif tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        if self.in_title:
            self.title += data

    def cells(self):
        return [[" ".join("".join(c).split()) for c in row] for row in self.rows]

    def columns(self):
        """The loader columns named in the header."""
        return [" ".join("".join(c).split()) for c in self.header][3:]


def policy_rows(dom):
    p = PolicyRows()
    p.feed(dom)
    p.close()
    return p


# ---- running Chromium ----------------------------------------------------------------------------

class Chromium:
    def __init__(self, binary, tmp):
        self.binary = binary
        self.tmp = tmp
        self.runs = 0
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.path.join(tmp, "home"),
            "XDG_CONFIG_HOME": os.path.join(tmp, "home", ".config"),
            "XDG_CACHE_HOME": os.path.join(tmp, "home", ".cache"),
            "XDG_DATA_HOME": os.path.join(tmp, "home", ".local", "share"),
            # Relative to the working directory (tmp): Chromium puts its singleton socket in TMPDIR,
            # and a Unix socket path may not exceed 107 bytes, which Bazel's $TEST_TMPDIR does.
            "TMPDIR": "tmp",
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            # No D-Bus: an unusable address also stops dbus autolaunch (it logs errors; harmless).
            "DBUS_SESSION_BUS_ADDRESS": "disabled:",
            "DBUS_SYSTEM_BUS_ADDRESS": "disabled:",
        }
        for key in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "TMPDIR"):
            os.makedirs(os.path.join(tmp, self.env[key]), exist_ok=True)

    def run(self, url, *extra):
        """Runs Chromium once with a fresh profile; returns (stdout bytes, stderr text, argv)."""
        self.runs += 1
        profile = os.path.join(self.tmp, "profile-%d" % self.runs)
        argv = [
            self.binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-component-extensions-with-background-pages",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-domain-reliability", "--disable-breakpad",
            "--disable-client-side-phishing-detection", "--no-pings", "--mute-audio",
            "--no-proxy-server", "--host-resolver-rules=MAP * ~NOTFOUND",
            "--hide-scrollbars", "--force-device-scale-factor=1", "--force-color-profile=srgb",
        ] + list(extra) + [url]
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=self.env, cwd=self.tmp, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=CHROMIUM_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise AssertionError("chromium did not finish in %d s: %s\n%s" % (
                CHROMIUM_TIMEOUT, " ".join(argv), _tail(err)))
        finally:
            try:  # any helper process left behind in Chromium's own process group
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        err = err.decode("utf-8", "replace")
        if proc.returncode != 0:
            raise AssertionError("chromium exited with status %d: %s\n%s" % (
                proc.returncode, " ".join(argv), _tail(err)))
        return out, err, argv

    def screenshot(self, page, width, height, name):
        png = os.path.join(self.tmp, name)
        url = pathlib.Path(page).absolute().as_uri()
        # The shot waits for the page to settle in virtual time, with every compositor stage run
        # before the frame is drawn: without these a loaded machine got a frame taken mid-paint, and
        # two shots of one page differed.
        _, err, argv = self.run(url, "--window-size=%d,%d" % (width, height),
                                "--run-all-compositor-stages-before-draw", "--virtual-time-budget=5000",
                                "--screenshot=" + png)
        if not os.path.isfile(png):
            raise AssertionError("chromium wrote no screenshot %s: %s\n%s" % (png, " ".join(argv), _tail(err)))
        outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
        if outputs:  # kept for a look: bazel-testlogs/tools/report/report_render_test/test.outputs/
            shutil.copy(png, os.path.join(outputs, name))
        with open(png, "rb") as f:
            return f.read()

    def dump_dom(self, page):
        out, _, _ = self.run(pathlib.Path(page).absolute().as_uri(), "--dump-dom")
        return out.decode("utf-8")


def _tail(text, lines=30):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return "\n".join(text.splitlines()[-lines:])


_CHROMIUM = None


def chromium():
    """The shared Chromium runner, or unittest.SkipTest (with a SKIP line saying why)."""
    global _CHROMIUM
    if _CHROMIUM is None:
        binary = find_chromium()
        if binary is None:
            msg = ("SKIP: needs Debian's chromium (%s or chromium on PATH) to render the HTML report; "
                   "run ci/bootstrap (apt-get install chromium)" % CHROMIUM_BINARY)
            print(msg, flush=True)
            raise unittest.SkipTest(msg)
        tmp = os.path.join(os.environ.get("TEST_TMPDIR") or _fallback_tmp(), "chromium")
        os.makedirs(tmp, exist_ok=True)
        _CHROMIUM = Chromium(binary, tmp)
    return _CHROMIUM


def _fallback_tmp():
    import tempfile  # outside Bazel only

    return tempfile.mkdtemp(prefix="report_render_test.")


def fixture_report(directory):
    """Writes the fixture report (report.py on testdata) to DIRECTORY/report.html; returns its path."""
    os.makedirs(directory, exist_ok=True)
    page = os.path.join(directory, "report.html")
    with open(os.devnull, "w") as sink:
        rc = report.run(["--policies", FIXTURE_TABLE, "--results", FIXTURE_RESULTS, "--html", page,
                         "--commit", "0123456789ab", "--date", "2024-01-01 00:00 UTC", "--no-copy-logs",
                         "--quiet"], out=sink)
    # Exit status 1: the fixture has a failing khronos case (a FAIL cell).
    assert rc == 1, "report.py exit status %d on the fixture, expected 1 (a FAIL cell)" % rc
    return page


class RenderCase(unittest.TestCase):
    def check_screenshot(self, data, width, height, verdicts):
        self.assertEqual(png_size(data), (width, height), "screenshot size")
        w, h, bpp, rows = png_decode(data)
        self.assertEqual((w, h, len(rows)), (width, height, height))
        hist = colour_histogram(w, bpp, rows)
        most, count = max(hist.items(), key=lambda kv: kv[1])
        self.assertGreater(len(hist), 2, "a blank screenshot: colours %r" % sorted(hist)[:5])
        self.assertEqual(most, (255, 255, 255), "the page background (white) is the most common colour")
        self.assertLess(count, w * h * 0.98, "almost all white: nothing rendered")
        dark = sum(n for (r, g, b), n in hist.items() if r + g + b < 3 * 96)
        self.assertGreater(dark, 500, "no text drawn (dark pixels)")
        for verdict in verdicts:
            colour = rgb(report._COLOURS[verdict])
            # A verdict cell is some 60x35 px, of which the text takes a part.
            self.assertGreater(hist.get(colour, 0), 500, "no %s cell painted (colour %s)" % (
                verdict, report._COLOURS[verdict]))

    def check_dom(self, dom, ids, columns):
        parsed = policy_rows(dom)
        cells = parsed.cells()
        self.assertEqual([" ".join("".join(c).split()) for c in parsed.header][:3], ["ID", "kind", "summary"])
        if isinstance(columns, int):
            self.assertEqual(len(parsed.columns()), columns, parsed.columns())
        else:
            self.assertEqual(parsed.columns(), columns)
        columns = len(parsed.columns())
        self.assertEqual(parsed.stray_policy_rows, 0, "policy rows outside <table id=\"policies\">")
        self.assertEqual(len(cells), len(ids), "one <tr class=\"policy\"> per policy")
        self.assertEqual([c[0] if c else "" for c in cells], ids, "policy rows in the table's order")
        for row in cells:
            self.assertEqual(len(row), 3 + columns, "ID, kind, summary and %d verdict cell(s): %r" % (columns, row))
            for verdict_cell in row[3:]:
                self.assertIn(verdict_cell.split()[0] if verdict_cell else "",
                              [v.split()[0] for v in report.VERDICTS], row)
        return parsed


class FixtureReportTest(RenderCase):
    """A report generated from the report_test fixtures: 8 policies, columns ours and khronos."""

    WIDTH, HEIGHT = 1000, 700

    @classmethod
    def setUpClass(cls):
        cls.page = fixture_report(os.path.join(chromium().tmp, "fixture"))
        cls.ids = [p.id for p in policy_table.load(FIXTURE_TABLE)[0]]

    def test_fixture_has_the_known_policies(self):
        self.assertEqual(len(self.ids), 8)

    def test_screenshot_is_the_window_size_and_not_blank(self):
        data = chromium().screenshot(self.page, self.WIDTH, self.HEIGHT, "fixture.png")
        # The fixture's table fits the window: PASS (both), FAIL (khronos LDP_LOADER_2), DEVIATION
        # (khronos RULE_LOG_FORMAT), REMOVED (LDP_DRIVER_6) cells are all on screen.
        self.check_screenshot(data, self.WIDTH, self.HEIGHT, ["PASS", "FAIL", "DEVIATION", "REMOVED"])

    def test_screenshot_is_deterministic(self):
        first = chromium().screenshot(self.page, self.WIDTH, self.HEIGHT, "fixture-again-1.png")
        second = chromium().screenshot(self.page, self.WIDTH, self.HEIGHT, "fixture-again-2.png")
        self.assertEqual(first, second, "two screenshots of one page differ (fresh profiles, same flags)")

    def test_other_window_size(self):
        data = chromium().screenshot(self.page, 640, 1100, "fixture-640x1100.png")
        self.assertEqual(png_size(data), (640, 1100))
        w, h, bpp, rows = png_decode(data)
        self.assertGreater(len(colour_histogram(w, bpp, rows)), 2)

    def test_dom_has_one_row_per_policy(self):
        parsed = self.check_dom(chromium().dump_dom(self.page), self.ids, columns=["ours", "khronos"])
        self.assertEqual(parsed.title.strip(), "Loader conformance: ours vs khronos")
        verdicts = {row[0]: [c.split()[0] for c in row[3:]] for row in parsed.cells()}
        self.assertEqual(verdicts["LDP_LOADER_2"], ["NO", "FAIL"])
        self.assertEqual(verdicts["RULE_LOG_FORMAT"], ["PASS", "DEVIATION"])
        self.assertEqual(verdicts["LDP_DRIVER_6"], ["REMOVED", "REMOVED"])


class CommittedReportTest(RenderCase):
    """docs/conformance-report.html, `bazel run //:report`'s output as committed."""

    WIDTH, HEIGHT = 1024, 768

    @classmethod
    def setUpClass(cls):
        chromium()
        cls.page = runfile("CONFORMANCE_REPORT_HTML")
        cls.table = runfile("POLICIES_TSV")
        assert cls.page and cls.table, "data dependencies missing: CONFORMANCE_REPORT_HTML=%r POLICIES_TSV=%r" % (
            os.environ.get("CONFORMANCE_REPORT_HTML"), os.environ.get("POLICIES_TSV"))
        cls.page = os.path.abspath(cls.page)

    def test_screenshot_is_the_window_size_and_not_blank(self):
        data = chromium().screenshot(self.page, self.WIDTH, self.HEIGHT, "conformance-report.png")
        self.check_screenshot(data, self.WIDTH, self.HEIGHT, ["PASS"])

    def test_dom_lists_every_policy_of_the_table(self):
        ids = [p.id for p in policy_table.load(self.table)[0]]  # report.py lists every row it loads
        dom = chromium().dump_dom(self.page)
        got = [row[0] if row else "" for row in policy_rows(dom).cells()]
        self.assertEqual(len(got), len(ids), (
            "docs/conformance-report.html has %d policy rows, conformance/policies/policies.tsv %d policies "
            "(missing from the page: %s; not in the table: %s); regenerate it with `bazel run //:report` "
            "(docs/conformance.md)" % (len(got), len(ids), sorted(set(ids) - set(got))[:10],
                                        sorted(set(got) - set(ids))[:10])))
        columns = policy_rows(dom).columns()
        self.assertIn("ours", columns)
        self.check_dom(dom, ids, columns=len(columns))


# ---- the checks themselves, without Chromium -------------------------------------------------------

def png_encode(width, height, bpp, rows, filters):
    """An 8-bit PNG (colour type by BPP) whose row y uses filter type filters[y % len(filters)]."""
    colour = {1: 0, 2: 4, 3: 2, 4: 6}[bpp]
    raw, prev = bytearray(), bytes(width * bpp)
    for y, line in enumerate(rows):
        f = filters[y % len(filters)]
        out = bytearray()
        for i, v in enumerate(line):
            left = line[i - bpp] if i >= bpp else 0
            up = prev[i]
            upleft = prev[i - bpp] if i >= bpp else 0
            pred = [0, left, up, (left + up) >> 1, _paeth(left, up, upleft)][f]
            out.append((v - pred) & 0xFF)
        raw += bytes([f]) + out
        prev = line

    def chunk(ctype, body):
        return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", zlib.crc32(ctype + body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b"")


def _pattern(width, height, bpp):
    return [bytes(((x * 37 + y * 101 + c * 59) ^ (x * y)) & 0xFF for x in range(width) for c in range(bpp))
            for y in range(height)]


class CheckerTest(RenderCase):
    """The PNG decoder and the checks reject what they should (runs without Chromium)."""

    def test_decoder_reconstructs_every_filter_type(self):
        for bpp in (1, 2, 3, 4):
            rows = _pattern(13, 11, bpp)
            data = png_encode(13, 11, bpp, rows, [0, 1, 2, 3, 4])
            self.assertEqual(png_size(data), (13, 11))
            self.assertEqual(png_decode(data), (13, 11, bpp, rows), "bpp %d" % bpp)

    def test_decoder_rejects_corruption(self):
        data = bytearray(png_encode(4, 4, 3, _pattern(4, 4, 3), [1]))
        data[45] ^= 0xFF  # inside IDAT: its CRC no longer matches
        with self.assertRaises(PngError):
            png_decode(bytes(data))
        with self.assertRaises(PngError):
            png_size(b"GIF89a" + bytes(30))

    def test_blank_screenshot_fails(self):
        white = png_encode(50, 40, 4, [bytes([255] * 200)] * 40, [0, 1, 2])
        with self.assertRaises(AssertionError):
            self.check_screenshot(white, 50, 40, [])

    def test_wrong_size_fails(self):
        rows = _pattern(50, 40, 3)
        with self.assertRaises(AssertionError):
            self.check_screenshot(png_encode(50, 40, 3, rows, [4]), 50, 41, [])

    def test_dom_check_counts_rows(self):
        tmp = os.environ.get("TEST_TMPDIR") or _fallback_tmp()
        with open(fixture_report(os.path.join(tmp, "checker")), encoding="utf-8") as f:
            page = f.read()
        ids = [p.id for p in policy_table.load(FIXTURE_TABLE)[0]]
        self.check_dom(page, ids, columns=["ours", "khronos"])  # the HTML as written passes
        first = page.index('<tr class="policy">')
        end = page.index("</tr>", first) + len("</tr>")
        with self.assertRaises(AssertionError):  # a policy row missing
            self.check_dom(page[:first] + page[end:], ids, columns=2)
        with self.assertRaises(AssertionError):  # a policy row twice
            self.check_dom(page[:end] + page[first:], ids, columns=2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
