// An allocator for large arrays: tables read at random places (a hash table of a million names,
// a layer id per node) and the working copies of a walk over every node.
// * From 1 MiB on, an array is mapped from the system and unmapped when freed. glibc's malloc
//   keeps a freed block resident when it lies amid its heap: the topological order's working
//   copies (16 MiB on a million-node graph, made after every pass that changed the graph) raised
//   the peak of a conversion by 15 MiB that way.
// * From 4 MiB on, it is also placed at a 2 MiB boundary and the kernel is asked to back it with
//   transparent huge pages (madvise, which is all this system's transparent_hugepage setting
//   enables). Each random probe of a 64 MiB table in 4 KiB pages was a TLB miss and a page walk
//   besides the cache miss; with 2 MiB pages the walks hit. Kernels without huge pages give
//   small ones.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace mo {

template <typename T>
struct LargeArrayAllocator {
    using value_type = T;
    static constexpr size_t kMapped = size_t{1} << 20;
    static constexpr size_t kHuge = size_t{4} << 20;
    static constexpr size_t kHugePage = size_t{2} << 20;
    static constexpr size_t kPage = 4096;

    LargeArrayAllocator() = default;
    template <typename U>
    LargeArrayAllocator(const LargeArrayAllocator<U>&) {}  // NOLINT: rebinding, as allocators do

    T* allocate(size_t n) {
        if (n > (SIZE_MAX - kHugePage) / sizeof(T)) throw std::bad_array_new_length();
        const size_t bytes = n * sizeof(T);
        if (bytes < kMapped) return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
        const size_t boundary = bytes >= kHuge ? kHugePage : kPage;
        const size_t size = mapped_size(bytes);
        const size_t slack = boundary - kPage;  // room to move the start to the boundary
        auto* mapped = static_cast<std::byte*>(::mmap(nullptr, size + slack, PROT_READ | PROT_WRITE,
                                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        if (mapped == MAP_FAILED) throw std::bad_alloc();
        const auto address = reinterpret_cast<uintptr_t>(mapped);
        std::byte* start = mapped + ((boundary - address % boundary) % boundary);
        if (start != mapped) ::munmap(mapped, static_cast<size_t>(start - mapped));
        if (std::byte* end = start + size; end != mapped + size + slack)
            ::munmap(end, static_cast<size_t>(mapped + size + slack - end));
        if (boundary == kHugePage) ::madvise(start, size, MADV_HUGEPAGE);  // a hint: refused, the pages are small ones
        return reinterpret_cast<T*>(start);
    }
    void deallocate(T* p, size_t n) {
        const size_t bytes = n * sizeof(T);
        if (bytes < kMapped) return ::operator delete(p, std::align_val_t{alignof(T)});
        ::munmap(p, mapped_size(bytes));
    }
    template <typename U>
    bool operator==(const LargeArrayAllocator<U>&) const { return true; }

private:
    static size_t mapped_size(size_t bytes) {
        const size_t unit = bytes >= kHuge ? kHugePage : kPage;
        return (bytes + unit - 1) / unit * unit;
    }
};

}  // namespace mo
