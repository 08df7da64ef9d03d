// Bodies of the sub-graph ops (If: then/else; Loop and TensorIterator: one body): graphs of
// their own, owned by a node, with the port map that ties the node's inputs and outputs to the
// body's Parameters and Results, as OpenVINO's input/output descriptions do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mo {

class Graph;

// The deepest nesting of bodies mo reads (a body of a body of ... 64 levels). The loaders
// refuse deeper models with a clear error, so that the passes that walk bodies recursively
// cannot run out of stack on a hostile file. ONNX files cannot nest this deep anyway: protobuf
// parses at most 100 nested messages, about 32 levels of bodies.
inline constexpr size_t kMaxBodyNesting = 64;

// How one body Parameter gets its value.
struct BodyInput {
    enum class Kind {
        Invariant,         // the node's input `external`, the same in every iteration
        Sliced,            // a slice of input `external` along `axis`, one part per iteration
        Merged,            // input `external` in the first iteration, then body Result `result` (back edge)
        CurrentIteration,  // Loop only: the iteration number (no input)
    };
    Kind kind = Kind::Invariant;
    size_t external = 0;   // index of the node's input
    size_t parameter = 0;  // index into the body's parameters()
    size_t result = 0;     // Merged: index into the body's results()
    // Sliced: parts of `part_size` elements along `axis`, from index `start` to `end`
    // (inclusive, negative counts from the end), forwards (stride 1) or backwards (-1).
    int64_t axis = 0, start = 0, stride = 1, part_size = 1, end = -1;
};

// What one body Result gives.
struct BodyOutput {
    enum class Kind {
        Last,       // output `external` is the Result's value in the last iteration
        Concat,     // output `external` concatenates the Result's values along `axis`
        Condition,  // Loop only: whether to run the next iteration (no output)
    };
    Kind kind = Kind::Last;
    size_t external = 0;  // index of the node's output
    size_t result = 0;    // index into the body's results()
    int64_t axis = 0, start = 0, stride = 1, part_size = 1, end = -1;  // Concat: as BodyInput's
};

struct Body {
    std::string role;  // the IR element: "body", "then_body", "else_body"
    std::unique_ptr<Graph> graph;
    std::vector<BodyInput> inputs;
    std::vector<BodyOutput> outputs;

    const BodyInput* input_for_parameter(size_t parameter) const {
        for (const auto& in : inputs)
            if (in.parameter == parameter) return &in;
        return nullptr;
    }
};

}  // namespace mo
