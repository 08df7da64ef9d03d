#!/usr/bin/env python3
"""Writes loaders/tflite/tflite_schema.fbs: the subset of TensorFlow Lite's schema.fbs mo reads.

    python3 scripts/make_tflite_schema.py loaders/tflite/tflite_schema.fbs

The facts carried over from the published schema (schema version 3) are the BuiltinOperator
values, the order of the BuiltinOptions union (its type ids) and each table's field order (its
field ids); the asserts below pin the ones mo depends on. Option tables mo reads keep all their
fields; the others are empty tables, which the verifier still checks.
"""
builtin_ops = """ADD AVERAGE_POOL_2D CONCATENATION CONV_2D DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE EMBEDDING_LOOKUP FLOOR FULLY_CONNECTED
HASHTABLE_LOOKUP L2_NORMALIZATION L2_POOL_2D LOCAL_RESPONSE_NORMALIZATION LOGISTIC LSH_PROJECTION LSTM MAX_POOL_2D MUL RELU
RELU_N1_TO_1 RELU6 RESHAPE RESIZE_BILINEAR RNN SOFTMAX SPACE_TO_DEPTH SVDF TANH CONCAT_EMBEDDINGS
SKIP_GRAM CALL CUSTOM EMBEDDING_LOOKUP_SPARSE PAD UNIDIRECTIONAL_SEQUENCE_RNN GATHER BATCH_TO_SPACE_ND SPACE_TO_BATCH_ND TRANSPOSE
MEAN SUB DIV SQUEEZE UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE BIDIRECTIONAL_SEQUENCE_RNN EXP TOPK_V2 SPLIT
LOG_SOFTMAX DELEGATE BIDIRECTIONAL_SEQUENCE_LSTM CAST PRELU MAXIMUM ARG_MAX MINIMUM LESS NEG
PADV2 GREATER GREATER_EQUAL LESS_EQUAL SELECT SLICE SIN TRANSPOSE_CONV SPARSE_TO_DENSE TILE
EXPAND_DIMS EQUAL NOT_EQUAL LOG SUM SQRT RSQRT SHAPE POW ARG_MIN
FAKE_QUANT REDUCE_PROD REDUCE_MAX PACK LOGICAL_OR ONE_HOT LOGICAL_AND LOGICAL_NOT UNPACK REDUCE_MIN
FLOOR_DIV REDUCE_ANY SQUARE ZEROS_LIKE FILL FLOOR_MOD RANGE RESIZE_NEAREST_NEIGHBOR LEAKY_RELU SQUARED_DIFFERENCE
MIRROR_PAD ABS SPLIT_V UNIQUE CEIL REVERSE_V2 ADD_N GATHER_ND COS WHERE
RANK ELU REVERSE_SEQUENCE MATRIX_DIAG QUANTIZE MATRIX_SET_DIAG ROUND HARD_SWISH IF WHILE
NON_MAX_SUPPRESSION_V4 NON_MAX_SUPPRESSION_V5 SCATTER_ND SELECT_V2 DENSIFY SEGMENT_SUM BATCH_MATMUL PLACEHOLDER_FOR_GREATER_OP_CODES CUMSUM CALL_ONCE
BROADCAST_TO RFFT2D CONV_3D IMAG REAL COMPLEX_ABS HASHTABLE HASHTABLE_FIND HASHTABLE_IMPORT HASHTABLE_SIZE
REDUCE_ALL CONV_3D_TRANSPOSE VAR_HANDLE READ_VARIABLE ASSIGN_VARIABLE BROADCAST_ARGS RANDOM_STANDARD_NORMAL BUCKETIZE RANDOM_UNIFORM MULTINOMIAL
GELU DYNAMIC_UPDATE_SLICE RELU_0_TO_1 UNSORTED_SEGMENT_PROD UNSORTED_SEGMENT_MAX UNSORTED_SEGMENT_SUM ATAN2 UNSORTED_SEGMENT_MIN SIGN BITCAST
BITWISE_XOR RIGHT_SHIFT
STABLEHLO_LOGISTIC STABLEHLO_ADD STABLEHLO_DIVIDE STABLEHLO_MULTIPLY STABLEHLO_MAXIMUM STABLEHLO_RESHAPE STABLEHLO_CLAMP STABLEHLO_CONCATENATE
STABLEHLO_BROADCAST_IN_DIM STABLEHLO_CONVOLUTION STABLEHLO_SLICE STABLEHLO_CUSTOM_CALL STABLEHLO_REDUCE STABLEHLO_ABS STABLEHLO_AND STABLEHLO_COSINE
STABLEHLO_EXPONENTIAL STABLEHLO_FLOOR STABLEHLO_LOG STABLEHLO_MINIMUM STABLEHLO_NEGATE STABLEHLO_OR STABLEHLO_POWER STABLEHLO_REMAINDER
STABLEHLO_RSQRT STABLEHLO_SELECT STABLEHLO_SUBTRACT STABLEHLO_TANH STABLEHLO_SCATTER STABLEHLO_COMPARE STABLEHLO_CONVERT STABLEHLO_DYNAMIC_SLICE
STABLEHLO_DYNAMIC_UPDATE_SLICE STABLEHLO_PAD STABLEHLO_IOTA STABLEHLO_DOT_GENERAL STABLEHLO_REDUCE_WINDOW STABLEHLO_SORT STABLEHLO_WHILE STABLEHLO_GATHER
STABLEHLO_TRANSPOSE DILATE STABLEHLO_RNG_BIT_GENERATOR REDUCE_WINDOW STABLEHLO_COMPOSITE STABLEHLO_SHIFT_LEFT STABLEHLO_CBRT STABLEHLO_CASE""".split()
assert builtin_ops[19] == "RELU" and builtin_ops[117] == "HARD_SWISH" and builtin_ops[124] == "DENSIFY" and builtin_ops[161] == "RIGHT_SHIFT" and builtin_ops[126] == "BATCH_MATMUL" and builtin_ops[97] == "RESIZE_NEAREST_NEIGHBOR" and builtin_ops[162] == "STABLEHLO_LOGISTIC" and builtin_ops[203] == "DILATE" and builtin_ops[209] == "STABLEHLO_CASE"
union = """Conv2DOptions DepthwiseConv2DOptions ConcatEmbeddingsOptions LSHProjectionOptions Pool2DOptions SVDFOptions RNNOptions FullyConnectedOptions SoftmaxOptions ConcatenationOptions
AddOptions L2NormOptions LocalResponseNormalizationOptions LSTMOptions ResizeBilinearOptions CallOptions ReshapeOptions SkipGramOptions SpaceToDepthOptions EmbeddingLookupSparseOptions
MulOptions PadOptions GatherOptions BatchToSpaceNDOptions SpaceToBatchNDOptions TransposeOptions ReducerOptions SubOptions DivOptions SqueezeOptions
SequenceRNNOptions StridedSliceOptions ExpOptions TopKV2Options SplitOptions LogSoftmaxOptions CastOptions DequantizeOptions MaximumMinimumOptions ArgMaxOptions
LessOptions NegOptions PadV2Options GreaterOptions GreaterEqualOptions LessEqualOptions SelectOptions SliceOptions TransposeConvOptions SparseToDenseOptions
TileOptions ExpandDimsOptions EqualOptions NotEqualOptions ShapeOptions PowOptions ArgMinOptions FakeQuantOptions PackOptions LogicalOrOptions
OneHotOptions LogicalAndOptions LogicalNotOptions UnpackOptions FloorDivOptions SquareOptions ZerosLikeOptions FillOptions BidirectionalSequenceLSTMOptions BidirectionalSequenceRNNOptions
UnidirectionalSequenceLSTMOptions FloorModOptions RangeOptions ResizeNearestNeighborOptions LeakyReluOptions SquaredDifferenceOptions MirrorPadOptions AbsOptions SplitVOptions UniqueOptions
ReverseV2Options AddNOptions GatherNdOptions CosOptions WhereOptions RankOptions ReverseSequenceOptions MatrixDiagOptions QuantizeOptions MatrixSetDiagOptions
HardSwishOptions IfOptions WhileOptions DepthToSpaceOptions NonMaxSuppressionV4Options NonMaxSuppressionV5Options ScatterNdOptions SelectV2Options DensifyOptions SegmentSumOptions
BatchMatMulOptions CumsumOptions CallOnceOptions BroadcastToOptions Rfft2dOptions Conv3DOptions HashtableOptions HashtableFindOptions HashtableImportOptions HashtableSizeOptions
VarHandleOptions ReadVariableOptions AssignVariableOptions RandomOptions BucketizeOptions GeluOptions DynamicUpdateSliceOptions UnsortedSegmentProdOptions UnsortedSegmentMaxOptions UnsortedSegmentMinOptions
UnsortedSegmentSumOptions ATan2Options SignOptions BitcastOptions BitwiseXorOptions RightShiftOptions""".split()
assert union[0] == "Conv2DOptions" and union[90] == "HardSwishOptions" and union[98] == "DensifyOptions" and union[100] == "BatchMatMulOptions" and len(union) == 126
A = "fused_activation_function:ActivationFunctionType"
tables = {
 "Conv2DOptions": f"padding:Padding; stride_w:int; stride_h:int; {A}; dilation_w_factor:int = 1; dilation_h_factor:int = 1; quantized_bias_type:TensorType;",
 "Pool2DOptions": f"padding:Padding; stride_w:int; stride_h:int; filter_width:int; filter_height:int; {A};",
 "DepthwiseConv2DOptions": f"padding:Padding; stride_w:int; stride_h:int; depth_multiplier:int; {A}; dilation_w_factor:int = 1; dilation_h_factor:int = 1;",
 "FullyConnectedOptions": f"{A}; weights_format:byte; keep_num_dims:bool; asymmetric_quantize_inputs:bool; quantized_bias_type:TensorType;",
 "SoftmaxOptions": "beta:float;",
 "ConcatenationOptions": f"axis:int; {A};",
 "AddOptions": f"{A}; pot_scale_int16:bool = true;",
 "MulOptions": f"{A};",
 "L2NormOptions": f"{A};",
 "LocalResponseNormalizationOptions": "radius:int; bias:float; alpha:float; beta:float;",
 "ResizeBilinearOptions": "new_height:int (deprecated); new_width:int (deprecated); align_corners:bool; half_pixel_centers:bool;",
 "ResizeNearestNeighborOptions": "align_corners:bool; half_pixel_centers:bool;",
 "ReshapeOptions": "new_shape:[int];",
 "UniqueOptions": "idx_out_type:TensorType = INT32;",
 "BucketizeOptions": "boundaries:[float];",
 "BidirectionalSequenceRNNOptions": f"time_major:bool; {A}; merge_outputs:bool; asymmetric_quantize_inputs:bool;",
 "LSTMOptions": f"{A}; cell_clip:float; proj_clip:float; kernel_type:byte; asymmetric_quantize_inputs:bool;",
 "Conv3DOptions": f"padding:Padding; stride_d:int; stride_w:int; stride_h:int; {A}; dilation_d_factor:int = 1; dilation_w_factor:int = 1; dilation_h_factor:int = 1;",
 "FakeQuantOptions": "min:float; max:float; num_bits:int; narrow_range:bool;",
 "RNNOptions": f"{A}; asymmetric_quantize_inputs:bool;",
 "SequenceRNNOptions": f"time_major:bool; {A}; asymmetric_quantize_inputs:bool;",
 "SparseToDenseOptions": "validate_indices:bool;",
 "ReverseSequenceOptions": "seq_dim:int; batch_dim:int = 0;",
 "UnidirectionalSequenceLSTMOptions": f"{A}; cell_clip:float; proj_clip:float; time_major:bool; asymmetric_quantize_inputs:bool; diagonal_recurrent_tensors:bool;",
 "BidirectionalSequenceLSTMOptions": f"{A}; cell_clip:float; proj_clip:float; merge_outputs:bool; time_major:bool = true; asymmetric_quantize_inputs:bool;",
 "SpaceToDepthOptions": "block_size:int;",
 "DepthToSpaceOptions": "block_size:int;",
 "SubOptions": f"{A}; pot_scale_int16:bool = true;",
 "DivOptions": f"{A};",
 "GatherOptions": "axis:int; batch_dims:int = 0;",
 "ReducerOptions": "keep_dims:bool;",
 "SqueezeOptions": "squeeze_dims:[int];",
 "SplitOptions": "num_splits:int;",
 "SplitVOptions": "num_splits:int;",
 "StridedSliceOptions": "begin_mask:int; end_mask:int; ellipsis_mask:int; new_axis_mask:int; shrink_axis_mask:int; offset:bool;",
 "CastOptions": "in_data_type:TensorType; out_data_type:TensorType;",
 "ArgMaxOptions": "output_type:TensorType;",
 "ArgMinOptions": "output_type:TensorType;",
 "TransposeConvOptions": f"padding:Padding; stride_w:int; stride_h:int; {A} = NONE; quantized_bias_type:TensorType;",
 "ShapeOptions": "out_type:TensorType;",
 "PackOptions": "values_count:int; axis:int;",
 "UnpackOptions": "num:int; axis:int;",
 "LeakyReluOptions": "alpha:float;",
 "MirrorPadOptions": "mode:MirrorPadMode;",
 "BatchMatMulOptions": "adj_x:bool; adj_y:bool; asymmetric_quantize_inputs:bool;",
 "GeluOptions": "approximate:bool;",
 "OneHotOptions": "axis:int;",
 "CumsumOptions": "exclusive:bool; reverse:bool;",
 "IfOptions": "then_subgraph_index:int; else_subgraph_index:int;",
 "WhileOptions": "cond_subgraph_index:int; body_subgraph_index:int;",
 "CallOnceOptions": "init_subgraph_index:int;",
 "VarHandleOptions": "container:string; shared_name:string;",
}
out = []
out.append("""// The part of TensorFlow Lite's model schema mo reads (the published schema.fbs of
// tensorflow/compiler/mlir/lite/schema, schema version 3). Facts kept exactly: table field order
// (the field ids), enum values and the order of the BuiltinOptions union. Fields mo does not read
// are left out at the end of a table; option tables mo has no extractor for are empty (the
// verifier still checks that they are tables). CMake runs flatc on this file.
//
// Made by scripts/make_tflite_schema.py; edit that script, not this file.

namespace tflite;

file_identifier "TFL3";
file_extension "tflite";

enum TensorType : byte {
  FLOAT32 = 0, FLOAT16 = 1, INT32 = 2, UINT8 = 3, INT64 = 4, STRING = 5, BOOL = 6, INT16 = 7,
  COMPLEX64 = 8, INT8 = 9, FLOAT64 = 10, COMPLEX128 = 11, UINT64 = 12, RESOURCE = 13, VARIANT = 14,
  UINT32 = 15, UINT16 = 16, INT4 = 17, BFLOAT16 = 18,
}

table CustomQuantization {
  custom:[ubyte] (force_align: 16);
}

union QuantizationDetails {
  CustomQuantization,
}

table QuantizationParameters {
  min:[float];
  max:[float];
  scale:[float];
  zero_point:[long];
  details:QuantizationDetails;
  quantized_dimension:int;
}

enum DimensionType : byte { DENSE = 0, SPARSE_CSR = 1 }

table Int32Vector { values:[int]; }
table Uint16Vector { values:[ushort] (force_align: 4); }
table Uint8Vector { values:[ubyte] (force_align: 4); }

union SparseIndexVector { Int32Vector, Uint16Vector, Uint8Vector }

table DimensionMetadata {
  format:DimensionType;
  dense_size:int;
  array_segments:SparseIndexVector;
  array_indices:SparseIndexVector;
}

table SparsityParameters {
  traversal_order:[int];
  block_map:[int];
  dim_metadata:[DimensionMetadata];
}

table Tensor {
  shape:[int];
  type:TensorType;
  buffer:uint;
  name:string;
  quantization:QuantizationParameters;
  is_variable:bool = false;
  sparsity:SparsityParameters;
  shape_signature:[int];
  has_rank:bool = false;
}
""")
out.append("enum BuiltinOperator : int32 {\n" + "".join(f"  {n} = {i},\n" for i, n in enumerate(builtin_ops)) + "}\n")
out.append("enum Padding : byte { SAME, VALID }\n")
out.append("enum ActivationFunctionType : byte { NONE = 0, RELU = 1, RELU_N1_TO_1 = 2, RELU6 = 3, TANH = 4, SIGN_BIT = 5 }\n")
out.append("enum MirrorPadMode : byte { REFLECT = 0, SYMMETRIC = 1 }\n")
out.append("union BuiltinOptions {\n" + ",\n".join("  " + u for u in union) + ",\n}\n")
for u in union:
    out.append(f"table {u} {{ {tables.get(u, '')} }}\n")
out.append("""
table OperatorCode {
  deprecated_builtin_code:byte;
  custom_code:string;
  version:int = 1;
  builtin_code:BuiltinOperator;
}

table Operator {
  opcode_index:uint;
  inputs:[int];
  outputs:[int];
  builtin_options:BuiltinOptions;
  custom_options:[ubyte];
  custom_options_format:byte;
}

table SubGraph {
  tensors:[Tensor];
  inputs:[int];
  outputs:[int];
  operators:[Operator];
  name:string;
}

table Buffer {
  data:[ubyte] (force_align: 16);
  offset:ulong;
  size:ulong;
}

table Model {
  version:uint;
  operator_codes:[OperatorCode];
  subgraphs:[SubGraph];
  description:string;
  buffers:[Buffer];
}

root_type Model;
""")
import sys
open(sys.argv[1], "w").write("\n".join(out))
