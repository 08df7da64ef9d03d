#include "transforms/back/compress_to_f16.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/mapped_file.hpp"

#include "core/float16.hpp"

namespace mo {

namespace {

bool feeds_precision_sensitive_input(const OutPort& port) {
    for (const InPort& t : port.targets()) {
        if (t.node().rt_info().count(kDisableFp16Compression)) return true;
        const auto& sensitive = t.node().op().precision_sensitive_inputs;
        if (std::find(sensitive.begin(), sensitive.end(), t.index()) != sensitive.end()) return true;
    }
    return false;
}

// Whether no finite value has a magnitude beyond 65504, the largest f16. Works on the bits
// (branch-free, so it vectorises): |x| > 65504 and finite <=> 0x477fe000 < bits(|x|) < 0x7f800000.
bool finite_values_fit_f16(const float* v, size_t n) {
    const auto* bits = reinterpret_cast<const uint32_t*>(v);
    uint32_t out_of_range = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t a = bits[i] & 0x7fffffffu;
        out_of_range |= static_cast<uint32_t>(a > 0x477fe000u) & static_cast<uint32_t>(a < 0x7f800000u);
    }
    return out_of_range == 0;
}

// The f16 copy of `t`, or nothing when a finite value lies beyond the f16 range (such a
// constant stays f32). Works in chunks and, for weights mapped from the model file, drops each
// chunk's pages once converted, so peak memory stays near the size of the f16 output.
std::optional<Tensor> to_f16(const Tensor& t) {
    constexpr size_t kChunk = size_t{1} << 16;  // elements: the check leaves the chunk in cache for the conversion
    Tensor out = Tensor::allocate(ElementType::f16, t.shape());
    const float* src = t.data<float>();
    uint16_t* dst = out.mutable_data<uint16_t>();
    const bool mapped = t.buffer()->is_file_view();
    for (size_t begin = 0, n = t.size(); begin < n; begin += kChunk) {
        const size_t count = std::min(kChunk, n - begin);
        if (!finite_values_fit_f16(src + begin, count)) return std::nullopt;
        f32_to_f16(src + begin, dst + begin, count);
        if (mapped) MappedFile::release_pages(reinterpret_cast<const std::byte*>(src + begin), count * sizeof(float));
    }
    return out;
}

}  // namespace

bool CompressFloatConstantsToF16::run(Graph& graph, const TransformContext&) {
    std::vector<Node> candidates;
    for (Node n : graph.nodes()) {
        if (!n.is("Constant") || n.out(0).type() != ElementType::f32 || !n.out(0).has_targets()) continue;
        if (!feeds_precision_sensitive_input(n.out(0))) candidates.push_back(n);
    }
    bool changed = false;
    for (Node c : candidates) {
        std::optional<Tensor> half = to_f16(*c.out(0).value());
        if (!half) continue;
        const std::string name = c.name();
        Node compressed = graph.add_constant(name + "_compressed", std::move(*half));
        Node convert = graph.add_op("Convert", name, {compressed.out(0)},
                                    {{"destination_type", AttrValue(ElementType::f32)}});
        convert.rt_info()["decompression"] = "0";
        c.out(0).replace_all_uses_with(convert.out(0));
        convert.out(0).names() = std::move(c.out(0).names());
        convert.fused_names() = c.fused_names();
        graph.remove_node(c);
        changed = true;
    }
    return changed;
}

bool CheckOnlyOpsetOps::run(Graph& graph, const TransformContext&) {
    for (Node n : graph.topological_order())
        if (n.op().is_internal())
            throw Error("op '" + (n.is("FrameworkNode") ? n.framework().type : n.type()) + "' is not supported",
                        n.describe(),
                        "no transformation lowered it to an OpenVINO opset op; check that its lowering is enabled");
    return false;
}

}  // namespace mo
