#!/usr/bin/python3
"""Writes interpolate_pillow_cases.txt: Pillow 9.4 resizes that Interpolate-11's
bilinear_pillow / bicubic_pillow modes must reproduce.

Run from this directory with /usr/bin/python3 (Pillow 9.4, numpy). Float cases use mode "F"
images (Pillow resamples them with double weights and a float32 intermediate image). Tensors
with more than two dims are resized one H x W plane at a time, the way OpenVINO treats the
non-resized axes.

u8 differs slightly from Pillow's "L" mode: Pillow quantises the weights to 22-bit fixed point,
OpenVINO keeps them in double and rounds each pass half away from zero, then clips to 0..255,
so an exact .5 can round the other way. u8 cases therefore give `output` computed the
OpenVINO way (Pillow "F" resizes of one axis at a time, each rounded and clipped here) and
`pillow_l_output`, Pillow's own "L" result, which must agree within 1.

Pillow's bicubic uses a = -0.5, so the test sets cube_coeff = -0.5; Pillow always antialiases
and samples pixel centres, which is why OpenVINO ignores `antialias` and
`coordinate_transformation_mode` in these modes.
"""
import numpy as np
from PIL import Image

FILTERS = {"bilinear_pillow": Image.BILINEAR, "bicubic_pillow": Image.BICUBIC}


def resize_plane(plane, size_hw, mode, dtype):
    img = Image.fromarray(plane, mode="L" if dtype == "u8" else "F")
    out = img.resize((size_hw[1], size_hw[0]), FILTERS[mode])
    return np.asarray(out)


def round_clip_u8(x):
    return np.clip(np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5)), 0, 255)


def resize_plane_u8_openvino(plane, size_hw, mode):
    """Width pass, then height pass (each skipped when its size is unchanged, as Pillow does)."""
    x = plane.astype(np.float32)
    h, w = plane.shape
    if size_hw[1] != w:
        x = round_clip_u8(np.asarray(Image.fromarray(x, mode="F").resize((size_hw[1], h), FILTERS[mode])))
    if size_hw[0] != h:
        x = round_clip_u8(np.asarray(Image.fromarray(x.astype(np.float32), mode="F").resize(
            (size_hw[1], size_hw[0]), FILTERS[mode])))
    return x.astype(np.uint8)


def case_values(mode, padded, h_axis, w_axis, out_hw, resize=None):
    dtype = "u8" if padded.dtype == np.uint8 else "f32"
    resize = resize or (lambda p: resize_plane(p, out_hw, mode, dtype))
    # Move H, W last so every leading index is one plane.
    moved = np.moveaxis(padded, (h_axis, w_axis), (-2, -1))
    planes = moved.reshape((-1,) + moved.shape[-2:])
    out_planes = np.stack([resize(np.ascontiguousarray(p)) for p in planes])
    return np.moveaxis(out_planes.reshape(moved.shape[:-2] + tuple(out_hw)), (-2, -1), (h_axis, w_axis))


def case(name, mode, dtype, data, axes, calc, target, pads_begin=None, pads_end=None, out_hw=None):
    """`axes` are the (H, W) axes passed to Interpolate, or None for no axes input (rank 2)."""
    rank = data.ndim
    pb = pads_begin or [0] * rank
    pe = pads_end or [0] * rank
    padded = np.pad(data, list(zip(pb, pe)))
    h_axis, w_axis = axes if axes is not None else (0, 1)
    if dtype == "u8":
        out = case_values(mode, padded, h_axis, w_axis, out_hw, lambda p: resize_plane_u8_openvino(p, out_hw, mode))
        pillow_l = case_values(mode, padded, h_axis, w_axis, out_hw)
    else:
        out = case_values(mode, padded, h_axis, w_axis, out_hw)
    fmt = (lambda v: str(int(v))) if dtype == "u8" else (lambda v: str(np.float32(v)))  # shortest round-trip text
    note = []
    if dtype == "u8":
        # The same resize on a float image shows whether clipping to 0..255 is exercised.
        wide = case_values(mode, padded.astype(np.float32), h_axis, w_axis, out_hw)
        note = ["# float result range %.3f .. %.3f" % (wide.min(), wide.max())]
    lines = note + [
        "case " + name,
        "mode " + mode,
        "type " + dtype,
        "shape " + " ".join(map(str, data.shape)),
        "axes " + ("none" if axes is None else " ".join(map(str, axes))),
        "calc " + calc,
        "target " + " ".join(map(str, target)),
        "pads_begin " + " ".join(map(str, pb)),
        "pads_end " + " ".join(map(str, pe)),
        "input " + " ".join(fmt(v) for v in data.ravel()),
        "output_shape " + " ".join(map(str, out.shape)),
        "output " + " ".join(fmt(v) for v in out.ravel()),
    ]
    if dtype == "u8":
        lines.append("pillow_l_output " + " ".join(fmt(v) for v in pillow_l.ravel()))
    lines.append("")
    return "\n".join(lines)


