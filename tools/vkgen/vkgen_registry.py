"""vkgen_registry: reads the inputs of tools/vkgen (vk.xml, vulkan_core.h's VK_HEADER_VERSION, the
custom command table) into the model the emitters walk (standard-library Python 3 only)."""

import re
import xml.etree.ElementTree as ET

from vkgen_base import (DEVICE_FIRST_TYPES, INSTANCE_TABLE_EXTRA, KIND_DEVICE, KIND_GLOBAL, KIND_INSTANCE, KIND_PHYSDEV,
                        GenError, build_hash_table)

# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------
def header_version_from_header(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"\s*#\s*define\s+VK_HEADER_VERSION\s+(\d+)\s*$", line)
            if m:
                return int(m.group(1))
    raise GenError("%s: no '#define VK_HEADER_VERSION <n>' found" % path)


def _api_ok(elem):
    api = elem.get("api")
    return api is None or "vulkan" in api.split(",")


def _text(elem):
    return " ".join("".join(elem.itertext()).split())


class Param:
    def __init__(self, elem):
        self.name = elem.find("name").text
        t = elem.find("type")
        self.type = t.text if t is not None else None
        self.decl = _text(elem)
        # Normalise pointer spacing: "const VkFoo * pBar" -> "const VkFoo* pBar".
        self.decl = re.sub(r"\s+\*", "*", self.decl)
        tail = (t.tail or "") if t is not None else ""
        self.pointer = "*" in tail
        self.len = elem.get("len")  # vk.xml: the parameter holding this array's length
        before = (elem.text or "")
        self.const = "const" in before.split() or "const" in tail.split()


class Command:
    def __init__(self, elem):
        proto = elem.find("proto")
        self.name = proto.find("name").text
        parts = [proto.text or ""]
        for child in proto:
            if child.tag == "name":
                break
            parts.append(child.text or "")
            parts.append(child.tail or "")
        self.ret = re.sub(r"\s+\*", "*", " ".join("".join(parts).split()))
        self.params = [Param(p) for p in elem.findall("param") if _api_ok(p)]
        self.aliases = []     # alias names included in the build, registry order
        self.kind = None
        self.protect = None   # None or tuple of platform macros (any of them enables it)
        self.included_names = []


class NameInfo:
    """Per command *name* (canonical or alias)."""

    def __init__(self, name, canonical):
        self.name = name
        self.canonical = canonical
        self.core_version = None  # (major, minor)
        self.extensions = []      # enabled extensions requiring it, registry order
        self.protects = []        # platform macro per extension (None for none)
        self.ext_types = []       # vk.xml type ("instance" / "device") per extension
        self.exported = False


def _enum_value(e, extnumber):
    """The value of an <enum> element: `value`, or computed from `offset` with the extension number
    (the registry's rule: 1000000000 + (number - 1) * 1000 + offset, negated for dir="-")."""
    if e.get("value") is not None:
        return int(e.get("value"), 0)
    if e.get("offset") is None:
        return None
    number = e.get("extnumber") or extnumber
    if number is None:
        raise GenError("enum %s: offset without an extension number" % e.get("name"))
    v = 1000000000 + (int(number) - 1) * 1000 + int(e.get("offset"))
    return -v if e.get("dir") == "-" else v


