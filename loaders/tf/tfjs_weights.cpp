#include "loaders/tf/tfjs_weights.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/float16.hpp"

namespace mo {

namespace {

using json = nlohmann::ordered_json;
using Kind = json::value_t;

// The shards named by `paths` (model.json's `at`), concatenated.
std::vector<std::byte> read_shards(const json& paths, const std::string& at, const std::string& dir,
                                   const std::string& where) {
    std::vector<std::byte> bytes;
    for (size_t i = 0; i < paths.size(); ++i) {
        tfjs_expect(paths[i], Kind::string, at + "[" + std::to_string(i) + "]", where);
        const std::string rel = paths[i].get<std::string>();
        const std::filesystem::path path = std::filesystem::path(dir) / rel;
        if (rel.empty() || rel.front() == '/' || rel.find("..") != std::string::npos)
            throw Error("weight shard '" + rel + "' is not a file next to model.json", where, "fix the manifest");
        std::ifstream in(path, std::ios::binary);
        if (!in) throw Error("weight shard '" + rel + "' is missing", where, "copy the model's .bin shards next to model.json");
        std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t offset = bytes.size();
        bytes.resize(offset + data.size());
        std::memcpy(bytes.data() + offset, data.data(), data.size());
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

const char* kind_name(Kind type) {
    switch (type) {
        case Kind::object: return "an object";
        case Kind::array: return "an array";
        case Kind::string: return "a string";
        case Kind::boolean: return "a boolean";
        case Kind::number_unsigned: return "a non-negative integer";
        case Kind::number_integer:
        case Kind::number_float: return "a number";
        default: return "null";
    }
}

}  // namespace

void tfjs_expect(const json& v, Kind type, const std::string& path, const std::string& where) {
    const bool ok = type == Kind::number_float ? v.is_number() : v.type() == type;
    if (!ok)
        throw Error("model.json's " + path + " is " + (v.is_number() ? "the number " + v.dump() : kind_name(v.type())) +
                        ", not " + kind_name(type),
                    where, "re-export the TF.js model");
}

const json* tfjs_member(const json& parent, const std::string& path, const char* key, Kind type, const std::string& where,
                        bool required) {
    const std::string at = path.empty() ? key : path + "." + key;
    const auto it = parent.find(key);
    if (it == parent.end()) {
        if (!required) return nullptr;
        throw Error("model.json has no " + at, where, "re-export the TF.js model");
    }
    tfjs_expect(*it, type, at, where);
    return &*it;
}

std::map<std::string, Tensor> read_tfjs_weights(const json& manifest, const std::string& model_dir,
                                                const std::string& where) {
    std::map<std::string, Tensor> out;
    tfjs_expect(manifest, Kind::array, "weightsManifest", where);
    for (size_t g = 0; g < manifest.size(); ++g) {
        const std::string group_at = "weightsManifest[" + std::to_string(g) + "]";
        const json& group = manifest[g];
        tfjs_expect(group, Kind::object, group_at, where);
        const std::vector<std::byte> bytes =
            read_shards(*tfjs_member(group, group_at, "paths", Kind::array, where), group_at + ".paths", model_dir, where);
        const json& weights = *tfjs_member(group, group_at, "weights", Kind::array, where);
        size_t offset = 0;
        for (size_t i = 0; i < weights.size(); ++i) {
            const std::string at = group_at + ".weights[" + std::to_string(i) + "]";
            const json& w = weights[i];
            tfjs_expect(w, Kind::object, at, where);
            const std::string name = tfjs_member(w, at, "name", Kind::string, where)->get<std::string>();
            const json& dims = *tfjs_member(w, at, "shape", Kind::array, where);
            Shape shape;
            for (size_t d = 0; d < dims.size(); ++d) {
                const std::string dim_at = at + ".shape[" + std::to_string(d) + "]";
                tfjs_expect(dims[d], Kind::number_unsigned, dim_at, where);
                if (dims[d].get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
                    throw Error("model.json's " + dim_at + " is " + dims[d].dump() + ", more than 64 bits count", where,
                                "re-export the TF.js model");
                shape.push_back(dims[d].get<int64_t>());
            }
            const auto count = static_cast<size_t>(located(where, [&] { return shape_size(shape); }));
            const std::string dtype = tfjs_member(w, at, "dtype", Kind::string, where)->get<std::string>();
            const ElementType type = stored_type(dtype, where);
            const json* q = tfjs_member(w, at, "quantization", Kind::object, where, false);
            const std::string q_at = at + ".quantization";
            const std::string qtype = q ? tfjs_member(*q, q_at, "dtype", Kind::string, where)->get<std::string>() : "";
            if (!qtype.empty() && qtype != "uint8" && qtype != "uint16" && qtype != "float16")
                throw Error("weight '" + name + "' is quantized as '" + qtype + "'", where,
                            "mo reads uint8, uint16 and float16 quantization");
            // Every element takes a byte at least: with the count checked first, the size cannot overflow.
            size_t size = SIZE_MAX;
            if (count <= bytes.size() - offset)
                size = qtype.empty() ? byte_size(type, count) : qtype == "uint8" ? count : 2 * count;
            if (size > bytes.size() - offset)
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
                for (size_t k = 0; k < count; ++k) {
                    uint16_t bits;
                    std::memcpy(&bits, data + 2 * k, 2);
                    f[k] = f16_to_f32(bits);
                }
            } else {
                const double scale = tfjs_member(*q, q_at, "scale", Kind::number_float, where)->get<double>();
                const double min = tfjs_member(*q, q_at, "min", Kind::number_float, where)->get<double>();
                const bool wide = qtype == "uint16";
                float* f = t.mutable_data<float>();
                for (size_t k = 0; k < count; ++k) {
                    uint16_t v = 0;
                    if (wide) std::memcpy(&v, data + 2 * k, 2);
                    else v = static_cast<uint8_t>(data[k]);
                    f[k] = static_cast<float>(v * scale + min);
                }
            }
            out.emplace(name, std::move(t));
        }
    }
    return out;
}

}  // namespace mo
