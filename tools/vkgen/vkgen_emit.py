"""vkgen_emit: writes the generated C of tools/vkgen from the model (vkgen_registry): the dispatch
header and tables, trampolines, terminators, test-only stubs and the VkResult names (standard-library
Python 3 only)."""

from vkgen_base import (BANNER, HASH_EMPTY, HASH_K1, HASH_K2, KIND_DEVICE, KIND_GLOBAL, KIND_INSTANCE, KIND_PHYSDEV,
                        GenError, name_hash)

# --------------------------------------------------------------------------------------------------
# Emission helpers
# --------------------------------------------------------------------------------------------------
def cond_open(protect):
    if len(protect) == 1:
        return "#ifdef %s" % protect[0]
    return "#if " + " || ".join("defined(%s)" % p for p in protect)


def cond_close(protect):
    return "#endif /* %s */" % " || ".join(protect)


class Out:
    def __init__(self, filename):
        self.lines = ["/* %s: %s */" % (filename, BANNER)]
        self.cur = None

    def __call__(self, line=""):
        self.lines.append(line)

    def guarded(self, protect, lines):
        """Appends lines under `protect`, merging consecutive blocks with the same guard."""
        if protect != self.cur:
            self.flush()
            if protect:
                self.lines.append(cond_open(protect))
            self.cur = protect
        self.lines.extend(lines)

    def flush(self):
        if self.cur:
            self.lines.append(cond_close(self.cur))
        self.cur = None

    def text(self):
        self.flush()
        return "\n".join(self.lines) + "\n"


def params_decl(c):
    return ", ".join(p.decl for p in c.params) if c.params else "void"


def args(c, first=None):
    names = [p.name for p in c.params]
    if first is not None:
        names[0] = first
    return ", ".join(names)


def proto(c, symbol, prefix=""):
    return "%sVKAPI_ATTR %s VKAPI_CALL %s(%s)" % (prefix, c.ret, symbol, params_decl(c))


def fail_value(c):
    if c.ret == "void":
        return None
    if c.ret == "VkResult":
        return "VK_ERROR_EXTENSION_NOT_PRESENT"
    if c.ret == "VkBool32":
        return "VK_FALSE"
    if c.ret.endswith("*") or c.ret.startswith("PFN_"):
        return "NULL"
    return "0"


def count_param(c):
    """The count parameter of a count/array pair whose count the caller passes by pointer
    (`uint32_t* pXCount` or `size_t* pDataSize` with an array whose vk.xml `len` names it), or None."""
    for p in c.params:
        if p.pointer and not p.const and p.type in ("uint32_t", "size_t") and \
                any(q.len is not None and q.len.split(",")[0] == p.name for q in c.params):
            return p
    return None


def ver_expr(v):
    return "VK_MAKE_API_VERSION(0, %d, %d, 0)" % v if v else "0"


