// The part of a conversion before writing: load, extract, run the transformations and check that
// every port is typed. convert() writes what it returns; the held model of the Python module
// (tools/held_model.hpp) keeps it.
#pragma once

#include <memory>

#include "core/graph.hpp"
#include "core/options.hpp"
#include "tools/pipeline.hpp"

namespace mo {

// `options` drive loading and extraction; the transformations see `transform_options` (the held
// model passes the same options with compress_to_fp16 off: it compresses when it saves).
std::unique_ptr<Graph> load_and_transform(const ConversionOptions& options, const Pipeline& pipeline,
                                          const ConversionOptions& transform_options);

}  // namespace mo
