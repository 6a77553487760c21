#!/usr/bin/env python3
"""gen_chassis: the generated dispatch of the chassis-mode mock layer (mock_layers/chassis_layer.c).

Usage: gen_chassis.py VKGEN_PY vk.xml custom_commands.txt OUT.inc

For every instance, physical-device and device command of the registry (tools/vkgen's model of
vk.xml, the loader's own), except the few chassis_layer.c writes by hand, emits an intercept that
runs the chassis sequence (validate, which may skip the call; pre-record; the call down with every
non-dispatchable handle unwrapped: parameters, arrays of them, members of input structures and of
their pNext chains; wrapping of the handles it returns, in output parameters and as members of
returned structures; post-record), plus the next-layer dispatch tables, the name tables of
vkGetInstanceProcAddr / vkGetDeviceProcAddr, and the structure helpers (size by sType, unwrap by
structure, wrap by returned structure). Commands of platform extensions (vk.xml's `platform`
attribute) are emitted under their `VK_USE_PLATFORM_*` guard, so the platforms chassis_layer.c
defines are intercepted and the others compile away. Standard library only; the output is
#included by chassis_layer.c, which defines the ch_* helpers it calls.
"""
import importlib.util
import re
import sys
import xml.etree.ElementTree as ET

# Written by hand in chassis_layer.c (chain set-up, introspection, the messengers the validate phase
# reports through).
HAND_WRITTEN = {
    "vkCreateInstance", "vkDestroyInstance", "vkGetInstanceProcAddr", "vkGetDeviceProcAddr",
    "vkCreateDevice", "vkDestroyDevice", "vkEnumerateDeviceExtensionProperties",
    "vkEnumerateDeviceLayerProperties", "vkCreateDebugUtilsMessengerEXT", "vkDestroyDebugUtilsMessengerEXT",
}

# Pointer members ignored by the specification in some states (noautovalidity) are not followed,
# except these, which chassis_layer.c's hand-written fixers follow by their selector.
HAND_FIXED_STRUCTS = {"VkWriteDescriptorSet": "ch_fix_write_descriptor_set"}

# Handles an implementation enumerates rather than creates (displays, display modes): the same
# driver handle always gets the same wrapped id in an instance (ch_wrap_reuse), so a display
# returned by two queries compares equal, as it does without the layer. Never destroyed.
REUSED_HANDLES = {"VkDisplayKHR", "VkDisplayModeKHR"}