class Registry:
    @staticmethod
    def _results(root):
        out, seen = [], set()

        def add(e, extnumber):
            name = e.get("name")
            if e.get("alias") or name in seen:
                return
            v = _enum_value(e, extnumber)
            if v is None:
                return
            seen.add(name)
            out.append((name, v))
        for enums in root.findall("enums"):
            if enums.get("name") == "VkResult":
                for e in enums.findall("enum"):
                    add(e, None)
        for f in root.findall("feature"):
            if not _api_ok(f):
                continue
            for req in f.findall("require"):
                for e in req.findall("enum"):
                    if e.get("extends") == "VkResult":
                        add(e, None)
        for exts in root.findall("extensions"):
            for x in exts.findall("extension"):
                if "vulkan" not in x.get("supported", "").split(","):
                    continue
                for req in x.findall("require"):
                    for e in req.findall("enum"):
                        if e.get("extends") == "VkResult":
                            add(e, x.get("number"))
        return out

    def __init__(self, path):
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as e:
            raise GenError("%s: %s" % (path, e))
        self.header_version = None
        for t in root.iter("type"):
            if t.get("category") == "define" and _api_ok(t):  # Vulkan SC has its own version
                n = t.find("name")
                if n is not None and n.text == "VK_HEADER_VERSION":
                    self.header_version = int((n.tail or "").split()[0])
        if self.header_version is None:
            raise GenError("%s: no VK_HEADER_VERSION define" % path)

        self.platforms = {p.get("name"): p.get("protect") for p in root.iter("platform")}
        self.handles = set()
        self.handle_parent = {}  # dispatchable handle -> its parent handle (vk.xml `parent`)
        for t in root.iter("type"):
            if t.get("category") == "handle":
                n = t.find("name")
                hname = n.text if n is not None else t.get("name")
                self.handles.add(hname)
                kind = t.find("type")
                if kind is not None and kind.text == "VK_DEFINE_HANDLE":
                    self.handle_parent[hname] = t.get("parent")

        self.commands = {}      # canonical name -> Command, plus registry order
        self.order = []
        alias_of = {}
        for cmds in root.findall("commands"):
            for c in cmds.findall("command"):
                if not _api_ok(c):
                    continue
                if c.get("alias"):
                    alias_of[c.get("name")] = c.get("alias")
                    continue
                cmd = Command(c)
                self.commands[cmd.name] = cmd
                self.order.append(cmd.name)
        self.alias_of = {}
        self.alias_order = list(alias_of)
        for a in alias_of:
            target, seen = alias_of[a], {a}
            while target in alias_of:
                if target in seen:
                    raise GenError("alias loop at %s" % a)
                seen.add(target)
                target = alias_of[target]
            if target not in self.commands:
                raise GenError("alias %s refers to unknown command %s" % (a, target))
            self.alias_of[a] = target

        self.results = self._results(root)  # [(name, value)] of VkResult, registry order, no aliases
        self.names = {}  # name -> NameInfo, for names required by a feature or an enabled extension
        self.features = {}  # feature name -> [command names]
        self.extensions = {}  # enabled extension name -> [command names]
        self.instance_extensions = set()  # names of the enabled instance extensions (the known list)
        own = {}  # feature name -> (number, internal, depends names, [command names])
        for f in root.findall("feature"):
            if not _api_ok(f):
                continue
            m = re.match(r"(\d+)\.(\d+)$", f.get("number", ""))
            if not m:
                raise GenError("feature %s: bad number %r" % (f.get("name"), f.get("number")))
            ver = (int(m.group(1)), int(m.group(2)))
            lst = []
            own[f.get("name")] = (ver, f.get("apitype") == "internal",
                                  re.findall(r"[A-Za-z_][A-Za-z0-9_]*", f.get("depends", "")), lst)
            for req in f.findall("require"):
                if not _api_ok(req):
                    continue
                for c in req.findall("command"):
                    info = self._name(c.get("name"))
                    if info.core_version is None or ver < info.core_version:
                        info.core_version = ver
                    if c.get("name") not in lst:
                        lst.append(c.get("name"))
        # Newer registries split each version into apitype="internal" features (VK_BASE_VERSION_1_4,
        # VK_COMPUTE_VERSION_1_4, VK_GRAPHICS_VERSION_1_4) that VK_VERSION_1_4 names in `depends`;
        # a version's commands are its own plus those of the internal features of the same number
        # it reaches through `depends`, so VK_VERSION_x_y means the same set with either layout.
        for name, (ver, internal, _, _) in own.items():
            if internal:
                continue
            stack, seen = [name], set()
            while stack:
                fname = stack.pop()
                if fname in seen or fname not in own or own[fname][0] != ver:
                    continue
                if fname != name and not own[fname][1]:
                    continue
                seen.add(fname)
                stack.extend(own[fname][2])
            lst = []
            for fname in own:  # registry order
                if fname in seen:
                    lst.extend(c for c in own[fname][3] if c not in lst)
            self.features[name] = lst
        for exts in root.findall("extensions"):
            for e in exts.findall("extension"):
                if "vulkan" not in e.get("supported", "").split(","):
                    continue  # disabled or other API only
                platform = e.get("platform")
                protect = None
                if platform:
                    if platform not in self.platforms:
                        raise GenError("extension %s: unknown platform %s" % (e.get("name"), platform))
                    protect = self.platforms[platform]
                lst = self.extensions.setdefault(e.get("name"), [])
                if e.get("type") == "instance":
                    self.instance_extensions.add(e.get("name"))
                for req in e.findall("require"):
                    if not _api_ok(req):
                        continue
                    for c in req.findall("command"):
                        info = self._name(c.get("name"))
                        if e.get("name") not in info.extensions:
                            info.extensions.append(e.get("name"))
                            info.protects.append(protect)
                            info.ext_types.append(e.get("type", "device"))
                        if c.get("name") not in lst:
                            lst.append(c.get("name"))

    def _name(self, name):
        if name not in self.names:
            canonical = self.alias_of.get(name, name)
            if canonical not in self.commands:
                raise GenError("required command %s is not defined" % name)
            self.names[name] = NameInfo(name, canonical)
        return self.names[name]


