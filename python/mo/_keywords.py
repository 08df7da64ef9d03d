"""convert_model's keywords as the `mo` command's flags.

Every keyword becomes the flag `mo` has for it, written the way `mo` reads it, and the native
half parses the flags with the command's own parser: the values are checked by the same code
and give the same messages (as ValueError), and the IR lists the same conversion parameters.
What Python can tell from a value's type alone (a dict where a number is wanted) is a TypeError.
"""
import numbers
import os

import numpy as np

# IR element type spellings (shared/ir) by every name a user may give: numpy's, ovc's, the IR's.
_TYPE_NAMES = {
    "bool": "boolean", "boolean": "boolean",
    "f16": "f16", "float16": "f16", "half": "f16",
    "bf16": "bf16", "bfloat16": "bf16",
    "f32": "f32", "float32": "f32", "float": "f32",
    "f64": "f64", "float64": "f64", "double": "f64",
    "i8": "i8", "int8": "i8", "i16": "i16", "int16": "i16",
    "i32": "i32", "int32": "i32", "i64": "i64", "int64": "i64",
    "u8": "u8", "uint8": "u8", "u16": "u16", "uint16": "u16",
    "u32": "u32", "uint32": "u32", "u64": "u64", "uint64": "u64",
}


def _type_name(value):
    """The IR spelling of an element type given as a str, a numpy dtype or a numpy scalar type."""
    name = value
    if not isinstance(value, str):
        try:
            name = np.dtype(value).name
        except TypeError:
            name = str(value)
    spelled = _TYPE_NAMES.get(name.lower()) if isinstance(name, str) else None
    if spelled is None:
        raise TypeError(f"input: '{value}' is not an element type (give a numpy dtype or a name such as 'f32')")
    return spelled


def _is_type(value):
    if isinstance(value, str):
        return value.lower() in _TYPE_NAMES
    if isinstance(value, (np.dtype, type)):
        try:
            return np.dtype(value).name in _TYPE_NAMES
        except TypeError:
            return False
    return False


def _dim(d, keyword):
    """One dimension in the CLI's spelling: 3, '?' (dynamic), '2..8' (interval)."""
    if isinstance(d, bool):
        raise TypeError(f"{keyword}: a dimension is an int, None, '?', 'a..b' or a (min, max) pair, not {d!r}")
    if d is None:
        return "?"
    if isinstance(d, numbers.Integral):
        return str(int(d))
    if isinstance(d, str):
        return d.strip()
    if isinstance(d, tuple) and len(d) == 2:
        lo, hi = d
        return f"{'' if lo is None else _dim(lo, keyword)}..{'' if hi is None else _dim(hi, keyword)}"
    raise TypeError(f"{keyword}: a dimension is an int, None, '?', 'a..b' or a (min, max) pair, not {d!r}")


def _is_dim(d):
    if isinstance(d, bool):
        return False
    if d is None or isinstance(d, numbers.Integral) or _is_dim_str(d):
        return True
    # an interval: (min, max), either bound None
    return isinstance(d, tuple) and len(d) == 2 and all(x is None or (isinstance(x, numbers.Integral) and
                                                                      not isinstance(x, bool)) for x in d)


def _is_shape(value):
    if isinstance(value, str):
        return value.strip().startswith(("[", "("))
    return isinstance(value, (list, tuple)) and all(_is_dim(d) for d in value)


def _is_dim_str(v):
    return isinstance(v, str) and (v.strip() == "?" or ".." in v or v.strip().lstrip("-").isdigit())


