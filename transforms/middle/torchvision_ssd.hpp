// TorchvisionSSDPostprocessing (configured): the post-processing tail of torchvision's SSD and
// SSDlite detectors, as torch.onnx exports it (box decoding, clipping, per-class score
// threshold and top-k, NMS inside an If, the final top detections), -> one DetectionOutput-8
// fed by the heads' outputs and the anchors as a constant prior-box tensor. configs/ssd.json
// names the tail by start points (the nodes that read the heads' outputs) and end points (the
// nodes that give boxes, scores and labels). docs/transformations-config.md says how to run it.
//
// Every setting is read from the matched tail (after partial inference, so the anchors are
// known): class logits = the input of its Softmax, box regression = its other [N, P, 4] input,
// anchors = its known [P, 4] value, the box coder weights = the Divide constants of the decoding,
// the resized image size = the Minimum constants of the clipping, the score threshold = the
// Greater constants, top_k = the ReduceMin constant, keep_top_k = the final Slice, the NMS
// threshold = the iou_threshold of the NonMaxSuppression inside the If body. custom_attributes
// may override any of them (confidence_threshold, top_k, keep_top_k, nms_threshold,
// image_size [H, W], box_coder_weights [wx, wy, ww, wh]); one that is found nowhere is an error.
//
// The IR's output is DetectionOutput's [1, 1, keep_top_k, 7]: [image, label, score, xmin, ymin,
// xmax, ymax] with boxes normalized to the image (multiply by its width and height for pixels),
// rows by label then score, ended by a row whose image is -1. Not expressible: torchvision clamps
// the log-scale of box sizes at log(1000/16) before exp; DetectionOutput does not (it matters
// only for boxes over 62x their anchor).
#pragma once

#include "transforms/configured.hpp"

namespace mo {

class TorchvisionSSDPostprocessing final : public ConfiguredTransformation {
public:
    std::string id() const override { return "TorchvisionSSDPostprocessing"; }
    Phase phase() const override { return Phase::Middle; }
    // Needs known anchors; runs before every other middle pass renames or merges the tail's nodes.
    std::vector<std::string> run_after() const override { return {"PartialInference"}; }
    std::vector<std::string> run_before() const override { return {anchors::MiddleStart}; }
    bool force_clean_up() const override { return true; }
    bool replace_sub_graph(Graph& graph, const ConfigEntry& entry, const SubgraphMatch& match,
                           const TransformContext& ctx) override;
};

}  // namespace mo
