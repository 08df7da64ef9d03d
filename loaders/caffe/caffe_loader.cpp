#include "loaders/caffe/caffe_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/mapped_file.hpp"
#include "loaders/caffe/caffe.pb.h"
#include "loaders/caffe/caffe_attributes.hpp"
#include "loaders/caffe/text_tree.hpp"
#include "loaders/input_overrides.hpp"
#include "loaders/protobuf_text.hpp"
#include "loaders/protobuf_wire.hpp"

namespace mo {

namespace fs = std::filesystem;

namespace {

using mo_caffe::BlobProto;
using mo_caffe::LayerParameter;
using mo_caffe::NetParameter;
using mo_caffe::NetStateRule;
using mo_caffe::V1LayerParameter;

// The largest blob or input dimension product mo accepts (2^40 elements: far above real nets,
// low enough that sizes computed from it cannot overflow).
constexpr int64_t kMaxElements = int64_t{1} << 40;

std::string lower_extension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open the file", path, "check the path");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Whether the file starts like a text NetParameter (its first field name, after blanks and
// '#' comments, is one a net has), not like a binary one.
bool looks_like_text_net(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    size_t i = 0;
    while (i < head.size()) {
        if (std::isspace(static_cast<unsigned char>(head[i]))) ++i;
        else if (head[i] == '#') i = head.find('\n', i) == std::string::npos ? head.size() : head.find('\n', i) + 1;
        else break;
    }
    size_t end = i;
    while (end < head.size() && (std::isalnum(static_cast<unsigned char>(head[end])) || head[end] == '_')) ++end;
    static const std::set<std::string> kFirst = {"name", "input", "input_shape", "input_dim", "layer", "layers",
                                                 "force_backward", "state", "debug_info"};
    size_t next = end;  // the field's ':' or '{'
    while (next < head.size() && std::isspace(static_cast<unsigned char>(head[next]))) ++next;
    return kFirst.count(head.substr(i, end - i)) > 0 && next < head.size() && (head[next] == ':' || head[next] == '{');
}

// A net as read from one file: the message, the layers in the current form (V1 layers upgraded
// into `upgraded`), each layer's blobs and, for a text file, its text.
struct CaffeNet {
    std::string path;
    std::shared_ptr<NetParameter> net = std::make_shared<NetParameter>();
    std::shared_ptr<NetParameter> upgraded;  // V1 layers in the current form
    std::shared_ptr<const MappedFile> file;   // binary files
    std::vector<std::optional<protobuf_wire::ByteRange>> blob_data;  // lifted blob data, in message order
    std::shared_ptr<const TextMessage> text;  // text files
    std::vector<const LayerParameter*> layers;
    std::vector<std::vector<Tensor>> blobs;
    std::vector<std::shared_ptr<const TextMessage>> layer_texts;
    std::vector<std::vector<std::string>> unknown;
};

// Caffe's type names of the V1 LayerType values (upgrade_proto.cpp's UpgradeV1LayerType).
std::string v1_type_name(V1LayerParameter::LayerType t) {
    using L = V1LayerParameter;
    static const std::map<int, const char*> kNames = {
        {L::ABSVAL, "AbsVal"}, {L::ACCURACY, "Accuracy"}, {L::ARGMAX, "ArgMax"}, {L::BNLL, "BNLL"},
        {L::CONCAT, "Concat"}, {L::CONTRASTIVE_LOSS, "ContrastiveLoss"}, {L::CONVOLUTION, "Convolution"},
        {L::DECONVOLUTION, "Deconvolution"}, {L::DATA, "Data"}, {L::DROPOUT, "Dropout"}, {L::DUMMY_DATA, "DummyData"},
        {L::EUCLIDEAN_LOSS, "EuclideanLoss"}, {L::ELTWISE, "Eltwise"}, {L::EXP, "Exp"}, {L::FLATTEN, "Flatten"},
        {L::HDF5_DATA, "HDF5Data"}, {L::HDF5_OUTPUT, "HDF5Output"}, {L::HINGE_LOSS, "HingeLoss"}, {L::IM2COL, "Im2col"},
        {L::IMAGE_DATA, "ImageData"}, {L::INFOGAIN_LOSS, "InfogainLoss"}, {L::INNER_PRODUCT, "InnerProduct"},
        {L::LRN, "LRN"}, {L::MEMORY_DATA, "MemoryData"}, {L::MULTINOMIAL_LOGISTIC_LOSS, "MultinomialLogisticLoss"},
        {L::MVN, "MVN"}, {L::POOLING, "Pooling"}, {L::POWER, "Power"}, {L::RELU, "ReLU"}, {L::SIGMOID, "Sigmoid"},
        {L::SIGMOID_CROSS_ENTROPY_LOSS, "SigmoidCrossEntropyLoss"}, {L::SILENCE, "Silence"}, {L::SOFTMAX, "Softmax"},
        {L::SOFTMAX_LOSS, "SoftmaxWithLoss"}, {L::SPLIT, "Split"}, {L::SLICE, "Slice"}, {L::TANH, "TanH"},
        {L::WINDOW_DATA, "WindowData"}, {L::THRESHOLD, "Threshold"}};
    auto it = kNames.find(t);
    return it == kNames.end() ? std::string() : it->second;
}

// A V1 layer in the current form: the same parameter messages under the same field names.
void upgrade_v1(const V1LayerParameter& v1, LayerParameter& out, const std::string& path) {
    if (v1.has_layer())
        throw Error("layer '" + v1.name() + "' is in Caffe's V0 form (layers { layer { ... } })", path,
                    "upgrade the net with Caffe's upgrade_net_proto_text / upgrade_net_proto_binary");
    out.set_name(v1.name());
    out.set_type(v1_type_name(v1.type()));
    if (out.type().empty())
        throw Error("layer '" + v1.name() + "' has no type (V1 LayerType " + std::to_string(v1.type()) + ")", path,
                    "fix the model");
    *out.mutable_bottom() = v1.bottom();
    *out.mutable_top() = v1.top();
    *out.mutable_include() = v1.include();
    *out.mutable_exclude() = v1.exclude();
    *out.mutable_loss_weight() = v1.loss_weight();
    *out.mutable_blobs() = v1.blobs();
    const auto* from = V1LayerParameter::descriptor();
    const auto* to = LayerParameter::descriptor();
    const auto* rf = v1.GetReflection();
    auto* rt = out.GetReflection();
    for (int i = 0; i < from->field_count(); ++i) {
        const auto* f = from->field(i);
        const std::string& name = f->name();
        if (name.size() < 6 || name.compare(name.size() - 6, 6, "_param") != 0 || !rf->HasField(v1, f)) continue;
        if (const auto* g = to->FindFieldByName(name)) rt->MutableMessage(&out, g)->CopyFrom(rf->GetMessage(v1, f));
    }
}

bool meets_rule(const NetStateRule& rule, const mo_caffe::NetState& state) {
    if (rule.has_phase() && rule.phase() != state.phase()) return false;
    if (rule.has_min_level() && state.level() < rule.min_level()) return false;
    if (rule.has_max_level() && state.level() > rule.max_level()) return false;
    for (const auto& s : rule.stage())
        if (std::find(state.stage().begin(), state.stage().end(), s) == state.stage().end()) return false;
    for (const auto& s : rule.not_stage())
        if (std::find(state.stage().begin(), state.stage().end(), s) != state.stage().end()) return false;
    return true;
}

// Caffe's FilterNet for a TEST-phase net (the net's own state for level and stages).
bool included(const LayerParameter& l, const mo_caffe::NetState& state) {
    if (l.include_size() > 0)
        return std::any_of(l.include().begin(), l.include().end(), [&](const auto& r) { return meets_rule(r, state); });
    return std::none_of(l.exclude().begin(), l.exclude().end(), [&](const auto& r) { return meets_rule(r, state); });
}

int64_t checked_product(const std::vector<int64_t>& dims, const std::string& what, const std::string& where) {
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0 || d > kMaxElements || (d > 0 && n > kMaxElements / d))
            throw Error(what + " has dimensions mo does not accept (negative, or more than 2^40 elements)", where,
                        "the model is corrupt; re-export it");
        n *= d;
    }
    return n;
}

