#include "ops/ops.hpp"

namespace mo {

void register_builtin_ops(OpRegistry& r) {
    register_core_ops(r);
    register_eltwise_ops(r);
    register_reduction_ops(r);
    register_convolution_ops(r);
    register_pooling_ops(r);
    register_matmul_ops(r);
    register_attention_ops(r);
    register_normalization_ops(r);
    register_shape_ops(r);
    register_interpolate_ops(r);
    register_recurrent_ops(r);
    register_einsum_ops(r);
    register_unique_ops(r);
    register_roi_align_ops(r);
    register_grid_sample_ops(r);
    register_detection_ops(r);
    register_detection_output_op(r);
    register_prior_box_ops(r);
    register_subgraph_ops(r);
    register_dft_ops(r);
    register_state_ops(r);
    register_internal_ops(r);
}

}  // namespace mo
