// ONNX sequence ops where the elements are known at conversion: SequenceEmpty, SequenceConstruct,
// SequenceInsert and SplitToSequence build placeholders (ops/internal.cpp); SequenceAt,
// SequenceLength and ConcatFromSequence read their elements and become tensor ops. A sequence
// whose elements cannot be followed (a positions given at run time, a model input) is refused
// by the consumer that needs them.
#include "extractors/onnx/sequence.hpp"

#include <deque>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

std::optional<std::vector<OutPort>> sequence_elements(const OutPort& port) {
    // Down the chain of SequenceInserts to the SequenceMake it starts from, then the inserts
    // from the first: a loop, not a recursion, as a chain may be 100,000 long.
    std::vector<Node> inserts;
    Node n = port.node();
    for (; n.is("SequenceInsert"); n = n.in(0).src().node()) inserts.push_back(n);
    if (!n.is("SequenceMake")) return std::nullopt;
    std::deque<OutPort> elements;
    for (size_t i = 0; i < n.input_count(); ++i) elements.push_back(n.in(i).src());
    for (auto it = inserts.rbegin(); it != inserts.rend(); ++it) {
        int64_t position = it->attr<int64_t>("position");
        const auto size = static_cast<int64_t>(elements.size());
        if (position < 0) position += size + 1;  // -1 appends
        if (position < 0 || position > size) return std::nullopt;
        elements.insert(elements.begin() + position, it->in(1).src());
    }
    return std::vector<OutPort>(elements.begin(), elements.end());
}

std::optional<int64_t> known_sequence_length(const OutPort& port) {
    const Node n = port.node();
    if (n.is("SequenceMake")) return static_cast<int64_t>(n.input_count());
    if (n.is("SequenceInsert") && n.attr<int64_t>("length") >= 0) return n.attr<int64_t>("length");
    if (auto elements = sequence_elements(port)) return static_cast<int64_t>(elements->size());
    return std::nullopt;
}

