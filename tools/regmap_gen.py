#!/usr/bin/env python3
"""Register maps: one YAML description per block (regmaps/*.yaml), several generated views.

    tools/regmap_gen.py [--out DIR] [--check]

Writes, for each device kind (switch, nic: the blocks that name it, by base address):
  DIR/sluice_regs_<device>.h   C99 header for firmware: offsets, masks, shifts, enums, resets, layout checksum
  DIR/sluice_regs_<device>.rdl SystemRDL 2.0 export
  DIR/<device>.md              Markdown register reference (committed as docs/registers/<device>.md)
and DIR/regmap_tables.cpp, the tables the model's register bank interprets (models/regs/regmap.h),
with the other views as text for `sluice regs`. CMake runs it into the build tree; the committed
copies (regmaps/generated/, docs/registers/) are checked by the test RegmapGen.CommittedViewsAreCurrent.
--check: regenerate into a temporary directory and fail if a committed view differs.
Needs Debian's python3-yaml and python3-jinja2.
"""
import argparse
import difflib
import os
import re
import sys
import tempfile

import jinja2
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGMAPS = os.path.join(ROOT, "regmaps")
ACCESS = {"rw", "ro", "wo", "r2c", "w1c", "w1s", "pulse", "lock"}
WRITABLE = {"rw", "wo", "w1c", "w1s", "pulse", "lock"}
UNITS = {"", "bytes", "ns", "Mbps", "count", "frames", "1/256", "1/65536"}
BINDS = {"param", "stat", "device", "const"}
DEVICES = ("switch", "nic")
FIELD_KEYS = {"name", "bits", "access", "reset", "bind", "unit", "enum", "action", "description"}


def fail(where, msg):
    sys.exit(f"regmap_gen: {where}: {msg}")


def parse_bits(where, bits):
    m = re.fullmatch(r"(\d+)(?::(\d+))?", str(bits))
    if not m:
        fail(where, f"bits '{bits}' is not 'MSB:LSB' or 'BIT'")
    msb = int(m.group(1))
    lsb = int(m.group(2)) if m.group(2) is not None else msb
    if lsb > msb or msb > 31:
        fail(where, f"bits '{bits}' out of order or beyond bit 31")
    return msb, lsb


def load_block(path):
    with open(path) as f:
        b = yaml.safe_load(f)
    where = os.path.basename(path)
    for key in ("block", "device", "title", "description", "base", "size", "registers"):
        if key not in b:
            fail(where, f"missing '{key}'")
    if b["device"] not in DEVICES:
        fail(where, f"device '{b['device']}' is not one of {DEVICES}")
    inst = b.get("instances") or {"name": "", "count": 1, "stride": b["size"]}
    block = {
        "name": b["block"], "device": b["device"], "title": b["title"], "description": b["description"].strip(),
        "base": b["base"], "size": b["size"], "inst_name": inst["name"], "inst_count": inst["count"],
        "inst_stride": inst["stride"], "registers": [],
    }
    names = set()
    for r in b["registers"]:
        rwhere = f"{where}: {r.get('name', '?')}"
        access = r.get("access")
        if access not in ACCESS:
            fail(rwhere, f"access '{access}' is not one of {sorted(ACCESS)}")
        arr = r.get("array") or {"name": "", "count": 1, "stride": 4}
        halves = [("_LO", 0, "lo"), ("_HI", 4, "hi")] if r.get("counter64") else [("", 0, "")]
        for suffix, delta, half in halves:
            reg = {
                "name": r["name"] + suffix, "base_name": r["name"], "offset": r["offset"] + delta,
                "access": access, "lockable": bool(r.get("lockable")), "alias": r.get("alias", ""),
                "description": r["description"] + (f" (bits {32 if half == 'hi' else 0}..{63 if half == 'hi' else 31} of the 64-bit counter)" if half else ""),
                "arr_name": arr["name"], "arr_count": arr["count"], "arr_stride": arr["stride"], "half": half,
                "fields": [],
            }
            if reg["name"] in names:
                fail(rwhere, "register name used twice")
            names.add(reg["name"])
            used = 0
            for fd in r["fields"]:
                fwhere = f"{rwhere}.{fd['name']}"
                unknown = set(fd) - FIELD_KEYS
                if unknown:
                    fail(fwhere, f"unknown keys {sorted(unknown)} (quote a description that holds a comma)")
                msb, lsb = (31, 0) if half else parse_bits(fwhere, fd.get("bits"))
                mask = ((1 << (msb - lsb + 1)) - 1) << lsb
                if used & mask:
                    fail(fwhere, "overlaps another field")
                used |= mask
                facc = fd.get("access", access)
                if facc not in ACCESS:
                    fail(fwhere, f"access '{facc}' unknown")
                bind = fd.get("bind", "")
                kind, _, target = bind.partition(":")
                if bind and kind not in BINDS:
                    fail(fwhere, f"bind '{bind}' is not param:, stat:, device: or const:")
                if kind == "param" and facc == "rw" and not target:
                    fail(fwhere, "empty binding")
                unit = str(fd.get("unit", ""))
                if unit not in UNITS:
                    fail(fwhere, f"unit '{unit}' is not one of {sorted(UNITS)}")
                if kind == "stat" and facc in ("rw", "wo", "w1s", "lock"):
                    fail(fwhere, f"a statistic cannot be written ({facc})")
                enum = fd.get("enum") or {}
                reg["fields"].append({
                    "name": fd["name"], "lsb": lsb, "width": msb - lsb + 1, "mask": mask, "access": facc,
                    "reset": int(fd.get("reset", 0)), "bind_kind": kind or "none", "bind": target,
                    "unit": unit, "enum": [(k, int(v)) for k, v in enum.items()], "action": fd.get("action", ""),
                    "description": fd["description"], "half": half,
                })
            block["registers"].append(reg)
    regs = sorted(block["registers"], key=lambda x: x["offset"])
    spans = []
    for reg in regs:
        last = reg["offset"] + (reg["arr_count"] - 1) * reg["arr_stride"] + 3
        if last >= block["size"]:
            fail(f"{where}: {reg['name']}", f"ends at {last:#x}, beyond the block's size {block['size']:#x}")
        spans.append((reg["offset"], last, reg))
    for reg in regs:
        for i in range(reg["arr_count"]):
            a = reg["offset"] + i * reg["arr_stride"]
            for lo, hi, other in spans:
                if other is not reg and lo <= a <= hi and (a - other["offset"]) % other["arr_stride"] == 0 \
                        and (a - other["offset"]) // other["arr_stride"] < other["arr_count"]:
                    fail(f"{where}: {reg['name']}", f"element {i} at {a:#x} overlaps {other['name']}")
    index = {r["name"]: i for i, r in enumerate(block["registers"])}
    for r in block["registers"]:
        if r["alias"] and r["alias"] not in index:
            fail(f"{where}: {r['name']}", f"alias '{r['alias']}' is no register of the block")
        r["alias_index"] = index[r["alias"]] if r["alias"] else -1
    if block["inst_stride"] < block["size"] and block["inst_count"] > 1:
        fail(where, "instance stride smaller than the block's size")
    return block


