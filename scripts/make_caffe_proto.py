#!/usr/bin/env python3
"""Writes loaders/caffe/caffe.proto: the subset of Caffe's NetParameter mo reads.

    python3 scripts/make_caffe_proto.py loaders/caffe/caffe.proto
    python3 scripts/make_caffe_proto.py --check loaders/caffe/caffe.proto   (CI: exit 1 if stale)

The facts carried over are field numbers, types, labels, enum values and defaults:
* BVLC Caffe's src/caffe/proto/caffe.proto (github.com/BVLC/caffe, master 9b89154): NetParameter,
  LayerParameter, V1LayerParameter (the `layers` form) and the parameter messages of the layers
  mo converts or must parse in deploy files (fillers, data and loss parameters);
* the SSD fork (weiliu89/caffe, branch ssd): permute_param 202, prior_box_param 203,
  detection_output_param 204, norm_param 206 and their messages (PriorBoxParameter's min_size /
  max_size are repeated there); OpenCV's opencv-caffe.proto adds PriorBoxParameter's offset_h,
  offset_w, width and height (14 to 17), which PriorBoxClustered reads;
* NVIDIA Caffe's BlobProto raw_data_type (10) and raw_data (12), so that such blobs are named
  when refused.
Forks disagree on the numbers of interp_param (DeepLab-v2 uses 143, which BVLC gives
input_param) and upsample_param (SegNet's and the YOLO ports' differ): mo's numbers for them (217
as OpenVINO's Model Optimizer chose, 5001) only matter for a .caffemodel read without its
prototxt, where those layers' parameters are then not found.

Each message is written as `label type name number [= default] [packed]` lines (`?` optional,
`*` repeated); the asserts below pin the numbers the loader depends on.
"""
import sys

ENUMS = {
    "Phase": "TRAIN 0, TEST 1",
    "BlobDataType": "DOUBLE 0, FLOAT 1, FLOAT16 2, INT 3, UINT 4",  # NVIDIA Caffe's `Type`
}

