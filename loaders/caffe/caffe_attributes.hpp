// FrameworkAttributes of a Caffe layer, read by dotted path through protobuf reflection over the
// layer's LayerParameter (mo's caffe.proto subset), so that extractors and plugins need no Caffe
// headers:
// * "convolution_param.kernel_size": a repeated number reads as ints / floats, a singular one as
//   an int (bools 0 / 1) or a float, an enum as its name ("MAX"), a BlobShape as its dims;
//   "input_param.shape.1" indexes a repeated message. A field the layer does not set is absent
//   (the extractor passes Caffe's default).
// * "blobs.N": the layer's N-th learned blob (from the .caffemodel) as an f32 tensor of the
//   blob's shape, a view of the mapped file.
// * A field mo's subset does not know (a fork's parameter) is read from the prototxt's text, and
//   "unknown_fields" lists such fields as dotted paths; built-in extractors refuse a layer with any.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/framework_attributes.hpp"
#include "core/tensor.hpp"
#include "loaders/caffe/text_tree.hpp"

namespace google::protobuf {
class Descriptor;
class Message;
}  // namespace google::protobuf

namespace mo {

// `layer` (a mo_caffe.LayerParameter) must outlive the result: the graph keeps it alive.
// `text` is the layer's own text (null: none), `unknown_fields` what of it the subset does not know.
std::shared_ptr<const FrameworkAttributes> caffe_attributes(const google::protobuf::Message& layer, std::vector<Tensor> blobs,
                                                            std::shared_ptr<const TextMessage> text,
                                                            std::vector<std::string> unknown_fields);

// The fields of `text` that `type` (and the messages it nests) does not declare, as dotted paths.
std::vector<std::string> unknown_text_fields(const TextMessage& text, const google::protobuf::Descriptor& type);

}  // namespace mo
