// Bounds the work constant folding may spend on one node. A tiny file can describe a huge
// computation: a Loop of Loops of a thousand iterations each, or a MatMul of two folded
// 4096 x 4096 fills. Folding evaluates each node inside an EvalBudget; ops whose work is not
// proportional to their output (MatMul, convolutions, pooling windows, Einsum, recurrent
// sequences, DFT, NonMaxSuppression, loop iterations) charge it before they compute, and a
// budget that runs out throws mo::Error: the node stays in the IR and computes at run time.
// The limits are counts, not time, so an IR does not depend on the machine's speed. Without
// an EvalBudget in scope (mo-run, --validate) charges are free.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

#include "api.hpp"
#include "element_type.hpp"

namespace mo {

class MO_API EvalBudget {
public:
    // Installs a budget for this thread until destruction (budgets nest: the innermost counts).
    // `max_tensor_bytes` bounds every tensor an eval allocates (--max_constant_size).
    EvalBudget(int64_t operations, int64_t iterations, int64_t max_tensor_bytes);
    ~EvalBudget();
    EvalBudget(const EvalBudget&) = delete;
    EvalBudget& operator=(const EvalBudget&) = delete;

    // Multiply-adds (or element visits) an eval is about to do; `what` names the work in the
    // error. Saturates rather than overflows, so a product of hostile dims is simply too many.
    static void charge_operations(int64_t operations, const char* what);
    // Whether charge_operations(operations) would pass: for an infer that computes exact
    // shapes by evaluating when it can afford to, and infers them symbolically otherwise.
    static bool affordable(int64_t operations);
    // One more iteration of a Loop or TensorIterator body, nested ones included.
    static void charge_iteration();
    // Whether a budget is in scope: folding, as opposed to mo-run or --validate.
    static bool active();
    // Whether a tensor of `elements` of `type` fits the budget's max_tensor_bytes (always, with
    // no budget in scope).
    static bool affords_tensor(ElementType type, int64_t elements);
    static int64_t max_tensor_bytes();  // of the budget in scope; INT64_MAX with none

private:
    int64_t operations_left_;
    int64_t iterations_left_;
    int64_t max_tensor_bytes_;
    EvalBudget* previous_;
};

// a * b * ... without overflow: INT64_MAX when the true product does not fit (or a factor is
// negative, which no count of work is).
MO_API int64_t saturating_product(std::span<const int64_t> factors);

// Whether `elements` of `type` take at most `max_bytes` (a sub-byte element counts as a byte):
// the limit of --max_constant_size on what folding and the loaders expand beyond stored bytes.
MO_API bool fits_bytes(ElementType type, int64_t elements, int64_t max_bytes);
inline int64_t saturating_product(std::initializer_list<int64_t> factors) {
    return saturating_product(std::span<const int64_t>(factors.begin(), factors.size()));
}

}  // namespace mo