# --------------------------------------------------------------------------------------------------
# vkl_gen_dispatch.h
# --------------------------------------------------------------------------------------------------
def emit_header(m):
    o = Out("vkl_gen_dispatch.h")
    o("#ifndef VKL_GEN_DISPATCH_H")
    o("#define VKL_GEN_DISPATCH_H")
    o()
    o("#include <stdbool.h>")
    o("#include <stddef.h>")
    o("#include <stdint.h>")
    o("#include <string.h>")
    o("#include <vulkan/vulkan.h>")
    o()
    o("#ifdef __cplusplus")
    o('extern "C" {')
    o("#endif")
    o()
    o("/* Symbols of libvulkan.so.1's interface (everything else is hidden by -fvisibility=hidden). */")
    o("#ifndef VKL_EXPORT")
    o('#define VKL_EXPORT __attribute__((visibility("default")))')
    o("#endif")
    o()
    for sname, cmds, what in (("vkl_gen_instance_dispatch", m.instance_cmds,
                               "global, instance and physical-device commands"),
                              ("vkl_gen_device_dispatch", m.device_cmds,
                               "device, queue and command-buffer commands")):
        o("/* One slot per command (%s); aliases share the canonical slot. */" % what)
        o("struct %s {" % sname)
        for c in cmds:
            o.guarded(c.protect, ["    PFN_%s %s;" % (c.name, c.name[2:])])
        o.flush()
        o("};")
        o()
    o("#define VKL_GEN_INSTANCE_DISPATCH_SLOTS \\")
    o("    ((uint32_t)(sizeof(struct vkl_gen_instance_dispatch) / sizeof(PFN_vkVoidFunction)))")
    o("#define VKL_GEN_DEVICE_DISPATCH_SLOTS \\")
    o("    ((uint32_t)(sizeof(struct vkl_gen_device_dispatch) / sizeof(PFN_vkVoidFunction)))")
    o("uint32_t vkl_gen_instance_dispatch_slots(void);")
    o("uint32_t vkl_gen_device_dispatch_slots(void);")
    o("/* Whether vk.xml defines `name` as an instance extension of Vulkan (the loader's known list). */")
    o("bool vkl_gen_instance_extension_known(const char *name);")
    o()
    o("/* Zeroes *t, then queries every slot through gipa (canonical name first, then each alias until")
    o(" * one is non-NULL). Global commands are always queried with VK_NULL_HANDLE (the only instance")
    o(" * argument the specification defines for them); with instance == VK_NULL_HANDLE nothing else is")
    o(" * queried. */")
    o("void vkl_gen_instance_dispatch_fill(struct vkl_gen_instance_dispatch *t, "
      "PFN_vkGetInstanceProcAddr gipa,")
    o("                                    VkInstance instance);")
    o("/* Zeroes *t, then (device != VK_NULL_HANDLE) queries every slot through gdpa. */")
    o("void vkl_gen_device_dispatch_fill(struct vkl_gen_device_dispatch *t, "
      "PFN_vkGetDeviceProcAddr gdpa, VkDevice device);")
    o()
    o("enum vkl_gen_cmd_kind { VKL_GEN_CMD_GLOBAL, VKL_GEN_CMD_INSTANCE, VKL_GEN_CMD_PHYSDEV, "
      "VKL_GEN_CMD_DEVICE };")
    o()
    o("/* One entry per command name (aliases are entries of their own with the canonical slot). */")
    o("struct vkl_gen_cmd {")
    o("    const char *name;")
    o("    uint8_t kind;     /* enum vkl_gen_cmd_kind */")
    o("    uint8_t exported; /* 1: libvulkan.so.1 exports this name */")
    o("    uint8_t instance_extension; /* 1: `extension` is an instance extension (vk.xml type=\"instance\") */")
    o("    uint16_t slot;    /* index in the instance (GLOBAL/INSTANCE/PHYSDEV) or device (DEVICE) table")
    o("                       * viewed as an array of PFN_vkVoidFunction; UINT16_MAX when the command's")
    o("                       * platform macro is not defined */")
    o("    uint32_t core_version; /* VK_MAKE_API_VERSION of the feature that adds this name, 0 if none */")
    o("    const char *extension; /* first extension that provides this name, NULL if core */")
    o("    PFN_vkVoidFunction trampoline; /* NULL when the platform macro is not defined */")
    o("    PFN_vkVoidFunction terminator; /* entry of vkl_gen_terminators, NULL if none */")
    o("};")
    o()
    o("#define VKL_GEN_CMD_COUNT %du" % len(m.entries))
    o("extern const struct vkl_gen_cmd vkl_gen_cmds[VKL_GEN_CMD_COUNT];")
    o("/* Hashed lookup (length + two words, open addressing); NULL for names the registry does not define")
    o(" * (and for NULL). */")
    o("const struct vkl_gen_cmd *vkl_gen_cmd_find(const char *name);")
    o()
    o("/* The same lookup inline, for a name whose strlen the caller has (the proc-addr functions). Hash:")
    o(" * tools/vkgen/vkgen.py name_hash. Each bucket packs (index + 1) | length << 16 | hash bits 24..31 << 24")
    o(" * (0: empty), so a probe rejects a different name without touching it; %d entries in %d buckets. */"
      % (len(m.entries), m.hash_size))
    o("extern const uint32_t vkl_gen_cmd_buckets[%d];" % m.hash_size)
    o()
    o("#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__")
    o("#error \"the generated name hash reads names as little-endian words\"")
    o("#endif")
    o("static inline uint64_t vkl_gen_load64(const char *p) {")
    o("    uint64_t v;")
    o("    memcpy(&v, p, sizeof(v));")
    o("    return v;")
    o("}")
    o()
    o("/* Lookup of a name shorter than 8 or longer than 255 bytes (out of line: none of the registry's")
    o(" * names is; a short one is hashed and compared byte by byte). */")
    o("const struct vkl_gen_cmd *vkl_gen_cmd_lookup_odd(const char *name, size_t len);")
    o()
    o("/* Equal names of equal length (8 to 255 bytes): 8-byte words, the last one overlapping; no library")
    o(" * call, so the caller's lookup path stays short. */")
    o("static inline int vkl_gen_name_eq(const char *a, const char *b, size_t len) {")
    o("    for (size_t i = 0; i + 8 < len; i += 8)")
    o("        if (vkl_gen_load64(a + i) != vkl_gen_load64(b + i)) return 0;")
    o("    return vkl_gen_load64(a + len - 8) == vkl_gen_load64(b + len - 8);")
    o("}")
    o()
    o("static inline uint32_t vkl_gen_name_hash(uint64_t lo, uint64_t hi, size_t len) {")
    o("    return (uint32_t)(((lo ^ (hi * 0x%XULL) ^ (uint64_t)len) * 0x%XULL) >> 32);" % (HASH_K1, HASH_K2))
    o("}")
    o()
    o("static inline const struct vkl_gen_cmd *vkl_gen_cmd_lookup(const char *name, size_t len) {")
    o("    if (len - 8u > 247u) return vkl_gen_cmd_lookup_odd(name, len);")
    o("    uint32_t h = vkl_gen_name_hash(vkl_gen_load64(name + len - 8), vkl_gen_load64(name + (len - 8) / 2), len);")
    o("    uint32_t key = (uint32_t)len | (h >> 24) << 8;")
    o("    for (uint32_t i = h & %du;; i = (i + 1u) & %du) {" % (m.hash_size - 1, m.hash_size - 1))
    o("        uint32_t e = vkl_gen_cmd_buckets[i];")
    o("        if (e == 0u) return NULL;")
    o("        if (e >> 16 != key) continue;")
    o("        const struct vkl_gen_cmd *c = &vkl_gen_cmds[(e & 0xFFFFu) - 1u];")
    o("        if (vkl_gen_name_eq(c->name, name, len)) return c;")
    o("    }")
    o("}")
    o()
    o("/* ---- hand-written functions named in loader/custom_commands.txt ---- */")
    for c in m.cmds:
        lines = []
        if c.name in m.custom.trampolines:
            lines.append(proto(c, m.tramp_symbol(c), "VKL_EXPORT " if m.exported(c) else "") + ";")
        if c.name in m.custom.terminators:
            lines.append(proto(c, m.term_symbol(c)) + ";")
        if lines:
            o.guarded(c.protect, lines)
    o.flush()
    o()
    o("/* ---- generated terminators (vkl_gen_terminators.c; referenced by the command table) ---- */")
    for c in m.instance_cmds:
        t = m.term_symbol(c)
        if t and c.name not in m.custom.terminators:
            o.guarded(c.protect, [proto(c, t) + ";"])
    o.flush()
    o()
    o("#ifdef __cplusplus")
    o("}")
    o("#endif")
    o("#endif /* VKL_GEN_DISPATCH_H */")
    return o.text()


