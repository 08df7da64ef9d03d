// TFLite models with control flow and resource variables, in the form TensorFlow's converter
// writes them (tensorflow/compiler/mlir/lite/flatbuffer_export.cc; the operators' options and
// semantics from schema.fbs and the kernels if.cc, while.cc, call_once.cc, var_handle.cc,
// read_variable.cc, assign_variable.cc):
//   * IF(cond, x...) with IfOptions {then_subgraph_index, else_subgraph_index}: both branches take
//     x... (every value either branch reads, in one order) and give the IF's outputs;
//   * WHILE(x...) with WhileOptions {cond_subgraph_index, body_subgraph_index}: cond takes x...
//     and gives one bool, body takes and gives x... (a value the body leaves alone is an output
//     tensor that is also an input);
//   * CALL_ONCE with CallOnceOptions {init_subgraph_index} first in the main subgraph; the init
//     subgraph (the SavedModel's session initializer, "NoOp") VAR_HANDLEs each variable
//     (container "", shared_name) and ASSIGN_VARIABLEs its initial constant; the main subgraph
//     VAR_HANDLEs it again and READ_VARIABLE / ASSIGN_VARIABLEs it.
// Used by tflite_control_flow_test.cpp and by make_tflite_control_flow_models.cpp, which writes
// them for the TFLite runtime's outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/tflite_model_builder.hpp"

