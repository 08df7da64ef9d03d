#include "core/shape.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"

namespace mo {

int64_t shape_size(const Shape& s) {
    // The product of the non-zero dims must fit too: a [0, 2^40, 2^40] tensor holds nothing, but
    // code that multiplies some of its dims (an outer or inner size) would overflow.
    int64_t nonzero = 1;
    bool empty = false;
    for (auto d : s) {
        if (d == 0) {
            empty = true;
            continue;
        }
        if (__builtin_mul_overflow(nonzero, d, &nonzero))
            throw Error("the shape [" + PartialShape(s).to_string() + "] has more elements than 64 bits count", "",
                        "the model's dimensions are corrupt or hostile");
    }
    return empty ? 0 : nonzero;
}

int64_t Dimension::get_length() const {
    MO_ASSERT(is_static(), "dimension ", to_string(), " is not static");
    return min_;
}

bool Dimension::compatible(const Dimension& o) const {
    int64_t lo = std::max(min_, o.min_);
    int64_t hi_a = max_ == kUnbounded ? INT64_MAX : max_;
    int64_t hi_b = o.max_ == kUnbounded ? INT64_MAX : o.max_;
    return lo <= std::min(hi_a, hi_b);
}

Dimension Dimension::merge(const Dimension& a, const Dimension& b) {
    if (!a.compatible(b)) throw Error("dimensions " + a.to_string() + " and " + b.to_string() + " do not match");
    int64_t lo = std::max(a.min_, b.min_);
    int64_t hi;
    if (a.max_ == kUnbounded) hi = b.max_;
    else if (b.max_ == kUnbounded) hi = a.max_;
    else hi = std::min(a.max_, b.max_);
    return Dimension(lo, hi);
}

// Dims come from the model, so their sums and products may overflow: a lower bound that does is
// an error, an upper bound that does is no bound.
namespace {
using Op = bool (*)(int64_t, int64_t, int64_t*);
Dimension combine(const Dimension& a, const Dimension& b, Op op, const char* symbol) {
    int64_t lo = 0, hi = Dimension::kUnbounded;
    if (op(a.min(), b.min(), &lo))
        throw Error("dimension arithmetic overflows int64: " + a.to_string() + " " + symbol + " " + b.to_string(), "",
                    "the model's dimensions or attributes are corrupt or hostile");
    if (a.max() != Dimension::kUnbounded && b.max() != Dimension::kUnbounded && !op(a.max(), b.max(), &hi))
        return Dimension(lo, hi);
    return Dimension(lo, Dimension::kUnbounded);
}
bool add(int64_t a, int64_t b, int64_t* r) { return __builtin_add_overflow(a, b, r); }
bool mul(int64_t a, int64_t b, int64_t* r) { return __builtin_mul_overflow(a, b, r); }
}  // namespace

Dimension Dimension::operator+(const Dimension& o) const { return combine(*this, o, add, "+"); }
Dimension Dimension::operator-(const Dimension& o) const {
    if (is_static() && o.is_static()) return Dimension(min_ - o.min_);
    int64_t lo = o.max_ == kUnbounded ? 0 : std::max<int64_t>(0, min_ - o.max_);
    int64_t hi = max_ == kUnbounded ? kUnbounded : std::max<int64_t>(0, max_ - o.min_);
    return Dimension(lo, hi);
}
Dimension Dimension::operator*(const Dimension& o) const { return combine(*this, o, mul, "*"); }

std::string Dimension::to_string() const {
    if (is_static()) return std::to_string(min_);
    if (is_fully_dynamic()) return "?";
    std::string s = min_ == 0 ? "" : std::to_string(min_);
    s += "..";
    if (max_ != kUnbounded) s += std::to_string(max_);
    return s;
}

PartialShape::PartialShape(const Shape& s) {
    dims_.reserve(s.size());
    for (auto d : s) dims_.emplace_back(d);
}

PartialShape PartialShape::dynamic_rank() {
    PartialShape p;
    p.dynamic_rank_ = true;
    return p;
}

size_t PartialShape::rank() const {
    MO_ASSERT(!dynamic_rank_, "rank of a dynamic-rank shape requested");
    return dims_.size();
}

bool PartialShape::is_static() const {
    return !dynamic_rank_ && std::all_of(dims_.begin(), dims_.end(), [](const Dimension& d) { return d.is_static(); });
}

Shape PartialShape::to_shape() const {
    MO_ASSERT(is_static(), "shape ", to_string(), " is not static");
    Shape s;
    s.reserve(dims_.size());
    for (const auto& d : dims_) s.push_back(d.get_length());
    return s;
}

std::string PartialShape::to_string() const {
    if (dynamic_rank_) return "...";
    std::string s;
    for (size_t i = 0; i < dims_.size(); ++i) {
        if (i) s += ",";
        s += dims_[i].to_string();
    }
    return s;
}

static int64_t parse_int(const std::string& text, const std::string& whole) {
    if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw Error("malformed dimension '" + text + "' in shape '" + whole + "'", {},
                    "write dims as integers, '?' or -1 for dynamic, 'a..b' for an interval");
    try {
        return std::stoll(text);
    } catch (const std::exception&) {
        throw Error("dimension '" + text + "' in shape '" + whole + "' is out of range");
    }
}

PartialShape PartialShape::parse(const std::string& text) {
    std::string t;
    for (char c : text)
        if (c != ' ' && c != '\t') t += c;
    if (!t.empty() && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
    if (t == "...") return dynamic_rank();
    PartialShape p;
    if (t.empty()) return p;
    std::stringstream ss(t);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item == "?" || item == "-1") {
            p.dims_.emplace_back();
        } else if (auto pos = item.find(".."); pos != std::string::npos) {
            std::string lo = item.substr(0, pos), hi = item.substr(pos + 2);
            int64_t a = lo.empty() ? 0 : parse_int(lo, text);
            int64_t b = hi.empty() ? Dimension::kUnbounded : parse_int(hi, text);
            if (b != Dimension::kUnbounded && b < a) throw Error("empty interval '" + item + "' in shape '" + text + "'");
            p.dims_.emplace_back(a, b);
        } else {
            p.dims_.emplace_back(parse_int(item, text));
        }
    }
    if (t.back() == ',') throw Error("malformed shape '" + text + "': trailing comma");
    return p;
}