# --------------------------------------------------------------------------------------------------
# vkl_gen_dispatch.c
# --------------------------------------------------------------------------------------------------
def emit_fill_lines(c, fn, handle):
    field = "t->" + c.name[2:]
    lines = ['    %s = (PFN_%s)%s(%s, "%s");' % (field, c.name, fn, handle, c.included_names[0])]
    for n in c.included_names[1:]:
        lines.append('    if (!%s) %s = (PFN_%s)%s(%s, "%s");' % (field, field, c.name, fn, handle, n))
    return lines


def emit_dispatch_c(m):
    o = Out("vkl_gen_dispatch.c")
    o("#include <stdlib.h>")
    o("#include <string.h>")
    o()
    o('#include "loader/internal/handles.h"')
    o()
    o("/* Every instance extension vk.xml defines for Vulkan, sorted (the loader's known list). */")
    o("static const char *const known_instance_extensions[] = {")
    for name in sorted(m.reg.instance_extensions):
        o('    "%s",' % name)
    o("};")
    o()
    o("static int cmp_name(const void *key, const void *elem) {")
    o("    return strcmp((const char *)key, *(const char *const *)elem);")
    o("}")
    o()
    o("bool vkl_gen_instance_extension_known(const char *name) {")
    o("    return name != NULL && bsearch(name, known_instance_extensions,")
    o("                                   sizeof(known_instance_extensions) / sizeof(known_instance_extensions[0]),")
    o("                                   sizeof(known_instance_extensions[0]), cmp_name) != NULL;")
    o("}")
    o()
    o("uint32_t vkl_gen_instance_dispatch_slots(void) { return VKL_GEN_INSTANCE_DISPATCH_SLOTS; }")
    o("uint32_t vkl_gen_device_dispatch_slots(void) { return VKL_GEN_DEVICE_DISPATCH_SLOTS; }")
    o()
    o("void vkl_gen_instance_dispatch_fill(struct vkl_gen_instance_dispatch *t, "
      "PFN_vkGetInstanceProcAddr gipa,")
    o("                                    VkInstance instance) {")
    o("    memset(t, 0, sizeof(*t));")
    o("    if (!gipa) return;")
    for c in m.instance_cmds:
        if c.kind == KIND_GLOBAL:
            o.guarded(c.protect, emit_fill_lines(c, "gipa", "VK_NULL_HANDLE"))
    o.flush()
    o("    if (instance == VK_NULL_HANDLE) return;")
    for c in m.instance_cmds:
        if c.kind != KIND_GLOBAL:
            o.guarded(c.protect, emit_fill_lines(c, "gipa", "instance"))
    o.flush()
    o("}")
    o()
    o("void vkl_gen_device_dispatch_fill(struct vkl_gen_device_dispatch *t, "
      "PFN_vkGetDeviceProcAddr gdpa, VkDevice device) {")
    o("    memset(t, 0, sizeof(*t));")
    o("    if (!gdpa || device == VK_NULL_HANDLE) return;")
    for c in m.device_cmds:
        o.guarded(c.protect, emit_fill_lines(c, "gdpa", "device"))
    o.flush()
    o("}")
    return o.text()


