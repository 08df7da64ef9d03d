// An allocator for large tables read at random places (a hash table of a million names, a
// layer id per node): arrays of 4 MiB and more are placed at 2 MiB boundaries and the kernel is
// asked to back them with transparent huge pages (madvise, which is all this system's
// transparent_hugepage setting enables). Each random probe of a 64 MiB table in 4 KiB pages
// was a TLB miss and a page walk besides the cache miss; with 2 MiB pages the walks hit. Smaller
// arrays, and kernels without huge pages, get ordinary memory.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace mo {

template <typename T>
struct HugePageAllocator {
    using value_type = T;
    static constexpr size_t kHugePage = size_t{2} << 20;
    static constexpr size_t kThreshold = size_t{4} << 20;

    HugePageAllocator() = default;
    template <typename U>
    HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding, as allocators do

    T* allocate(size_t n) {
        if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
        const size_t bytes = n * sizeof(T);
        if (bytes < kThreshold) return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
        const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        void* p = std::aligned_alloc(kHugePage, rounded);
        if (!p) throw std::bad_alloc();
        ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: refused, the pages are small ones
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t n) {
        if (n * sizeof(T) < kThreshold) return ::operator delete(p, std::align_val_t{alignof(T)});
        std::free(p);
    }
    template <typename U>
    bool operator==(const HugePageAllocator<U>&) const { return true; }
};

}  // namespace mo
