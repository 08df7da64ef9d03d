#include "loaders/tf/tf_attributes.hpp"

#include "core/error.hpp"
#include "loaders/tf/tf_graph.pb.h"
#include "loaders/tf/tf_tensor.hpp"

namespace mo {

namespace {

FrameworkAttr read(const mo_tf::AttrValue& a, std::string_view name, const std::string& node, int64_t max_bytes) {
    using V = mo_tf::AttrValue;
    switch (a.value_case()) {
        case V::kI: return a.i();
        case V::kF: return static_cast<double>(a.f());
        case V::kB: return static_cast<int64_t>(a.b());
        case V::kS: return a.s();
        case V::kType: return static_cast<int64_t>(a.type());
        case V::kShape: {
            std::vector<int64_t> dims;
            for (const auto& d : a.shape().dim()) dims.push_back(d.size());
            return dims;
        }
        case V::kTensor:
            return tf_tensor_value(a.tensor(), "attribute '" + std::string(name) + "' of node '" + node + "'", max_bytes);
        case V::kList: {
            const auto& l = a.list();
            if (l.s_size()) return std::vector<std::string>(l.s().begin(), l.s().end());
            if (l.f_size()) return std::vector<double>(l.f().begin(), l.f().end());
            if (l.type_size()) return std::vector<int64_t>(l.type().begin(), l.type().end());
            return std::vector<int64_t>(l.i().begin(), l.i().end());  // also an empty list
        }
        default:
            throw Error("attribute '" + std::string(name) + "' is of a kind mo does not read (function or placeholder)",
                        "node '" + node + "'");
    }
}

class TfAttributes final : public FrameworkAttributes {
public:
    TfAttributes(const mo_tf::NodeDef& node, int64_t max_bytes) : node_(node), max_bytes_(max_bytes) {}

    std::optional<FrameworkAttr> get(std::string_view name) const override {
        auto it = node_.attr().find(std::string(name));
        if (it == node_.attr().end()) return std::nullopt;
        return read(it->second, name, node_.name(), max_bytes_);
    }

private:
    const mo_tf::NodeDef& node_;
    int64_t max_bytes_;
};

}  // namespace

std::shared_ptr<const FrameworkAttributes> tf_attributes(const mo_tf::NodeDef& node, int64_t max_bytes) {
    return std::make_shared<TfAttributes>(node, max_bytes);
}

}  // namespace mo