def main():
    rng = np.random.default_rng(20261123)

    def f32(*shape):
        # Multiples of 1/8 so the input prints exactly.
        return (rng.integers(-40, 41, size=shape) / 8.0).astype(np.float32)

    def u8(*shape):
        return rng.integers(0, 256, size=shape).astype(np.uint8)

    step = np.zeros((5, 5), np.uint8)
    step[:2, :3] = 255
    blocks = [
        case("bilinear_up", "bilinear_pillow", "f32", f32(1, 1, 3, 4), (2, 3), "sizes", [5, 7], out_hw=(5, 7)),
        case("bilinear_down", "bilinear_pillow", "f32", f32(1, 1, 7, 9), (2, 3), "sizes", [3, 4], out_hw=(3, 4)),
        case("bicubic_up", "bicubic_pillow", "f32", f32(1, 1, 3, 4), (2, 3), "sizes", [8, 5], out_hw=(8, 5)),
        case("bicubic_down", "bicubic_pillow", "f32", f32(1, 1, 9, 7), (2, 3), "sizes", [4, 3], out_hw=(4, 3)),
        # Scales 0.5 and 2: H 6 -> 3, W 5 -> 10; two channels are two independent planes.
        case("bicubic_scales_mixed", "bicubic_pillow", "f32", f32(1, 2, 6, 5), (2, 3), "scales", [0.5, 2.0],
             out_hw=(3, 10)),
        # NHWC: H, W are axes 1, 2 and the channels are the innermost axis.
        case("bilinear_nhwc", "bilinear_pillow", "f32", f32(1, 5, 6, 2), (1, 2), "sizes", [3, 8], out_hw=(3, 8)),
        # Zero padding before resizing: 4x4 padded to 5x6.
        case("bilinear_pads", "bilinear_pillow", "f32", f32(1, 1, 4, 4), (2, 3), "sizes", [3, 4],
             pads_begin=[0, 0, 1, 0], pads_end=[0, 0, 0, 2], out_hw=(3, 4)),
        # Rank 2 without an axes input: the default axes are [0, 1].
        case("bicubic_rank2_default_axes", "bicubic_pillow", "f32", f32(5, 4), None, "sizes", [3, 6], out_hw=(3, 6)),
        case("bilinear_u8_down", "bilinear_pillow", "u8", u8(1, 1, 8, 10), (2, 3), "sizes", [3, 4], out_hw=(3, 4)),
        case("bilinear_u8_up", "bilinear_pillow", "u8", u8(1, 1, 3, 4), (2, 3), "sizes", [7, 6], out_hw=(7, 6)),
        # A 0/255 step: bicubic overshoots (see the note in the block), so both passes round and clip.
        case("bicubic_u8_step", "bicubic_pillow", "u8", step.reshape(1, 1, 5, 5), (2, 3), "sizes", [8, 9],
             out_hw=(8, 9)),
        case("bicubic_u8_down", "bicubic_pillow", "u8", u8(1, 1, 9, 8), (2, 3), "sizes", [4, 5], out_hw=(4, 5)),
    ]
    with open("interpolate_pillow_cases.txt", "w") as f:
        f.write("# Generated by make_interpolate_pillow_fixtures.py (Pillow %s); do not edit.\n\n"
                % Image.__version__)
        f.write("\n".join(blocks))


if __name__ == "__main__":
    main()
