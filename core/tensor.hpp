// Tensors: an element type, a static shape and an immutable shared buffer. A weight read
// from a model file is a view into the memory-mapped file (the view keeps the mapping alive),
// so weights travel from loader to emitter without being copied.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <string>
#include <vector>

#include "api.hpp"
#include "element_type.hpp"
#include "mapped_file.hpp"
#include "shape.hpp"

namespace mo {

// Read-only bytes with an owner. Subclasses own a vector, keep a file mapping alive, or
// compute the bytes on demand (DerivedBuffer).
class MO_API Buffer {
public:
    virtual ~Buffer() = default;
    const std::byte* data() const { return data_ || size_ == 0 ? data_ : materialize(); }
    size_t size() const { return size_; }
    // The mapped model file these bytes live in, or nullptr. The emitter copies such bytes
    // file-to-file and drops their pages after use.
    virtual const MappedFile* source_file() const { return nullptr; }
    bool is_file_view() const { return source_file() != nullptr; }

protected:
    // Computes and keeps the bytes of a buffer that has none yet (DerivedBuffer).
    virtual const std::byte* materialize() const { return nullptr; }
    mutable const std::byte* data_ = nullptr;
    size_t size_ = 0;
};

// Bytes computed from other bytes, piece by piece, only when asked: the f16 copy of f32
// weights is one. The IR emitter streams such a buffer into the weights file through
// produce() in bounded pieces, so the whole result never exists in memory; anything that asks
// for data() instead gets it computed once and kept (single-threaded use only).
class MO_API DerivedBuffer : public Buffer {
public:
    explicit DerivedBuffer(size_t size) { size_ = size; }
    ~DerivedBuffer() override;
    // Writes bytes [offset, offset + n) of the result to `out`. May run on another thread
    // than the caller's, for disjoint ranges at once.
    virtual void produce(size_t offset, std::byte* out, size_t n) const = 0;
    bool materialized() const { return data_ != nullptr; }

protected:
    const std::byte* materialize() const override;

private:
    mutable std::unique_ptr<std::byte[]> bytes_;
};

// A buffer that owns its bytes. Large ones come straight from the kernel (zero pages, huge
// pages where allowed) so that allocating a big folded or compressed weight costs no memset.
class MO_API OwnedBuffer final : public Buffer {
public:
    explicit OwnedBuffer(std::vector<std::byte> bytes);
    explicit OwnedBuffer(size_t size);  // zero-filled
    ~OwnedBuffer() override;
    OwnedBuffer(const OwnedBuffer&) = delete;
    OwnedBuffer& operator=(const OwnedBuffer&) = delete;
    std::byte* mutable_data() { return const_cast<std::byte*>(data_); }

private:
    std::vector<std::byte> bytes_;
    void* mapping_ = nullptr;  // set for large buffers
};

// A view of `size` bytes at `data` that keeps their owner alive: a mapped file (weights read
// from the model) or any other owner (e.g. a parsed protobuf message).
class MO_API ViewBuffer final : public Buffer {
public:
    ViewBuffer(std::shared_ptr<const MappedFile> file, const std::byte* data, size_t size);
    ViewBuffer(std::shared_ptr<const void> owner, const std::byte* data, size_t size);
    const MappedFile* source_file() const override { return file_.get(); }

private:
    std::shared_ptr<const MappedFile> file_;
    std::shared_ptr<const void> owner_;
};

class MO_API Tensor {
public:
    Tensor() = default;
    // Wraps an existing buffer; checks the buffer is large enough for type x shape.
    Tensor(ElementType type, Shape shape, std::shared_ptr<const Buffer> buffer);
    // A zero-filled tensor that owns its bytes; fill it through mutable_data() before sharing.
    static Tensor allocate(ElementType type, Shape shape);

    template <typename T>
    static Tensor from_vector(const std::vector<T>& values, Shape shape) {
        Tensor t = allocate(element_type_of<T>(), std::move(shape));
        if constexpr (std::is_same_v<T, bool>) {
            for (size_t i = 0; i < values.size(); ++i) t.mutable_data<uint8_t>()[i] = values[i] ? 1 : 0;
        } else {
            if (!values.empty()) std::memcpy(t.mutable_data<T>(), values.data(), values.size() * sizeof(T));
        }
        return t;
    }
    template <typename T>
    static Tensor scalar(T value) { return from_vector<T>({value}, {}); }

    bool empty() const { return buffer_ == nullptr; }
    ElementType type() const { return type_; }
    const Shape& shape() const { return shape_; }
    size_t size() const { return static_cast<size_t>(shape_size(shape_)); }  // element count
    size_t byte_size() const { return mo::byte_size(type_, size()); }
    const std::byte* bytes() const { return buffer_ ? buffer_->data() : nullptr; }
    std::span<const std::byte> byte_span() const { return {bytes(), byte_size()}; }
    const std::shared_ptr<const Buffer>& buffer() const { return buffer_; }

    template <typename T> const T* data() const { return reinterpret_cast<const T*>(bytes()); }
    // Only valid on a tensor made by allocate() that has not been shared yet.
    template <typename T> T* mutable_data() { return reinterpret_cast<T*>(mutable_bytes()); }

    // Values converted to int64 / double, for shape-like and attribute-like inputs. Integral,
    // boolean and float types are supported; throws mo::Error otherwise.
    // Floats convert with saturation: NaN gives 0, values beyond int64 its limits.
    std::vector<int64_t> to_i64() const;
    std::vector<double> to_f64() const;
    // The value of a tensor that must hold exactly one (a scalar or a one-element tensor: a
    // condition, a count, a position); throws mo::Error naming `what` when it holds more or none.
    int64_t single_i64(const std::string& what) const;
    double single_f64(const std::string& what) const;
    // A tensor with the same bytes and another shape of the same element count.
    Tensor reshaped(Shape shape) const;
    // This tensor when its bytes are aligned for its element type, else a copy that is. A view
    // into a protobuf or flatbuffer may start at any byte, and reading its values through
    // data<T>() would dereference a misaligned pointer: code that reads values (folding,
    // evaluation, to_i64 / to_f64) goes through here, the emitter copies bytes as they are.
    Tensor aligned() const;
    // What loaders make of a view into the model file: aligned() when it is small (up to 64 KiB:
    // shapes, axes, scales — what extractors and plugins read through data<T>()), the view
    // itself when it is large (weights: never copied; their rare evaluation copies them).
    Tensor aligned_if_small() const;
    // Element-wise conversion to another type (integral <-> float, f16/bf16 included).
    Tensor convert(ElementType to) const;

    // Byte-wise equality of type, shape and data.
    bool same_as(const Tensor& o) const;

private:
    std::byte* mutable_bytes();

    ElementType type_ = ElementType::dynamic;
    Shape shape_;
    std::shared_ptr<const Buffer> buffer_;
};

}  // namespace mo
