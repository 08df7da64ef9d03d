// The model is assembled as ONNX protobuf messages whose initializers carry only their name,
// type and dims; their bytes are streamed into the file after each initializer's header (inline)
// or into the external data file, so the weights are never copied into a message. The bytes are
// those protobuf's own serializer writes for the full message (fields in number order).
#include "emit/onnx/onnx_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include <onnx/checker.h>
#include <onnx/common/file_utils.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/mapped_file.hpp"
#include "core/progress.hpp"
#include "emit/bin_writer.hpp"
#include "emit/onnx/onnx_graph_writer.hpp"
#include "emit/staged_file.hpp"

#ifndef MO_VERSION
#define MO_VERSION "unknown"
#endif

namespace mo {

namespace fs = std::filesystem;
using onnx_emit::GraphWriter;

namespace {

// Initializers of 1 KiB or more go to the external file when the weights need one (the
// threshold onnx.external_data_helper uses by default).
constexpr uint64_t kExternalMinBytes = 1024;

// Buffered writes to a file descriptor; the first error is thrown naming the file.
class FdStream {
public:
    FdStream(int fd, std::string path) : fd_(fd), path_(std::move(path)) { buffer_.reserve(kSize); }
    void write(const void* data, size_t size) {
        const char* p = static_cast<const char*>(data);
        if (buffer_.size() + size > kSize) flush();
        if (size >= kSize) return write_out(p, size);
        buffer_.insert(buffer_.end(), p, p + size);
    }
    void write(const std::string& s) { write(s.data(), s.size()); }
    void varint(uint64_t v) {
        char b[10];
        size_t n = 0;
        do {
            b[n++] = static_cast<char>((v & 0x7F) | (v >= 0x80 ? 0x80 : 0));
            v >>= 7;
        } while (v != 0);
        write(b, n);
    }
    // A tensor's bytes: file views copied file-to-file by the kernel where it can, computed
    // buffers produced piece by piece, so neither joins the resident set as a whole.
    void tensor_bytes(const Tensor& t) {
        const size_t size = t.byte_size();
        const Buffer& buffer = *t.buffer();
        if (const MappedFile* file = buffer.source_file(); file && size >= (size_t{1} << 20)) {
            flush();
            const std::byte* data = t.bytes();
            loff_t src = static_cast<loff_t>(data - file->data());
            size_t copied = 0;
            while (copied < size) {
                ssize_t n = ::copy_file_range(file->fd(), &src, fd_, nullptr, size - copied, 0);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                copied += static_cast<size_t>(n);
            }
            for (size_t at = copied; at < size; at += kSize) {
                const size_t n = std::min(kSize, size - at);
                write(data + at, n);
                MappedFile::release_pages(data + at, n);
            }
            return;
        }
        if (auto* derived = dynamic_cast<const DerivedBuffer*>(&buffer); derived && !derived->materialized()) {
            std::vector<std::byte> piece(std::min(kSize, size));
            for (size_t at = 0; at < size; at += piece.size()) {
                const size_t n = std::min(piece.size(), size - at);
                derived->produce(at, piece.data(), n);
                write(piece.data(), n);
            }
            return;
        }
        write(t.bytes(), size);
    }
    void flush() {
        write_out(buffer_.data(), buffer_.size());
        buffer_.clear();
    }

private:
    static constexpr size_t kSize = size_t{4} << 20;
    void write_out(const char* p, size_t size) {
        while (size > 0) {
            ssize_t n = ::write(fd_, p, std::min<size_t>(size, size_t{1} << 30));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0)
                throw Error(std::string("cannot write the ONNX file: ") + std::strerror(errno), path_,
                            "check free disk space and write permission of the output directory");
            p += n, size -= static_cast<size_t>(n);
        }
    }
    void write_out(const std::byte* p, size_t size) { write_out(reinterpret_cast<const char*>(p), size); }
    void write(const std::byte* p, size_t size) { write(static_cast<const void*>(p), size); }
    int fd_;
    std::string path_;
    std::vector<char> buffer_;
};

size_t varint_size(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) v >>= 7, ++n;
    return n;
}

std::string serialize(const google::protobuf::MessageLite& m) {
    std::string s;
    google::protobuf::io::StringOutputStream stream(&s);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeWithCachedSizes(&coded);
    return s;
}

std::string serialize_message(google::protobuf::MessageLite& m) {
    m.ByteSizeLong();  // caches the sizes SerializeWithCachedSizes uses
    std::string s = serialize(m);
    return s;
}

// One initializer as written: its header (name, type, dims; external_data when external) and,
// inline, the raw_data field that follows it.
struct PlacedInitializer {
    std::string header;
    uint64_t data_bytes = 0;  // inline raw_data bytes (0 when external)
    bool inline_data = false;
    uint64_t record_size() const {
        return header.size() + (inline_data ? 1 + varint_size(data_bytes) + data_bytes : 0);
    }
};

// A field tag with wire type 2 (length-delimited).
uint64_t length_tag(int field) { return (static_cast<uint64_t>(field) << 3) | 2; }

}  // namespace

void check_onnx_file(const std::string& path) {
    try {
        onnx::checker::check_model(path);
        onnx::ModelProto model;
        onnx::LoadProtoFromPath(path, model);
        onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/false);
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
        throw Error(std::string("the ONNX checker refuses the written model: ") + e.what(), path,
                    "this is a bug in mo's ONNX emitter: please report it with the model");
    }
}