namespace {

std::vector<OutPort> elements_of(ExtractContext& c) {
    auto elements = sequence_elements(c.input(0));
    if (!elements)
        c.unsupported("a sequence whose elements are not known at conversion (built at run time, or a model input)");
    return *elements;
}

// A constant position into a sequence of `size` elements (negative counts from the end).
int64_t position(ExtractContext& c, size_t input, int64_t size, int64_t past_end) {
    const Tensor* v = c.input_value(input);
    if (!v) c.unsupported("a sequence position given at run time");
    const int64_t given = v->single_i64("the position");
    int64_t p = given;
    if (p < 0) p += size;
    if (p < 0 || p >= size + past_end) c.fail("position " + std::to_string(given) + " is outside the sequence of " + std::to_string(size));
    return p;
}

void sequence_empty(ExtractContext& c) { c.set_output(0, c.op("SequenceMake", "", {})); }

void sequence_construct(ExtractContext& c) {
    std::vector<OutPort> xs;
    for (size_t i = 0; i < c.input_count(); ++i) xs.push_back(c.input(i));
    c.set_output(0, c.op("SequenceMake", "", xs));
}

// Kept as a placeholder when the sequence is not known yet (a Loop body's carried sequence):
// the Loop extractor resolves it. The placeholder records its length when known, so that the
// next insert of a chain finds it at once.
void sequence_insert(ExtractContext& c) {
    int64_t at = -1;
    const std::optional<int64_t> size = known_sequence_length(c.input(0));
    if (c.has_input(2)) {
        if (!size) c.unsupported("SequenceInsert at a position into a sequence not known at conversion");
        at = position(c, 2, *size, 1);
    }
    if (size && *size >= kMaxSequenceElements)
        c.unsupported("a sequence of more than " + std::to_string(kMaxSequenceElements) + " elements");
    c.set_output(0, c.op("SequenceInsert", "", {c.input(0), c.input(1)}, {{"position", at}, {"length", size ? *size + 1 : -1}}));
}

void sequence_erase(ExtractContext& c) {
    auto elements = elements_of(c);
    const auto size = static_cast<int64_t>(elements.size());
    const int64_t at = c.has_input(1) ? position(c, 1, size, 0) : size - 1;
    if (at < 0) c.fail("SequenceErase of an empty sequence");
    elements.erase(elements.begin() + at);
    c.set_output(0, c.op("SequenceMake", "", elements));
}

void sequence_at(ExtractContext& c) {
    auto elements = elements_of(c);
    c.set_output(0, elements.at(static_cast<size_t>(position(c, 1, static_cast<int64_t>(elements.size()), 0))));
}

void sequence_length(ExtractContext& c) {
    c.set_output(0, c.i64("", static_cast<int64_t>(elements_of(c).size())));
}

void concat_from_sequence(ExtractContext& c) {
    auto elements = elements_of(c);
    if (elements.empty()) c.unsupported("ConcatFromSequence of an empty sequence");
    const int64_t axis = c.i("axis");
    const bool new_axis = c.i("new_axis", 0) != 0;
    if (new_axis)
        for (size_t k = 0; k < elements.size(); ++k)
            elements[k] = c.op("Unsqueeze", "element_" + std::to_string(k), {elements[k], c.i64s("axis_" + std::to_string(k), {axis})});
    c.set_output(0, c.op("Concat", "", elements, {{"axis", axis}}));
}

// SplitToSequence with a static length along the axis: Split (equal parts of `split`, or of 1
// without it) or VariadicSplit (a list of lengths); keepdims=0 squeezes parts of 1.
void split_to_sequence(ExtractContext& c) {
    OutPort x = c.input(0);
    const int64_t rank = ExtractContext::rank_of(x);
    if (rank < 0) c.unsupported("SplitToSequence of an input of unknown rank");
    const int64_t axis = normalize_axis(c.i("axis", 0), rank);
    const Dimension& d = x.shape()[static_cast<size_t>(axis)];
    if (!d.is_static()) c.unsupported("SplitToSequence along an axis of unknown length");
    const int64_t length = d.get_length();
    // Each element becomes a tensor of its own: the count is checked before any is made.
    auto check_count = [&](int64_t count) {
        if (count > kMaxSequenceElements)
            c.unsupported("SplitToSequence into " + std::to_string(count) + " elements (at most " +
                          std::to_string(kMaxSequenceElements) + ")");
    };
    std::vector<int64_t> lengths;
    if (!c.has_input(1)) {
        check_count(length);
        lengths.assign(static_cast<size_t>(length), 1);
    } else {
        const auto split = c.input_ints(1);
        if (c.input_value(1)->shape().empty()) {
            const int64_t part = split.at(0);
            if (part < 1) c.fail("split must be positive, it is " + std::to_string(part), "fix the model");
            check_count(length / part + (length % part != 0));
            for (int64_t left = length; left > 0; left -= part) lengths.push_back(std::min(left, part));
        } else {
            int64_t sum = 0;
            bool valid = true;
            for (int64_t part : split) valid = valid && part >= 0 && !__builtin_add_overflow(sum, part, &sum);
            if (!valid || sum != length)
                c.fail("split does not divide the axis of " + std::to_string(length) + " into parts", "fix the model");
            lengths = split;
        }
    }
    Node parts = c.add("VariadicSplit", "parts", {x, c.i64("axis", axis), c.i64s("lengths", lengths)});
    parts.set_output_count(lengths.size());
    const bool squeeze = !c.has_input(1) && c.i("keepdims", 1) == 0;
    std::vector<OutPort> elements;
    for (size_t k = 0; k < lengths.size(); ++k) {
        OutPort e = parts.out(k);
        if (squeeze) e = c.op("Squeeze", "element_" + std::to_string(k), {e, c.i64s("squeeze_" + std::to_string(k), {axis})});
        elements.push_back(e);
    }
    c.set_output(0, c.op("SequenceMake", "", elements));
}

}  // namespace

void register_onnx_sequence(ExtractorRegistry& r) {
    r.add({"onnx", "", "SequenceEmpty", since(11), sequence_empty});
    r.add({"onnx", "", "SequenceConstruct", since(11), sequence_construct});
    r.add({"onnx", "", "SequenceInsert", since(11), sequence_insert});
    r.add({"onnx", "", "SequenceErase", since(11), sequence_erase});
    r.add({"onnx", "", "SequenceAt", since(11), sequence_at});
    r.add({"onnx", "", "SequenceLength", since(11), sequence_length});
    r.add({"onnx", "", "ConcatFromSequence", since(11), concat_from_sequence});
    r.add({"onnx", "", "SplitToSequence", since(11), split_to_sequence});
}

}  // namespace mo
