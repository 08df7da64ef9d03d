// Helpers shared by the shape-manipulation op files (shape_ops*.cpp): reading shape-like inputs
// (constant values or known bounds), axis checks that name the node, and byte-wise data
// movement that works for every element type of a whole number of bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "ops/op_utils.hpp"

namespace mo {

void register_reshape_ops(OpRegistry& r);  // Reshape, Squeeze, Unsqueeze, ShapeOf, Transpose, Concat, Split, VariadicSplit
void register_slice_ops(OpRegistry& r);    // StridedSlice, Slice, Pad, Tile, Broadcast, DepthToSpace, SpaceToDepth
void register_gather_ops(OpRegistry& r);   // Gather*, Scatter*, NonZero, OneHot, Range, ReverseSequence

namespace shape_ops {

[[noreturn]] void fail(const Node& n, const std::string& what, const std::string& hint = {});
// Normalises a possibly negative axis against `rank`, failing with the node's name.
int64_t axis_of(const Node& n, int64_t axis, int64_t rank);
// The values of an integer input when it is constant.
std::optional<std::vector<int64_t>> const_ints(const InferContext& c, size_t i);
// The single value of a scalar / one-element constant input.
std::optional<int64_t> const_scalar(const InferContext& c, size_t i);

// Partial values: what is known about each element of a small integer tensor (a 0-D or 1-D
// shape-like tensor) without its value being constant. Each element is an interval Dimension:
// static when the element is known. It follows ShapeOf (the dims of its input), and through
// Gather, Concat, Unsqueeze, Squeeze, Reshape, Convert, Slice and StridedSlice of such tensors;
// nullopt when nothing is known. Lets Reshape(x, Concat(Gather(ShapeOf(y)), [12, 64])) keep its
// static dims when y has a dynamic batch.
std::optional<std::vector<Dimension>> value_bounds(const OutPort& p);

// One element of a partially known shape-like tensor: its bounds and, when it is exactly dim
// `dim` of the tensor `dim_of` (it came from ShapeOf), that origin. Reshape uses the origin to
// cancel equal dynamic dims when it infers -1: Reshape(x, [ShapeOf(x)[0], -1]).
struct ValueElement {
    Dimension bounds;
    std::optional<OutPort> dim_of;
    size_t dim = 0;
};
std::optional<std::vector<ValueElement>> value_elements(const OutPort& p);
std::optional<std::vector<Dimension>> input_bounds(const InferContext& c, size_t i);
// A shape given by input i (Broadcast target_shape, ...): dims from the value or its bounds,
// else only the rank from the input's static length, else dynamic rank. Negative values fail.
PartialShape shape_from_input(const InferContext& c, size_t i);

// Byte width of one element; fails for sub-byte, string and dynamic types.
size_t element_bytes(ElementType t);
// Copies every element of `out_shape` (row-major) from in[base + sum(index[d] * in_strides[d])].
void strided_copy(std::byte* out, const std::byte* in, size_t esize, const Shape& out_shape,
                  const std::vector<int64_t>& in_strides, int64_t base);
// out[i] = in[map[i]] for elements of `esize` bytes.
void gather_elements_bytes(std::byte* out, const std::byte* in, size_t esize, const std::vector<int64_t>& map);

}  // namespace shape_ops
}  // namespace mo