# message name -> (nested enums, fields)
MESSAGES = {
    "BlobShape": ({}, "* int64 dim 1 packed"),
    "BlobProto": ({}, """
        ? BlobShape shape 7
        * float data 5 packed
        * float diff 6 packed
        * double double_data 8 packed
        * double double_diff 9 packed
        ? BlobDataType raw_data_type 10
        ? bytes raw_data 12
        ? int32 num 1 = 0
        ? int32 channels 2 = 0
        ? int32 height 3 = 0
        ? int32 width 4 = 0"""),
    "FillerParameter": ({"VarianceNorm": "FAN_IN 0, FAN_OUT 1, AVERAGE 2"}, """
        ? string type 1 = 'constant'
        ? float value 2 = 0
        ? float min 3 = 0
        ? float max 4 = 1
        ? float mean 5 = 0
        ? float std 6 = 1
        ? int32 sparse 7 = -1
        ? VarianceNorm variance_norm 8 = FAN_IN"""),
    "NetParameter": ({}, """
        ? string name 1
        * string input 3
        * BlobShape input_shape 8
        * int32 input_dim 4
        ? bool force_backward 5 = false
        ? NetState state 6
        ? bool debug_info 7 = false
        * LayerParameter layer 100
        * V1LayerParameter layers 2"""),
    "NetState": ({}, """
        ? Phase phase 1 = TEST
        ? int32 level 2 = 0
        * string stage 3"""),
    "NetStateRule": ({}, """
        ? Phase phase 1
        ? int32 min_level 2
        ? int32 max_level 3
        * string stage 4
        * string not_stage 5"""),
    "ParamSpec": ({"DimCheckMode": "STRICT 0, PERMISSIVE 1"}, """
        ? string name 1
        ? DimCheckMode share_mode 2
        ? float lr_mult 3 = 1.0
        ? float decay_mult 4 = 1.0"""),
    "LayerParameter": ({}, """
        ? string name 1
        ? string type 2
        * string bottom 3
        * string top 4
        ? Phase phase 10
        * float loss_weight 5
        * ParamSpec param 6
        * BlobProto blobs 7
        * bool propagate_down 11
        * NetStateRule include 8
        * NetStateRule exclude 9
        ? TransformationParameter transform_param 100
        ? LossParameter loss_param 101
        ? AccuracyParameter accuracy_param 102
        ? ArgMaxParameter argmax_param 103
        ? BatchNormParameter batch_norm_param 139
        ? BiasParameter bias_param 141
        ? ClipParameter clip_param 148
        ? ConcatParameter concat_param 104
        ? ConvolutionParameter convolution_param 106
        ? CropParameter crop_param 144
        ? DataParameter data_param 107
        ? DropoutParameter dropout_param 108
        ? EltwiseParameter eltwise_param 110
        ? ELUParameter elu_param 140
        ? ExpParameter exp_param 111
        ? FlattenParameter flatten_param 135
        ? InnerProductParameter inner_product_param 117
        ? InputParameter input_param 143
        ? LogParameter log_param 134
        ? LRNParameter lrn_param 118
        ? MVNParameter mvn_param 120
        ? ParameterParameter parameter_param 145
        ? PoolingParameter pooling_param 121
        ? PowerParameter power_param 122
        ? PReLUParameter prelu_param 131
        ? PythonParameter python_param 130
        ? ReductionParameter reduction_param 136
        ? ReLUParameter relu_param 123
        ? ReshapeParameter reshape_param 133
        ? ScaleParameter scale_param 142
        ? SigmoidParameter sigmoid_param 124
        ? SoftmaxParameter softmax_param 125
        ? SliceParameter slice_param 126
        ? SwishParameter swish_param 147
        ? TanHParameter tanh_param 127
        ? ThresholdParameter threshold_param 128
        ? TileParameter tile_param 138
        ? PermuteParameter permute_param 202
        ? PriorBoxParameter prior_box_param 203
        ? DetectionOutputParameter detection_output_param 204
        ? NormalizeParameter norm_param 206
        ? InterpParameter interp_param 217
        ? UpsampleParameter upsample_param 5001"""),
    "TransformationParameter": ({}, """
        ? float scale 1 = 1
        ? bool mirror 2 = false
        ? uint32 crop_size 3 = 0
        ? string mean_file 4
        * float mean_value 5
        ? bool force_color 6 = false
        ? bool force_gray 7 = false"""),
    "LossParameter": ({"NormalizationMode": "FULL 0, VALID 1, BATCH_SIZE 2, NONE 3"}, """
        ? int32 ignore_label 1
        ? NormalizationMode normalization 3 = VALID
        ? bool normalize 2"""),
    "AccuracyParameter": ({}, """
        ? uint32 top_k 1 = 1
        ? int32 axis 2 = 1
        ? int32 ignore_label 3"""),
    "ArgMaxParameter": ({}, """
        ? bool out_max_val 1 = false
        ? uint32 top_k 2 = 1
        ? int32 axis 3"""),
    "BatchNormParameter": ({}, """
        ? bool use_global_stats 1
        ? float moving_average_fraction 2 = .999
        ? float eps 3 = 1e-5"""),
    "BiasParameter": ({}, """
        ? int32 axis 1 = 1
        ? int32 num_axes 2 = 1
        ? FillerParameter filler 3"""),
    "ClipParameter": ({}, """
        ? float min 1
        ? float max 2"""),
    "ConcatParameter": ({}, """
        ? int32 axis 2 = 1
        ? uint32 concat_dim 1 = 1"""),
    "ConvolutionParameter": ({"Engine": "DEFAULT 0, CAFFE 1, CUDNN 2"}, """
        ? uint32 num_output 1
        ? bool bias_term 2 = true
        * uint32 pad 3
        * uint32 kernel_size 4
        * uint32 stride 6
        * uint32 dilation 18
        ? uint32 pad_h 9 = 0
        ? uint32 pad_w 10 = 0
        ? uint32 kernel_h 11
        ? uint32 kernel_w 12
        ? uint32 stride_h 13
        ? uint32 stride_w 14
        ? uint32 group 5 = 1
        ? FillerParameter weight_filler 7
        ? FillerParameter bias_filler 8
        ? Engine engine 15 = DEFAULT
        ? int32 axis 16 = 1
        ? bool force_nd_im2col 17 = false"""),
    "CropParameter": ({}, """
        ? int32 axis 1 = 2
        * uint32 offset 2"""),
    "DataParameter": ({"DB": "LEVELDB 0, LMDB 1"}, """
        ? string source 1
        ? uint32 batch_size 4
        ? uint32 rand_skip 7 = 0
        ? DB backend 8 = LEVELDB
        ? float scale 2 = 1
        ? string mean_file 3
        ? uint32 crop_size 5 = 0
        ? bool mirror 6 = false
        ? bool force_encoded_color 9 = false
        ? uint32 prefetch 10 = 4"""),
    "DropoutParameter": ({}, "? float dropout_ratio 1 = 0.5"),
    "EltwiseParameter": ({"EltwiseOp": "PROD 0, SUM 1, MAX 2"}, """
        ? EltwiseOp operation 1 = SUM
        * float coeff 2
        ? bool stable_prod_grad 3 = true"""),
    "ELUParameter": ({}, "? float alpha 1 = 1"),
    "ExpParameter": ({}, """
        ? float base 1 = -1.0
        ? float scale 2 = 1.0
        ? float shift 3 = 0.0"""),
    "FlattenParameter": ({}, """
        ? int32 axis 1 = 1
        ? int32 end_axis 2 = -1"""),
    "InnerProductParameter": ({}, """
        ? uint32 num_output 1
        ? bool bias_term 2 = true
        ? FillerParameter weight_filler 3
        ? FillerParameter bias_filler 4
        ? int32 axis 5 = 1
        ? bool transpose 6 = false"""),
    "InputParameter": ({}, "* BlobShape shape 1"),
    "LogParameter": ({}, """
        ? float base 1 = -1.0
        ? float scale 2 = 1.0
        ? float shift 3 = 0.0"""),
    "LRNParameter": ({"NormRegion": "ACROSS_CHANNELS 0, WITHIN_CHANNEL 1", "Engine": "DEFAULT 0, CAFFE 1, CUDNN 2"}, """
        ? uint32 local_size 1 = 5
        ? float alpha 2 = 1.
        ? float beta 3 = 0.75
        ? NormRegion norm_region 4 = ACROSS_CHANNELS
        ? float k 5 = 1.
        ? Engine engine 6 = DEFAULT"""),
    "MVNParameter": ({}, """
        ? bool normalize_variance 1 = true
        ? bool across_channels 2 = false
        ? float eps 3 = 1e-9"""),
    "ParameterParameter": ({}, "? BlobShape shape 1"),
    "PoolingParameter": ({"PoolMethod": "MAX 0, AVE 1, STOCHASTIC 2", "Engine": "DEFAULT 0, CAFFE 1, CUDNN 2",
                          "RoundMode": "CEIL 0, FLOOR 1"}, """
        ? PoolMethod pool 1 = MAX
        ? uint32 pad 4 = 0
        ? uint32 pad_h 9 = 0
        ? uint32 pad_w 10 = 0
        ? uint32 kernel_size 2
        ? uint32 kernel_h 5
        ? uint32 kernel_w 6
        ? uint32 stride 3 = 1
        ? uint32 stride_h 7
        ? uint32 stride_w 8
        ? Engine engine 11 = DEFAULT
        ? bool global_pooling 12 = false
        ? RoundMode round_mode 13 = CEIL"""),
    "PowerParameter": ({}, """
        ? float power 1 = 1.0
        ? float scale 2 = 1.0
        ? float shift 3 = 0.0"""),
    "PReLUParameter": ({}, """
        ? FillerParameter filler 1
        ? bool channel_shared 2 = false"""),
    "PythonParameter": ({}, """
        ? string module 1
        ? string layer 2
        ? string param_str 3 = ''
        ? bool share_in_parallel 4 = false"""),
    "ReductionParameter": ({"ReductionOp": "SUM 1, ASUM 2, SUMSQ 3, MEAN 4"}, """
        ? ReductionOp operation 1 = SUM
        ? int32 axis 2 = 0
        ? float coeff 3 = 1.0"""),
    "ReLUParameter": ({"Engine": "DEFAULT 0, CAFFE 1, CUDNN 2"}, """
        ? float negative_slope 1 = 0
        ? Engine engine 2 = DEFAULT"""),
    "ReshapeParameter": ({}, """
        ? BlobShape shape 1
        ? int32 axis 2 = 0
        ? int32 num_axes 3 = -1"""),
    "ScaleParameter": ({}, """
        ? int32 axis 1 = 1
        ? int32 num_axes 2 = 1
        ? FillerParameter filler 3
        ? bool bias_term 4 = false
        ? FillerParameter bias_filler 5"""),
    "SigmoidParameter": ({"Engine": "DEFAULT 0, CAFFE 1, CUDNN 2"}, "? Engine engine 1 = DEFAULT"),
    "SliceParameter": ({}, """
        ? int32 axis 3 = 1
        * uint32 slice_point 2
        ? uint32 slice_dim 1 = 1"""),
    "SoftmaxParameter": ({"Engine": "DEFAULT 0, CAFFE 1, CUDNN 2"}, """
        ? Engine engine 1 = DEFAULT
        ? int32 axis 2 = 1"""),
    "SwishParameter": ({}, "? float beta 1 = 1"),
    "TanHParameter": ({"Engine": "DEFAULT 0, CAFFE 1, CUDNN 2"}, "? Engine engine 1 = DEFAULT"),
    "ThresholdParameter": ({}, "? float threshold 1 = 0"),
    "TileParameter": ({}, """
        ? int32 axis 1 = 1
        ? int32 tiles 2"""),
    # The SSD fork's layers.
    "PermuteParameter": ({}, "* uint32 order 1"),
    "NormalizeParameter": ({}, """
        ? bool across_spatial 1 = true
        ? FillerParameter scale_filler 2
        ? bool channel_shared 3 = true
        ? float eps 4 = 1e-10"""),
    "PriorBoxParameter": ({"CodeType": "CORNER 1, CENTER_SIZE 2, CORNER_SIZE 3"}, """
        * float min_size 1
        * float max_size 2
        * float aspect_ratio 3
        ? bool flip 4 = true
        ? bool clip 5 = false
        * float variance 6
        ? uint32 img_size 7
        ? uint32 img_h 8
        ? uint32 img_w 9
        ? float step 10
        ? float step_h 11
        ? float step_w 12
        ? float offset 13 = 0.5
        * float offset_h 14
        * float offset_w 15
        * float width 16
        * float height 17"""),
    "NonMaximumSuppressionParameter": ({}, """
        ? float nms_threshold 1 = 0.3
        ? int32 top_k 2
        ? float eta 3 = 1.0"""),
    "ResizeParameter": ({"Resize_mode": "WARP 1, FIT_SMALL_SIZE 2, FIT_LARGE_SIZE_AND_PAD 3",
                         "Pad_mode": "CONSTANT 1, MIRRORED 2, REPEAT_NEAREST 3",
                         "Interp_mode": "LINEAR 1, AREA 2, NEAREST 3, CUBIC 4, LANCZOS4 5"}, """
        ? float prob 1 = 1
        ? Resize_mode resize_mode 2 = WARP
        ? uint32 height 3 = 0
        ? uint32 width 4 = 0
        ? uint32 height_scale 8 = 0
        ? uint32 width_scale 9 = 0
        ? Pad_mode pad_mode 5 = CONSTANT
        * float pad_value 6
        * Interp_mode interp_mode 7"""),
    "SaveOutputParameter": ({}, """
        ? string output_directory 1
        ? string output_name_prefix 2
        ? string output_format 3
        ? string label_map_file 4
        ? string name_size_file 5
        ? uint32 num_test_image 6
        ? ResizeParameter resize_param 7"""),
    "DetectionOutputParameter": ({}, """
        ? uint32 num_classes 1
        ? bool share_location 2 = true
        ? int32 background_label_id 3 = 0
        ? NonMaximumSuppressionParameter nms_param 4
        ? SaveOutputParameter save_output_param 5
        ? PriorBoxParameter.CodeType code_type 6 = CORNER
        ? bool variance_encoded_in_target 8 = false
        ? int32 keep_top_k 7 = -1
        ? float confidence_threshold 9
        ? bool visualize 10 = false
        ? float visualize_threshold 11
        ? string save_file 12"""),
    # DeepLab-v2 / PSPNet's Interp and SegNet's Upsample (numbers: see the docstring).
    "InterpParameter": ({}, """
        ? int32 height 1 = 0
        ? int32 width 2 = 0
        ? int32 zoom_factor 3 = 1
        ? int32 shrink_factor 4 = 1
        ? int32 pad_beg 5 = 0
        ? int32 pad_end 6 = 0"""),
    "UpsampleParameter": ({}, """
        ? uint32 scale 1 = 2
        ? uint32 scale_h 2
        ? uint32 scale_w 3
        ? bool pad_out_h 4 = false
        ? bool pad_out_w 5 = false
        ? uint32 upsample_h 6
        ? uint32 upsample_w 7"""),
    # The deprecated `layers` form (V1) and the V0 layer it may still wrap (refused).
    "V1LayerParameter": ({
        "LayerType": """NONE 0, ABSVAL 35, ACCURACY 1, ARGMAX 30, BNLL 2, CONCAT 3, CONTRASTIVE_LOSS 37,
            CONVOLUTION 4, DATA 5, DECONVOLUTION 39, DROPOUT 6, DUMMY_DATA 32, EUCLIDEAN_LOSS 7, ELTWISE 25,
            EXP 38, FLATTEN 8, HDF5_DATA 9, HDF5_OUTPUT 10, HINGE_LOSS 28, IM2COL 11, IMAGE_DATA 12,
            INFOGAIN_LOSS 13, INNER_PRODUCT 14, LRN 15, MEMORY_DATA 29, MULTINOMIAL_LOGISTIC_LOSS 16, MVN 34,
            POOLING 17, POWER 26, RELU 18, SIGMOID 19, SIGMOID_CROSS_ENTROPY_LOSS 27, SILENCE 36, SOFTMAX 20,
            SOFTMAX_LOSS 21, SPLIT 22, SLICE 33, TANH 23, WINDOW_DATA 24, THRESHOLD 31""",
        "DimCheckMode": "STRICT 0, PERMISSIVE 1"}, """
        * string bottom 2
        * string top 3
        ? string name 4
        * NetStateRule include 32
        * NetStateRule exclude 33
        ? LayerType type 5
        * BlobProto blobs 6
        * string param 1001
        * DimCheckMode blob_share_mode 1002
        * float blobs_lr 7
        * float weight_decay 8
        * float loss_weight 35
        ? AccuracyParameter accuracy_param 27
        ? ArgMaxParameter argmax_param 23
        ? ConcatParameter concat_param 9
        ? ConvolutionParameter convolution_param 10
        ? DataParameter data_param 11
        ? DropoutParameter dropout_param 12
        ? EltwiseParameter eltwise_param 24
        ? ExpParameter exp_param 41
        ? InnerProductParameter inner_product_param 17
        ? LRNParameter lrn_param 18
        ? MVNParameter mvn_param 34
        ? PoolingParameter pooling_param 19
        ? PowerParameter power_param 21
        ? ReLUParameter relu_param 30
        ? SigmoidParameter sigmoid_param 38
        ? SoftmaxParameter softmax_param 39
        ? SliceParameter slice_param 31
        ? TanHParameter tanh_param 37
        ? ThresholdParameter threshold_param 25
        ? TransformationParameter transform_param 36
        ? LossParameter loss_param 42
        ? V0LayerParameter layer 1"""),
    "V0LayerParameter": ({}, """
        ? string name 1
        ? string type 2"""),
}


