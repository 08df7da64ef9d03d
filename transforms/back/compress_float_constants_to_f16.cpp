#include "transforms/back/compress_float_constants_to_f16.hpp"

#include <algorithm>
#include <cstring>
#include <future>

#include "core/f16_weights.hpp"
#include "core/float16.hpp"
#include "core/graph_data.hpp"
#include "core/log.hpp"
#include "core/mapped_file.hpp"
#include "core/parallel.hpp"

namespace mo {

namespace {

// Read from the graph's storage: this looks at every node's first output and consumers.
bool feeds_precision_sensitive_input(const NodeData& constant) {
    for (const OutEdge& e : constant.out_edges) {
        if (GraphAccess::node(e.dst).has_rt_info(kDisableFp16Compression)) return true;
        const auto& sensitive = e.dst->op->precision_sensitive_inputs;
        if (std::find(sensitive.begin(), sensitive.end(), e.in_port) != sensitive.end()) return true;
    }
    return false;
}

// Whether every finite value of `t` fits f16; reading stops at the first window that does not.
bool fits_f16(const Tensor& t) {
    std::vector<uint16_t> half;
    bool fits = true;
    for_each_f32_window(t, 0, t.size(), [&](const float* v, size_t count, size_t) {
        half.resize(count);
        fits = f32_to_f16_fits(v, half.data(), count);
        return fits;
    });
    return fits;
}

// Weights in the model file are read with pread (f16_weights.hpp); small ones lie side by side
// there (an ONNX model's initializers, a TFLite buffer table), so neighbours are read together:
// one pread per MiB, where one per weight made 64,000 system calls for a transformer's graph.
constexpr size_t kReadTogether = size_t{1} << 20;
constexpr size_t kLargestGap = size_t{64} << 10;  // bytes between neighbours still read over

// A small weight of a mapped file: where its bytes are, and which of the checked tensors it is.
struct FileSpan {
    const MappedFile* file;
    const std::byte* bytes;
    size_t size;  // bytes
    size_t index;
};

// Checks spans[first, last) (one file, in file order) with as few reads as neighbours allow,
// into fits[].
void check_neighbours(const std::vector<FileSpan>& spans, size_t first, size_t last, std::vector<char>& fits) {
    std::vector<std::byte> run;
    uint16_t half[256];
    for (size_t i = first; i < last;) {
        const std::byte* begin = spans[i].bytes;
        const std::byte* end = begin + spans[i].size;
        size_t j = i + 1;
        for (; j < last; ++j) {
            const std::byte* next_end = std::max(end, spans[j].bytes + spans[j].size);
            if (spans[j].bytes > end + kLargestGap || static_cast<size_t>(next_end - begin) > kReadTogether) break;
            end = next_end;
        }
        run.resize(static_cast<size_t>(end - begin));
        spans[i].file->read(begin, run.data(), run.size());
        for (; i < j; ++i) {
            const size_t n = spans[i].size / sizeof(float);
            const std::byte* values = run.data() + (spans[i].bytes - begin);
            float v[256];  // aligned copies: the run keeps protobuf's offsets
            bool all = true;
            for (size_t done = 0; all && done < n; done += 256) {
                const size_t count = std::min<size_t>(256, n - done);
                std::memcpy(v, values + done * sizeof(float), count * sizeof(float));
                all = f32_to_f16_fits(v, half, count);
            }
            fits[spans[i].index] = all;
        }
    }
}

// Which of `tensors` fit f16, checked on up to two threads.
std::vector<char> fitting_f16(const std::vector<const Tensor*>& tensors) {
    std::vector<char> fits(tensors.size(), 0);
    size_t total = 0;
    // Small weights of a mapped file in file order; the rest one by one.
    std::vector<FileSpan> neighbours;
    std::vector<size_t> alone;
    for (size_t i = 0; i < tensors.size(); ++i) {
        const size_t size = tensors[i]->byte_size();
        total += size;
        const MappedFile* file = tensors[i]->buffer()->source_file();
        if (file && size < kReadTogether) neighbours.push_back({file, tensors[i]->bytes(), size, i});
        else alone.push_back(i);
    }
    std::sort(neighbours.begin(), neighbours.end(), [](const FileSpan& a, const FileSpan& b) {
        return a.file != b.file ? std::less<>()(a.file, b.file) : std::less<>()(a.bytes, b.bytes);
    });
    auto check = [&](size_t part, size_t parts) {
        for (size_t i = part; i < alone.size(); i += parts) fits[alone[i]] = fits_f16(*tensors[alone[i]]);
        // Each part a contiguous slice of the sorted neighbours, cut where the file changes.
        size_t first = neighbours.size() * part / parts, last = neighbours.size() * (part + 1) / parts;
        while (first < last) {
            size_t end = first;
            while (end < last && neighbours[end].file == neighbours[first].file) ++end;
            check_neighbours(neighbours, first, end, fits);
            first = end;
        }
    };
    constexpr size_t kWorthAThread = size_t{64} << 20;
    if (total < kWorthAThread || usable_cpus() < 2) {
        check(0, 1);
        return fits;
    }
    MO_LOG(Debug, "CompressFloatConstantsToF16: checking ", tensors.size(), " weights (", total, " bytes) on two threads");
    auto other = std::async(std::launch::async, check, 1, 2);
    check(0, 2);
    other.get();
    return fits;
}

// Weights this large are checked by the IR writer in the sweep that converts and writes them
// (emit/bin_writer.hpp), instead of being read once more here.
constexpr size_t kCheckedWhenWritten = size_t{2} << 20;

// Whether the IR writer may write `c` as f32 when its values do not fit f16: it rebuilds the
// constant from the Convert, which keeps everything of it but its rt_info.
bool checked_when_written(const Node& c) {
    return c.out(0).value()->byte_size() >= kCheckedWhenWritten && c.read_rt_info().empty();
}

// One f16 buffer per f32 buffer, so that constants sharing weights still share them in the BIN:
// for each candidate, the first candidate with the same bytes (itself when none is earlier).
// Found by sorting the candidates by their bytes' place: a hash map of 640,000 spans cost 0.4 s
// of cache misses at a million nodes, half of it in freeing the map.
std::vector<uint32_t> first_sharing_bytes(const std::vector<Node>& candidates) {
    struct Place {
        const std::byte* bytes;
        size_t size;
        uint32_t index;
    };
    std::vector<Place> places(candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
        const Tensor& t = *candidates[i].out(0).value();
        places[i] = {t.bytes(), t.byte_size(), static_cast<uint32_t>(i)};
    }
    std::sort(places.begin(), places.end(), [](const Place& a, const Place& b) {
        if (a.bytes != b.bytes) return std::less<>()(a.bytes, b.bytes);
        return a.size != b.size ? a.size < b.size : a.index < b.index;
    });
    std::vector<uint32_t> first(candidates.size());
    for (size_t k = 0; k < places.size(); ++k) {
        const bool same = k > 0 && places[k].bytes == places[k - 1].bytes && places[k].size == places[k - 1].size;
        first[places[k].index] = same ? first[places[k - 1].index] : places[k].index;
    }
    return first;
}

}  // namespace

bool CompressFloatConstantsToF16::run(Graph& graph, const TransformContext&) {
    const OpSchema* constant = graph.ops().find("Constant");
    std::vector<Node> candidates;
    GraphAccess::impl(graph).for_each([&](NodeData* d) {  // in id order, as the new nodes' ids follow
        if (d->op != constant || d->outputs[0].type != ElementType::f32 || d->out_edges.empty()) return;
        if (!feeds_precision_sensitive_input(*d)) candidates.push_back(GraphAccess::node(d));
    });
    std::vector<char> later(candidates.size());  // checked_when_written(), asked once
    std::vector<const Tensor*> checked_now;
    for (size_t i = 0; i < candidates.size(); ++i) {
        later[i] = checked_when_written(candidates[i]);
        if (!later[i]) checked_now.push_back(candidates[i].out(0).value());
    }
    const std::vector<char> fits_now = fitting_f16(checked_now);
    const std::vector<uint32_t> sharing = first_sharing_bytes(candidates);
    std::vector<Node> made(candidates.size());  // by first_sharing_bytes(): the f16 constant made for those bytes
    const AttrMap to_f32{{"destination_type", AttrValue(ElementType::f32)}};
    bool changed = false;
    for (size_t i = 0, checked = 0; i < candidates.size(); ++i) {
        Node c = candidates[i];
        const bool known_to_fit = !later[i];
        if (known_to_fit && !fits_now[checked++]) continue;
        const Tensor& source = *c.out(0).value();
        Node& shared = made[sharing[i]];
        std::shared_ptr<const Buffer> half = shared ? shared.out(0).value()->buffer()
                                                    : std::make_shared<F16Weights>(source, known_to_fit);
        const std::string name = c.name();
        Node compressed = graph.add_constant(name + "_compressed", Tensor(ElementType::f16, source.shape(), std::move(half)));
        if (!shared) shared = compressed;
        Node convert = graph.add_op("Convert", name, {compressed.out(0)}, to_f32);
        convert.rt_info()[kDecompression] = "0";
        c.out(0).replace_all_uses_with(convert.out(0));
        convert.out(0).names() = std::move(c.out(0).names());
        if (!c.read_fused_names().empty()) convert.fused_names() = c.read_fused_names();
        graph.remove_node(c);
        changed = true;
    }
    return changed;
}

size_t keep_f32_where_f16_does_not_fit(Graph& graph) {
    std::vector<std::pair<Node, const F16Weights*>> beyond;
    for (Node n : graph.nodes()) {
        if (!n.is("Constant") || !n.out(0).value()) continue;
        const auto* half = dynamic_cast<const F16Weights*>(n.out(0).value()->buffer().get());
        if (half && !half->fits()) beyond.emplace_back(n, half);
    }
    size_t restored = 0;
    for (auto [compressed, half] : beyond) {
        for (const InPort& t : compressed.out(0).targets()) {
            Node convert = t.node();
            MO_ASSERT(convert.is("Convert") && convert.has_rt_info(kDecompression), convert.describe(),
                      " reads f16 weights that do not fit f16");
            Node c = graph.add_constant(convert.name(), half->source());
            convert.out(0).replace_all_uses_with(c.out(0));
            c.out(0).names() = std::move(convert.out(0).names());
            c.fused_names() = convert.fused_names();
            graph.remove_node(convert);
            ++restored;
        }
        graph.remove_node(compressed);
    }
    return restored;
}

}  // namespace mo
