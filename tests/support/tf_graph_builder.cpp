#include "support/tf_graph_builder.hpp"

#include <fstream>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"

namespace mo::test::tf {

namespace fs = std::filesystem;

fs::path scratch() {
    auto d = fs::temp_directory_path() / "mo_tf_tests";
    fs::create_directories(d);
    return d;
}

mo_tf::NodeDef& node(mo_tf::GraphDef& g, const std::string& name, const std::string& op, std::vector<std::string> inputs) {
    mo_tf::NodeDef* n = g.add_node();
    n->set_name(name);
    n->set_op(op);
    for (auto& i : inputs) n->add_input(i);
    return *n;
}

void set_s(mo_tf::NodeDef& n, const std::string& k, const std::string& v) { (*n.mutable_attr())[k].set_s(v); }
void set_ints(mo_tf::NodeDef& n, const std::string& k, std::vector<int64_t> v) {
    for (int64_t x : v) (*n.mutable_attr())[k].mutable_list()->add_i(x);
}

mo_tf::NodeDef& constant(mo_tf::GraphDef& g, const std::string& name, mo_tf::DataType type, std::vector<int64_t> shape,
                         const std::vector<float>& f, const std::vector<int32_t>& i) {
    auto& n = node(g, name, "Const", {});
    auto* t = (*n.mutable_attr())["value"].mutable_tensor();
    t->set_dtype(type);
    for (int64_t d : shape) t->mutable_tensor_shape()->add_dim()->set_size(d);
    for (float v : f) t->add_float_val(v);
    for (int32_t v : i) t->add_int_val(v);
    (*n.mutable_attr())["dtype"].set_type(type);
    return n;
}

// x [1, 2, 2, 1] -> Conv2D(1x1 filter 2) -> BiasAdd(1) -> Relu -> Mean(H, W, keep) = mean
//                                                            \-> MaxPool 2x2 = max
mo_tf::GraphDef small_graph() {
    mo_tf::GraphDef g;
    auto& x = node(g, "x", "Placeholder", {});
    (*x.mutable_attr())["dtype"].set_type(mo_tf::DT_FLOAT);
    for (int64_t d : {1, 2, 2, 1}) (*x.mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(d);
    constant(g, "w", mo_tf::DT_FLOAT, {1, 1, 1, 1}, {2.f});
    constant(g, "b", mo_tf::DT_FLOAT, {1}, {1.f});
    constant(g, "axes", mo_tf::DT_INT32, {2}, {}, {1, 2});
    auto& conv = node(g, "conv", "Conv2D", {"x", "w"});
    set_s(conv, "padding", "SAME");
    set_ints(conv, "strides", {1, 1, 1, 1});
    node(g, "bias", "BiasAdd", {"conv", "b"});
    node(g, "relu", "Relu", {"bias:0", "^conv"});  // a control input is ignored
    auto& mean = node(g, "mean", "Mean", {"relu", "axes"});
    (*mean.mutable_attr())["keep_dims"].set_b(true);
    auto& pool = node(g, "max", "MaxPool", {"relu"});
    set_s(pool, "padding", "VALID");
    set_ints(pool, "ksize", {1, 2, 2, 1});
    set_ints(pool, "strides", {1, 2, 2, 1});
    return g;
}

std::string save(const mo_tf::GraphDef& g, const std::string& name) {
    const std::string path = (scratch() / name).string();
    std::ofstream(path, std::ios::binary) << g.SerializeAsString();
    return path;
}

std::vector<double> run(const std::string& path, size_t output, int* transposes) {
    test::ScratchDir out{"tf"};
    auto ir = convert_to_ir(path, out, false);
    if (transposes) {
        *transposes = 0;
        for (const Node& n : ir->nodes()) *transposes += n.is("Transpose");
    }
    return evaluate(*ir, {Tensor::from_vector<float>({1, -3, 2, 4}, {1, 2, 2, 1})}).at(output).to_f64();
}

mo_tf::NodeDef& placeholder(mo_tf::GraphDef& g, const std::string& name, std::vector<int64_t> shape) {
    auto& x = node(g, name, "Placeholder", {});
    (*x.mutable_attr())["dtype"].set_type(mo_tf::DT_FLOAT);
    auto* s = (*x.mutable_attr())["shape"].mutable_shape();
    for (int64_t d : shape) s->add_dim()->set_size(d);
    return x;
}

// Converts `g` (saved as `name`) and evaluates the IR on `inputs`.
std::vector<Tensor> convert_and_evaluate(const mo_tf::GraphDef& g, const std::string& name, std::vector<Tensor> inputs) {
    test::ScratchDir out{"tf"};
    return evaluate(*convert_to_ir(save(g, name), out, false), std::move(inputs));
}

}  // namespace mo::test::tf
