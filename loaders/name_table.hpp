// A hash table from names to values for loaders: the tensor names of a graph, looked up once
// per node input. Keys are views of strings that outlive the table (the mapped model file, a
// parsed message); slots are one array probed linearly, so a million names cost one allocation
// and a lookup touches one or two cache lines, where std::unordered_map allocates a node per
// name and follows a pointer per probe. Keys of up to 8 bytes are held in the slot itself, so
// finding one reads no memory beyond its slot (on a graph of a million nodes, reading the key
// where it lies in the model file was a second cache miss per lookup).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "core/hash.hpp"
#include "core/large_array_allocator.hpp"

namespace mo {

template <typename V>
class NameTable {
public:
    // Room for `n` names without growing.
    void reserve(size_t n) {
        if (capacity_for(n) > slots_.size()) rehash(capacity_for(n));
    }
    size_t size() const { return count_; }

    V* find(std::string_view key) {
        if (slots_.empty()) return nullptr;
        const uint64_t h = hash(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.size == kEmpty) return nullptr;
            if (s.tag == static_cast<uint32_t>(h >> 32) && equal(s, key)) return &s.value;
        }
    }
    const V* find(std::string_view key) const { return const_cast<NameTable*>(this)->find(key); }
    bool contains(std::string_view key) const { return find(key) != nullptr; }
    // Asks the CPU for the slot where `key` would be found, ahead of find() or insert().
    void prefetch(std::string_view key) const {
        if (!slots_.empty()) __builtin_prefetch(&slots_[hash(key) & mask_]);
    }

    // Inserts `key` -> `value` unless `key` is there; returns the value kept and whether it
    // was inserted.
    std::pair<V*, bool> insert(std::string_view key, V value) {
        if (capacity_for(count_ + 1) > slots_.size()) rehash(capacity_for(count_ + 1));
        const uint64_t h = hash(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.size == kEmpty) {
                s.size = static_cast<uint32_t>(key.size());
                s.tag = static_cast<uint32_t>(h >> 32);
                if (key.size() <= sizeof s.key.bytes) {
                    if (!key.empty()) std::memcpy(s.key.bytes, key.data(), key.size());
                }
                else s.key.data = key.data();
                s.value = std::move(value);
                ++count_;
                return {&s.value, true};
            }
            if (s.tag == static_cast<uint32_t>(h >> 32) && equal(s, key)) return {&s.value, false};
        }
    }
    // Sets `key` -> `value`, replacing what it held.
    void assign(std::string_view key, V value) {
        auto [kept, inserted] = insert(key, value);
        if (!inserted) *kept = std::move(value);
    }

private:
    static constexpr uint32_t kEmpty = UINT32_MAX;
    struct Slot {
        union {
            const char* data;  // a longer key, where it lies
            char bytes[8];     // a key of up to 8 bytes
        } key{};
        uint32_t size = kEmpty;  // kEmpty: an empty slot
        uint32_t tag = 0;  // the hash's upper half: most mismatches are decided without the key
        V value{};
    };
    static std::string_view key_of(const Slot& s) {
        return s.size <= sizeof s.key.bytes ? std::string_view(s.key.bytes, s.size) : std::string_view(s.key.data, s.size);
    }

    // At most 3/4 full, a power of two.
    static size_t capacity_for(size_t n) {
        size_t c = 16;
        while (c * 3 < n * 4) c *= 2;
        return c;
    }
    static bool equal(const Slot& s, std::string_view key) { return s.size == key.size() && key_of(s) == key; }
    // Eight bytes at a time through mix64; names are short and the table is in memory only.
    static uint64_t hash(std::string_view key) {
        uint64_t h = 0x9E3779B97F4A7C15ull ^ key.size();
        const char* p = key.data();
        size_t n = key.size();
        for (; n >= 8; p += 8, n -= 8) {
            uint64_t w;
            std::memcpy(&w, p, 8);
            h = mix64(h ^ w);
        }
        uint64_t tail = 0;
        std::memcpy(&tail, p, n);
        return mix64(h ^ tail ^ (uint64_t{n} << 56));
    }
    void rehash(size_t capacity) {
        Slots old(capacity);
        old.swap(slots_);
        mask_ = capacity - 1;
        for (Slot& s : old) {
            if (s.size == kEmpty) continue;
            size_t i = hash(key_of(s)) & mask_;
            while (slots_[i].size != kEmpty) i = (i + 1) & mask_;
            slots_[i] = std::move(s);
        }
    }

    using Slots = std::vector<Slot, LargeArrayAllocator<Slot>>;  // probed at random: huge pages
    Slots slots_;
    size_t mask_ = 0;
    size_t count_ = 0;
};

}  // namespace mo
