// FrameworkAttributes over a TFLite operator's builtin options table, read by field name with
// flatbuffers' mini-reflection tables: every option of every builtin op is readable without a
// line of code per op. Enum fields (padding, fused_activation_function, ...) read as their
// integer values; a field the file does not store reads as absent (its schema default is the
// extractor's default).
#pragma once

#include <memory>

#include "core/framework_attributes.hpp"

namespace flatbuffers {
class Table;
struct TypeTable;
}  // namespace flatbuffers

namespace mo {

// `options` (may be null: no options) must outlive the result (the graph keeps the file mapped).
std::shared_ptr<const FrameworkAttributes> tflite_attributes(const flatbuffers::Table* options,
                                                             const flatbuffers::TypeTable* type_table);

}  // namespace mo
