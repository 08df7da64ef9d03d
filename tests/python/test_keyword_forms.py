"""ovc's forms of each keyword, written as the `mo` flags they stand for (worked by hand from
ovc's documented forms: openvino/tools/ovc/convert.py's docstring of `input`)."""
import numpy as np
import pytest

from mo import _keywords

CASES = [
    ("x", ["--input", "x"]),
    (["x", "y"], ["--input", "x,y"]),
    ([1, 3, 224, 224], ["--input_shape", "[1,3,224,224]"]),
    ((1, 3, 224, 224), ["--input_shape", "[1,3,224,224]"]),
    ([-1, 3, None, "?"], ["--input_shape", "[-1,3,?,?]"]),
    ([(1, 8), 3, (2, None), "4..6"], ["--input_shape", "[1..8,3,2..,4..6]"]),
    ([[1, 3], [1, 10]], ["--input_shape", "[1,3],[1,10]"]),
    (("x", [1, 3]), ["--input", "x[1,3]"]),
    (("x", [1, 3], np.float32), ["--input", "x[1,3]"]),
    (("x", np.int64), ["--input", "x"]),
    ([("x", [1, 3]), ("y", [2])], ["--input", "x[1,3],y[2]"]),
    ([("x", [1, (2, 5)]), "y"], ["--input", "x[1,2..5],y"]),
    ({"x": [1, 3], "y": ([2], "i32"), "z": np.float32}, ["--input", "x[1,3],y[2],z"]),
    ([([1, 2, 3], np.float32), ([4], np.int32)], ["--input_shape", "[1,2,3],[4]"]),
    ("x[1,3,?,?],y->[1 2]", ["--input", "x[1,3,?,?],y->[1 2]"]),
]


@pytest.mark.parametrize("value,flags", CASES, ids=[repr(c[0]) for c in CASES])
def test_input_forms(value, flags):
    assert _keywords.input_flags(value)[0] == flags


def test_input_types_are_kept_for_the_check_after_conversion():
    _, types = _keywords.input_flags({"x": [1, 3], "y": ([2], "i32"), "z": np.float32})
    assert types == [(1, "y", "i32"), (2, "z", "f32")]
    _, types = _keywords.input_flags([np.float16, "int8"])
    assert types == [(0, None, "f16"), (1, None, "i8")]


def test_mixed_named_and_positional_inputs_are_refused():
    with pytest.raises(ValueError, match="every input a name, or none"):
        _keywords.input_flags([("x", [1]), [2]])
    with pytest.raises(ValueError, match="needs a shape"):
        _keywords.input_flags([[1, 3], np.float32])


@pytest.mark.parametrize("keyword,value,flag", [
    ("mean_values", [123, 117.5, 104], "[123,117.5,104]"),
    ("mean_values", {"a": [1, 2], "b": [3]}, "a[1,2],b[3]"),
    ("mean_values", [[1, 2], [3]], "[1,2],[3]"),
    ("scale_values", 255, "[255]"),
    ("scale_values", np.array([58.0, 57.0]), "[58.0,57.0]"),
])
def test_channel_values(keyword, value, flag):
    assert _keywords.channel_values(value, keyword) == flag


@pytest.mark.parametrize("value,flag", [
    ("nhwc->nchw", "nhwc->nchw"), (("nhwc", "nchw"), "nhwc->nchw"),
    ({"x": "nchw", "y": ("nhwc", "nchw")}, "x(nchw),y(nhwc->nchw)"),
])
def test_layouts(value, flag):
    assert _keywords.layout(value) == flag


def test_transform_forms():
    assert _keywords.transform("MakeStateful") == "MakeStateful"
    assert _keywords.transform(("MakeStateful", {})) == "MakeStateful"
    assert _keywords.transform([("MakeStateful", {"param_res_names": {"a": "b", "c": "d"}})]) == \
        "MakeStateful[param_res_names={'a':'b','c':'d'}]"
