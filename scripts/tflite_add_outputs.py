#!/usr/bin/env python3
"""Copies a .tflite whose main subgraph also outputs the named tensors: TFLite's intermediate
values as references (scripts/tflite_outputs.js then writes them after the model's own outputs).

    python3 scripts/tflite_add_outputs.py IN.tflite OUT.tflite TENSOR_NAME ...
    python3 scripts/tflite_add_outputs.py IN.tflite --list     (operators with their tensors)

Flatbuffer offsets point forward, so the new outputs vector is appended at the end of the file
and the SubGraph's `outputs` field is pointed at it; nothing else moves. Field ids are those of
TFLite's schema.fbs (Model.subgraphs 2, SubGraph.tensors 0 / outputs 2 / operators 3,
Tensor.name 3, Operator.opcode_index 0 / inputs 1 / outputs 2, Model.operator_codes 1,
OperatorCode.custom_code 1 / builtin_code 3). Only the standard library.
"""
import struct
import sys


def u32(b, p):
    return struct.unpack_from('<I', b, p)[0]


def field(b, table, fid):
    """Position of field `fid` of the table at `table`, or None when absent."""
    vtable = table - struct.unpack_from('<i', b, table)[0]
    vsize = struct.unpack_from('<H', b, vtable)[0]
    if 4 + 2 * fid >= vsize:
        return None
    off = struct.unpack_from('<H', b, vtable + 4 + 2 * fid)[0]
    return table + off if off else None


def deref(b, pos):
    return pos + u32(b, pos)


def vector(b, table, fid):
    """(position of the length, element count) of a vector field, or (None, 0)."""
    pos = field(b, table, fid)
    if pos is None:
        return None, 0
    v = deref(b, pos)
    return v, u32(b, v)


def tables(b, table, fid):
    v, n = vector(b, table, fid)
    return [deref(b, v + 4 + 4 * i) for i in range(n)]


def ints(b, table, fid):
    v, n = vector(b, table, fid)
    return [struct.unpack_from('<i', b, v + 4 + 4 * i)[0] for i in range(n)]


def string(b, table, fid):
    pos = field(b, table, fid)
    if pos is None:
        return ''
    s = deref(b, pos)
    return bytes(b[s + 4:s + 4 + u32(b, s)]).decode()


def main():
    src = sys.argv[1]
    b = bytearray(open(src, 'rb').read())
    model = deref(b, 0)
    subgraph = tables(b, model, 2)[0]
    names = [string(b, t, 3) for t in tables(b, subgraph, 0)]
    if sys.argv[2] == '--list':
        codes = tables(b, model, 1)
        for i, op in enumerate(tables(b, subgraph, 3)):
            code = codes[struct.unpack_from('<I', b, field(b, op, 0))[0] if field(b, op, 0) else 0]
            builtin = struct.unpack_from('<i', b, field(b, code, 3))[0] if field(b, code, 3) else -1
            print(i, builtin, string(b, code, 1), [names[t] for t in ints(b, op, 1) if t >= 0], '->',
                  [names[t] for t in ints(b, op, 2)])
        return
    wanted = [names.index(n) for n in sys.argv[3:]]
    outputs = ints(b, subgraph, 2) + wanted
    outputs_field = field(b, subgraph, 2)
    while len(b) % 4:
        b.append(0)
    new = len(b)
    b += struct.pack('<I', len(outputs)) + b''.join(struct.pack('<i', t) for t in outputs)
    struct.pack_into('<I', b, outputs_field, new - outputs_field)
    open(sys.argv[2], 'wb').write(b)
    print(sys.argv[2] + ': outputs', [names[t] for t in outputs])


if __name__ == '__main__':
    main()