// The blob's shape: `shape` if set, else the legacy (num, channels, height, width).
// (A blob with neither is 1-D: `values` long.)
std::vector<int64_t> blob_dims(const BlobProto& b, size_t values) {
    if (b.has_shape()) return {b.shape().dim().begin(), b.shape().dim().end()};
    if (b.has_num() || b.has_channels() || b.has_height() || b.has_width()) return {b.num(), b.channels(), b.height(), b.width()};
    return {static_cast<int64_t>(values)};
}

Tensor blob_tensor(const CaffeNet& n, const BlobProto& b, const std::optional<protobuf_wire::ByteRange>& lifted,
                   const std::string& where) {
    if (b.has_raw_data() || b.has_raw_data_type())
        throw Error("the blob is stored in NVIDIA Caffe's raw_data form, which mo does not read", where,
                    "save the weights as float data");
    const size_t values = lifted ? lifted->size / 4 : static_cast<size_t>(b.data_size() + b.double_data_size());
    const std::vector<int64_t> dims = blob_dims(b, values);
    const int64_t count = checked_product(dims, "the blob", where);
    Shape shape(dims.begin(), dims.end());
    if (lifted) {
        if (lifted->size != static_cast<size_t>(count) * 4 || b.data_size() != 0 || b.double_data_size() != 0)
            throw Error("the blob holds " + std::to_string(lifted->size / 4 + static_cast<size_t>(b.data_size())) +
                            " values, its shape needs " + std::to_string(count),
                        where, "the model is corrupt; re-export it");
        return Tensor(ElementType::f32, shape, std::make_shared<ViewBuffer>(n.file, n.file->data() + lifted->offset, lifted->size))
            .aligned_if_small();
    }
    if (b.data_size() == count && b.double_data_size() == 0) {
        Tensor t = Tensor::allocate(ElementType::f32, shape);
        std::copy(b.data().begin(), b.data().end(), t.mutable_data<float>());
        return t;
    }
    if (b.double_data_size() == count && b.data_size() == 0) {
        Tensor t = Tensor::allocate(ElementType::f32, shape);
        std::transform(b.double_data().begin(), b.double_data().end(), t.mutable_data<float>(),
                       [](double v) { return static_cast<float>(v); });
        return t;
    }
    throw Error("the blob holds " + std::to_string(b.data_size() + b.double_data_size()) + " values, its shape needs " +
                    std::to_string(count),
                where, "the model is corrupt; re-export it");
}