# --------------------------------------------------------------------------------------------------
# vkl_gen_trampolines.c
# --------------------------------------------------------------------------------------------------
def alias_trampoline(m, name, c):
    """Whether the alias `name` of command `c` has a generated trampoline of its own."""
    return name != c.name and c.name not in m.custom.trampolines and not m.reg.names[name].exported


def emit_trampolines(m):
    o = Out("vkl_gen_trampolines.c")
    o("#include <stddef.h>")
    o("#include <stdint.h>")
    o("#include <string.h>")
    o()
    o('#include "loader/internal/handles.h"')
    o()
    o("/* Hand-written trampolines (custom_commands.txt) are declared in vkl_gen_dispatch.h. */")
    o()
    def trampoline(c, name, symbol, prefix):
        """The trampoline of command `c` reached by `name` (an alias names itself in its messages)."""
        first = c.params[0].name
        call_ret = "" if c.ret == "void" else "return "
        # Handle validation (loader/internal/handles.h): every command but the command-buffer
        # recording ones (vkCmd*: the hot path, two instructions) checks its dispatchable handle.
        check = None
        if c.kind == KIND_DEVICE:
            body = "%svkl_device_disp(%s)->%s(%s);" % (call_ret, first, c.name[2:], args(c))
            if not c.name.startswith("vkCmd"):
                check = 'vkl_check_device_object(%s, "%s", "%s");' % (first, name, first)
        elif c.kind == KIND_INSTANCE:
            body = "%svkl_instance_disp(%s)->%s(%s);" % (
                call_ret, first, c.name[2:], args(c, "vkl_instance_next(%s)" % first))
            check = 'vkl_check_instance(%s, "%s");' % (first, name)
        elif c.kind == KIND_PHYSDEV:
            body = "%svkl_physdev_disp(%s)->%s(%s);" % (
                call_ret, first, c.name[2:], args(c, "vkl_physdev_next(%s)" % first))
            check = 'vkl_check_physical_device(%s, "%s");' % (first, name)
        else:  # rejected in Model
            raise GenError("no trampoline for global command %s" % c.name)
        lines = [proto(c, symbol, prefix) + " {"]
        if check is not None:
            lines.append("    " + check)
        # Robust arguments (RULE_INST_ROBUST_ARGUMENTS): a NULL count pointer of a count/array
        # pair never reaches a layer or a driver; one log line naming the VUID, then
        # VK_ERROR_OUT_OF_HOST_MEMORY (a result every such command may return) or nothing.
        cp = count_param(c)
        if cp is not None:
            if c.ret == "VkResult":
                lines.append('    if (%s == NULL) return (VkResult)vkl_null_count_param("%s", "%s", true);'
                             % (cp.name, name, cp.name))
            elif c.ret == "void":
                lines += ["    if (%s == NULL) {" % cp.name,
                          '        (void)vkl_null_count_param("%s", "%s", false);' % (name, cp.name),
                          "        return;", "    }"]
            else:
                raise GenError("count/array command %s returns %s" % (c.name, c.ret))
        o.guarded(c.protect, lines + ["    " + body, "}"])

    for c in m.cmds:
        if c.name in m.custom.trampolines:
            continue
        trampoline(c, c.name, m.tramp_symbol(c), "VKL_EXPORT " if m.exported(c) else "static ")
    # An alias the loader does not export gets a trampoline of its own, as the Khronos loader gives
    # every name: vkGetInstanceProcAddr answers each name with a distinct pointer, and a bad handle
    # is reported under the name the application called (RULE_GIPA_SPEC, RULE_INST_ROBUST_ARGUMENTS).
    for name, c in m.entries:
        if alias_trampoline(m, name, c):
            trampoline(c, name, "vkl_gen_tramp_alias_" + name[2:], "static ")
    o.flush()
    o()
    o("const struct vkl_gen_cmd vkl_gen_cmds[VKL_GEN_CMD_COUNT] = {")
    for name, c in m.entries:
        info = m.reg.names[name]
        table = "instance" if c.kind != KIND_DEVICE else "device"
        ext = '"%s"' % info.extensions[0] if info.core_version is None and info.extensions else "NULL"
        inst_ext = 1 if ext != "NULL" and info.ext_types[0] == "instance" else 0
        term = m.term_symbol(c)
        o('    {"%s", VKL_GEN_CMD_%s, %d, %d,' % (name, c.kind, 1 if info.exported else 0, inst_ext))
        on = "     (uint16_t)(offsetof(struct vkl_gen_%s_dispatch, %s) / sizeof(PFN_vkVoidFunction)), " \
             "%s, %s,\n     (PFN_vkVoidFunction)%s, %s}," % (
                 table, c.name[2:], ver_expr(info.core_version), ext,
                 "vkl_gen_tramp_alias_" + name[2:] if alias_trampoline(m, name, c) else m.tramp_symbol(c),
                 "(PFN_vkVoidFunction)" + term if term else "NULL")
        off = "     UINT16_MAX, %s, %s, NULL, NULL}," % (ver_expr(info.core_version), ext)
        if c.protect:
            o(cond_open(c.protect))
            o(on)
            o("#else")
            o(off)
            o(cond_close(c.protect))
        else:
            o(on)
    o("};")
    o()
    o("/* Name hash (tools/vkgen/vkgen.py name_hash), open addressing with linear probing; %d entries in %d"
      " buckets, each (index + 1) | length << 16 | hash bits 24..31 << 24, 0 when empty. */"
      % (len(m.entries), m.hash_size))
    o("const uint32_t vkl_gen_cmd_buckets[%d] = {" % m.hash_size)
    row = []
    for v in m.hash_slots:
        if v == HASH_EMPTY:
            row.append("0x0u")
        else:
            name = m.entries[v][0]
            row.append("0x%Xu" % ((v + 1) | len(name) << 16 | (name_hash(name) >> 24) << 24))
        if len(row) == 8:
            o("    " + ", ".join(row) + ",")
            row = []
    if row:
        o("    " + ", ".join(row) + ",")
    o("};")
    o()
    o("const struct vkl_gen_cmd *vkl_gen_cmd_lookup_odd(const char *name, size_t len) {")
    o("    if (len >= 8) return NULL; /* longer than any command name */")
    o("    uint64_t lo = 0;")
    o("    memcpy(&lo, name, len);")
    o("    uint32_t h = vkl_gen_name_hash(lo, 0, len);")
    o("    uint32_t key = (uint32_t)len | (h >> 24) << 8;")
    o("    for (uint32_t i = h & %du;; i = (i + 1u) & %du) {" % (m.hash_size - 1, m.hash_size - 1))
    o("        uint32_t e = vkl_gen_cmd_buckets[i];")
    o("        if (e == 0u) return NULL;")
    o("        if (e >> 16 != key) continue;")
    o("        const struct vkl_gen_cmd *c = &vkl_gen_cmds[(e & 0xFFFFu) - 1u];")
    o("        if (memcmp(c->name, name, len) == 0) return c;")
    o("    }")
    o("}")
    o()
    o("const struct vkl_gen_cmd *vkl_gen_cmd_find(const char *name) {")
    o("    return name != NULL ? vkl_gen_cmd_lookup(name, strlen(name)) : NULL;")
    o("}")
    return o.text()