def fnv1a(text):
    h = 0x811C9DC5
    for byte in text.encode():
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def layout_text(blocks):
    lines = []
    for b in blocks:
        lines.append(f"{b['name']} {b['base']:#x} {b['size']:#x} {b['inst_count']} {b['inst_stride']:#x}")
        for r in b["registers"]:
            lines.append(f" {r['name']} {r['offset']:#x} {r['arr_count']} {r['arr_stride']:#x} {r['access']}")
            for f in r["fields"]:
                lines.append(f"  {f['name']} {f['lsb']} {f['width']} {f['access']} {f['reset']}")
    return "\n".join(lines) + "\n"


def c_ident(text):
    return re.sub(r"[^A-Za-z0-9]", "_", text).upper()


def load_all():
    files = sorted(f for f in os.listdir(REGMAPS) if f.endswith(".yaml"))
    blocks = [load_block(os.path.join(REGMAPS, f)) for f in files]
    devices = []
    for d in DEVICES:
        bs = sorted((b for b in blocks if b["device"] == d), key=lambda b: b["base"])
        for a, b in zip(bs, bs[1:]):
            if a["base"] + a["inst_count"] * a["inst_stride"] > b["base"]:
                fail(d, f"blocks {a['name']} and {b['name']} overlap")
        for b in bs:
            b["layout"] = fnv1a(layout_text([b]))
        devices.append({"name": d, "blocks": bs, "layout": fnv1a(layout_text(bs))})
    return devices


def render_all(out_dir):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(REGMAPS, "templates")),
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["hex"] = lambda v, w=0: f"0x{v:0{w}x}"
    env.filters["c_ident"] = c_ident
    env.filters["cstr"] = lambda s: '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'
    env.filters["md"] = lambda s: str(s).replace("|", "\\|")
    env.filters["rdl"] = lambda s: str(s).replace("\\", "\\\\").replace('"', '\\"')
    env.globals["writable"] = WRITABLE
    devices = load_all()
    os.makedirs(out_dir, exist_ok=True)
    written = {}
    texts = {}
    for d in devices:
        for name, template in ((f"sluice_regs_{d['name']}.h", "c_header.h.j2"),
                               (f"sluice_regs_{d['name']}.rdl", "systemrdl.rdl.j2"),
                               (f"{d['name']}.md", "reference.md.j2")):
            written[name] = env.get_template(template).render(device=d)
            texts[(d["name"], os.path.splitext(name)[1][1:])] = written[name]
    written["regmap_tables.cpp"] = env.get_template("tables.cpp.j2").render(devices=devices, texts=texts)
    for name, text in written.items():
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(text)
    return written


# Where each generated view is committed in the repository.
def committed_path(name):
    if name.endswith(".md"):
        return os.path.join(ROOT, "docs", "registers", name)
    return os.path.join(ROOT, "regmaps", "generated", name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="directory to write the views into")
    ap.add_argument("--check", action="store_true", help="fail if a committed view differs from a regeneration")
    ap.add_argument("--commit", action="store_true", help="write the views to their committed places")
    args = ap.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            written = render_all(tmp)
            stale = []
            for name, text in sorted(written.items()):
                path = committed_path(name)
                old = open(path).read() if os.path.exists(path) else ""
                if old != text:
                    stale.append(os.path.relpath(path, ROOT))
                    sys.stderr.writelines(list(difflib.unified_diff(
                        old.splitlines(True), text.splitlines(True), path, "regenerated"))[:40])
            if stale:
                sys.exit("regmap_gen: committed views differ from regmaps/*.yaml: " + ", ".join(stale) +
                         " (run tools/regmap_gen.py --commit)")
        return
    if args.commit:
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in render_all(tmp).items():
                path = committed_path(name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
        return
    if not args.out:
        ap.error("give --out DIR, --check or --commit")
    render_all(args.out)


if __name__ == "__main__":
    main()
