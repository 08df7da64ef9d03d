// double -> integer conversion for values read from a model, which may be anything.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

namespace mo {

// double -> T without undefined behaviour: NaN gives 0 for integers, out-of-range values clamp to
// T's range (C++ leaves float-to-int overflow undefined), in-range values truncate towards zero.
template <typename T>
T saturate_cast(double v) {
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(v);
    } else {
        if (std::isnan(v)) return T(0);
        if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
        if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
        return static_cast<T>(v);
    }
}

}  // namespace mo
