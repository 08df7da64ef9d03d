#include "core/eval_budget.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace mo {

namespace {
thread_local EvalBudget* t_current = nullptr;
}

EvalBudget::EvalBudget(int64_t operations, int64_t iterations, int64_t max_tensor_bytes)
    : operations_left_(operations), iterations_left_(iterations), max_tensor_bytes_(max_tensor_bytes),
      previous_(t_current) {
    t_current = this;
}

EvalBudget::~EvalBudget() { t_current = previous_; }

bool EvalBudget::active() { return t_current != nullptr; }

bool EvalBudget::affords_tensor(ElementType type, int64_t elements) {
    return !t_current || fits_bytes(type, elements, t_current->max_tensor_bytes_);
}

int64_t EvalBudget::max_tensor_bytes() {
    return t_current ? t_current->max_tensor_bytes_ : std::numeric_limits<int64_t>::max();
}

bool fits_bytes(ElementType type, int64_t elements, int64_t max_bytes) {
    const int64_t element_bytes = std::max<int64_t>(static_cast<int64_t>(bit_width(type)), 8) / 8;
    return elements >= 0 && elements <= max_bytes / element_bytes;
}

void EvalBudget::charge_operations(int64_t operations, const char* what) {
    EvalBudget* b = t_current;
    if (!b) return;
    if (operations > b->operations_left_)
        throw Error(std::string(what) + " needs " + std::to_string(operations) +
                    " operations, more than constant folding spends on one node");
    b->operations_left_ -= operations;
}

bool EvalBudget::affordable(int64_t operations) { return !t_current || operations <= t_current->operations_left_; }

void EvalBudget::charge_iteration() {
    EvalBudget* b = t_current;
    if (!b) return;
    if (b->iterations_left_ <= 0)
        throw Error("the loop runs more iterations (nested loops included) than constant folding spends on one node");
    --b->iterations_left_;
}

int64_t saturating_product(std::span<const int64_t> factors) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    int64_t p = 1;
    for (int64_t f : factors) {
        if (f < 0) return kMax;
        if (f == 0) return 0;
        if (p > kMax / f) p = kMax;  // keep scanning: a later zero still makes the product 0
        else p *= f;
    }
    return p;
}

}  // namespace mo
