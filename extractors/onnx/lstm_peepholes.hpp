// ONNX LSTM with peepholes -> a Loop over the time steps (lstm_peepholes.cpp).
#pragma once

#include <cstdint>

#include "extractors/extract_context.hpp"

namespace mo {

// Replaces the LSTM being extracted; refuses (by name) the attributes it does not handle.
void lstm_with_peepholes(ExtractContext& c, int64_t hidden);

}  // namespace mo