# --------------------------------------------------------------------------------------------------
# vkl_gen_terminators.c
# --------------------------------------------------------------------------------------------------
def emit_terminators(m):
    o = Out("vkl_gen_terminators.c")
    o('#include "loader/internal/handles.h"')
    o()
    for c in m.instance_cmds:
        t = m.term_symbol(c)
        if not t or c.name in m.custom.terminators:
            continue
        first = c.params[0].name
        fv = fail_value(c)
        ret = "" if fv is None else " " + fv
        call_ret = "" if c.ret == "void" else "return "
        body = [proto(c, t) + " {"]
        if c.kind == KIND_PHYSDEV:
            body += [
                "    const struct vkl_gen_instance_dispatch *d = vkl_term_physdev_icd_disp(%s);" % first,
                "    if (!d->%s) {" % c.name[2:],
                '        vkl_term_missing(VK_NULL_HANDLE, %s, "%s");' % (first, c.name),
                "        return%s;" % ret,
                "    }",
                "    %sd->%s(%s);" % (call_ret, c.name[2:],
                                     args(c, "vkl_term_physdev_icd_handle(%s)" % first)),
            ]
        elif m.creates_or_destroys(c):
            body += ['    vkl_term_missing(%s, VK_NULL_HANDLE, "%s");' % (first, c.name)]
            if fv is not None:
                body += ["    return %s;" % fv]
        else:  # fan out to every driver
            call = "ii->disp.%s(%s)" % (c.name[2:], args(c, "ii->handle"))
            loop = "    for (struct vkl_icd_instance *ii = vkl_term_icd_first(%s); ii; ii = ii->next) {" \
                % first
            if c.ret == "VkResult":
                body += ["    VkResult first_error = VK_SUCCESS;", loop,
                         "        if (!ii->disp.%s) continue;" % c.name[2:],
                         "        VkResult r = %s;" % call,
                         "        if (r != VK_SUCCESS && first_error == VK_SUCCESS) first_error = r;",
                         "    }", "    return first_error;"]
            elif c.ret == "void":
                body += [loop, "        if (ii->disp.%s) %s;" % (c.name[2:], call), "    }"]
            else:  # first driver that has it answers
                body += [loop, "        if (ii->disp.%s) return %s;" % (c.name[2:], call), "    }",
                         "    return %s;" % fv]
        body.append("}")
        o.guarded(c.protect, body)
    o.flush()
    o()
    o("const struct vkl_gen_instance_dispatch vkl_gen_terminators = {")
    for c in m.instance_cmds:
        t = m.term_symbol(c)
        if t:
            o.guarded(c.protect, ["    .%s = %s," % (c.name[2:], t)])
    o.flush()
    o("};")
    return o.text()


