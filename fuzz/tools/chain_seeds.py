#!/usr/bin/env python3
"""Writes the layer_chain_fuzzer seed corpus: chains encoded in the framing of fuzz/FRAMING.md
("layer_chain_fuzzer").

    python3 fuzz/tools/chain_seeds.py fuzz/corpus/layer_chain_fuzzer

Standard library only. A layer entry is a duplicate byte followed by the world framing's layer
entry, so the layer encoder is world_seeds.layer() (with the chain's misbehave byte); the first
implementation of this framing is chain_decode() in fuzz/layer_chain_fuzzer.c: keep both and
FRAMING.md in sync. Seeds are named after what they exercise; re-running the script rewrites them
(other files in the directory are left alone).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from world_seeds import (LAYER_MISBEHAVE, LAYER_VARIANTS, VARIANTS,  # noqa: E402
                         layer as world_layer, u8)

NAMES = ["VK_LAYER_FUZZ_%s" % c for c in "abcdefgh"]
OVERRIDE = 0xf0   # a name byte naming VK_LAYER_LUNARG_override
MISSING = 0xf8    # a name byte naming a layer no manifest has
SPECIALS = [None, "~all~", "~implicit~", "~explicit~", "*FUZZ*", "*", "override", "empty"]


def misbehave_byte(switches):
    """At most two switches (bit 7: any; bits 0-2 the first; bit 6: a second in bits 3-5)."""
    idx = [LAYER_MISBEHAVE.index(m) for m in switches]
    assert len(idx) <= 2
    if not idx:
        return 0
    b = 0x80 | idx[0]
    if len(idx) == 2:
        b |= 0x40 | (idx[1] << 3)
    return b


def layer(dup=None, misbehave=(), **kw):
    """One chain layer slot: dup = an earlier slot whose name and behaviour it copies (or None);
    the other arguments as world_seeds.layer() (name/components: indexes into NAMES). Implicit
    layers get a disable_environment unless told (the loader skips implicit manifests without one,
    LLP_LAYER_9)."""
    if kw.get("implicit") or kw.get("override"):
        kw.setdefault("disable_env", True)
    body = bytearray(world_layer(**kw))
    body[6] = misbehave_byte(misbehave)
    return u8(0 if dup is None else 0x80 | dup) + bytes(body)


def driver(variant="v7", location=0, libform=0, devices=1, pd_minor=3):
    return (u8(VARIANTS.index(variant)) + u8(location | (libform << 3))
            + u8((1 if devices == 2 else 0) | (pd_minor << 1)))


def filt(names=(), special=None):
    """mask over NAMES + one special token (SPECIALS); both empty: unset."""
    return u8(sum(1 << n for n in names)) + u8(SPECIALS.index(special) if special else 0)


def chain(layers=(), drivers=None, allocator=False, device=True, app_info=True, unknown=False,
          elevated=False, chdir=False, alloc_fail_at=None, debug_utils=False, instance_layers=(),
          enable=filt(), disable=filt(), allow=filt(), app=(), pd_choice=0):
    """instance_layers / app: name bytes (NAMES index, OVERRIDE, MISSING)."""
    drivers = drivers if drivers is not None else [driver()]
    assert 1 <= len(drivers) <= 2 and len(layers) <= 8
    flags = ((1 if allocator else 0) | (2 if device else 0) | (4 if app_info else 0)
             | (8 if unknown else 0) | (16 if elevated else 0) | (32 if chdir else 0)
             | (64 if alloc_fail_at is not None else 0) | (128 if debug_utils else 0))
    out = u8(flags) + u8(len(drivers) - 1) + b"".join(drivers)
    out += u8(len(layers)) + b"".join(layers)
    assert len(instance_layers) <= 4
    out += u8(len(instance_layers)) + b"".join(u8(n) for n in instance_layers)
    out += enable + disable + allow
    out += u8(len(app)) + b"".join(u8(n) for n in app)
    out += u8(pd_choice)
    if alloc_fail_at is not None:
        out += u8(alloc_fail_at)
    return out


def seeds():
    s = {}
    # every mock layer variant (= interface version 0/1/2 and export surface), explicit and implicit
    for v in LAYER_VARIANTS:
        renames = "renamed" in v
        s["variant_%s_explicit" % v] = chain([layer(variant=v, renames=renames, name=0)], app=[0])
        s["variant_%s_implicit" % v] = chain(
            [layer(variant=v, renames=renames, implicit=True, enable_env=True, set_enable=True, name=1)])
    # every misbehaviour switch, in the middle of a three-layer chain
    for m in LAYER_MISBEHAVE:
        nv = 3 if m == "negotiate_version" else 0
        s["misbehave_%s" % m] = chain(
            [layer(name=0), layer(name=1, misbehave=[m], negotiate_version=nv), layer(name=2)],
            app=[0, 1, 2])
    s["misbehave_two_switches"] = chain(
        [layer(name=0, misbehave=["clobber_device", "return_disabled_functions"]), layer(name=1)],
        app=[0, 1])
    s["negotiate_version_1"] = chain([layer(name=0, misbehave=["negotiate_version"], negotiate_version=1)],
                                     app=[0])
    # wrap options
    s["wrap_handles"] = chain([layer(name=0, wrap=True), layer(name=1)], app=[0, 1], unknown=True)
    s["wrap_handles_two"] = chain([layer(name=0, wrap=True), layer(name=1, wrap=True)], app=[1, 0])
    s["wrap_handles_allocator"] = chain([layer(name=0, wrap=True)], app=[0], allocator=True)
    # activation order: implicit, VK_INSTANCE_LAYERS, ENABLE, application
    s["order_all_sources"] = chain(
        [layer(name=0, implicit=True), layer(name=1), layer(name=2), layer(name=3), layer(name=4)],
        instance_layers=[2, 1], enable=filt([3]), app=[4, 1])
    s["order_app_reversed"] = chain([layer(name=k) for k in range(6)], app=[5, 4, 3, 2, 1, 0])
    s["order_instance_layers_vs_app"] = chain([layer(name=k) for k in range(4)],
                                              instance_layers=[3, 0], app=[1, 3, 2])
    s["order_eight_layers"] = chain(
        [layer(name=k, variant=LAYER_VARIANTS[k], renames="renamed" in LAYER_VARIANTS[k],
               implicit=k in (2, 5), location=2 + k % 4) for k in range(8)],
        instance_layers=[7, 6], app=[0, 1, 3, 4], unknown=True)
    s["order_two_drivers"] = chain([layer(name=0), layer(name=1, implicit=True)],
                                   drivers=[driver(), driver("v6_gpdpa", location=4, devices=2)], app=[0])
    # duplicates (LLP_LOADER_3)
    s["duplicate_app_and_env"] = chain([layer(name=0), layer(name=1)], instance_layers=[0, 0], app=[0, 1, 0])
    s["duplicate_manifests"] = chain(
        [layer(name=0, location=2), layer(dup=0, variant="v1", location=4), layer(dup=0, variant="v0", location=0)],
        app=[0])
    s["duplicate_implicit_and_app"] = chain([layer(name=0, implicit=True), layer(dup=0, location=5)], app=[0])
    # meta layers
    s["meta_explicit"] = chain([layer(name=0, meta=True, components=[1, 2]), layer(name=1), layer(name=2)],
                               app=[0])
    s["meta_implicit"] = chain(
        [layer(name=3, meta=True, implicit=True, components=[2, 1]), layer(name=1), layer(name=2)], app=[1])
    s["meta_nested"] = chain(
        [layer(name=0, meta=True, components=[1, 3]), layer(name=1, meta=True, components=[2]),
         layer(name=2), layer(name=3)], instance_layers=[0])
    s["meta_missing_component"] = chain([layer(name=0, meta=True, components=[5]), layer(name=1)], app=[0, 1])
    s["override_layer"] = chain(
        [layer(name=0, override=True, components=[1], blacklist=[2]), layer(name=1), layer(name=2),
         layer(name=3, implicit=True)])
    s["override_blacklisted_requested"] = chain(
        [layer(name=0, override=True, components=[1], blacklist=[2]), layer(name=1), layer(name=2)], app=[2])
    # filters
    s["filter_disable_name"] = chain([layer(name=0), layer(name=1)], disable=filt([0]), instance_layers=[0, 1])
    s["filter_disable_all_allow"] = chain([layer(name=0), layer(name=1, implicit=True)],
                                          disable=filt(special="~all~"), allow=filt([1]), instance_layers=[0])
    s["filter_disable_implicit"] = chain([layer(name=0, implicit=True), layer(name=1)],
                                         disable=filt(special="~implicit~"), app=[1])
    s["filter_disable_explicit"] = chain([layer(name=0, implicit=True), layer(name=1)],
                                         disable=filt(special="~explicit~"), instance_layers=[1])
    s["filter_enable_forces"] = chain([layer(name=0), layer(name=1, implicit=True, enable_env=True)],
                                      enable=filt([0, 1]))
    s["filter_enable_glob"] = chain([layer(name=0), layer(name=1)], enable=filt(special="*FUZZ*"),
                                    disable=filt([1]))
    s["filter_enable_all"] = chain([layer(name=0), layer(name=1)], enable=filt(special="~all~"))
    s["filter_empty_values"] = chain([layer(name=0)], enable=filt(special="empty"),
                                     disable=filt(special="empty"), app=[0])
    s["filter_disable_override"] = chain([layer(name=0, override=True, components=[1]), layer(name=1)],
                                         disable=filt(special="override"))
    # implicit layers' enable/disable variables
    s["implicit_enable_unset"] = chain([layer(name=0, implicit=True, enable_env=True)])
    s["implicit_enable_odd"] = chain([layer(name=0, implicit=True, enable_env=True, set_enable=True, odd=True)])
    s["implicit_no_disable_environment"] = chain([layer(name=0, implicit=True, disable_env=False)])
    s["implicit_disable_set"] = chain([layer(name=0, implicit=True, disable_env=True, set_disable=True)])
    s["implicit_disable_empty"] = chain(
        [layer(name=0, implicit=True, disable_env=True, set_disable=True, odd=True)])
    # pre-instance functions, manifest forms
    s["pre_instance"] = chain([layer(name=0, implicit=True, pre_instance=True, pre_add_ext=True,
                                     pre_add_layer=True), layer(name=1, implicit=True, pre_instance=True,
                                                                pre_no_call_down=True)])
    s["manifest_layers_array_old_format"] = chain([layer(name=0, fmt="1.0.0", array=True),
                                                   layer(name=1, fmt="1.2.1", api_minor=0)], app=[0, 1])
    s["library_forms"] = chain([layer(name=k, libform=k) for k in range(4)], app=[0, 1, 2])
    # application: missing layer, allocator failures, elevated, relative paths, debug utils
    s["app_missing_layer"] = chain([layer(name=0)], app=[0, MISSING])
    s["env_missing_layer"] = chain([layer(name=0)], instance_layers=[MISSING, 0])
    s["alloc_fail"] = chain([layer(name=0, wrap=True), layer(name=1)], app=[0, 1], allocator=True,
                            alloc_fail_at=12)
    s["elevated"] = chain([layer(name=0, implicit=True), layer(name=1)], elevated=True, instance_layers=[1],
                          disable=filt([0]))
    s["chdir_relative"] = chain([layer(name=0, location=0, libform=1), layer(name=1, location=0, libform=2)],
                                chdir=True, app=[0, 1])
    s["debug_utils_unknown_functions"] = chain([layer(name=0), layer(name=1, variant="v2_gpdpa_export")],
                                               app=[0, 1], debug_utils=True, unknown=True)
    s["no_device"] = chain([layer(name=0)], app=[0], device=False, app_info=False)
    return s


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "layer_chain_fuzzer")
    os.makedirs(out, exist_ok=True)
    all_seeds = seeds()
    for name, data in sorted(all_seeds.items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("%d seeds in %s" % (len(all_seeds), out))


if __name__ == "__main__":
    main()