// Fills n.layers (and blobs, texts) from n.net: the `layer` form if it has any layer, else `layers`.
void collect_layers(CaffeNet& n, bool v1) {
    const std::vector<const TextValue*> texts = n.text ? n.text->all(v1 ? "layers" : "layer") : std::vector<const TextValue*>{};
    const int count = v1 ? n.net->layers_size() : n.net->layer_size();
    if (n.text && static_cast<int>(texts.size()) != count)
        throw Error("the text has " + std::to_string(texts.size()) + " layers where protobuf read " + std::to_string(count),
                    n.path, "check the prototxt syntax");
    if (v1) n.upgraded = std::make_shared<NetParameter>();
    size_t next_blob = 0;
    for (int i = 0; i < count; ++i) {
        const LayerParameter* l = nullptr;
        std::vector<std::string> unknown;
        if (v1) {
            const V1LayerParameter& old = n.net->layers(i);
            upgrade_v1(old, *n.upgraded->add_layer(), n.path);
            l = &n.upgraded->layer(n.upgraded->layer_size() - 1);
            if (n.text) unknown = unknown_text_fields(*texts[static_cast<size_t>(i)]->message, *V1LayerParameter::descriptor());
        } else {
            l = &n.net->layer(i);
            if (n.text) unknown = unknown_text_fields(*texts[static_cast<size_t>(i)]->message, *LayerParameter::descriptor());
        }
        std::vector<Tensor> blobs;
        for (int b = 0; b < l->blobs_size(); ++b) {
            std::optional<protobuf_wire::ByteRange> lifted;
            if (!n.blob_data.empty()) {
                if (next_blob >= n.blob_data.size()) throw Error("blob count mismatch after parsing", n.path, "the model is corrupt");
                lifted = n.blob_data[next_blob++];
            }
            blobs.push_back(blob_tensor(n, l->blobs(b), lifted,
                                        "blob " + std::to_string(b) + " of layer '" + l->name() + "' in " + n.path));
        }
        n.layers.push_back(l);
        n.blobs.push_back(std::move(blobs));
        n.layer_texts.push_back(n.text ? texts[static_cast<size_t>(i)]->message : nullptr);
        n.unknown.push_back(std::move(unknown));
    }
    if (!n.blob_data.empty() && next_blob != n.blob_data.size())
        throw Error("blob count mismatch after parsing", n.path, "the model is corrupt; re-export it");
}

