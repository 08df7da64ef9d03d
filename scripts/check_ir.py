#!/usr/bin/env python3
"""Strict structural check of an IR v11 model.xml + model.bin against OpenVINO's rules.

    check_ir.py --opsets ../shared/ir/opsets.json model.xml [more.xml ...]

Checks what OpenVINO's IR reader and op validation would reject: root element and version,
layer ids/names/types/versions (the type must exist in the named opset), required attributes
present and well-formed, one edge per declared input port, edge ports that exist, equal dims
and precisions at both ends of every edge, Const element_type/shape/offset/size inside the BIN.
Exit code 1 and one line per problem when anything is wrong.
"""
import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

TYPE_ALIASES = {"const": "Constant", "relu": "Relu", "prelu": "PRelu", "softmax": "Softmax"}
ELEMENT_BITS = {"boolean": 8, "bf16": 16, "f16": 16, "f32": 32, "f64": 64, "i4": 4, "i8": 8, "i16": 16,
                "i32": 32, "i64": 64, "u1": 1, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64}
PRECISIONS = {"BOOL": "boolean", "BF16": "bf16", "FP16": "f16", "FP32": "f32", "FP64": "f64", "I4": "i4",
              "I8": "i8", "I16": "i16", "I32": "i32", "I64": "i64", "BIN": "u1", "U1": "u1", "U4": "u4",
              "U8": "u8", "U16": "u16", "U32": "u32", "U64": "u64"}
INT = re.compile(r"^\s*-?\d+\s*$")
FLOAT = re.compile(r"^\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|nan)\s*$", re.I)


def well_formed(kind, value):
    if kind in ("int[]", "float[]", "size_t[]", "int64[]"):
        if value.strip() == "":
            return True
        pat = INT if kind != "float[]" else FLOAT
        return all(pat.match(f) for f in value.split(","))
    if kind in ("int", "int64", "size_t", "unsigned int"):
        return bool(INT.match(value))
    if kind in ("float", "double"):
        return bool(FLOAT.match(value))
    if kind == "bool" or kind == "boolean":
        return value.lower() in ("true", "false", "1", "0")
    return True