def _shape(value, keyword):
    """A shape in the CLI's spelling: [1,3,?,?]."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_dim(d, keyword) for d in value) + "]"
    raise TypeError(f"{keyword}: a shape is a list or tuple of dimensions, or a string like '[1,3,?,?]', "
                    f"not {type(value).__name__}")


def _path(value, keyword):
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError(f"{keyword} takes a path (str or os.PathLike), not {type(value).__name__}")


def _bool(value, keyword):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{keyword} takes True or False, not {value!r}")


def _one_input(item):
    """(name or None, shape or None, type or None) of one entry of `input`."""
    if isinstance(item, str) and not _is_shape(item) and not _is_type(item):
        return item, None, None
    if _is_type(item):
        return None, None, _type_name(item)
    if _is_shape(item) and not (isinstance(item, tuple) and any(_is_type(v) for v in item)):
        return None, item, None
    if isinstance(item, tuple):
        name = shape = type_ = None
        for part in item:
            if isinstance(part, str) and not _is_type(part) and not _is_shape(part) and name is None and shape is None:
                name = part
            elif _is_type(part) and type_ is None:
                type_ = _type_name(part)
            elif _is_shape(part) and shape is None:
                shape = part
            else:
                raise TypeError(f"input: cannot read {item!r} as (name, shape, type)")
        return name, shape, type_
    raise TypeError(f"input: cannot read {item!r}: give a name, a shape, a type, or a tuple of them")


def _inputs(value):
    """[(name, shape, type)] of ovc's forms: a name, a shape, a type, a tuple, a list of those, a dict."""
    if isinstance(value, dict):
        entries = []
        for name, spec in value.items():
            if not isinstance(name, str):
                raise TypeError(f"input: the keys of a dict are input names, not {name!r}")
            _, shape, type_ = _one_input(spec if isinstance(spec, tuple) and not _is_shape(spec) else (spec,)) \
                if spec is not None else (None, None, None)
            entries.append((name, shape, type_))
        return entries
    if isinstance(value, list) and not _is_shape(value):
        return [_one_input(item) for item in value]
    return [_one_input(value)]


def input_flags(value):
    """--input (names) or --input_shape (positions) for `input`, and the types asked per entry."""
    if isinstance(value, str):
        return ["--input", value], []
    entries = _inputs(value)
    types = [(i, name, t) for i, (name, _, t) in enumerate(entries) if t]
    named = [e for e in entries if e[0] is not None]
    if named and len(named) != len(entries):
        raise ValueError("input: give every input a name, or none (inputs without names are taken by position)")
    if named:
        return ["--input", ",".join(name + (_shape(shape, "input") if shape is not None else "")
                                    for name, shape, _ in entries)], types
    if all(shape is None for _, shape, _ in entries):
        return [], types  # types alone: checked against the model's inputs by position
    if any(shape is None for _, shape, _ in entries):
        raise ValueError("input: an input given by position needs a shape (or give the inputs names)")
    return ["--input_shape", ",".join(_shape(shape, "input") for _, shape, _ in entries)], types


def _values(v, keyword):
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return f"[{v!r}]"
    if isinstance(v, (list, tuple, np.ndarray)):
        items = list(np.asarray(v).reshape(-1)) if isinstance(v, np.ndarray) else list(v)
        for x in items:
            if not isinstance(x, numbers.Real) or isinstance(x, bool):
                raise TypeError(f"{keyword}: values are numbers, not {x!r}")
        return "[" + ",".join(repr(float(x)) if not isinstance(x, numbers.Integral) else str(int(x)) for x in items) + "]"
    raise TypeError(f"{keyword} takes a list of numbers, a dict of input name -> list, or a string, "
                    f"not {type(v).__name__}")


def channel_values(value, keyword):
    """--mean_values / --scale_values: [1,2,3], {name: [...]} or a list of lists by position."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ",".join(f"{_name(k, keyword)}{_values(v, keyword)}" for k, v in value.items())
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (list, tuple, np.ndarray)) for v in value):
        return ",".join(_values(v, keyword) for v in value)
    return _values(value, keyword)


def _name(k, keyword):
    if not isinstance(k, str):
        raise TypeError(f"{keyword}: the keys of a dict are input names, not {k!r}")
    return k


def _layout_word(v, keyword):
    if isinstance(v, str):
        return v
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(isinstance(x, str) for x in v):
        return f"{v[0]}->{v[1]}"
    raise TypeError(f"{keyword}: a layout is a string like 'nhwc' or 'nhwc->nchw', or a (source, target) pair, "
                    f"not {v!r}")


def layout(value, keyword="layout"):
    """--layout: 'nhwc->nchw' (every input), {name: 'nhwc->nchw'} or {name: ('nhwc', 'nchw')}."""
    if isinstance(value, dict):
        return ",".join(f"{_name(k, keyword)}({_layout_word(v, keyword)})" for k, v in value.items())
    return _layout_word(value, keyword)


def transform(value):
    """--transform: 'MakeStateful[...]', ('MakeStateful', {'param_res_names': {...}}) or a list of one."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, str):
        return value
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], dict):
        name, args = value
        if not args:
            return name
        parts = []
        for key, arg in args.items():
            if key != "param_res_names" or not isinstance(arg, dict):
                raise ValueError(f"transform: {name} takes param_res_names={{'input': 'output', ...}}, not {key}")
            parts.append("param_res_names={" + ",".join(f"'{a}':'{b}'" for a, b in arg.items()) + "}")
        return f"{name}[{';'.join(parts)}]"
    raise TypeError("transform takes 'MakeStateful', 'MakeStateful[param_res_names={...}]' or "
                    f"('MakeStateful', {{'param_res_names': {{...}}}}), not {value!r}")


