"""mo from Python: convert ONNX, TFLite and TensorFlow models to OpenVINO IR v11, run and save them.

    import mo
    model = mo.convert_model("model.onnx", input=("x", [1, 3, 224, 224]))
    print(model.inputs, model.outputs, model.ops())
    outputs = model.run({"x": image})
    mo.save_model(model, "out/model.xml")

The keywords are ovc's where ovc has them (openvino.convert_model) and Model Optimizer's
otherwise; docs/python.md lists them side by side. A conversion gives the same IR bytes as the
`mo` command with the same flags.
"""
import os
import tempfile

from . import _keywords, _mo
from ._errors import ConversionError
from ._model import Model, Port, ValidationResult

__all__ = ["convert_model", "save_model", "read_model", "Model", "Port", "ValidationResult", "ConversionError"]


def _model_bytes(input_model):
    """The bytes of a model given in memory and a label for the IR's conversion parameters."""
    if isinstance(input_model, (bytes, bytearray, memoryview)):
        return bytes(input_model), "<bytes>"
    if type(input_model).__name__ == "ModelProto" and hasattr(input_model, "SerializeToString"):
        return input_model.SerializeToString(), "<onnx.ModelProto>"
    return None, None


def convert_model(input_model, *, input=None, output=None, input_shape=None, layout=None, source_layout=None,
                  target_layout=None, mean_values=None, scale_values=None, reverse_input_channels=False,
                  batch=None, static_shape=False, compress_to_fp16=True, extensions=None, extension=None,
                  transformations_config=None, transform=None, framework=None, disable_nhwc_to_nchw=False,
                  base_dir=None, log_level="WARNING"):
    """Converts a model as `mo` does, without writing it: returns a mo.Model to inspect, run and save.

    input_model: a path (str or os.PathLike); bytes holding an ONNX or TFLite file; or an
    onnx.ModelProto. ONNX external data is found next to the file, or in ``base_dir``.
    The other keywords are the `mo` command's flags (docs/python.md). Raises mo.ConversionError
    for a model mo cannot convert, TypeError / ValueError for bad keywords.
    """
    if extension is not None:
        if extensions is not None:
            raise TypeError("give extensions or ovc's extension, not both")
        extensions = extension
    data, label = _model_bytes(input_model)
    if data is None and not isinstance(input_model, (str, os.PathLike)):
        raise TypeError("input_model takes a path (str or os.PathLike), bytes holding an ONNX or TFLite model, "
                        f"or an onnx.ModelProto, not {type(input_model).__name__}")
    base = "" if base_dir is None else _keywords._path(base_dir, "base_dir")
    with tempfile.TemporaryDirectory(prefix="mo-") as tmp:
        if data is not None:
            # TFLite files carry the identifier "TFL3" at byte 4; anything else is read as ONNX.
            path = os.path.join(tmp, "model.tflite" if data[4:8] == b"TFL3" else "model.onnx")
            with open(path, "wb") as f:
                f.write(data)
        else:
            path = os.fspath(input_model)
        args, types = _keywords.flags(
            path, input=input, output=output, input_shape=input_shape, layout_=layout, source_layout=source_layout,
            target_layout=target_layout, mean_values=mean_values, scale_values=scale_values,
            reverse_input_channels=reverse_input_channels, batch=batch, static_shape=static_shape,
            compress_to_fp16=compress_to_fp16, extensions=extensions, transformations_config=transformations_config,
            transform_=transform, framework=framework, disable_nhwc_to_nchw=disable_nhwc_to_nchw,
            log_level=log_level)
        # The weights stay mapped from the staged file, which may go once the model holds them.
        try:
            model = Model(_mo.convert(args, base, label or ""))
        except ConversionError as e:
            if data is None:
                raise
            # Name the model as the caller gave it, not by the staged file's passing name.
            raise ConversionError(*(part.replace(path, label) for part in (str(e), e.what, e.where, e.hint))) from None
    _check_input_types(model, types)
    return model


def _check_input_types(model, types):
    """ovc's (name, shape, type): mo keeps each input's type from the source model, so a type given
    must be that one."""
    ports = model.inputs
    for position, name, type_ in types:
        port = next((p for p in ports if name == p.name or name in p.names), None) if name is not None else \
            (ports[position] if position < len(ports) else None)
        if port is not None and port.element_type != type_:
            what = f"the model takes {port.element_type}, and mo does not change an input's type (asked: {type_})"
            where, hint = f"input '{port.name}'", "leave the type out, or give the model's own"
            raise ConversionError(f"{where}: {what}\n  hint: {hint}", what, where, hint)


def save_model(model, output_model, compress_to_fp16=None):
    """Writes ``model`` as ``output_model`` (.xml) and the .bin beside it, as `mo` writes them
    (ovc's openvino.save_model). ``compress_to_fp16``: f32 weights stored as f16 (default: the
    value given to convert_model, True unless told). Returns the (xml, bin) paths."""
    if not isinstance(model, Model):
        raise TypeError(f"save_model takes a mo.Model, not {type(model).__name__}")
    return model.save(output_model, compress_to_fp16)


def read_model(model, extensions=None):
    """Reads an IR (model.xml and the model.bin beside it) through mo's strict IR reader; the
    ops of plugins in ``extensions`` are known to it (ovc's openvino.Core.read_model)."""
    path = _keywords._path(model, "read_model")
    exts = [] if extensions is None else _keywords.paths(extensions, "extensions")
    return Model(_mo.read_model(path, exts))