def check(xml_path, opsets):
    errs = []
    tree = ET.parse(xml_path)
    net = tree.getroot()
    if net.tag.lower() != "net" or net.get("version") not in ("10", "11"):
        return [f"root must be <net version=\"11\">, got <{net.tag} version={net.get('version')}>"]
    bin_path = os.path.splitext(xml_path)[0] + ".bin"
    bin_size = os.path.getsize(bin_path) if os.path.exists(bin_path) else -1
    layers = {}
    for layer in net.find("layers"):
        where = f"layer id={layer.get('id')} name={layer.get('name')!r}"
        for a in ("id", "name", "type", "version"):
            if layer.get(a) is None:
                errs.append(f"{where}: missing attribute {a}")
        if not INT.match(layer.get("id") or "x"):
            errs.append(f"{where}: id is not an unsigned integer")
            continue
        lid = int(layer.get("id"))
        if lid in layers:
            errs.append(f"{where}: duplicate id")
        ltype, version = layer.get("type", ""), layer.get("version", "")
        table = opsets["opsets"].get(version)
        canon = TYPE_ALIASES.get(ltype.lower(), ltype)
        key = None
        if table is None:
            errs.append(f"{where}: unknown opset {version!r}")
        else:
            match = [t for t in table if t.lower() == canon.lower()]
            if not match:
                errs.append(f"{where}: opset {version} has no op {ltype}")
            else:
                key = f"{match[0]}-{table[match[0]].replace('opset', '')}"
        data = layer.find("data")
        attrs = dict(data.attrib) if data is not None else {}
        spec = opsets["ops"].get(key) if key else None
        if spec and spec.get("spec_read", True) and spec.get("attributes") and canon not in ("Constant", "Parameter"):
            for a in spec["attributes"]:
                if a.get("required") and a["name"] not in attrs:
                    errs.append(f"{where} ({ltype}): required attribute {a['name']!r} missing")
                elif a["name"] in attrs and not well_formed(a.get("type", ""), attrs[a["name"]]):
                    errs.append(f"{where} ({ltype}): attribute {a['name']}={attrs[a['name']]!r} is not a valid {a['type']}")
        ins = [(p.get("id"), p) for p in (layer.find("input") if layer.find("input") is not None else [])]
        outs = [(p.get("id"), p) for p in (layer.find("output") if layer.find("output") is not None else [])]
        for pid, p in outs:
            if p.get("precision") is None:
                errs.append(f"{where}: output port {pid} has no precision")
            elif p.get("precision").upper() not in PRECISIONS and p.get("precision").lower() not in ELEMENT_BITS:
                errs.append(f"{where}: output port {pid} has unknown precision {p.get('precision')}")
        for pid, p in ins + outs:
            for d in p.findall("dim"):
                if not INT.match(d.text or "") or int(d.text) < -1:
                    errs.append(f"{where}: port {pid} has a bad dim {d.text!r}")
        if canon == "Constant":
            et, shape = attrs.get("element_type"), attrs.get("shape")
            if et is None or shape is None or "offset" not in attrs or "size" not in attrs:
                errs.append(f"{where}: Const needs element_type, shape, offset, size")
            else:
                n = 1
                for f in (shape.split(",") if shape.strip() else []):
                    n *= int(f)
                need = (n * ELEMENT_BITS.get(et, 0) + 7) // 8
                off, size = int(attrs["offset"]), int(attrs["size"])
                if size < need:
                    errs.append(f"{where}: Const size {size} < {need} needed by {et}[{shape}]")
                if bin_size < 0:
                    errs.append(f"{where}: {bin_path} is missing")
                elif off + size > bin_size:
                    errs.append(f"{where}: Const [{off}, {off + size}) outside the BIN ({bin_size} bytes)")
        if canon == "Parameter" and ("shape" not in attrs or "element_type" not in attrs):
            errs.append(f"{where}: Parameter needs shape and element_type")
        layers[lid] = dict(name=layer.get("name"), type=ltype, ins=dict(ins), outs=dict(outs),
                           in_order=[i for i, _ in ins], fed={})
    for e in net.find("edges"):
        try:
            fl, fp, tl, tp = (int(e.get(k)) for k in ("from-layer", "from-port", "to-layer", "to-port"))
        except (TypeError, ValueError):
            errs.append(f"edge {e.attrib}: non-integer or missing attribute")
            continue
        if fl not in layers or tl not in layers:
            errs.append(f"edge {e.attrib}: unknown layer")
            continue
        src, dst = layers[fl]["outs"].get(str(fp)), layers[tl]["ins"].get(str(tp))
        if src is None:
            errs.append(f"edge {e.attrib}: layer {layers[fl]['name']!r} has no output port {fp}")
            continue
        if dst is None:
            errs.append(f"edge {e.attrib}: layer {layers[tl]['name']!r} has no input port {tp}")
            continue
        if str(tp) in layers[tl]["fed"]:
            errs.append(f"edge {e.attrib}: input port {tp} of {layers[tl]['name']!r} has two edges")
        layers[tl]["fed"][str(tp)] = True
        sd = [d.text for d in src.findall("dim")]
        dd = [d.text for d in dst.findall("dim")]
        if sd != dd:
            errs.append(f"edge {layers[fl]['name']!r}:{fp} -> {layers[tl]['name']!r}:{tp}: dims {sd} != {dd}")
        sp, dp = src.get("precision"), dst.get("precision")
        if dp is not None and sp is not None and sp.upper() != dp.upper():
            errs.append(f"edge {layers[fl]['name']!r}:{fp} -> {layers[tl]['name']!r}:{tp}: precision {sp} != {dp}")
    for lid, l in layers.items():
        for pid in l["in_order"]:
            if pid not in l["fed"]:
                errs.append(f"layer {l['name']!r} ({l['type']}): input port {pid} has no edge")
    return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opsets", required=True)
    ap.add_argument("xml", nargs="+")
    a = ap.parse_args()
    opsets = json.load(open(a.opsets))
    bad = 0
    for x in a.xml:
        errs = check(x, opsets)
        print(f"{x}: {'OK' if not errs else str(len(errs)) + ' problems'}")
        for e in errs[:50]:
            print("  " + e)
        bad += bool(errs)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
