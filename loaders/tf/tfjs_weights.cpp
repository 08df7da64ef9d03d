#include "loaders/tf/tfjs_weights.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/float16.hpp"

namespace mo {

namespace {

std::vector<std::byte> read_shards(const nlohmann::json& group, const std::string& dir, const std::string& where) {
    std::vector<std::byte> bytes;
    for (const auto& p : group.at("paths")) {
        const std::string rel = p.get<std::string>();
        const std::filesystem::path path = std::filesystem::path(dir) / rel;
        if (rel.empty() || rel.front() == '/' || rel.find("..") != std::string::npos)
            throw Error("weight shard '" + rel + "' is not a file next to model.json", where, "fix the manifest");
        std::ifstream in(path, std::ios::binary);
        if (!in) throw Error("weight shard '" + rel + "' is missing", where, "copy the model's .bin shards next to model.json");
        std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t at = bytes.size();
        bytes.resize(at + data.size());
        std::memcpy(bytes.data() + at, data.data(), data.size());
    }
    return bytes;
}

ElementType stored_type(const std::string& dtype, const std::string& where) {
    if (dtype == "float32") return ElementType::f32;
    if (dtype == "int32") return ElementType::i32;
    if (dtype == "bool") return ElementType::boolean;
    if (dtype == "uint8") return ElementType::u8;
    throw Error("weight dtype '" + dtype + "' is not supported", where, "mo reads float32, int32, bool and uint8 weights");
}

}  // namespace

std::map<std::string, Tensor> read_tfjs_weights(const nlohmann::json& manifest, const std::string& model_dir,
                                                const std::string& where) {
    std::map<std::string, Tensor> out;
    try {
        for (const auto& group : manifest) {
            const std::vector<std::byte> bytes = read_shards(group, model_dir, where);
            size_t offset = 0;
            for (const auto& w : group.at("weights")) {
                const std::string name = w.at("name").get<std::string>();
                Shape shape = w.at("shape").get<Shape>();
                const size_t count = static_cast<size_t>(shape_size(shape));
                const ElementType type = stored_type(w.at("dtype").get<std::string>(), where);
                const auto q = w.find("quantization");
                const std::string qtype = q == w.end() ? "" : q->at("dtype").get<std::string>();
                if (!qtype.empty() && qtype != "uint8" && qtype != "uint16" && qtype != "float16")
                    throw Error("weight '" + name + "' is quantized as '" + qtype + "'", where,
                                "mo reads uint8, uint16 and float16 quantization");
                const size_t size = qtype.empty() ? byte_size(type, count) : qtype == "uint8" ? count : 2 * count;
                if (offset + size > bytes.size())
                    throw Error("the weight shards end before weight '" + name + "' (" + std::to_string(bytes.size()) +
                                    " bytes)",
                                where, "the shards are truncated; copy them again");
                const std::byte* data = bytes.data() + offset;
                offset += size;
                Tensor t = Tensor::allocate(type, shape);
                if (qtype.empty()) {
                    std::memcpy(t.mutable_data<std::byte>(), data, size);
                } else if (type != ElementType::f32) {
                    throw Error("quantized weight '" + name + "' is not float32", where, "re-export the TF.js model");
                } else if (qtype == "float16") {
                    float* f = t.mutable_data<float>();
                    for (size_t i = 0; i < count; ++i) {
                        uint16_t bits;
                        std::memcpy(&bits, data + 2 * i, 2);
                        f[i] = f16_to_f32(bits);
                    }
                } else {
                    const double scale = q->at("scale").get<double>(), min = q->at("min").get<double>();
                    const bool wide = qtype == "uint16";
                    float* f = t.mutable_data<float>();
                    for (size_t i = 0; i < count; ++i) {
                        uint16_t v = 0;
                        if (wide) std::memcpy(&v, data + 2 * i, 2);
                        else v = static_cast<uint8_t>(data[i]);
                        f[i] = static_cast<float>(v * scale + min);
                    }
                }
                out.emplace(name, std::move(t));
            }
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("bad weightsManifest: ") + e.what(), where, "re-export the TF.js model");
    }
    return out;
}

}  // namespace mo
