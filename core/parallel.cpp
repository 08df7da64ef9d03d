#include "core/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace mo {

unsigned usable_cpus() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(CPU_COUNT(&set), 1));
    return std::max(std::thread::hardware_concurrency(), 1u);
}

}  // namespace mo
