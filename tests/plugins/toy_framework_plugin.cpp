// A plugin that adds a whole framework, "toy": a loader for a line-based text format and the
// extractors of its two ops, proving that a new framework enters through the same registries
// as ONNX. The format, one statement per line:
//     input NAME SHAPE          (f32; SHAPE as in the IR, e.g. 2,3)
//     OP OUTPUT INPUT [VALUE]   (OP: relu, or scale = multiply by VALUE)
//     output NAME
#include <mo/plugin.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace {

class ToyAttributes final : public mo::FrameworkAttributes {
public:
    explicit ToyAttributes(std::map<std::string, double> values) : values_(std::move(values)) {}
    std::optional<mo::FrameworkAttr> get(std::string_view name) const override {
        auto it = values_.find(std::string(name));
        if (it == values_.end()) return std::nullopt;
        return mo::FrameworkAttr(it->second);
    }

private:
    std::map<std::string, double> values_;
};

class ToyGraphBuilder {
public:
    ToyGraphBuilder(const std::string& path, const mo::OpRegistry& ops)
        : path_(path), graph_(std::make_unique<mo::Graph>(ops)) {}

    std::unique_ptr<mo::Graph> build() {
        std::ifstream in(path_);
        std::string line;
        for (int number = 1; std::getline(in, line); ++number) statement(line, number);
        graph_->source_path = path_;
        graph_->source_framework = "toy";
        return std::move(graph_);
    }

private:
    mo::OutPort tensor(const std::string& name, int line) {
        auto it = tensors_.find(name);
        if (it == tensors_.end())
            throw mo::Error("unknown tensor '" + name + "'", path_ + ":" + std::to_string(line), "define it first");
        return it->second;
    }

    void statement(const std::string& line, int number) {
        std::istringstream words(line);
        std::string op, a, b;
        double value = 0;
        if (!(words >> op)) return;
        words >> a >> b >> value;
        if (op == "input") {
            mo::PartialShape shape = mo::PartialShape::parse(b);
            mo::Node p = graph_->add_op("Parameter", a, {},
                                        {{"shape", mo::AttrValue(shape)}, {"element_type", mo::AttrValue(mo::ElementType::f32)}});
            p.out(0).set_type_and_shape(mo::ElementType::f32, shape);
            p.out(0).names() = {a};
            graph_->parameters().push_back(p);
            tensors_[a] = p.out(0);
        } else if (op == "output") {
            graph_->results().push_back(graph_->add_op("Result", a + "/sink_port_0", {tensor(a, number)}));
        } else {
            mo::Node n = graph_->add_node("FrameworkNode", a);
            mo::FrameworkInfo& fw = n.framework();
            fw.framework = "toy";
            fw.type = op;
            fw.opset = 1;
            fw.attributes = std::make_shared<ToyAttributes>(std::map<std::string, double>{{"value", value}});
            n.set_input_count(1);
            n.set_output_count(1);
            n.in(0).connect(tensor(b, number));
            n.out(0).names() = {a};
            tensors_[a] = n.out(0);
        }
    }

    std::string path_;
    std::unique_ptr<mo::Graph> graph_;
    std::map<std::string, mo::OutPort> tensors_;
};

void extract_scale(mo::ExtractContext& c) {
    mo::OutPort x = c.input(0);
    mo::OutPort k = c.constant("value", mo::Tensor::scalar<float>(static_cast<float>(c.f("value", 1.0))));
    c.set_output(0, c.op("Multiply", "", {x, k}));
}

void register_toy(mo::Registries& r) {
    mo::Loader loader;
    loader.framework = "toy";
    loader.extensions = {".toy"};
    loader.description = "toy text models (.toy)";
    loader.load = [](const std::string& path, const mo::ConversionOptions&, const mo::OpRegistry& ops) {
        return ToyGraphBuilder(path, ops).build();
    };
    r.loaders.add(std::move(loader));
    r.extractors.add({"toy", "", "relu", 1, INT64_MAX, [](mo::ExtractContext& c) { c.become("Relu"); }});
    r.extractors.add({"toy", "", "scale", 1, INT64_MAX, extract_scale});
}

}  // namespace

MO_DEFINE_PLUGIN("toy_framework", "1.0", register_toy)
