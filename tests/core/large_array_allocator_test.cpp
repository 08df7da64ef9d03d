#include "core/large_array_allocator.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace mo {
namespace {

using Array = std::vector<uint32_t, LargeArrayAllocator<uint32_t>>;

// Whether any page of [p, p + bytes) is mapped: mincore() fails with ENOMEM when one is not.
bool mapped(const void* p, size_t bytes) {
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
    std::vector<unsigned char> resident((bytes + page - 1) / page + 1);
    return ::mincore(reinterpret_cast<void*>(begin), bytes, resident.data()) == 0 || errno != ENOMEM;
}

TEST(LargeArrayAllocator, KeepsValuesAtEverySize) {
    // Below 1 MiB, from 1 MiB (mapped), from 4 MiB (mapped at a huge page boundary).
    for (size_t count : {size_t{10}, (size_t{1} << 18) - 1, size_t{1} << 18, (size_t{3} << 18) + 5, size_t{1} << 20,
                         (size_t{9} << 18) + 3}) {
        Array a(count);
        for (size_t i = 0; i < count; ++i) a[i] = static_cast<uint32_t>(i * 2654435761u);
        for (size_t i = 0; i < count; ++i) ASSERT_EQ(a[i], static_cast<uint32_t>(i * 2654435761u)) << count << " at " << i;
        if (count * sizeof(uint32_t) >= LargeArrayAllocator<uint32_t>::kHuge)
            EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % LargeArrayAllocator<uint32_t>::kHugePage, 0u) << count;
    }
}

TEST(LargeArrayAllocator, GrowingAcrossTheThresholdsKeepsTheValues) {
    Array a;
    for (uint32_t i = 0; i < (3u << 20); ++i) a.push_back(i ^ 0x5a5a5a5au);
    for (uint32_t i = 0; i < (3u << 20); ++i) ASSERT_EQ(a[i], i ^ 0x5a5a5a5au) << i;
}

TEST(LargeArrayAllocator, GivesALargeArrayBackToTheSystemWhenFreed) {
    for (size_t bytes : {size_t{1} << 20, (size_t{5} << 20) + 12}) {
        LargeArrayAllocator<std::byte> allocator;
        std::byte* p = allocator.allocate(bytes);
        p[0] = std::byte{1};
        p[bytes - 1] = std::byte{2};
        ASSERT_TRUE(mapped(p, bytes));
        allocator.deallocate(p, bytes);
        EXPECT_FALSE(mapped(p, bytes)) << bytes << " bytes are still mapped";
    }
}

}  // namespace
}  // namespace mo