class Custom:
    """loader/custom_commands.txt"""

    def __init__(self, path):
        self.export_features = []
        self.export_extensions = []
        self.trampolines = []
        self.terminators = []
        keys = {
            "export-feature": self.export_features,
            "export-extension": self.export_extensions,
            "trampoline": self.trampolines,
            "terminator": self.terminators,
        }
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise GenError("%s: %s" % (path, e))
        for n, line in enumerate(lines, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if len(words) != 2 or words[0] not in keys:
                raise GenError("%s:%d: expected '<%s> <name>'" % (path, n, "|".join(sorted(keys))))
            if words[1] in keys[words[0]]:
                raise GenError("%s:%d: duplicate '%s'" % (path, n, line))
            keys[words[0]].append(words[1])


# --------------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------------
class Model:
    def __init__(self, reg, custom):
        self.reg = reg
        self.custom = custom
        groups = {}
        for name, info in reg.names.items():
            groups.setdefault(info.canonical, []).append(name)
        self.cmds = []  # included canonical commands, registry order
        for cname in reg.order:
            if cname not in groups:
                continue
            cmd = reg.commands[cname]
            members = groups[cname]
            cmd.included_names = ([cname] if cname in members else []) + [
                a for a in reg.alias_order if reg.alias_of[a] == cname and a in members]
            cmd.aliases = [n for n in cmd.included_names if n != cname]
            cmd.kind = self._kind(cmd)
            protects = set()
            unprotected = False
            for n in cmd.included_names:
                info = reg.names[n]
                if info.core_version is not None or None in info.protects:
                    unprotected = True
                protects.update(p for p in info.protects if p)
            cmd.protect = None if unprotected else tuple(sorted(protects))
            self.cmds.append(cmd)
        self.by_name = {c.name: c for c in self.cmds}

        # exported names
        for pattern in custom.export_features:
            feats = [pattern] if pattern in reg.features else []
            if pattern.endswith("*"):
                # Every version the registry defines, so the exports follow the headers' version.
                feats = [f for f in reg.features if f.startswith(pattern[:-1])]
            if not feats:
                raise GenError("custom: export-feature %s: no such feature" % pattern)
            for feat in feats:
                for n in reg.features[feat]:
                    reg.names[n].exported = True
        for ext in custom.export_extensions:
            if ext not in reg.extensions:
                raise GenError("custom: export-extension %s: no such enabled extension" % ext)
            for n in reg.extensions[ext]:
                reg.names[n].exported = True

        for n in custom.trampolines:
            c = self._custom_cmd(n, "trampoline")
        for n in custom.terminators:
            c = self._custom_cmd(n, "terminator")
            if not self.in_instance_table(c):
                raise GenError("custom: terminator %s: not an instance-table command" % n)
        for c in self.cmds:
            if c.kind == KIND_GLOBAL and c.name not in custom.trampolines:
                raise GenError("global command %s needs 'trampoline %s' in the custom table"
                               % (c.name, c.name))

        self.instance_cmds = [c for c in self.cmds if self.in_instance_table(c)]
        self.device_cmds = [c for c in self.cmds if c.kind == KIND_DEVICE]

        # command table: every included name; canonical order, each canonical followed by aliases
        self.entries = []
        for c in self.cmds:
            for n in c.included_names:
                self.entries.append((n, c))
        self.hash_size, self.hash_slots = build_hash_table([n for n, _ in self.entries])

    def _custom_cmd(self, name, what):
        if name in self.reg.alias_of:
            raise GenError("custom: %s %s: is an alias of %s; name the canonical command"
                           % (what, name, self.reg.alias_of[name]))
        if name not in self.by_name:
            raise GenError("custom: %s %s: no such command in the registry" % (what, name))
        return self.by_name[name]

    def _kind(self, cmd):
        first = cmd.params[0].type if cmd.params else None
        if first == "VkInstance":
            return KIND_INSTANCE
        if first == "VkPhysicalDevice":
            return KIND_PHYSDEV
        if first in DEVICE_FIRST_TYPES or self._device_child(first):
            return KIND_DEVICE
        return KIND_GLOBAL

    def _device_child(self, handle):
        """Whether `handle` is a dispatchable handle created from a VkDevice (VkQueue and
        VkCommandBuffer, and newer ones such as VkExternalComputeQueueNV): its first word is the
        device dispatch pointer, so its commands dispatch like the device's."""
        seen = set()
        while handle in self.reg.handle_parent and handle not in seen:
            seen.add(handle)
            handle = self.reg.handle_parent[handle]
            if handle == "VkDevice":
                return True
        return False

    def in_instance_table(self, c):
        return c.kind in (KIND_GLOBAL, KIND_INSTANCE, KIND_PHYSDEV) or c.name in INSTANCE_TABLE_EXTRA

    # ---- naming ----
    def exported(self, c):
        """Whether the canonical name of `c` is exported."""
        return c.name in self.reg.names and self.reg.names[c.name].exported

    def tramp_symbol(self, c):
        if c.name in self.custom.trampolines:
            return c.name if self.exported(c) else "vkl_tramp_" + c.name[2:]
        return c.name if self.exported(c) else "vkl_gen_tramp_" + c.name[2:]

    def term_symbol(self, c):
        """Terminator function in the instance terminator table, or None."""
        if c.name in self.custom.terminators:
            return "vkl_term_" + c.name[2:]
        if c.kind == KIND_PHYSDEV:
            return "vkl_gen_term_" + c.name[2:]
        if c.kind == KIND_INSTANCE and c.name != "vkGetInstanceProcAddr":
            return "vkl_gen_term_" + c.name[2:]
        return None

    def creates_or_destroys(self, c):
        if c.name.startswith("vkDestroy"):
            return True
        return any(p.pointer and not p.const and p.type in self.reg.handles for p in c.params[1:])