def paths(value, keyword):
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    if isinstance(value, (list, tuple)):
        return [_path(v, keyword) for v in value]
    raise TypeError(f"{keyword} takes a path or a list of paths, not {type(value).__name__}")


def flags(input_model_path, *, input=None, output=None, input_shape=None, layout_=None, source_layout=None,
          target_layout=None, mean_values=None, scale_values=None, reverse_input_channels=False, batch=None,
          static_shape=False, compress_to_fp16=True, extensions=None, transformations_config=None,
          transform_=None, framework=None, disable_nhwc_to_nchw=False, log_level="WARNING"):
    """The `mo` command line for these keywords, and the input types asked for."""
    args = ["--input_model", input_model_path]
    types = []
    if input is not None:
        input_args, types = input_flags(input)
        args += input_args
    if input_shape is not None:
        if isinstance(input_shape, str):
            shapes = input_shape
        elif isinstance(input_shape, (list, tuple)) and input_shape and all(
                isinstance(s, (list, tuple, str)) and not _is_dim_str(s) for s in input_shape):
            shapes = ",".join(_shape(s, "input_shape") for s in input_shape)
        else:
            shapes = _shape(input_shape, "input_shape")
        args += ["--input_shape", shapes]
    if output is not None:
        if isinstance(output, str):
            args += ["--output", output]
        elif isinstance(output, (list, tuple)) and all(isinstance(o, str) for o in output):
            args += ["--output", ",".join(output)]
        else:
            raise TypeError(f"output takes a name or a list of names, not {output!r}")
    if layout_ is not None:
        args += ["--layout", layout(layout_)]
    for keyword, value in (("source_layout", source_layout), ("target_layout", target_layout)):
        if value is not None:
            if isinstance(value, dict):
                args += [f"--{keyword}", ",".join(f"{_name(k, keyword)}({_layout_word(v, keyword)})"
                                                  for k, v in value.items())]
            else:
                args += [f"--{keyword}", _layout_word(value, keyword)]
    if mean_values is not None:
        args += ["--mean_values", channel_values(mean_values, "mean_values")]
    if scale_values is not None:
        args += ["--scale_values", channel_values(scale_values, "scale_values")]
    if _bool(reverse_input_channels, "reverse_input_channels"):
        args.append("--reverse_input_channels")
    if batch is not None:
        if isinstance(batch, bool) or not isinstance(batch, numbers.Integral):
            raise TypeError(f"batch takes an int, not {batch!r}")
        args += ["--batch", str(int(batch))]
    if _bool(static_shape, "static_shape"):
        args.append("--static_shape")
    if not _bool(compress_to_fp16, "compress_to_fp16"):
        args.append("--compress_to_fp16=False")
    if _bool(disable_nhwc_to_nchw, "disable_nhwc_to_nchw"):
        args.append("--disable_nhwc_to_nchw")
    if extensions is not None:
        args += ["--extensions", ",".join(paths(extensions, "extensions"))]
    if transformations_config is not None:
        args += ["--transformations_config", _path(transformations_config, "transformations_config")]
    if transform_ is not None:
        args += ["--transform", transform(transform_)]
    if framework is not None:
        if not isinstance(framework, str):
            raise TypeError(f"framework takes a name ('onnx', 'tflite', 'tf'), not {framework!r}")
        args += ["--framework", framework]
    if log_level is not None:
        if not isinstance(log_level, str):
            raise TypeError(f"log_level takes 'ERROR', 'WARNING', 'INFO' or 'DEBUG', not {log_level!r}")
        if log_level != "WARNING":
            args += ["--log_level", log_level]
    return args, types