CaffeNet parse_text_net(const std::string& path) {
    CaffeNet n;
    n.path = path;
    const std::string text = read_text(path);
    if (auto error = protobuf_text::parse(text, *n.net, 100, true))
        throw Error("not a valid Caffe prototxt: " + *error, path,
                    "pass the deploy.prototxt with --input_proto and the weights with --input_model");
    n.text = parse_text_tree(text, path);
    if (n.net->layer_size() > 0 && n.net->layers_size() > 0)
        throw Error("the net mixes the current `layer` form with the deprecated `layers` form", path,
                    "upgrade the net with Caffe's upgrade_net_proto_text");
    collect_layers(n, n.net->layer_size() == 0 && n.net->layers_size() > 0);
    return n;
}

// The blobs' float data (LayerParameter.blobs(7).data(5), or V1's blobs(6).data(5)) stays in the
// mapped file: it is lifted out before parsing.
CaffeNet parse_binary_net(const std::string& path) {
    CaffeNet n;
    n.path = path;
    n.file = MappedFile::open(path);
    for (bool v1 : {false, true}) {
        const std::vector<uint32_t> blob_path = v1 ? std::vector<uint32_t>{2, 6, 5} : std::vector<uint32_t>{100, 7, 5};
        auto lifted = protobuf_wire::lift_bytes_fields(n.file->data(), n.file->size(), blob_path, 1, path, "Caffe NetParameter");
        if (lifted.bytes.size() > static_cast<size_t>(INT32_MAX))
            throw Error("the net's structure exceeds 2 GB", path, "store the weights as packed float data");
        n.net = std::make_shared<NetParameter>();
        if (!n.net->ParseFromString(lifted.bytes))
            throw Error("not a valid binary Caffe NetParameter (protobuf parsing failed)", path,
                        "pass the .caffemodel with --input_model and the deploy.prototxt with --input_proto");
        if (!v1 && n.net->layer_size() == 0 && n.net->layers_size() > 0) continue;  // V1: lift its blobs instead
        n.blob_data = std::move(lifted.items);
        collect_layers(n, v1);
        return n;
    }
    return n;
}

bool is_text_file(const std::string& path) {
    const std::string ext = lower_extension(path);
    if (ext == ".caffemodel" || ext == ".binaryproto") return false;
    if (ext == ".prototxt" || ext == ".pbtxt" || ext == ".txt") return true;
    return looks_like_text_net(path);
}

class CaffeGraphBuilder {
public:
    CaffeGraphBuilder(const std::string& path, const ConversionOptions& options, const OpRegistry& ops)
        : path_(path), options_(options), graph_(std::make_unique<Graph>(ops)) {}

    std::unique_ptr<Graph> run() {
        read_files();
        graph_->source_path = path_;
        graph_->source_framework = "caffe";
        graph_->source_layout = "NCHW";
        const CaffeNet& topo = topology_ ? *topology_ : *weights_;
        state_ = topo.net->state();
        state_.set_phase(mo_caffe::TEST);
        add_inputs(topo);
        add_layers(topo);
        add_results();
        return std::move(graph_);
    }

private:
    void read_files() {
        std::string proto = options_.input_proto, weights;
        if (!proto.empty() && proto == path_) {
            // --input_proto alone: the topology without weights.
        } else if (is_text_file(path_)) {
            if (!proto.empty())
                throw Error("--input_model is a text prototxt and --input_proto names another", path_,
                            "pass the .caffemodel with --input_model and the deploy.prototxt with --input_proto");
            proto = path_;
        } else {
            weights = path_;
            if (proto.empty()) {
                // Model Optimizer's default: the .prototxt beside the .caffemodel.
                fs::path sibling = fs::path(path_).replace_extension(".prototxt");
                if (fs::exists(sibling)) proto = sibling.string();
            }
        }
        if (!proto.empty()) {
            if (!fs::exists(proto)) throw Error("the prototxt does not exist", proto, "check --input_proto");
            topology_ = std::make_unique<CaffeNet>(parse_text_net(proto));
            graph_->keep_alive.push_back(topology_->net);
            if (topology_->upgraded) graph_->keep_alive.push_back(topology_->upgraded);
        }
        if (!weights.empty()) {
            weights_ = std::make_unique<CaffeNet>(parse_binary_net(weights));
            graph_->keep_alive.push_back(weights_->net);
            if (weights_->upgraded) graph_->keep_alive.push_back(weights_->upgraded);
            if (!topology_ && weights_->layers.empty())
                throw Error("the .caffemodel holds no layers and no deploy.prototxt was found beside it", weights,
                            "pass the deploy.prototxt with --input_proto");
            for (size_t i = 0; i < weights_->layers.size(); ++i) weights_by_name_.emplace(weights_->layers[i]->name(), i);
        }
        if (topology_ && topology_->layers.empty() && topology_->net->input_size() == 0)
            throw Error("the prototxt has no layers", proto, "pass the deploy.prototxt of the model");
    }