PartialShape broadcast_numpy(const PartialShape& a, const PartialShape& b) {
    if (!a.rank_is_static() || !b.rank_is_static()) return PartialShape::dynamic_rank();
    size_t r = std::max(a.rank(), b.rank());
    std::vector<Dimension> out(r);
    for (size_t i = 0; i < r; ++i) {
        Dimension da = i < r - a.rank() ? Dimension(1) : a[i - (r - a.rank())];
        Dimension db = i < r - b.rank() ? Dimension(1) : b[i - (r - b.rank())];
        if (da == Dimension(1)) out[i] = db;
        else if (db == Dimension(1)) out[i] = da;
        else if (da.is_static() && db.is_static()) {
            if (da != db)
                throw Error("shapes [" + a.to_string() + "] and [" + b.to_string() + "] cannot be broadcast");
            out[i] = da;
        } else if (da.compatible(db)) {
            // a dynamic dim may still be 1 at run time; keep the known static one when the other may be 1
            if (da.is_static()) out[i] = da.min() > 1 ? da : Dimension::dynamic();
            else if (db.is_static()) out[i] = db.min() > 1 ? db : Dimension::dynamic();
            else out[i] = (da.min() > 1 || db.min() > 1) ? Dimension::merge(da, db) : Dimension::dynamic();
        } else if (da.min() <= 1 || db.min() <= 1) {
            out[i] = Dimension::dynamic();
        } else {
            throw Error("shapes [" + a.to_string() + "] and [" + b.to_string() + "] cannot be broadcast");
        }
    }
    return PartialShape(out);
}

int64_t normalize_axis(int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= rank)
        throw Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank),
                    {}, "use an axis in [-rank, rank-1]");
    return axis < 0 ? axis + rank : axis;
}

bool shape_fits(const PartialShape& partial, const Shape& actual) {
    if (!partial.rank_is_static()) return true;
    if (partial.rank() != actual.size()) return false;
    for (size_t i = 0; i < actual.size(); ++i)
        if (!partial[i].compatible(Dimension(actual[i]))) return false;
    return true;
}

}  // namespace mo
