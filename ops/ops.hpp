// Registration of the built-in op schemas, one function per op family (one file each).
#pragma once

#include "core/op_schema.hpp"

namespace mo {

void register_core_ops(OpRegistry& r);           // Parameter, Result, Constant, FrameworkNode
void register_eltwise_ops(OpRegistry& r);        // unary/binary math, activations, comparisons, logic, Convert, Select
void register_reduction_ops(OpRegistry& r);      // Reduce*, Softmax, LogSoftmax, TopK, CumSum
void register_convolution_ops(OpRegistry& r);    // (Group)Convolution, (Group)ConvolutionBackpropData
void register_pooling_ops(OpRegistry& r);        // MaxPool, AvgPool
void register_matmul_ops(OpRegistry& r);         // MatMul
void register_attention_ops(OpRegistry& r);      // ScaledDotProductAttention
void register_normalization_ops(OpRegistry& r);  // BatchNormInference, MVN, LRN, NormalizeL2
void register_shape_ops(OpRegistry& r);          // Reshape, Transpose, Concat, Split, Slice, Gather, ShapeOf, ...
void register_interpolate_ops(OpRegistry& r);    // Interpolate
void register_recurrent_ops(OpRegistry& r);      // LSTMSequence, GRUSequence, RNNSequence
void register_einsum_ops(OpRegistry& r);         // Einsum
void register_unique_ops(OpRegistry& r);         // Unique
void register_roi_align_ops(OpRegistry& r);      // ROIAlign
void register_grid_sample_ops(OpRegistry& r);    // GridSample
void register_detection_ops(OpRegistry& r);      // NonMaxSuppression
void register_detection_output_op(OpRegistry& r); // DetectionOutput (SSD post-processing)
void register_prior_box_ops(OpRegistry& r);      // PriorBox, PriorBoxClustered (SSD priors)
void register_subgraph_ops(OpRegistry& r);       // If, Loop, TensorIterator (ops with bodies)
void register_dft_ops(OpRegistry& r);            // DFT, IDFT, RDFT
void register_state_ops(OpRegistry& r);          // ReadValue, Assign (variables of stateful models)
void register_internal_ops(OpRegistry& r);       // framework-level ops lowered by back transformations

// All of the above.
void register_builtin_ops(OpRegistry& r);

}  // namespace mo
