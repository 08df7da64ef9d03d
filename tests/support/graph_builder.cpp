#include "support/graph_builder.hpp"

#include "ops/ops.hpp"

namespace mo::test {

const OpRegistry& builtin_ops() {
    static const OpRegistry ops = [] {
        OpRegistry r;
        register_builtin_ops(r);
        return r;
    }();
    return ops;
}

GraphBuilder::GraphBuilder() : graph_(std::make_unique<Graph>(builtin_ops())) {}

std::string GraphBuilder::fresh(const std::string& name, const std::string& prefix) {
    ++counter_;
    return name.empty() ? prefix + "_" + std::to_string(counter_) : name;
}

OutPort GraphBuilder::input(ElementType type, PartialShape shape, std::string name) {
    Node p = graph_->add_op("Parameter", fresh(name, "input"), {},
                            {{"shape", AttrValue(shape)}, {"element_type", AttrValue(type)}});
    p.out(0).set_type_and_shape(type, shape);
    p.out(0).names().push_back(p.name());
    graph_->parameters().push_back(p);
    return p.out(0);
}

Node GraphBuilder::node(const std::string& type, const std::vector<OutPort>& inputs, const AttrMap& attrs, std::string name) {
    return graph_->add_op(type, fresh(name, type), inputs, attrs);
}

OutPort GraphBuilder::op(const std::string& type, const std::vector<OutPort>& inputs, const AttrMap& attrs, std::string name) {
    return node(type, inputs, attrs, std::move(name)).out(0);
}

Node GraphBuilder::output(OutPort value, std::string name) {
    Node r = graph_->add_op("Result", fresh(name, "result"), {value});
    graph_->results().push_back(r);
    return r;
}

}  // namespace mo::test