# --------------------------------------------------------------------------------------------------
# Stubs of the hand-written functions (for compile/link tests of the generated code only)
# --------------------------------------------------------------------------------------------------
def emit_stubs(m):
    o = Out("vkl_gen_stubs.c")
    o('#include "loader/internal/handles.h"')
    o()
    o("/* Test-only stand-ins for every hand-written function named in custom_commands.txt. */")
    for c in m.cmds:
        syms = []
        if c.name in m.custom.trampolines:
            syms.append(m.tramp_symbol(c))
        if c.name in m.custom.terminators:
            syms.append(m.term_symbol(c))
        for s in syms:
            if c.ret == "void":
                body = "}"
            elif c.ret == "VkResult":
                body = "    return VK_ERROR_INITIALIZATION_FAILED;\n}"
            else:
                body = "    return %s;\n}" % fail_value(c)
            o.guarded(c.protect, [proto(c, s) + " {", body] if body != "}" else [proto(c, s) + " {", "}"])
    o.flush()
    return o.text()


def emit_results_header(m):
    return "\n".join([
        "/* vkl_gen_results.h: %s */" % BANNER,
        "#ifndef VKL_GEN_RESULTS_H",
        "#define VKL_GEN_RESULTS_H",
        "",
        "#include <stdbool.h>",
        "#include <vulkan/vulkan.h>",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        "/* The name of `r` (\"VK_SUCCESS\", ...); NULL for a value vk.xml does not define. */",
        "const char *vkl_gen_result_name(VkResult r);",
        "/* The VkResult named `name` (no aliases); false when vk.xml defines none. */",
        "bool vkl_gen_result_from_name(const char *name, VkResult *out);",
        "",
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "#endif /* VKL_GEN_RESULTS_H */",
        ""])


def emit_results_c(m):
    lines = ["/* vkl_gen_results.c: %s */" % BANNER,
             "#include <stddef.h>",
             "#include <string.h>",
             "",
             '#include "loader/vkl_gen_results.h"',
             "",
             "static const struct {",
             "    const char *name;",
             "    VkResult value;",
             "} results[] = {"]
    for name, value in m.reg.results:
        lines.append('    {"%s", %s}, /* %d */' % (name, name, value))
    lines += ["};",
              "",
              "const char *vkl_gen_result_name(VkResult r) {",
              "    for (size_t i = 0; i < sizeof(results) / sizeof(results[0]); i++)",
              "        if (results[i].value == r) return results[i].name;",
              "    return NULL;",
              "}",
              "",
              "bool vkl_gen_result_from_name(const char *name, VkResult *out) {",
              "    for (size_t i = 0; name != NULL && i < sizeof(results) / sizeof(results[0]); i++) {",
              "        if (strcmp(results[i].name, name) == 0) {",
              "            *out = results[i].value;",
              "            return true;",
              "        }",
              "    }",
              "    return false;",
              "}",
              ""]
    return "\n".join(lines)