    static PartialShape shape_of(const std::vector<int64_t>& dims) {
        std::vector<Dimension> out;
        for (int64_t d : dims) out.push_back(d < 0 ? Dimension() : Dimension(d));
        return PartialShape(out);
    }

    // The net's `input` blobs and every Input layer's tops, then --input overrides.
    void add_inputs(const CaffeNet& topo) {
        const NetParameter& net = *topo.net;
        std::vector<std::string> names;
        std::vector<PartialShape> shapes;
        for (int i = 0; i < net.input_size(); ++i) {
            names.push_back(net.input(i));
            if (net.input_shape_size() > 0) {
                if (net.input_shape_size() != net.input_size())
                    throw Error("the net has " + std::to_string(net.input_size()) + " inputs but " +
                                    std::to_string(net.input_shape_size()) + " input_shape entries",
                                topo.path, "give one input_shape per input");
                const auto& d = net.input_shape(i).dim();
                shapes.push_back(shape_of({d.begin(), d.end()}));
            } else if (net.input_dim_size() > 0) {
                if (net.input_dim_size() != 4 * net.input_size())
                    throw Error("the net has " + std::to_string(net.input_size()) + " inputs but " +
                                    std::to_string(net.input_dim_size()) + " input_dim values (4 per input)",
                                topo.path, "give 4 input_dim values per input, or use input_shape");
                shapes.push_back(shape_of({net.input_dim(4 * i), net.input_dim(4 * i + 1), net.input_dim(4 * i + 2),
                                           net.input_dim(4 * i + 3)}));
            } else {
                shapes.push_back(PartialShape::dynamic_rank());
            }
        }
        for (size_t i = 0; i < topo.layers.size(); ++i) {
            const LayerParameter& l = *topo.layers[i];
            if (l.type() != "Input" || !included(l, state_)) continue;
            const auto& p = l.input_param();
            if (p.shape_size() != 0 && p.shape_size() != 1 && p.shape_size() != l.top_size())
                throw Error("the Input layer has " + std::to_string(l.top_size()) + " tops but " +
                                std::to_string(p.shape_size()) + " shapes",
                            "layer '" + l.name() + "' in " + topo.path, "give one shape, or one per top");
            for (int j = 0; j < l.top_size(); ++j) {
                names.push_back(l.top(j));
                if (p.shape_size() == 0) {
                    shapes.push_back(PartialShape::dynamic_rank());
                } else {
                    const auto& d = p.shape(p.shape_size() == 1 ? 0 : j).dim();
                    shapes.push_back(shape_of({d.begin(), d.end()}));
                }
            }
        }
        for (size_t i = 0; i < names.size(); ++i) {
            if (shapes[i].rank_is_static()) {
                std::vector<int64_t> dims;
                for (size_t d = 0; d < shapes[i].rank(); ++d)
                    dims.push_back(shapes[i][d].is_static() ? shapes[i][d].get_length() : 1);
                checked_product(dims, "input '" + names[i] + "'", topo.path);
            }
            for (size_t k = 0; k < i; ++k)
                if (names[k] == names[i]) throw Error("two inputs are named '" + names[i] + "'", topo.path, "fix the model");
        }
        apply_input_overrides(names, shapes, options_, path_);
        for (size_t i = 0; i < names.size(); ++i) {
            Node p = graph_->add_op("Parameter", names[i], {},
                                    {{"shape", AttrValue(shapes[i])}, {"element_type", AttrValue(ElementType::f32)}});
            p.out(0).set_type_and_shape(ElementType::f32, shapes[i]);
            graph_->parameters().push_back(p);
            write(names[i], p.out(0), "");
            inputs_.insert(names[i]);
        }
    }

    // `port` is the new value of `blob`, written by `layer`.
    void write(const std::string& blob, const OutPort& port, const std::string& layer) {
        producers_[blob] = port;
        versions_[blob].emplace_back(port, layer);
        available_.erase(std::remove(available_.begin(), available_.end(), blob), available_.end());
        if (!layer.empty()) available_.push_back(blob);
    }