def load_vkgen(path):
    spec = importlib.util.spec_from_file_location("vkgen", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def api_ok(elem):
    api = elem.get("api")
    return api is None or "vulkan" in api.split(",")


class Member:
    def __init__(self, elem):
        self.name = elem.find("name").text
        t = elem.find("type")
        self.type = t.text
        tail = t.tail or ""
        self.ptr = tail.count("*")
        self.const = "const" in (elem.text or "").split()
        self.len = elem.get("len")
        self.noauto = elem.get("noautovalidity") == "true"
        self.values = elem.get("values")
        name_tail = elem.find("name").tail or ""
        self.fixed_array = "[" in name_tail


class Struct:
    def __init__(self, elem):
        self.name = elem.get("name")
        self.members = [Member(m) for m in elem.findall("member") if api_ok(m)]
        self.stype = None
        for m in self.members:
            if m.name == "sType" and m.values:
                self.stype = m.values.split(",")[0]
        self.has_pnext = any(m.name == "pNext" for m in self.members)
        self.extends = elem.get("structextends")
        self.returned = elem.get("returnedonly") == "true"


class Types:
    def __init__(self, path):
        root = ET.parse(path).getroot()
        self.dispatchable, self.nondispatchable = set(), set()
        handle_alias = {}
        self.structs = {}
        struct_alias = {}
        for t in root.iter("type"):
            cat = t.get("category")
            if cat == "handle":
                if t.get("alias"):
                    handle_alias[t.get("name")] = t.get("alias")
                    continue
                name = t.find("name").text
                kind = t.find("type").text
                (self.dispatchable if kind == "VK_DEFINE_HANDLE" else self.nondispatchable).add(name)
            elif cat == "struct" and api_ok(t):
                if t.get("alias"):
                    struct_alias[t.get("name")] = t.get("alias")
                    continue
                self.structs[t.get("name")] = Struct(t)
        for a, target in handle_alias.items():
            (self.dispatchable if target in self.dispatchable else self.nondispatchable).add(a)
        for a, target in struct_alias.items():
            if target in self.structs:
                self.structs[a] = self.structs[target]
        # Types usable here: required by a Vulkan feature or a supported extension without a
        # platform (those are in vulkan_core.h).
        self.usable = set()
        for f in root.findall("feature"):
            if not api_ok(f):
                continue
            for req in f.findall("require"):
                for t in req.findall("type"):
                    self.usable.add(t.get("name"))
        for exts in root.findall("extensions"):
            for e in exts.findall("extension"):
                if "vulkan" not in e.get("supported", "").split(",") or e.get("platform"):
                    continue
                for req in e.findall("require"):
                    if not api_ok(req):
                        continue
                    for t in req.findall("type"):
                        self.usable.add(t.get("name"))
        # Structures holding non-dispatchable handles (directly, in embedded structures, or through
        # followed pointers).
        self.with_handles = set()
        changed = True
        while changed:
            changed = False
            for s in set(self.structs.values()):
                if s.name in self.with_handles or s.name not in self.usable:
                    continue
                if any(self.member_needs(s, m) for m in s.members):
                    self.with_handles.add(s.name)
                    changed = True
        # Structures the implementation fills (returnedonly) holding non-dispatchable handles as
        # plain members or in embedded structures: the handles the driver returns inside them are
        # wrapped (generated chw_* functions). Only those reached as a command's output parameter
        # (out_structs, set by main()) get a wrapper.
        self.returned_handles = set()
        changed = True
        while changed:
            changed = False
            for s in set(self.structs.values()):
                if s.name in self.returned_handles or not s.returned or s.name not in self.usable:
                    continue
                if any(self.returned_member(m) for m in s.members):
                    self.returned_handles.add(s.name)
                    changed = True

    def returned_member(self, m):
        if m.fixed_array or m.name == "pNext" or m.ptr != 0:
            return False
        if m.type in self.nondispatchable:
            return True
        return m.type in self.structs and self.structs[m.type].name in self.returned_handles

    def member_needs(self, s, m):
        if m.fixed_array or m.name == "pNext":
            return False
        if s.name in HAND_FIXED_STRUCTS:
            return True
        if m.type in self.nondispatchable:
            return m.ptr == 0 or (m.ptr == 1 and m.const and self.simple_len(s, m) is not None and not m.noauto)
        if m.type in self.structs and self.structs[m.type].name in self.with_handles:
            if m.ptr == 0:
                return True
            return m.ptr == 1 and m.const and not m.noauto and (m.len is None or self.simple_len(s, m) is not None)
        return False

    @staticmethod
    def simple_len(s, m):
        if m.len is None:
            return None
        first = m.len.split(",")[0]
        names = {x.name for x in s.members}
        return first if first in names else None


def hexpr(e):
    return "(uint64_t)(uintptr_t)(%s)" % e


def emit_struct_fixers(types, out):
    names = sorted(n for n in types.with_handles if n in types.structs and types.structs[n].name == n)
    for n in names:
        out.append("static void chf_%s(struct ch_fix *f, %s *s);" % (n, n))
        out.append("static __attribute__((unused)) const %s *chf_arr_%s(struct ch_fix *f, const %s *p, size_t n);"
                   % (n, n, n))
    out.append("")
    for n in names:
        s = types.structs[n]
        out.append("static void chf_%s(struct ch_fix *f, %s *s) {" % (n, n))
        if n in HAND_FIXED_STRUCTS:
            out.append("    %s(f, s);" % HAND_FIXED_STRUCTS[n])
        else:
            for m in s.members:
                if not types.member_needs(s, m):
                    continue
                if m.type in types.nondispatchable and m.ptr == 0:
                    out.append("    s->%s = (%s)(uintptr_t)ch_unwrap(f, %s);" % (m.name, m.type, hexpr("s->" + m.name)))
                elif m.type in types.nondispatchable:
                    out.append("    s->%s = (const %s *)ch_unwrap_array(f, s->%s, s->%s);"
                               % (m.name, m.type, m.name, types.simple_len(s, m)))
                elif m.ptr == 0:
                    out.append("    chf_%s(f, &s->%s);" % (types.structs[m.type].name, m.name))
                else:
                    ln = types.simple_len(s, m)
                    out.append("    s->%s = (const %s *)chf_arr_%s(f, (const %s *)s->%s, %s);"
                               % (m.name, m.type, types.structs[m.type].name, types.structs[m.type].name, m.name,
                                  ("s->" + ln) if ln else "1"))
        if s.has_pnext:
            out.append("    s->pNext = (void *)ch_fix_chain(f, s->pNext); /* void * in output structures */")
        out.append("}")
        out.append("")
        out.append("static const %s *chf_arr_%s(struct ch_fix *f, const %s *p, size_t n) {" % (n, n, n))
        out.append("    if (p == NULL || n == 0 || !f->on) return p;")
        out.append("    %s *c = ch_alloc(f, sizeof(*c) * n);" % n)
        out.append("    if (c == NULL) return p;")
        out.append("    memcpy(c, p, sizeof(*c) * n);")
        out.append("    for (size_t i = 0; i < n; i++) chf_%s(f, &c[i]);" % n)
        out.append("    return c;")
        out.append("}")
        out.append("")
    # pNext chains: the size of every structure with an sType (to copy a node), and the fixer of
    # those that hold handles.
    stypes = sorted({(s.stype, s.name) for s in types.structs.values()
                     if s.stype and s.name in types.usable and s.extends})
    out.append("static size_t ch_stype_size(VkStructureType t) {")
    out.append("    switch ((int)t) {")
    seen = set()
    for st, n in stypes:
        if st in seen:
            continue
        seen.add(st)
        out.append("        case %s: return sizeof(%s);" % (st, n))
    out.append("        default: return 0;")
    out.append("    }")
    out.append("}")
    out.append("")
    out.append("/* Unwraps the handles of one copied chain node; false when its type holds none. */")
    out.append("static bool ch_fix_node(struct ch_fix *f, void *node) {")
    out.append("    switch ((int)((VkBaseOutStructure *)node)->sType) {")
    seen = set()
    for st, n in stypes:
        if n in types.with_handles and st not in seen:
            seen.add(st)
            out.append("        case %s: chf_%s(f, (%s *)node); return true;" % (st, n, n))
    out.append("        default: return false;")
    out.append("    }")
    out.append("}")
    out.append("")
    out.append("static bool ch_stype_has_handles(VkStructureType t) {")
    out.append("    switch ((int)t) {")
    for st in sorted(seen):
        out.append("        case %s:" % st)
    if seen:
        out.append("            return true;")
    out.append("        default: return false;")
    out.append("    }")
    out.append("}")
    out.append("")


def wrap_call(t, addr, n):
    """C statement wrapping the n handles of type t at addr (the driver's values) in place."""
    fn = "ch_wrap_reuse" if t in REUSED_HANDLES else "ch_wrap_array"
    return "%s(f, %s, %s);" % (fn, addr, n)


def emit_struct_wrappers(types, names, out):
    """chw_<S>: wraps the handles the driver returned in one filled structure S (names: the
    returned structures output parameters reach, with those they embed)."""
    todo, seen = list(names), set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        for m in types.structs[n].members:
            if m.type in types.structs and types.returned_member(m) and m.type not in types.nondispatchable:
                todo.append(types.structs[m.type].name)
    for n in sorted(seen):
        out.append("static void chw_%s(struct ch_fix *f, %s *s);" % (n, n))
    out.append("")
    for n in sorted(seen):
        out.append("static void chw_%s(struct ch_fix *f, %s *s) {" % (n, n))
        for m in types.structs[n].members:
            if not types.returned_member(m):
                continue
            if m.type in types.nondispatchable:
                out.append("    " + wrap_call(m.type, "&s->" + m.name, "1"))
            else:
                out.append("    chw_%s(f, &s->%s);" % (types.structs[m.type].name, m.name))
        out.append("}")
        out.append("")


def out_structs(types, cmds):
    """Returned structures with handles that some command fills through an output parameter."""
    found = set()
    for c in cmds:
        for p in c.params[1:]:
            if p.type in types.structs and p.pointer and not p.const and p.decl.count("*") == 1:
                s = types.structs[p.type]
                if s.name in types.returned_handles:
                    found.add(s.name)
    return found


def len_expr(c, p):
    """C expression for the element count of array parameter p (for an output array: after the
    call), or None when vk.xml's len is not a parameter or a parameter's member."""
    if p.len is None:
        return "1"
    first = p.len.split(",")[0]
    names = {x.name: x for x in c.params}
    if first in names:
        q = names[first]
        return "(%s != NULL ? (size_t)*%s : 0)" % (first, first) if q.pointer else "(size_t)%s" % first
    m = re.match(r"^(p\w+)->(\w+)$", first)
    if m and m.group(1) in names:
        return "(%s != NULL ? (size_t)%s->%s : 0)" % (m.group(1), m.group(1), m.group(2))
    return None


def emit_command(vkgen, types, c, out):
    kind = c.kind
    short = c.name[2:]
    first = c.params[0]
    ret = c.ret
    params = ", ".join(p.decl for p in c.params)
    out.append("static VKAPI_ATTR %s VKAPI_CALL chassis_%s(%s) {" % (ret, short, params))
    fail = "" if ret == "void" else ("VK_ERROR_INITIALIZATION_FAILED" if ret == "VkResult" else "(%s)0" % ret)
    skip = "" if ret == "void" else ("VK_ERROR_VALIDATION_FAILED_EXT" if ret == "VkResult" else "(%s)0" % ret)
    if kind == vkgen.KIND_DEVICE:
        out.append("    struct ch_dev *d = ch_dev_of(%s);" % first.name)
        out.append("    if (d == NULL || d->next.%s == NULL) return%s;" % (short, (" " + fail) if fail else ""))
        out.append("    struct ch_inst *in = d->inst;")
        table = "d->next"
    else:
        out.append("    struct ch_inst *in = ch_inst_of(%s);" % first.name)
        out.append("    if (in == NULL || in->next.%s == NULL) return%s;" % (short, (" " + fail) if fail else ""))
        out.append("    struct ch_dev *d = NULL;")
        table = "in->next"
    out.append("    if (ch_validate(in, \"%s\")) return%s;" % (c.name, (" " + skip) if skip else ""))
    out.append("    ch_pre_record(in, \"%s\");" % c.name)
    out.append("    struct ch_fix f;")
    out.append("    ch_fix_begin(&f, in, d);")
    args = []
    for p in c.params:
        t = p.type
        if p is first:
            args.append(p.name)
            continue
        if t in types.nondispatchable and not p.pointer:
            out.append("    %s u_%s = (%s)(uintptr_t)ch_unwrap(&f, %s);" % (t, p.name, t, hexpr(p.name)))
            args.append("u_" + p.name)
        elif t in types.nondispatchable and p.pointer and p.const and p.decl.count("*") == 1:
            n = len_expr(c, p)
            if n is None:
                args.append(p.name)
                continue
            out.append("    const %s *u_%s = (const %s *)ch_unwrap_array(&f, %s, %s);" % (t, p.name, t, p.name, n))
            args.append("u_" + p.name)
        elif t in types.structs and p.pointer and p.const and p.decl.count("*") == 1:
            s = types.structs[t]
            n = len_expr(c, p)
            if n is None or s.name not in types.usable:
                args.append(p.name)
            elif s.name in types.with_handles:
                out.append("    const %s *u_%s = (const %s *)chf_arr_%s(&f, (const %s *)%s, %s);"
                           % (t, p.name, t, s.name, s.name, p.name, n))
                args.append("u_" + p.name)
            elif s.has_pnext:
                out.append("    const %s *u_%s = (const %s *)ch_fix_top_chain(&f, %s, sizeof(*%s), %s);"
                           % (t, p.name, t, p.name, p.name, n))
                args.append("u_" + p.name)
            else:
                args.append(p.name)
        else:
            args.append(p.name)
    call = "%s.%s(%s)" % (table, short, ", ".join(args))
    if ret == "void":
        out.append("    %s;" % call)
        ok = "true"
    else:
        out.append("    %s r = %s;" % (ret, call))
        ok = "r >= 0" if ret == "VkResult" else "true"
    # Handles returned in output parameters, and as members of the structures the driver filled:
    # wrapped.
    for p in c.params[1:]:
        if p.type in types.nondispatchable and p.pointer and not p.const:
            n = len_expr(c, p)
            if n is not None:
                fn = "ch_wrap_reuse" if p.type in REUSED_HANDLES else "ch_wrap_array"
                out.append("    if (%s && %s != NULL) %s(&f, %s, %s);" % (ok, p.name, fn, p.name, n))
        elif (p.type in types.structs and p.pointer and not p.const and p.decl.count("*") == 1
              and types.structs[p.type].name in types.returned_handles):
            n = len_expr(c, p)
            if n is not None:
                out.append("    if (%s && %s != NULL && f.on)" % (ok, p.name))
                out.append("        for (size_t ch_i = 0; ch_i < %s; ch_i++) chw_%s(&f, (%s *)&%s[ch_i]);"
                           % (n, types.structs[p.type].name, types.structs[p.type].name, p.name))
    # Destroyed or freed handles: forgotten.
    handle_params = [p for p in c.params[1:] if p.type in types.nondispatchable]
    if c.name.startswith("vkDestroy") and handle_params and not handle_params[0].pointer:
        out.append("    ch_forget(&f, %s);" % hexpr(handle_params[0].name))
    elif c.name.startswith("vkFree") and handle_params:
        # The freed objects are the last handle parameter (vkFreeMemory's memory, vkFreeDescriptorSets'
        # sets); when that one is dispatchable (vkFreeCommandBuffers) nothing of ours is freed.
        p = [q for q in c.params[1:] if q.type in types.nondispatchable or q.type in types.dispatchable][-1]
        if p.type in types.dispatchable:
            pass
        elif not p.pointer:
            out.append("    ch_forget(&f, %s);" % hexpr(p.name))
        elif len_expr(c, p) is not None:
            out.append("    ch_forget_array(&f, %s, %s);" % (p.name, len_expr(c, p)))
    if ret == "VkResult":
        out.append("    ch_post_record(in, \"%s\", &f, true, r);" % c.name)
    else:
        out.append("    ch_post_record(in, \"%s\", &f, false, VK_SUCCESS);" % c.name)
    out.append("    ch_fix_end(&f);")
    if ret != "void":
        out.append("    return r;")
    out.append("}")
    out.append("")


def guarded(vkgen, out, protect, lines):
    """Appends lines, under `#ifdef VK_USE_PLATFORM_...` when the command belongs to platform
    extensions only (vkgen: any of the macros enables it)."""
    if protect:
        out.append(vkgen.cond_open(protect))
    out.extend(lines)
    if protect:
        out.append(vkgen.cond_close(protect))


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    vkgen = load_vkgen(argv[1])
    reg = vkgen.Registry(argv[2])
    model = vkgen.Model(reg, vkgen.Custom(argv[3]))
    types = Types(argv[2])
    cmds = [c for c in model.cmds if c.kind != vkgen.KIND_GLOBAL and c.name not in HAND_WRITTEN]
    inst = [c for c in cmds if c.kind in (vkgen.KIND_INSTANCE, vkgen.KIND_PHYSDEV)]
    dev = [c for c in cmds if c.kind == vkgen.KIND_DEVICE]
    out = ["/* generated by mock_layers/gen_chassis.py from vk.xml: do not edit. Included twice by",
           " * chassis_layer.c: with CHASSIS_GEN_TABLES defined, the next-layer dispatch tables; without,",
           " * the rest (which uses the dispatch objects holding those tables). */", "",
           "#if defined(CHASSIS_GEN_TABLES)"]
    for tname, lst in (("ch_inst_table", inst), ("ch_dev_table", dev)):
        out.append("struct %s {" % tname)
        for c in lst:
            guarded(vkgen, out, c.protect, ["    PFN_%s %s;" % (c.name, c.name[2:])])
        out.append("};")
        out.append("")
    out.append("#else")
    emit_struct_fixers(types, out)
    emit_struct_wrappers(types, out_structs(types, cmds), out)
    for c in cmds:
        body = []
        emit_command(vkgen, types, c, body)
        guarded(vkgen, out, c.protect, body)
    for tname, var, lst in (("ch_inst_table", "ch_inst_entries", inst), ("ch_dev_table", "ch_dev_entries", dev)):
        out.append("/* Every name (aliases too) -> the table slot filled from the next layer, the intercept. */")
        out.append("static const struct ch_entry %s[] = {" % var)
        for c in lst:
            guarded(vkgen, out, c.protect,
                    ["    {\"%s\", offsetof(struct %s, %s), (PFN_vkVoidFunction)chassis_%s},"
                     % (n, tname, c.name[2:], c.name[2:]) for n in c.included_names])
        out.append("};")
        out.append("")
    out.append("#endif")
    with open(argv[4], "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
