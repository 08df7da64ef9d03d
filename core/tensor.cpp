#include "core/tensor.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "core/eval_budget.hpp"
#include "core/float16.hpp"
#include "core/infer.hpp"
#include "core/low_bit.hpp"
#include "core/saturate_cast.hpp"

namespace mo {

namespace {
// Where an empty buffer's data() points: never null, so that copying its zero bytes with memcpy
// stays defined (memcpy's pointers must be valid even for a size of 0).
alignas(std::max_align_t) const std::byte kNoBytes[1] = {};

const std::byte* non_null(const std::byte* data, size_t size) { return size == 0 && !data ? kNoBytes : data; }
}  // namespace

OwnedBuffer::OwnedBuffer(std::vector<std::byte> bytes) : bytes_(std::move(bytes)) {
    data_ = non_null(bytes_.data(), bytes_.size());
    size_ = bytes_.size();
}

OwnedBuffer::OwnedBuffer(size_t size) {
    constexpr size_t kLarge = size_t{4} << 20;
    if (size >= kLarge) {
        void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            ::madvise(p, size, MADV_HUGEPAGE);  // advice only: fine if refused
            mapping_ = p;
            data_ = static_cast<const std::byte*>(p);
            size_ = size;
            return;
        }
    }
    bytes_.resize(size);
    data_ = non_null(bytes_.data(), size);
    size_ = size;
}

OwnedBuffer::~OwnedBuffer() {
    if (mapping_) ::munmap(mapping_, size_);
}

ViewBuffer::ViewBuffer(std::shared_ptr<const MappedFile> file, const std::byte* data, size_t size)
    : file_(std::move(file)) {
    MO_ASSERT(file_ && data >= file_->data() && data + size <= file_->data() + file_->size(), "view outside its file");
    data_ = non_null(data, size);
    size_ = size;
}

ViewBuffer::ViewBuffer(std::shared_ptr<const void> owner, const std::byte* data, size_t size) : owner_(std::move(owner)) {
    data_ = non_null(data, size);
    size_ = size;
}

DerivedBuffer::~DerivedBuffer() = default;

const std::byte* DerivedBuffer::materialize() const {
    bytes_ = std::make_unique_for_overwrite<std::byte[]>(size_);
    produce(0, bytes_.get(), size_);
    data_ = bytes_.get();
    return data_;
}

Tensor::Tensor(ElementType type, Shape shape, std::shared_ptr<const Buffer> buffer)
    : type_(type), shape_(std::move(shape)), buffer_(std::move(buffer)) {
    for (auto d : shape_)
        if (d < 0) throw Error("tensor shape has a negative dimension");
    MO_ASSERT(buffer_ != nullptr);
    if (buffer_->size() < byte_size())
        throw Error("tensor data holds " + std::to_string(buffer_->size()) + " bytes but its type and shape need " +
                    std::to_string(byte_size()));
}

Tensor Tensor::allocate(ElementType type, Shape shape) {
    const int64_t elements = shape_size(shape);
    // Folding checks the outputs it knows the shapes of; the ops of a Loop body allocate what
    // their inputs ask for (a Concat doubling a carried value took 3 GB). Refused before it is
    // allocated, the tensor leaves its node unfolded.
    if (!EvalBudget::affords_tensor(type, elements))
        throw Error("folding would make a tensor of " + std::to_string(elements) + " elements of " + std::string(ir_name(type)) +
                        ", more than --max_constant_size (" + std::to_string(EvalBudget::max_tensor_bytes()) + " bytes)",
                    {}, "raise --max_constant_size if the model is genuine");
    auto bytes = mo::byte_size(type, static_cast<size_t>(elements));
    return Tensor(type, std::move(shape), std::make_shared<OwnedBuffer>(bytes));
}

std::byte* Tensor::mutable_bytes() {
    auto* owned = dynamic_cast<const OwnedBuffer*>(buffer_.get());
    MO_ASSERT(owned != nullptr, "mutable access to a tensor that does not own its bytes");
    return const_cast<OwnedBuffer*>(owned)->mutable_data();
}

Tensor Tensor::aligned() const {
    const size_t alignment = std::min<size_t>(std::max<size_t>(bit_width(type_) / 8, 1), alignof(std::max_align_t));
    if (!buffer_ || reinterpret_cast<uintptr_t>(bytes()) % alignment == 0) return *this;
    Tensor copy = allocate(type_, shape_);  // operator new's alignment suits every element type
    std::memcpy(copy.mutable_bytes(), bytes(), byte_size());
    return copy;
}

Tensor Tensor::aligned_if_small() const { return byte_size() <= (size_t{64} << 10) ? aligned() : *this; }

namespace {
template <typename To, typename F>
void visit_values(const Tensor& unaligned, F&& sink) {
    const Tensor t = unaligned.aligned();
    size_t n = t.size();
    switch (t.type()) {
#define MO_CASE(ET, CT) \
    case ElementType::ET: for (size_t i = 0; i < n; ++i) sink(static_cast<To>(t.data<CT>()[i])); break;
        MO_CASE(f32, float) MO_CASE(f64, double) MO_CASE(i8, int8_t) MO_CASE(i16, int16_t) MO_CASE(i32, int32_t)
        MO_CASE(i64, int64_t) MO_CASE(u8, uint8_t) MO_CASE(u16, uint16_t) MO_CASE(u32, uint32_t)
        MO_CASE(u64, uint64_t) MO_CASE(boolean, uint8_t)
#undef MO_CASE
    case ElementType::f16:
        for (size_t i = 0; i < n; ++i) sink(static_cast<To>(f16_to_f32(t.data<uint16_t>()[i])));
        break;
    case ElementType::bf16:
        for (size_t i = 0; i < n; ++i) sink(static_cast<To>(bf16_to_f32(t.data<uint16_t>()[i])));
        break;
    case ElementType::u1:
    case ElementType::u4:
    case ElementType::i4: visit_values<To>(unpack_low_bit(t), sink); break;
    default:
        throw Error("cannot read values of a " + std::string(ir_name(t.type())) + " tensor");
    }
}

template <typename CT>
void fill_from(Tensor& out, const std::vector<double>& v) {
    for (size_t i = 0; i < v.size(); ++i) out.mutable_data<CT>()[i] = saturate_cast<CT>(v[i]);  // NaN, 1e30: defined
}
}  // namespace