namespace mo::test {

using ControlFlowOptions = std::pair<tflite::BuiltinOptions, flatbuffers::Offset<void>>;

inline TfliteOptions if_options(int then_index, int else_index) {
    return [=](flatbuffers::FlatBufferBuilder& fb) {
        return ControlFlowOptions{tflite::BuiltinOptions::IfOptions, tflite::CreateIfOptions(fb, then_index, else_index).Union()};
    };
}

inline TfliteOptions while_options(int cond_index, int body_index) {
    return [=](flatbuffers::FlatBufferBuilder& fb) {
        return ControlFlowOptions{tflite::BuiltinOptions::WhileOptions,
                                  tflite::CreateWhileOptions(fb, cond_index, body_index).Union()};
    };
}

inline TfliteOptions call_once_options(int init_index) {
    return [=](flatbuffers::FlatBufferBuilder& fb) {
        return ControlFlowOptions{tflite::BuiltinOptions::CallOnceOptions, tflite::CreateCallOnceOptions(fb, init_index).Union()};
    };
}

inline TfliteOptions var_handle_options(const std::string& shared_name) {
    return [=](flatbuffers::FlatBufferBuilder& fb) {
        return ControlFlowOptions{tflite::BuiltinOptions::VarHandleOptions,
                                  tflite::CreateVarHandleOptions(fb, fb.CreateString(""), fb.CreateString(shared_name)).Union()};
    };
}

inline TfliteOptions no_activation(tflite::BuiltinOperator op) {
    return [op](flatbuffers::FlatBufferBuilder& fb) {
        if (op == tflite::BuiltinOperator::ADD)
            return ControlFlowOptions{tflite::BuiltinOptions::AddOptions, tflite::CreateAddOptions(fb).Union()};
        if (op == tflite::BuiltinOperator::SUB)
            return ControlFlowOptions{tflite::BuiltinOptions::SubOptions, tflite::CreateSubOptions(fb).Union()};
        return ControlFlowOptions{tflite::BuiltinOptions::MulOptions, tflite::CreateMulOptions(fb).Union()};
    };
}

// if_select: inputs cond (bool [1]), x, y (float [2, 3]); y_out = cond ? x + y : x * y.
inline TfliteModelBuilder if_select_model() {
    using B = tflite::BuiltinOperator;
    TfliteModelBuilder m;
    const int cond = m.input("cond", {1}, tflite::TensorType::BOOL);
    const int x = m.input("x", {2, 3}), y = m.input("y", {2, 3});
    const int out = m.tensor("out", {2, 3});
    m.output(out);
    for (auto [name, op] : {std::pair{"cond_true_10", B::ADD}, std::pair{"cond_false_11", B::MUL}}) {
        m.subgraph(name);
        const int bx = m.input("x", {2, 3}), by = m.input("y", {2, 3});
        const int r = m.tensor(op == B::ADD ? "sum" : "product", {2, 3});
        m.op(op, {bx, by}, {r}, no_activation(op));
        m.output(r);
    }
    m.use(0);
    m.op(B::IF, {cond, x, y}, {out}, if_options(1, 2));
    return m;
}

// onnx_tf_if: an ONNX If converted by onnx-tf (onnx_tf/handlers/backend/if.py: tf.cond whose
// branch functions close over the outer tensors, so both TFLite branches take them all) and then
// by the TFLite converter. Each branch ends in a RESHAPE to a scalar, whose shape tensor is an
// empty int32 tensor (shape [0], a buffer without bytes), as onnx-tf writes ONNX's
// Reshape(x, []) and Squeeze to a scalar. Inputs cond (bool []), x (float [1, 1]);
// out = cond ? reshape(x + 1, []) : reshape(x, []) * 3.
inline TfliteModelBuilder onnx_tf_if_model() {
    using B = tflite::BuiltinOperator;
    TfliteModelBuilder m;
    const int cond = m.input("cond", {}, tflite::TensorType::BOOL);
    const int x = m.input("x", {1, 1});
    const int out = m.tensor("Identity", {});
    m.output(out);
    for (bool then_branch : {true, false}) {
        m.subgraph(then_branch ? "cond_true_40" : "cond_false_41");
        const int bx = m.input("x", {1, 1});
        const int shape = m.constant_bytes("Const_1", {0}, tflite::TensorType::INT32, nullptr, 0);
        const int scalar = m.tensor("Reshape", {});
        const int r = m.tensor(then_branch ? "add" : "mul", {});
        if (then_branch) {
            const int one = m.constant("one", {1, 1}, {1.f});
            const int sum = m.tensor("add_1", {1, 1});
            m.op(B::ADD, {bx, one}, {sum}, no_activation(B::ADD));
            m.op(B::RESHAPE, {sum, shape}, {r});
        } else {
            m.op(B::RESHAPE, {bx, shape}, {scalar});
            m.op(B::MUL, {scalar, m.constant("three", {}, {3.f})}, {r}, no_activation(B::MUL));
        }
        m.output(r);
    }
    m.use(0);
    m.op(B::IF, {cond, x}, {out}, if_options(1, 2));
    return m;
}

// while_countdown: inputs i (int32 []), acc (float [2]), x (float [2]); while i != 0:
// i -= 1, acc = acc * 2 + x. cond is CAST(i) to bool (TFLite's cast: non-zero is true); x is a
// value the body passes through unchanged. Outputs i, acc, x.
inline TfliteModelBuilder while_countdown_model() {
    using B = tflite::BuiltinOperator;
    TfliteModelBuilder m;
    const int i = m.input("i", {}, tflite::TensorType::INT32);
    const int acc = m.input("acc", {2}), x = m.input("x", {2});
    const int i_out = m.tensor("while", {}, tflite::TensorType::INT32);
    const int acc_out = m.tensor("while:1", {2}), x_out = m.tensor("while:2", {2});
    for (int t : {i_out, acc_out, x_out}) m.output(t);

    m.subgraph("while_cond_7");
    const int ci = m.input("i", {}, tflite::TensorType::INT32);
    m.input("acc", {2});
    m.input("x", {2});
    const int going = m.tensor("NotEqual", {}, tflite::TensorType::BOOL);
    m.op(B::CAST, {ci}, {going});
    m.output(going);

    m.subgraph("while_body_8");
    const int bi = m.input("i", {}, tflite::TensorType::INT32);
    const int bacc = m.input("acc", {2}), bx = m.input("x", {2});
    const int next_i = m.tensor("sub", {}, tflite::TensorType::INT32);
    m.op(B::SUB, {bi, m.constant_i32("one", {}, {1})}, {next_i}, no_activation(B::SUB));
    const int doubled = m.tensor("mul", {2}), next_acc = m.tensor("add", {2});
    m.op(B::MUL, {bacc, m.constant("two", {}, {2.f})}, {doubled}, no_activation(B::MUL));
    m.op(B::ADD, {doubled, bx}, {next_acc}, no_activation(B::ADD));
    for (int t : {next_i, next_acc, bx}) m.output(t);

    m.use(0);
    m.op(B::WHILE, {i, acc, x}, {i_out, acc_out, x_out}, while_options(1, 2));
    return m;
}

// variables: a TF2 model with two tf.Variables converted with resource variables kept: "bias"
// ([2], initial [0.5, -1]) is only read (y = x + bias); "total" ([2], initial zeros) is read,
// added to and assigned (total += x; the output is the new total), so it is the model's state.
inline TfliteModelBuilder variables_model() {
    using B = tflite::BuiltinOperator;
    TfliteModelBuilder m;
    const int x = m.input("serving_default_x:0", {2});
    m.op(B::CALL_ONCE, {}, {}, call_once_options(1));
    const int bias_handle = m.tensor("bias_handle", {}, tflite::TensorType::RESOURCE);
    m.op(B::VAR_HANDLE, {}, {bias_handle}, var_handle_options("bias"));
    const int total_handle = m.tensor("total_handle", {}, tflite::TensorType::RESOURCE);
    m.op(B::VAR_HANDLE, {}, {total_handle}, var_handle_options("total"));
    const int bias = m.tensor("ReadVariableOp", {2}), total = m.tensor("ReadVariableOp_1", {2});
    m.op(B::READ_VARIABLE, {bias_handle}, {bias});
    m.op(B::READ_VARIABLE, {total_handle}, {total});
    const int y = m.tensor("StatefulPartitionedCall:0", {2}), new_total = m.tensor("StatefulPartitionedCall:1", {2});
    m.op(B::ADD, {x, bias}, {y}, no_activation(B::ADD));
    m.op(B::ADD, {total, x}, {new_total}, no_activation(B::ADD));
    m.op(B::ASSIGN_VARIABLE, {total_handle, new_total}, {});
    m.output(y);
    m.output(new_total);

    m.subgraph("NoOp");
    const int h1 = m.tensor("bias_handle", {}, tflite::TensorType::RESOURCE);
    const int h2 = m.tensor("total_handle", {}, tflite::TensorType::RESOURCE);
    m.op(B::VAR_HANDLE, {}, {h1}, var_handle_options("bias"));
    m.op(B::ASSIGN_VARIABLE, {h1, m.constant("bias_init", {2}, {0.5f, -1.f})}, {});
    m.op(B::VAR_HANDLE, {}, {h2}, var_handle_options("total"));
    m.op(B::ASSIGN_VARIABLE, {h2, m.constant("total_init", {2}, {0.f, 0.f})}, {});
    m.use(0);
    return m;
}

}  // namespace mo::test
