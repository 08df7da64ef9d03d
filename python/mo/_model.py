"""mo.Model: a converted model held in memory (tools/held_model.hpp)."""
import collections
import os

import numpy as np

from . import _mo


class Port:
    """A model input or output: ``name`` (its first tensor name, else its node's name), every tensor
    name in ``names``, ``element_type`` in the IR's spelling ('f32'), ``dtype`` (numpy's, None where
    numpy has none), ``partial_shape`` in the IR's spelling ('[1,3,?,1..10]', '[...]' for a dynamic
    rank) and ``dims`` (ints for static dims, (min, max) pairs with max None when unbounded, or None
    for a dynamic rank)."""

    __slots__ = ("name", "names", "element_type", "dtype", "partial_shape", "dims")

    def __init__(self, d):
        self.name = d["name"]
        self.names = list(d["names"])
        self.element_type = d["type"]
        self.dtype = np.dtype(d["dtype"]) if d["dtype"] else None
        self.partial_shape = "[" + d["shape"] + "]"
        self.dims = [tuple(x) if isinstance(x, tuple) else x for x in d["dims"]] if d["dims"] is not None else None

    @property
    def is_static(self):
        return self.dims is not None and all(isinstance(d, int) for d in self.dims)

    def __repr__(self):
        return f"<Port '{self.name}': {self.element_type}{self.partial_shape}>"


class ValidationResult:
    """What Model.validate() found: ``ok``, one dict per output in ``outputs`` (name, ok, elements,
    mismatches, max_abs_error, max_rel_error, problem) and ``text``, the report `mo --validate`
    prints. True when every output is within tolerance."""

    def __init__(self, ok, text, outputs):
        self.ok, self.text, self.outputs = ok, text, outputs

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return self.text


class Model:
    """A model converted by mo.convert_model() or read by mo.read_model()."""

    def __init__(self, held):
        self._held = held

    @property
    def inputs(self):
        return [Port(d) for d in self._held.inputs]

    @property
    def outputs(self):
        return [Port(d) for d in self._held.outputs]

    def ops(self):
        """How many nodes of each op type the model has (Parameter, Constant and Result included),
        as the IR lists its layers; before f16 compression, which save() adds."""
        return collections.Counter(self._held.ops())

    def save(self, path, compress_to_fp16=None):
        """Writes the IR: ``path`` (.xml) and the .bin beside it, named after the file's stem, with
        f32 weights stored as f16 when ``compress_to_fp16`` (default: the value given to
        convert_model, True unless told; False for a model read from an IR). Missing directories
        are created; after a failure nothing is left. Returns the (xml, bin) paths."""
        path = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
        if path is None:
            raise TypeError("save takes a path (str or os.PathLike) ending in .xml")
        if compress_to_fp16 is None:
            compress_to_fp16 = self._held.compress_to_fp16
        if not isinstance(compress_to_fp16, (bool, np.bool_)):
            raise TypeError(f"compress_to_fp16 takes True or False, not {compress_to_fp16!r}")
        xml, bin_, _, _ = self._held.save(path, bool(compress_to_fp16))
        return xml, bin_

    def _input_arrays(self, inputs):
        ports = self.inputs
        if inputs is None:
            inputs = []
        if isinstance(inputs, dict):
            by_name = {}
            for key, value in inputs.items():
                matches = [i for i, p in enumerate(ports) if key == p.name or key in p.names]
                if not matches:
                    raise ValueError(f"the model has no input '{key}'; its inputs are: "
                                     + ", ".join(p.name for p in ports))
                if matches[0] in by_name:
                    raise ValueError(f"input '{ports[matches[0]].name}' is given twice")
                by_name[matches[0]] = value
            missing = [p.name for i, p in enumerate(ports) if i not in by_name]
            if missing:
                raise ValueError("no value for the inputs " + ", ".join(f"'{m}'" for m in missing))
            values = [by_name[i] for i in range(len(ports))]
        elif isinstance(inputs, (list, tuple)):
            values = list(inputs)
            if len(values) != len(ports):
                raise ValueError(f"the model has {len(ports)} inputs, {len(values)} were given")
        elif isinstance(inputs, np.ndarray) and len(ports) == 1:
            values = [inputs]
        else:
            raise TypeError("inputs are a dict by input name or a list by position, not " + type(inputs).__name__)
        arrays = []
        for port, value in zip(ports, values):
            if port.dtype is None:
                raise TypeError(f"input '{port.name}' is {port.element_type}, which numpy cannot hold")
            if isinstance(value, np.ndarray):
                if value.dtype != port.dtype:
                    raise TypeError(f"input '{port.name}' takes {port.dtype}, not {value.dtype}: "
                                    f"convert it with .astype(numpy.{port.dtype})")
                arrays.append(np.ascontiguousarray(value))
            else:
                arrays.append(np.ascontiguousarray(np.asarray(value, dtype=port.dtype)))
        return arrays

    def run(self, inputs=None):
        """Evaluates the model with mo's op semantics (the evaluator of mo-run, plugin ops
        included). ``inputs``: a dict by input name or a list by position of numpy arrays (of the
        input's dtype) or values numpy converts. Returns {output name: numpy array}; the arrays
        share the evaluator's memory (read-only where the model shares it). A stateful model keeps
        its variables from call to call until reset_state()."""
        outputs = self._held.run(self._input_arrays(inputs))
        return {p.name: a for p, a in zip(self.outputs, outputs)}

    def reset_state(self):
        """Sets a stateful model's variables back to their initial values."""
        self._held.reset_state()

    def validate(self, reference_outputs, rtol=1e-4, atol=5e-4, inputs=None):
        """Runs the model on ``inputs`` (default: the seeded random inputs of `mo-run` and
        `mo --validate`) and compares with ``reference_outputs`` (a dict by output name or a list
        in output order, e.g. computed by the source framework). An element fails when it is
        beyond both ``atol`` and ``rtol`` (docs/validation.md). Variables start fresh."""
        arrays = self._input_arrays(inputs) if inputs is not None else self._held.random_inputs(0)
        ports = self.outputs
        if isinstance(reference_outputs, dict):
            unknown = [k for k in reference_outputs if not any(k == p.name or k in p.names for p in ports)]
            if unknown:
                raise ValueError(f"the model has no output '{unknown[0]}'; its outputs are: "
                                 + ", ".join(p.name for p in ports))
            refs = []
            for p in ports:
                found = [v for k, v in reference_outputs.items() if k == p.name or k in p.names]
                if not found:
                    raise ValueError(f"no reference for output '{p.name}'")
                refs.append(found[0])
        elif isinstance(reference_outputs, (list, tuple)):
            refs = list(reference_outputs)
        else:
            raise TypeError("reference_outputs are a dict by output name or a list in output order")
        refs = [np.ascontiguousarray(np.asarray(r)) for r in refs]
        ok, text, outputs = self._held.validate(arrays, refs, float(rtol), float(atol))
        return ValidationResult(ok, text, outputs)

    def __repr__(self):
        ins = ", ".join(repr(p) for p in self.inputs)
        outs = ", ".join(repr(p) for p in self.outputs)
        return f"<mo.Model inputs=[{ins}] outputs=[{outs}]>"
