// Writes large TFLite and frozen-GraphDef models for bench/convert_vs_cp.sh: a chain of
// FULLY_CONNECTED (TFLite) / MatMul (GraphDef) layers with random float32 weights, `layers` of
// them, each [width, width]. Not run by CI:
//   ./build/bench/mo-make-nhwc-models OUT_DIR [layers=4] [width=4096]   (4 x 64 MB)
//   bench/convert_vs_cp.sh OUT_DIR/big.tflite; bench/convert_vs_cp.sh OUT_DIR/big.pb
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "loaders/tf/tf_graph.pb.h"
#include "loaders/tflite/tflite_schema_generated.h"

namespace {

std::vector<float> random_weights(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-0.01f, 0.01f);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

void write_tflite(const std::string& path, int layers, int width) {
    flatbuffers::FlatBufferBuilder fb(static_cast<size_t>(layers) * width * width * 4 + (1 << 20));
    std::vector<flatbuffers::Offset<tflite::Buffer>> buffers{tflite::CreateBuffer(fb)};
    std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
    std::vector<flatbuffers::Offset<tflite::Operator>> ops;
    auto tensor = [&](const std::string& name, std::vector<int32_t> shape, uint32_t buffer) {
        tensors.push_back(tflite::CreateTensor(fb, fb.CreateVector(shape), tflite::TensorType::FLOAT32, buffer,
                                               fb.CreateString(name)));
        return static_cast<int32_t>(tensors.size() - 1);
    };
    int32_t x = tensor("x", {1, width}, 0);
    const int32_t input = x;
    for (int l = 0; l < layers; ++l) {
        const auto w = random_weights(static_cast<size_t>(width) * width, static_cast<unsigned>(l));
        fb.ForceVectorAlignment(w.size() * 4, 1, 16);
        buffers.push_back(tflite::CreateBuffer(fb, fb.CreateVector(reinterpret_cast<const uint8_t*>(w.data()), w.size() * 4)));
        int32_t wt = tensor("w" + std::to_string(l), {width, width}, static_cast<uint32_t>(buffers.size() - 1));
        int32_t y = tensor("y" + std::to_string(l), {1, width}, 0);
        std::vector<int32_t> in{x, wt, -1}, out{y};
        ops.push_back(tflite::CreateOperator(fb, 0, fb.CreateVector(in), fb.CreateVector(out)));
        x = y;
    }
    std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes{tflite::CreateOperatorCode(
        fb, static_cast<int8_t>(tflite::BuiltinOperator::FULLY_CONNECTED), 0, 1, tflite::BuiltinOperator::FULLY_CONNECTED)};
    std::vector<int32_t> inputs{input}, outputs{x};
    auto sg = tflite::CreateSubGraph(fb, fb.CreateVector(tensors), fb.CreateVector(inputs), fb.CreateVector(outputs),
                                     fb.CreateVector(ops));
    std::vector<flatbuffers::Offset<tflite::SubGraph>> subgraphs{sg};
    tflite::FinishModelBuffer(fb, tflite::CreateModel(fb, 3, fb.CreateVector(codes), fb.CreateVector(subgraphs), 0,
                                                      fb.CreateVector(buffers)));
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(fb.GetBufferPointer()), fb.GetSize());
}

void write_graphdef(const std::string& path, int layers, int width) {
    mo_tf::GraphDef g;
    auto* x = g.add_node();
    x->set_name("x");
    x->set_op("Placeholder");
    (*x->mutable_attr())["dtype"].set_type(mo_tf::DT_FLOAT);
    auto* shape = (*x->mutable_attr())["shape"].mutable_shape();
    shape->add_dim()->set_size(1);
    shape->add_dim()->set_size(width);
    std::string prev = "x";
    for (int l = 0; l < layers; ++l) {
        const auto w = random_weights(static_cast<size_t>(width) * width, static_cast<unsigned>(l));
        auto* c = g.add_node();
        c->set_name("w" + std::to_string(l));
        c->set_op("Const");
        auto* t = (*c->mutable_attr())["value"].mutable_tensor();
        t->set_dtype(mo_tf::DT_FLOAT);
        t->mutable_tensor_shape()->add_dim()->set_size(width);
        t->mutable_tensor_shape()->add_dim()->set_size(width);
        t->set_tensor_content(std::string(reinterpret_cast<const char*>(w.data()), w.size() * 4));
        auto* m = g.add_node();
        m->set_name("y" + std::to_string(l));
        m->set_op("MatMul");
        m->add_input(prev);
        m->add_input(c->name());
        prev = m->name();
    }
    std::ofstream out(path, std::ios::binary);
    g.SerializeToOstream(&out);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR [layers=4] [width=4096]\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    const int layers = argc > 2 ? std::atoi(argv[2]) : 4, width = argc > 3 ? std::atoi(argv[3]) : 4096;
    write_tflite(dir + "/big.tflite", layers, width);
    write_graphdef(dir + "/big.pb", layers, width);
    std::printf("wrote %s/big.tflite and %s/big.pb: %d layers of %d x %d float32 weights\n", dir.c_str(), dir.c_str(),
                layers, width, width);
    return 0;
}
