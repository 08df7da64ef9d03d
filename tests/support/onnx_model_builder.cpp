#include "support/onnx_model_builder.hpp"
#include "support/write_file.hpp"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <google/protobuf/text_format.h>

namespace mo::test {

namespace {

template <typename T>
std::string raw_bytes(const std::vector<T>& values) {
    std::string s(values.size() * sizeof(T), '\0');
    if (!values.empty()) std::memcpy(s.data(), values.data(), s.size());
    return s;
}

void set_dims(onnx::TensorProto& t, const std::vector<int64_t>& dims) {
    for (int64_t d : dims) t.add_dims(d);
}

}  // namespace

onnx::TensorProto onnx_tensor(const std::string& name, const std::vector<float>& values,
                              const std::vector<int64_t>& dims, bool raw) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    set_dims(t, dims);
    if (raw) {
        t.set_raw_data(raw_bytes(values));
    } else {
        for (float v : values) t.add_float_data(v);
    }
    return t;
}

onnx::TensorProto onnx_tensor_i64(const std::string& name, const std::vector<int64_t>& values,
                                  const std::vector<int64_t>& dims, bool raw) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::INT64);
    set_dims(t, dims);
    if (raw) {
        t.set_raw_data(raw_bytes(values));
    } else {
        for (int64_t v : values) t.add_int64_data(v);
    }
    return t;
}

onnx::TensorProto onnx_external_tensor(const std::string& name, const std::string& location,
                                       const std::vector<int64_t>& dims) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    set_dims(t, dims);
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* entry = t.add_external_data();
    entry->set_key("location");
    entry->set_value(location);
    return t;
}

// The directory lives as long as the test process and is removed at exit.
struct TempDir {
    std::filesystem::path path;
    TempDir() : path(std::filesystem::temp_directory_path() / ("mo_onnx_tests_" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

std::string onnx_temp_path(const std::string& file_name) {
    static const TempDir dir;
    return (dir.path / file_name).string();
}

OnnxModelBuilder::OnnxModelBuilder(int64_t opset) {
    model_.set_ir_version(8);
    model_.set_producer_name("mo-tests");
    model_.mutable_graph()->set_name("test_graph");
    import("", opset);
}

OnnxModelBuilder& OnnxModelBuilder::import(const std::string& domain, int64_t version) {
    auto* o = model_.add_opset_import();
    o->set_domain(domain);
    o->set_version(version);
    return *this;
}

OnnxModelBuilder& OnnxModelBuilder::input(const std::string& name, const std::vector<OnnxDim>& dims,
                                          int32_t elem_type) {
    auto* vi = model_.mutable_graph()->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem_type);
    auto* shape = tt->mutable_shape();
    for (const OnnxDim& d : dims) {
        auto* dim = shape->add_dim();
        if (!d.param.empty()) dim->set_dim_param(d.param);
        else if (d.value >= 0) dim->set_dim_value(d.value);
    }
    return *this;
}

OnnxModelBuilder& OnnxModelBuilder::input_any_rank(const std::string& name, int32_t elem_type) {
    auto* vi = model_.mutable_graph()->add_input();
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
    return *this;
}

OnnxModelBuilder& OnnxModelBuilder::output(const std::string& name, int32_t elem_type) {
    auto* vi = model_.mutable_graph()->add_output();
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
    return *this;
}

OnnxModelBuilder& OnnxModelBuilder::initializer(const std::string& name, const std::vector<float>& values,
                                                const std::vector<int64_t>& dims, bool raw) {
    return initializer(onnx_tensor(name, values, dims, raw));
}

OnnxModelBuilder& OnnxModelBuilder::initializer_i64(const std::string& name, const std::vector<int64_t>& values,
                                                    const std::vector<int64_t>& dims, bool raw) {
    return initializer(onnx_tensor_i64(name, values, dims, raw));
}

OnnxModelBuilder& OnnxModelBuilder::initializer(onnx::TensorProto tensor) {
    *model_.mutable_graph()->add_initializer() = std::move(tensor);
    return *this;
}

onnx::NodeProto& OnnxModelBuilder::node(const std::string& op_type, const std::vector<std::string>& inputs,
                                        const std::vector<std::string>& outputs,
                                        const std::vector<OnnxAttr>& attrs, const std::string& name,
                                        const std::string& domain) {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op_type);
    if (!name.empty()) n->set_name(name);
    if (!domain.empty()) n->set_domain(domain);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    for (const OnnxAttr& a : attrs) {
        auto* p = n->add_attribute();
        p->set_name(a.name);
        p->set_type(a.type);
        switch (a.type) {
            case onnx::AttributeProto::INT: p->set_i(a.i); break;
            case onnx::AttributeProto::FLOAT: p->set_f(a.f); break;
            case onnx::AttributeProto::STRING: p->set_s(a.s); break;
            case onnx::AttributeProto::INTS: for (int64_t v : a.ints) p->add_ints(v); break;
            case onnx::AttributeProto::FLOATS: for (float v : a.floats) p->add_floats(v); break;
            case onnx::AttributeProto::TENSOR: *p->mutable_t() = a.t; break;
            default: break;
        }
    }
    return *n;
}

std::string OnnxModelBuilder::bytes() const {
    std::string s;
    if (!model_.SerializeToString(&s)) throw std::runtime_error("cannot serialize the test model");
    return s;
}

std::string OnnxModelBuilder::save(const std::string& file_name) const {
    std::string path = std::filesystem::path(file_name).is_absolute() ? file_name : onnx_temp_path(file_name);
    std::string content;
    if (std::filesystem::path(path).extension() == ".prototxt") {
        if (!google::protobuf::TextFormat::PrintToString(model_, &content))
            throw std::runtime_error("cannot print the test model as text");
    } else {
        content = bytes();
    }
    write_file_atomically(path, content);
    return path;
}

}  // namespace mo::test
