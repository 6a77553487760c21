#!/usr/bin/env python3
"""//fuzz:seeds_test: the seed encoders read the mock variant lists from their one source.

fuzz/tools/world_seeds.py (and chain_seeds.py, which imports its encoder) take the framing's driver
and layer variant indexes from mock_icd/variants.bzl and mock_layers/variants.bzl, filtered as
fuzz/world/world.c filters them, instead of a copy. This test runs both scripts and checks that
they still write the committed seeds of fuzz/corpus/ byte for byte (a variant index that moved
would change them), and that the lists are the ones fuzz/FRAMING.md describes.
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import world_seeds  # noqa: E402


class SeedsTest(unittest.TestCase):
    def check(self, script, corpus):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([sys.executable, os.path.join(HERE, script), d], check=True, stdout=subprocess.DEVNULL)
            names = sorted(os.listdir(d))
            self.assertGreater(len(names), 0)
            for n in names:
                with open(os.path.join(d, n), "rb") as got, \
                        open(os.path.join(ROOT, "fuzz", "corpus", corpus, n), "rb") as want:
                    self.assertEqual(got.read(), want.read(), "%s/%s" % (corpus, n))

    def test_world_seeds_unchanged(self):
        self.check("world_seeds.py", "loader_world_fuzzer")

    def test_chain_seeds_unchanged(self):
        self.check("chain_seeds.py", "layer_chain_fuzzer")

    def test_variant_lists_as_framing_describes(self):
        v = world_seeds.VARIANTS
        self.assertEqual(len(v), 27)  # FRAMING.md: V = 27
        self.assertEqual(v[:4], ["v0", "v1", "v2", "v2_gpdpa"])
        self.assertEqual(v[-1], "v7_exports_vkexports")
        self.assertNotIn("v7_vkexports_symbolic", v)
        self.assertEqual(world_seeds.LAYER_VARIANTS[0], "v0")
        self.assertEqual(world_seeds.LAYER_VARIANTS, sorted(world_seeds.LAYER_VARIANTS))


if __name__ == "__main__":
    unittest.main()
