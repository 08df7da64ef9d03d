// How many threads bulk work (f16 conversion, weight checks) may use.
#pragma once

#include "core/tool_api.hpp"

namespace mo {

// CPUs this process may run on: its affinity mask (taskset, a container's cpuset), which
// std::thread::hardware_concurrency() ignores. At least 1.
MO_TOOL_API unsigned usable_cpus();

}  // namespace mo