std::vector<int64_t> Tensor::to_i64() const {
    std::vector<int64_t> v;
    v.reserve(size());
    if (is_float(type_)) visit_values<double>(*this, [&](double x) { v.push_back(saturate_cast<int64_t>(x)); });
    else visit_values<int64_t>(*this, [&](int64_t x) { v.push_back(x); });
    return v;
}

namespace {
void require_one_value(const Tensor& t, const std::string& what) {
    if (t.size() != 1)
        throw Error(what + " must hold one value, not " + std::to_string(t.size()) + " (shape [" +
                    PartialShape(t.shape()).to_string() + "])");
}
}  // namespace

int64_t Tensor::single_i64(const std::string& what) const {
    require_one_value(*this, what);
    return to_i64()[0];
}

double Tensor::single_f64(const std::string& what) const {
    require_one_value(*this, what);
    return to_f64()[0];
}

std::vector<double> Tensor::to_f64() const {
    std::vector<double> v;
    v.reserve(size());
    visit_values<double>(*this, [&](double x) { v.push_back(x); });
    return v;
}

Tensor Tensor::reshaped(Shape shape) const {
    MO_ASSERT(shape_size(shape) == shape_size(shape_), "reshape changes the element count");
    return Tensor(type_, std::move(shape), buffer_);
}

Tensor Tensor::convert(ElementType to) const {
    if (to == type_) return *this;
    // Low-bit values go through i64, whose integer path wraps exactly.
    if (is_low_bit(type_)) return unpack_low_bit(*this).convert(ElementType::i64).convert(to);
    if (is_low_bit(to)) {
        Tensor wide = allocate(unpacked_type(to), shape_);
        auto* dst = wide.mutable_data<uint8_t>();  // i8 written through its bit pattern
        size_t i = 0;
        if (is_float(type_))
            visit_values<double>(*this, [&](double x) { dst[i++] = static_cast<uint8_t>(low_bit_from_float(to, x)); });
        else
            visit_values<int64_t>(*this, [&](int64_t x) { dst[i++] = static_cast<uint8_t>(low_bit_from_int(to, x)); });
        return pack_low_bit(wide, to);
    }
    Tensor out = allocate(to, shape_);
    size_t n = size();
    if (type_ == ElementType::i64 && is_integral(to)) {
        // exact path for large integers (the double path below would round them)
        auto v = to_i64();
        switch (to) {
#define MO_CASE(ET, CT) \
    case ElementType::ET: for (size_t i = 0; i < n; ++i) out.mutable_data<CT>()[i] = static_cast<CT>(v[i]); return out;
            MO_CASE(i8, int8_t) MO_CASE(i16, int16_t) MO_CASE(i32, int32_t) MO_CASE(i64, int64_t) MO_CASE(u8, uint8_t)
            MO_CASE(u16, uint16_t) MO_CASE(u32, uint32_t) MO_CASE(u64, uint64_t)
#undef MO_CASE
        default: break;
        }
    }
    auto v = to_f64();
    switch (to) {
    case ElementType::f32: fill_from<float>(out, v); break;
    case ElementType::f64: fill_from<double>(out, v); break;
    case ElementType::i8: fill_from<int8_t>(out, v); break;
    case ElementType::i16: fill_from<int16_t>(out, v); break;
    case ElementType::i32: fill_from<int32_t>(out, v); break;
    case ElementType::i64: fill_from<int64_t>(out, v); break;
    case ElementType::u8: fill_from<uint8_t>(out, v); break;
    case ElementType::u16: fill_from<uint16_t>(out, v); break;
    case ElementType::u32: fill_from<uint32_t>(out, v); break;
    case ElementType::u64: fill_from<uint64_t>(out, v); break;
    case ElementType::boolean:
        for (size_t i = 0; i < n; ++i) out.mutable_data<uint8_t>()[i] = v[i] != 0.0 ? 1 : 0;
        break;
    case ElementType::f16:
        for (size_t i = 0; i < n; ++i) out.mutable_data<uint16_t>()[i] = f32_to_f16(static_cast<float>(v[i]));
        break;
    case ElementType::bf16:
        for (size_t i = 0; i < n; ++i) out.mutable_data<uint16_t>()[i] = f32_to_bf16(static_cast<float>(v[i]));
        break;
    default:
        throw Error("cannot convert a tensor to " + std::string(ir_name(to)));
    }
    return out;
}

bool Tensor::same_as(const Tensor& o) const {
    if (type_ != o.type_ || shape_ != o.shape_) return false;
    size_t n = byte_size();
    return n == o.byte_size() && (n == 0 || std::memcmp(bytes(), o.bytes(), n) == 0);
}

}  // namespace mo