def fields(msg):
    out = []
    for line in MESSAGES[msg][1].strip().splitlines():
        words = line.split()
        label, ftype, name, number = words[:4]
        rest = words[4:]
        default = rest[1] if rest[:1] == ["="] else None
        out.append((label, ftype, name, int(number), default, "packed" in rest))
    return out


def number(msg, name):
    return next(f[3] for f in fields(msg) if f[2] == name)


# The numbers the loader reads by wire (protobuf_wire) or that real files must agree on.
assert number("NetParameter", "layer") == 100 and number("NetParameter", "layers") == 2
assert number("LayerParameter", "blobs") == 7 and number("V1LayerParameter", "blobs") == 6
assert number("BlobProto", "data") == 5 and number("BlobProto", "shape") == 7 and number("BlobShape", "dim") == 1
assert number("LayerParameter", "convolution_param") == 106 and number("LayerParameter", "input_param") == 143
assert number("LayerParameter", "batch_norm_param") == 139 and number("LayerParameter", "scale_param") == 142
assert number("LayerParameter", "prior_box_param") == 203 and number("LayerParameter", "norm_param") == 206
assert number("V1LayerParameter", "convolution_param") == 10 and number("V1LayerParameter", "type") == 5
for m in MESSAGES:  # numbers unique per message
    nums = [f[3] for f in fields(m)]
    assert len(nums) == len(set(nums)), m