OnnxEmitStats write_onnx(const Graph& graph, const OnnxEmitOptions& options) {
    GraphWriter writer;
    onnx::ModelProto model;
    onnx::GraphProto* g = model.mutable_graph();
    writer.write_main(graph, *g);
    g->set_name(options.model_name.empty() ? std::string("model") : options.model_name);  // ONNX requires one

    model.set_ir_version(onnx::IR_VERSION);  // 8: what ONNX 1.12 writes
    model.set_producer_name("mo");
    model.set_producer_version(MO_VERSION);
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(writer.opset());
    if (writer.uses_microsoft()) {
        auto* ms = model.add_opset_import();
        ms->set_domain("com.microsoft");
        ms->set_version(1);
    }
    for (const auto& [key, value] : options.metadata) {
        auto* p = model.add_metadata_props();
        p->set_key(key);
        p->set_value(value);
    }

    // Where each initializer's bytes go.
    const auto& inits = writer.initializers();
    uint64_t total = 0;
    for (const auto& init : inits) total += init.value.byte_size();
    const bool external = total > options.external_data_threshold;
    const std::string data_name = fs::path(options.path).filename().string() + ".data";
    const std::string data_path = options.path + ".data";

    std::unique_ptr<StagedFile> data_file;
    std::unique_ptr<BinWriter> data_writer;
    if (external) {
        data_file = std::make_unique<StagedFile>(data_path);
        data_writer = std::make_unique<BinWriter>(data_file->fd(), data_path);
        data_writer->set_expected_size(total);
    }
    std::vector<PlacedInitializer> placed;
    placed.reserve(inits.size());
    for (const auto& init : inits) {
        onnx::TensorProto t;
        for (int64_t d : init.value.shape()) t.add_dims(d);
        t.set_data_type(onnx_emit::onnx_type(init.value.type(), "initializer '" + init.name + "'"));
        t.set_name(init.name);
        PlacedInitializer p;
        const uint64_t bytes = init.value.byte_size();
        if (external && bytes >= kExternalMinBytes) {
            BinWriter::Placement at = data_writer->add(init.value);
            auto entry = [&](const char* key, const std::string& value) {
                auto* e = t.add_external_data();
                e->set_key(key);
                e->set_value(value);
            };
            entry("location", data_name);
            entry("offset", std::to_string(at.offset));
            entry("length", std::to_string(at.size));
            t.set_data_location(onnx::TensorProto::EXTERNAL);
        } else {
            p.inline_data = true;
            p.data_bytes = bytes;
        }
        p.header = serialize_message(t);
        placed.push_back(std::move(p));
    }
    if (data_writer) data_writer->flush();

    // ModelProto: fields 1-6, graph (7), then opset_import (8) and metadata_props (14).
    onnx::ModelProto head, tail;
    head.set_ir_version(model.ir_version());
    head.set_producer_name(model.producer_name());
    head.set_producer_version(model.producer_version());
    tail.mutable_opset_import()->Swap(model.mutable_opset_import());
    tail.mutable_metadata_props()->Swap(model.mutable_metadata_props());
    // GraphProto: node (1), name (2), initializer (5), input (11), output (12), value_info (13);
    // the parts are moved, not copied (a million-node graph's nodes are hundreds of MB).
    onnx::GraphProto graph_head, graph_tail;
    graph_head.mutable_node()->Swap(g->mutable_node());
    graph_head.set_name(g->name());
    graph_tail.mutable_input()->Swap(g->mutable_input());
    graph_tail.mutable_output()->Swap(g->mutable_output());
    graph_tail.mutable_value_info()->Swap(g->mutable_value_info());
    const std::string head_bytes = serialize_message(head), tail_bytes = serialize_message(tail);
    const std::string graph_head_bytes = serialize_message(graph_head), graph_tail_bytes = serialize_message(graph_tail);
    uint64_t graph_size = graph_head_bytes.size() + graph_tail_bytes.size();
    for (const auto& p : placed) graph_size += 1 + varint_size(p.record_size()) + p.record_size();

    StagedFile model_file(options.path);
    FdStream out(model_file.fd(), options.path);
    out.write(head_bytes);
    out.varint(length_tag(7));
    out.varint(graph_size);
    out.write(graph_head_bytes);
    uint64_t written = 0;
    for (size_t i = 0; i < placed.size(); ++i) {
        const PlacedInitializer& p = placed[i];
        out.varint(length_tag(5));
        out.varint(p.record_size());
        out.write(p.header);
        if (!p.inline_data) continue;
        out.varint(length_tag(9));
        out.varint(p.data_bytes);
        if (p.data_bytes > 0) out.tensor_bytes(inits[i].value);
        written += p.data_bytes;
        Progress::bytes(written, total);
    }
    out.write(graph_tail_bytes);
    out.write(tail_bytes);
    out.flush();

    OnnxEmitStats stats;
    stats.nodes = static_cast<size_t>(graph_head.node_size());
    stats.initializers = inits.size();
    stats.weight_bytes = total;
    stats.opset = writer.opset();
    stats.microsoft_domain = writer.uses_microsoft();
    // The checker finds external data next to the model by its final name: that file is
    // renamed first, and taken back if the model fails.
    if (data_file) {
        data_file->commit();
        stats.external_data = data_path;
    }
    try {
        if (options.check) {
            Progress::phase("check ONNX");
            // The checker reads the temporary under the final name's directory.
            check_onnx_file(model_file.temp_path());
        }
        model_file.commit();
    } catch (...) {
        if (data_file) data_file->remove_committed();
        throw;
    }
    MO_LOG(Info, "ONNX written: ", stats.nodes, " nodes, opset ", stats.opset, ", ", stats.initializers,
           " initializers, ", total, " weight bytes", external ? " (external data)" : "");
    return stats;
}

}  // namespace mo