    std::string unique_node_name(const std::string& name) {
        std::string candidate = name.empty() ? "layer" : name;
        for (int k = 1; !node_names_.insert(candidate).second; ++k) candidate = name + "_" + std::to_string(k);
        return candidate;
    }

    void add_layers(const CaffeNet& topo) {
        for (size_t i = 0; i < topo.layers.size(); ++i) {
            const LayerParameter& l = *topo.layers[i];
            if (!included(l, state_) || l.type() == "Input") continue;
            const std::string where = "layer '" + l.name() + "' (" + l.type() + ") in " + topo.path;
            std::vector<OutPort> bottoms;
            for (const auto& b : l.bottom()) {
                auto it = producers_.find(b);
                if (it == producers_.end())
                    throw Error("bottom '" + b + "' is not an input and no earlier layer writes it", where,
                                "the layers must be listed in order; check the blob names");
                bottoms.push_back(it->second);
                available_.erase(std::remove(available_.begin(), available_.end(), b), available_.end());
            }
            if (l.type() == "Silence") continue;  // consumes its bottoms, computes nothing
            if (l.top_size() == 0) throw Error("the layer has no top", where, "fix the model");
            Node node = graph_->add_node("FrameworkNode", unique_node_name(l.name()));
            auto& fw = node.framework();
            fw.framework = "caffe";
            fw.type = l.type();
            fw.opset = 1;
            std::vector<Tensor> blobs = topo.blobs[i];
            if (weights_ && topology_) {
                auto w = weights_by_name_.find(l.name());
                if (w != weights_by_name_.end() && !weights_->blobs[w->second].empty()) blobs = weights_->blobs[w->second];
            }
            fw.attributes = caffe_attributes(l, std::move(blobs), topo.layer_texts[i], topo.unknown[i]);
            node.set_input_count(bottoms.size());
            for (size_t k = 0; k < bottoms.size(); ++k) node.in(k).connect(bottoms[k]);
            node.set_output_count(static_cast<size_t>(l.top_size()));
            for (int j = 0; j < l.top_size(); ++j) write(l.top(j), node.out(static_cast<size_t>(j)), node.name());
        }
    }

    // Names the tensors (the last version of a blob keeps its name) and adds a Result for every
    // blob nothing reads after its last write.
    void add_results() {
        std::set<std::string> taken;
        for (const auto& [blob, versions] : versions_) taken.insert(blob);
        for (auto& [blob, versions] : versions_) {
            for (size_t k = 0; k < versions.size(); ++k) {
                auto& [port, layer] = versions[k];
                if (k + 1 == versions.size()) {
                    port.names() = {blob};
                    continue;
                }
                const std::string base = blob + "/" + (layer.empty() ? std::string("input") : layer);
                std::string name = base;
                for (int s = 1; taken.count(name); ++s) name = base + "_" + std::to_string(s);
                taken.insert(name);
                port.names() = {name};
            }
        }
        if (available_.empty()) throw Error("the net has no output: every blob is read by a later layer", path_);
        for (const std::string& blob : available_) {
            Node r = graph_->add_op("Result", blob + "/sink_port_0", {producers_.at(blob)});
            graph_->results().push_back(r);
        }
    }

    std::string path_;
    const ConversionOptions& options_;
    std::unique_ptr<Graph> graph_;
    std::unique_ptr<CaffeNet> topology_, weights_;
    std::multimap<std::string, size_t> weights_by_name_;
    mo_caffe::NetState state_;
    std::map<std::string, OutPort> producers_;
    std::map<std::string, std::vector<std::pair<OutPort, std::string>>> versions_;
    std::vector<std::string> available_;  // blobs not read since their last write, in write order
    std::set<std::string> inputs_, node_names_;
};

}  // namespace

std::unique_ptr<Graph> load_caffe(const std::string& path, const ConversionOptions& options, const OpRegistry& ops) {
    return CaffeGraphBuilder(path, options, ops).run();
}

void register_caffe_loader(LoaderRegistry& r) {
    Loader l;
    l.framework = "caffe";
    l.extensions = {".caffemodel"};
    l.recognizes = looks_like_text_net;
    l.load = load_caffe;
    l.description = "Caffe .caffemodel with its deploy.prototxt (--input_proto), or a text net by content";
    r.add(std::move(l));
}

}  // namespace mo
