#include "transforms/middle/torchvision_ssd.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <optional>
#include <set>

#include "core/log.hpp"

namespace mo {

namespace {

// The settings of DetectionOutput and of the prior boxes, as read from the tail.
struct SsdSettings {
    std::optional<double> confidence_threshold, nms_threshold;
    std::optional<int64_t> top_k, keep_top_k, height, width;
    std::array<std::optional<double>, 4> box_coder_weights;
};

std::optional<double> scalar_at(const Node& n, size_t i) {
    if (i >= n.input_count()) return std::nullopt;
    const Tensor* v = n.in(i).value();
    if (!v || v->size() != 1) return std::nullopt;
    return v->to_f64()[0];
}

std::optional<std::vector<int64_t>> ints_at(const Node& n, size_t i) {
    if (i >= n.input_count() || !n.in(i).value()) return std::nullopt;
    return n.in(i).value()->to_i64();
}

// A Slice (start, stop, step, axes) taking every `step`-th element from `start`: start, or nullopt.
std::optional<int64_t> strided_start(const Node& slice, int64_t step) {
    if (!slice.is("Slice")) return std::nullopt;
    auto start = ints_at(slice, 1), steps = ints_at(slice, 3);
    if (!start || !steps || start->size() != 1 || *steps != std::vector<int64_t>{step}) return std::nullopt;
    return (*start)[0];
}

// Sets `slot` to `value`, or fails when the tail holds two different values for it.
template <typename T>
void agree(std::optional<T>& slot, T value, const char* what) {
    if (slot && *slot != value)
        throw Error(std::string("the tail holds two different values for ") + what, {},
                    std::string("give custom_attributes.") + what + " in the transformations config");
    slot = value;
}

void read_node(const Node& n, SsdSettings& s) {
    if (n.is("Greater")) {
        if (auto c = scalar_at(n, 1)) agree(s.confidence_threshold, *c, "confidence_threshold");
    } else if (n.is("ReduceMin") && n.in(0).src().node().is("Concat")) {
        const Node concat = n.in(0).src().node();
        for (size_t i = 0; i < concat.input_count(); ++i)
            if (auto k = scalar_at(concat, i)) agree(s.top_k, static_cast<int64_t>(*k), "top_k");
    } else if (n.is("Divide")) {
        auto start = strided_start(n.in(0).src().node(), 4);
        auto w = scalar_at(n, 1);
        if (start && w && *start >= 0 && *start < 4) agree(s.box_coder_weights[static_cast<size_t>(*start)], *w, "box_coder_weights");
    } else if (n.is("Minimum")) {
        // clamp(x, 0, size) of the x (start 0) or y (start 1) coordinates: Minimum(Maximum(Slice(.., s, step 2), 0), size).
        const Node max = n.in(0).src().node();
        auto size = scalar_at(n, 1);
        auto start = max.is("Maximum") ? strided_start(max.in(0).src().node(), 2) : std::nullopt;
        if (size && start && *start == 0) agree(s.width, static_cast<int64_t>(*size), "image_size");
        if (size && start && *start == 1) agree(s.height, static_cast<int64_t>(*size), "image_size");
    } else if (n.is("Slice")) {
        // keep[:detections_per_img]
        auto start = ints_at(n, 1), stop = ints_at(n, 2), step = ints_at(n, 3);
        if (start && stop && step && *start == std::vector<int64_t>{0} && *step == std::vector<int64_t>{1} &&
            stop->size() == 1 && (*stop)[0] > 0 && (*stop)[0] < (int64_t{1} << 31))
            agree(s.keep_top_k, (*stop)[0], "keep_top_k");
    }
}

// The IoU threshold of the tail's NonMaxSuppression: torchvision's batched_nms exports it inside
// an If (the branch taken when there are boxes), so the bodies of the tail's nodes are searched.
void read_nms(const Node& n, SsdSettings& s) {
    if (n.is("NonMaxSuppression"))
        if (auto iou = scalar_at(n, 3)) agree(s.nms_threshold, *iou, "nms_threshold");
    for (const Body& body : n.bodies())
        for (const Node& inner : body.graph->nodes()) read_nms(inner, s);
}

void apply_overrides(const nlohmann::json& custom, SsdSettings& s) {
    if (!custom.is_object()) return;
    if (custom.contains("confidence_threshold")) s.confidence_threshold = custom["confidence_threshold"].get<double>();
    if (custom.contains("nms_threshold")) s.nms_threshold = custom["nms_threshold"].get<double>();
    if (custom.contains("top_k")) s.top_k = custom["top_k"].get<int64_t>();
    if (custom.contains("keep_top_k")) s.keep_top_k = custom["keep_top_k"].get<int64_t>();
    if (custom.contains("image_size")) {
        auto hw = custom["image_size"].get<std::vector<int64_t>>();
        if (hw.size() != 2) throw Error("custom_attributes.image_size must be [height, width]");
        s.height = hw[0], s.width = hw[1];
    }
    if (custom.contains("box_coder_weights")) {
        auto w = custom["box_coder_weights"].get<std::vector<double>>();
        if (w.size() != 4) throw Error("custom_attributes.box_coder_weights must be [wx, wy, ww, wh]");
        for (size_t i = 0; i < 4; ++i) s.box_coder_weights[i] = w[i];
    }
}

template <typename T>
T required(const std::optional<T>& v, const char* what) {
    if (!v)
        throw Error(std::string("could not read ") + what + " from the matched tail", {},
                    std::string("give custom_attributes.") + what + " in the transformations config");
    return *v;
}

struct TailPorts {
    OutPort probabilities;  // softmax over the class logits, [N, P, C]
    OutPort regression;     // [N, P, 4]
    const Tensor* anchors = nullptr;  // [P, 4] x1 y1 x2 y2 in pixels of the resized image
};

// The anchors: a known [P, 4] float value the tail's box decoding reads, directly or through
// known values (the exporter slices them into widths and centers): searched backward from the
// tail's known inputs, through known values only.
const Tensor* find_anchors(const SubgraphMatch& match, int64_t priors) {
    std::deque<Node> queue;
    std::set<Node> seen;
    auto visit_inputs = [&](const Node& n) {
        for (size_t i = 0; i < n.input_count(); ++i)
            if (n.in(i).connected() && n.in(i).value() && seen.insert(n.in(i).src().node()).second)
                queue.push_back(n.in(i).src().node());
    };
    for (const Node& n : match.nodes) visit_inputs(n);
    while (!queue.empty()) {
        Node n = queue.front();
        queue.pop_front();
        for (size_t j = 0; j < n.output_count(); ++j) {
            const Tensor* v = n.out(j).value();
            if (v && is_float(v->type()) && v->shape() == Shape{priors, 4}) return v;
        }
        visit_inputs(n);
    }
    return nullptr;
}

TailPorts find_ports(const SubgraphMatch& match) {
    const std::set<Node> inside(match.nodes.begin(), match.nodes.end());
    TailPorts t;
    for (const Node& n : match.nodes)
        if (n.is("Softmax") && !inside.count(n.in(0).src().node())) t.probabilities = n.out(0);
    if (!t.probabilities.node())
        throw Error("no Softmax in the matched tail reads the class logits", {},
                    "make the Softmax over the classification head's output a start point");
    const PartialShape& probs = t.probabilities.shape();
    if (!probs.is_static() || probs.rank() != 3)
        throw Error("the class scores must have a static shape [N, P, C], not [" + probs.to_string() + "]");
    const int64_t priors = probs[1].get_length();
    for (const Node& n : match.nodes)
        for (size_t i = 0; i < n.input_count(); ++i) {
            if (!n.in(i).connected()) continue;
            OutPort src = n.in(i).src();
            const PartialShape& s = src.shape();
            if (inside.count(src.node()) || src.value() || src == t.probabilities.node().in(0).src()) continue;
            if (s.is_static() && s.rank() == 3 && s[1].get_length() == priors && s[2].get_length() == 4) t.regression = src;
        }
    if (!t.regression.node())
        throw Error("no input of the matched tail is the box regression [N, " + std::to_string(priors) + ", 4]", {},
                    "make the node that reads the regression head's output a start point");
    t.anchors = find_anchors(match, priors);
    if (!t.anchors) throw Error("the matched tail holds no known anchors [" + std::to_string(priors) + ", 4]");
    return t;
}

// [1, 2, P * 4]: the anchors normalized to the resized image, then the variances 1 / weights.
Tensor prior_boxes(const Tensor& anchors, int64_t height, int64_t width, const std::array<double, 4>& weights) {
    const auto a = anchors.to_f64();
    const size_t n = a.size();
    std::vector<float> v(2 * n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = static_cast<float>(a[i] / static_cast<double>(i % 2 == 0 ? width : height));
        v[n + i] = static_cast<float>(1.0 / weights[i % 4]);
    }
    return Tensor::from_vector<float>(v, {1, 2, static_cast<int64_t>(n)});
}

OutPort flattened(Graph& g, const OutPort& x, const std::string& name) {
    Node shape = g.add_constant(name + "/shape", Tensor::from_vector<int64_t>({0, -1}, {2}));
    return g.add_op("Reshape", name, {x, shape.out(0)}, {{"special_zero", true}}).out(0);
}

// Replaces the Results reading `outputs` by one Result reading `value`, where the first was.
void replace_results(Graph& g, const std::vector<OutPort>& outputs, const OutPort& value) {
    std::vector<Node>& results = g.results();
    size_t position = results.size();
    for (const OutPort& out : outputs)
        for (const InPort& t : out.targets()) {
            if (!t.node().is("Result"))
                throw Error("the tail's output " + out.node().name() + " also feeds " + t.node().describe(), {},
                            "end the tail at the model's outputs (boxes, scores, labels)");
            auto it = std::find(results.begin(), results.end(), t.node());
            position = std::min(position, static_cast<size_t>(it - results.begin()));
            results.erase(it);
            g.remove_node(t.node());
        }
    Node result = g.add_op("Result", "detections/sink_port_0", {value});
    results.insert(results.begin() + static_cast<std::ptrdiff_t>(std::min(position, results.size())), result);
}

}  // namespace

bool TorchvisionSSDPostprocessing::replace_sub_graph(Graph& g, const ConfigEntry& entry, const SubgraphMatch& match,
                                                     const TransformContext&) {
    const TailPorts ports = find_ports(match);
    SsdSettings s;
    for (const Node& n : match.nodes) {
        read_node(n, s);
        read_nms(n, s);
    }
    apply_overrides(entry.custom_attributes, s);
    std::array<double, 4> weights{};
    for (size_t i = 0; i < 4; ++i) weights[i] = required(s.box_coder_weights[i], "box_coder_weights");
    const int64_t height = required(s.height, "image_size"), width = required(s.width, "image_size");
    AttrMap attrs{{"background_label_id", int64_t{0}},
                  {"top_k", required(s.top_k, "top_k")},
                  {"keep_top_k", std::vector<int64_t>{required(s.keep_top_k, "keep_top_k")}},
                  {"code_type", std::string("caffe.PriorBoxParameter.CENTER_SIZE")},
                  {"nms_threshold", required(s.nms_threshold, "nms_threshold")},
                  {"confidence_threshold", required(s.confidence_threshold, "confidence_threshold")},
                  {"clip_before_nms", true},
                  {"normalized", true}};
    MO_LOG(Info, "TorchvisionSSDPostprocessing: image ", height, "x", width, ", score > ",
           std::get<double>(attrs["confidence_threshold"]), ", top_k ", std::get<int64_t>(attrs["top_k"]), ", NMS ",
           std::get<double>(attrs["nms_threshold"]), ", keep_top_k ", s.keep_top_k.value());

    Node priors = g.add_constant("detection_output/priors", prior_boxes(*ports.anchors, height, width, weights));
    Node det = g.add_op("DetectionOutput", "detection_output",
                        {flattened(g, ports.regression, "detection_output/box_logits"),
                         flattened(g, ports.probabilities, "detection_output/class_preds"), priors.out(0)},
                        attrs);
    det.out(0).names().push_back("detections");
    for (const Node& n : match.nodes) det.fused_names().push_back(n.name());
    replace_results(g, match.outputs, det.out(0));
    return true;
}

}  // namespace mo
