// MatMul-1: a matrix product over the two innermost axes with numpy broadcasting of the batch
// axes. A 1D A is a row vector [1, K], a 1D B a column vector [K, 1] (transpose flags do not
// apply to them), and the added unit axis is removed from the result.
#include "core/eval_budget.hpp"
#include "core/graph.hpp"
#include "ops/op_utils.hpp"
#include "ops/ops.hpp"

namespace mo {
namespace {

// Matrix view of one operand: 2+ D, transposed as asked.
template <typename Dims>
Dims as_matrix(Dims dims, bool is_a, bool transpose) {
    if (dims.size() == 1) {
        if (is_a) dims.insert(dims.begin(), 1);
        else dims.push_back(1);
    } else if (transpose) {
        std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
    }
    return dims;
}

void infer_matmul(InferContext& c) {
    const ElementType ta = c.in_type(0), tb = c.in_type(1);
    if (ta != ElementType::dynamic && tb != ElementType::dynamic && ta != tb)
        c.fail("A and B have different element types", "insert a Convert so both inputs have the same type");
    const ElementType type = ta == ElementType::dynamic ? tb : ta;
    const PartialShape& sa = c.in_shape(0);
    const PartialShape& sb = c.in_shape(1);
    if ((sa.rank_is_static() && sa.rank() == 0) || (sb.rank_is_static() && sb.rank() == 0))
        c.fail("MatMul inputs must have rank 1 or more");
    if (!sa.rank_is_static() || !sb.rank_is_static()) {
        c.set_output(0, type, PartialShape::dynamic_rank());
        return;
    }
    const bool ta_flag = c.attr<bool>("transpose_a"), tb_flag = c.attr<bool>("transpose_b");
    // The matrices' dims read in place (as_matrix's view without its copies: this runs for every
    // MatMul of a transformer after each pass that changed the graph).
    const std::vector<Dimension>& da = sa.dims();
    const std::vector<Dimension>& db = sb.dims();
    const size_t ra = da.size(), rb = db.size();
    const bool swap_a = ra > 1 && ta_flag, swap_b = rb > 1 && tb_flag;
    const Dimension& ka = ra == 1 ? da[0] : da[ra - (swap_a ? 2 : 1)];
    const Dimension& kb = rb == 1 ? db[0] : db[rb - (swap_b ? 1 : 2)];
    if (!ka.compatible(kb))
        c.fail("inner dimensions differ: A " + sa.to_string() + ", B " + sb.to_string() + " (transpose_a=" +
               (ta_flag ? "true" : "false") + ", transpose_b=" + (tb_flag ? "true" : "false") + ")");
    const size_t batch_ra = ra > 2 ? ra - 2 : 0, batch_rb = rb > 2 ? rb - 2 : 0;
    PartialShape out;
    if (batch_ra == 0 || batch_rb == 0) {  // one side has no batch axes: the other's are the result's
        const std::vector<Dimension>& batch = batch_ra ? da : db;
        const auto batch_rank = static_cast<std::ptrdiff_t>(batch_ra + batch_rb);
        out = PartialShape(std::vector<Dimension>(batch.begin(), batch.begin() + batch_rank));
    } else {
        try {
            out = broadcast_numpy(PartialShape(std::vector<Dimension>(da.begin(), da.end() - 2)),
                                  PartialShape(std::vector<Dimension>(db.begin(), db.end() - 2)));
        } catch (const Error&) {
            c.fail("batch dimensions do not broadcast: " + sa.to_string() + " and " + sb.to_string());
        }
    }
    out.dims().reserve(out.dims().size() + 2);
    if (ra != 1) out.dims().push_back(da[ra - (swap_a ? 1 : 2)]);
    if (rb != 1) out.dims().push_back(db[rb - (swap_b ? 2 : 1)]);
    c.set_output(0, type, std::move(out));
}

std::vector<Tensor> eval_matmul(const Node& n, const std::vector<Tensor>& inputs) {
    const bool trans_a = n.attr<bool>("transpose_a"), trans_b = n.attr<bool>("transpose_b");
    const Shape& sa = inputs.at(0).shape();
    const Shape& sb = inputs.at(1).shape();
    if (sa.empty() || sb.empty()) throw Error("MatMul inputs must have rank 1 or more", n.describe());
    // Stored (untransposed) matrices and their logical views.
    const Shape a = as_matrix(sa, true, false), b = as_matrix(sb, false, false);
    const bool ta = sa.size() > 1 && trans_a, tb = sb.size() > 1 && trans_b;
    const int64_t M = ta ? a[a.size() - 1] : a[a.size() - 2];
    const int64_t K = ta ? a[a.size() - 2] : a[a.size() - 1];
    const int64_t KB = tb ? b[b.size() - 1] : b[b.size() - 2];
    const int64_t N = tb ? b[b.size() - 2] : b[b.size() - 1];
    if (K != KB) throw Error("MatMul inner dimensions differ", n.describe());
    Shape batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
    const Shape batch = broadcast_numpy(PartialShape(batch_a), PartialShape(batch_b)).to_shape();
    Shape out_shape = batch;
    if (sa.size() != 1) out_shape.push_back(M);
    if (sb.size() != 1) out_shape.push_back(N);
    // Left-pad the batch shapes so broadcasting can walk them together.
    batch_a.insert(batch_a.begin(), batch.size() - batch_a.size(), 1);
    batch_b.insert(batch_b.begin(), batch.size() - batch_b.size(), 1);
    EvalBudget::charge_operations(saturating_product({shape_size(batch), M, N, K}), "the MatMul");

    return evaluate_via_f32(inputs, [&](const std::vector<Tensor>& in) {
        if (in[0].type() != in[1].type()) throw Error("A and B have different element types", n.describe());
        Tensor y = Tensor::allocate(in[0].type(), out_shape);
        dispatch_type(in[0].type(), [&]<typename T>() {
            const T* ad = in[0].data<T>();
            const T* bd = in[1].data<T>();
            T* yd = y.mutable_data<T>();
            const int64_t lda = a[a.size() - 1], ldb = b[b.size() - 1];
            // One B for every batch (e.g. [197, 1, 768] x [768, 2304]): stacking A's rows into a
            // single product streams B once instead of once per batch.
            if (!ta && shape_size(batch_b) == 1) {
                gemm<T>(shape_size(batch) * M, N, K, ad, lda, false, bd, ldb, tb, yd, N, false);
                return;
            }
            for_each_broadcast(batch, batch_a, batch_b, [&](int64_t i, int64_t oa, int64_t ob) {
                gemm<T>(M, N, K, ad + oa * M * K, lda, ta, bd + ob * K * N, ldb, tb, yd + i * M * N, N, false);
            });
        }, false);
        return std::vector<Tensor>{y};
    });
}

}  // namespace

void register_matmul_ops(OpRegistry& r) {
    r.add(OpSchema{
        .type = "MatMul", .ir_type = "MatMul", .ir_version = "opset1",
        .min_inputs = 2, .max_inputs = 2, .num_outputs = 1,
        .attrs = {
            {"transpose_a", AttrKind::Bool, false},
            {"transpose_b", AttrKind::Bool, false},
        },
        .infer = infer_matmul,
        .eval = eval_matmul,
    });
}

}  // namespace mo