def enum_text(name, values, indent):
    body = "".join(f"{indent}  {v.split()[0]} = {v.split()[1]};\n" for v in values.replace("\n", " ").split(","))
    return f"{indent}enum {name} {{\n{body}{indent}}}\n"


def render():
    out = ["""// The part of Caffe's model description mo reads (NetParameter with the current `layer` and
// the deprecated V1 `layers` forms, and the parameters of the layers mo converts), with the
// field numbers, types, enum values and defaults of BVLC Caffe's caffe.proto and of the forks
// named in scripts/make_caffe_proto.py. CMake runs protoc on this file.
//
// Made by scripts/make_caffe_proto.py; edit that script, not this file.
syntax = "proto2";

package mo_caffe;
"""]
    for name, values in ENUMS.items():
        out.append(enum_text(name, values, ""))
    for msg, (enums, _) in MESSAGES.items():
        text = f"message {msg} {{\n"
        for ename, values in enums.items():
            text += enum_text(ename, values, "  ")
        for label, ftype, name, num, default, packed in fields(msg):
            opts = []
            if default is not None:
                opts.append(f"default = {default}")
            if packed:
                opts.append("packed = true")
            text += f"  {'optional' if label == '?' else 'repeated'} {ftype} {name} = {num}"
            text += (" [" + ", ".join(opts) + "]" if opts else "") + ";\n"
        out.append(text + "}\n")
    return "\n".join(out)


if __name__ == "__main__":
    check = sys.argv[1] == "--check"
    path = sys.argv[-1]
    text = render()
    if check:
        current = open(path).read()
        if current != text:
            sys.exit(f"{path} is stale: run python3 scripts/make_caffe_proto.py {path}")
    else:
        open(path, "w").write(text)
