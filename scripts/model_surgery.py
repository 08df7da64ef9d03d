"""Field surgery for scripts/mutate_models.py: mutants that still parse but say something hostile.

Byte mutations mostly break a file's framing, so the loader refuses it before any extractor runs.
These mutations keep the framing and change what it says, the way a faulty exporter would:
  * protobuf (.onnx, .pb): the wire format is decoded into a field tree, one field is changed
    (an integer set to an extreme, a field removed or repeated, a string replaced by another
    string of the same field number from elsewhere in the model, e.g. an op type or an input
    name) and the tree is encoded again with correct lengths;
  * text formats (.prototxt, .pbtxt): a number set to an extreme, a line removed or repeated, a
    quoted string replaced by another of the file;
  * JSON (TF.js model.json): a value in the parsed document replaced, removed or repeated;
  * flatbuffers (.tflite): an aligned 32-bit scalar set to an extreme (offsets then usually fail
    the verifier; scalars such as an axis, a stride or a tensor index get through).
Only the standard library.
"""
import json
import random
import re

# Integers that break arithmetic: signs, zero, powers of two at the type boundaries.
EXTREMES = (0, 1, -1, 2, 3, 4, 7, 8, 255, 256, 65535, 2**31 - 1, 2**31, -2**31, 2**32, 2**40,
            2**62, 2**63 - 1, -2**63, -2)


def extreme(rng: random.Random, value=None) -> int:
    if value is not None and rng.random() < 0.3:
        return value + rng.choice((-1, 1, value, -2 * value))
    return rng.choice(EXTREMES)


# --- protobuf wire format ---------------------------------------------------------------------

def _varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ValueError
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, pos


def _encode_varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negatives as 10-byte two's complement, as protobuf writes int64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


class Field:
    __slots__ = ("number", "wire", "value")  # value: int, bytes, or list of Field (a message)

    def __init__(self, number, wire, value):
        self.number, self.wire, self.value = number, wire, value


def parse_message(buf: bytes, depth=0):
    """The fields of buf if it decodes as a protobuf message, else None."""
    fields, pos = [], 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1 or wire == 5:
            size = 8 if wire == 1 else 4
            if pos + size > len(buf):
                raise ValueError
            value, pos = buf[pos:pos + size], pos + size
        elif wire == 2:
            size, pos = _varint(buf, pos)
            if pos + size > len(buf):
                raise ValueError
            value, pos = buf[pos:pos + size], pos + size
            # Large blobs are tensor data: not worth decoding, and rarely a message.
            if depth < 64 and 0 < size < 65536:
                try:
                    value = parse_message(value, depth + 1)
                except ValueError:
                    pass
        else:
            raise ValueError
        fields.append(Field(number, wire, value))
    return fields


def encode_message(fields) -> bytes:
    out = bytearray()
    for f in fields:
        out += _encode_varint(f.number << 3 | f.wire)
        if f.wire == 0:
            out += _encode_varint(f.value)
        elif f.wire == 2:
            body = encode_message(f.value) if isinstance(f.value, list) else f.value
            out += _encode_varint(len(body)) + body
        else:
            out += f.value
    return bytes(out)


def _walk(fields, parent_list, found):
    for f in fields:
        found.append((parent_list, f))
        if isinstance(f.value, list):
            _walk(f.value, f.value, found)


def mutate_protobuf(data: bytes, rng: random.Random):
    """data with one field changed, or None if data is not a protobuf message."""
    try:
        root = parse_message(data)
    except ValueError:
        return None
    found = []
    _walk(root, root, found)
    if not found:
        return None
    parent, field = rng.choice(found)
    kind = rng.randrange(5)
    if kind == 0:  # an integer set to an extreme
        ints = [f for _, f in found if f.wire == 0]
        if ints:
            target = rng.choice(ints)
            target.value = extreme(rng, target.value)
    elif kind == 1:  # a field removed
        parent.remove(field)
    elif kind == 2:  # a field repeated (a repeated field grows, a singular one is overwritten)
        parent.insert(parent.index(field), Field(field.number, field.wire, field.value))
    elif kind == 3:  # a string replaced by another with the same field number
        strings = [f for _, f in found if f.wire == 2 and isinstance(f.value, bytes)]
        if strings:
            target = rng.choice(strings)
            same = [f for f in strings if f.number == target.number and f.value != target.value]
            target.value = rng.choice(same).value if same else target.value[:-1]
    else:  # a packed or fixed-width value changed in place
        blobs = [f for _, f in found if f.wire in (1, 2, 5) and isinstance(f.value, bytes) and f.value]
        if blobs:
            target = rng.choice(blobs)
            b = bytearray(target.value)
            if rng.random() < 0.5:
                b[rng.randrange(len(b))] = rng.choice((0, 0x7F, 0x80, 0xFF, 0x01))
            else:
                del b[rng.randrange(len(b)):]
            target.value = bytes(b)
    return encode_message(root)


# --- text formats -----------------------------------------------------------------------------

_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?![\w.])")
_QUOTED = re.compile(rb'"[^"\n]*"')


def mutate_text(data: bytes, rng: random.Random):
    """A protobuf text-format file with one number, line or string changed."""
    kind = rng.randrange(4)
    if kind == 0:
        numbers = list(_NUMBER.finditer(data))
        if numbers:
            m = rng.choice(numbers)
            return data[:m.start()] + str(extreme(rng, int(m.group()))).encode() + data[m.end():]
    if kind == 1 or kind == 2:
        lines = data.split(b"\n")
        i = rng.randrange(len(lines))
        if kind == 1:
            del lines[i]
        else:
            lines.insert(i, lines[i])
        return b"\n".join(lines)
    strings = list(_QUOTED.finditer(data))
    if len(strings) > 1:
        m = rng.choice(strings)
        return data[:m.start()] + rng.choice(strings).group() + data[m.end():]
    return None


# --- JSON -------------------------------------------------------------------------------------

def _json_slots(node, found):
    """Every (container, key) pair of a parsed JSON document."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        found.append((node, key))
        _json_slots(child, found)


def mutate_json(data: bytes, rng: random.Random):
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    found = []
    _json_slots(doc, found)
    if not found:
        return None
    container, key = rng.choice(found)
    value = container[key]
    kind = rng.randrange(4)
    if kind == 0:  # removed
        del container[key]
    elif kind == 1 and isinstance(container, list):  # repeated
        container.insert(key, value)
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and kind == 3:
        container[key] = extreme(rng, int(value))
    else:  # a value of another type: one from the document, or an empty or odd one
        others = [c[k] for c, k in found if type(c[k]) is not type(value)]
        container[key] = rng.choice(others) if others and kind == 2 else rng.choice(([], {}, None, -1, "x"))
    return json.dumps(doc).encode()


# --- flatbuffers ------------------------------------------------------------------------------

def mutate_scalar32(data: bytes, rng: random.Random):
    """A 4-byte-aligned little-endian int32 set to an extreme."""
    if len(data) < 8:
        return None
    b = bytearray(data)
    at = rng.randrange(len(b) // 4) * 4
    b[at:at + 4] = (extreme(rng) & 0xFFFFFFFF).to_bytes(4, "little")
    return bytes(b)


def surgery(name: str, data: bytes, rng: random.Random):
    """data with one structural change for the file's format, or None when it has none."""
    if name.endswith((".onnx", ".pb")):
        return mutate_protobuf(data, rng)
    if name.endswith((".prototxt", ".pbtxt")):
        return mutate_text(data, rng)
    if name.endswith(".json"):
        return mutate_json(data, rng)
    if name.endswith(".tflite"):
        return mutate_scalar32(data, rng)
    return None
