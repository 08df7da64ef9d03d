#!/bin/sh
# Writes the fixtures of tests/e2e/genai_forms_test.cpp: for each GenAI model-builder form
# (bench/genai_forms.py), a 2-layer model in tests/e2e/data/genai_<form>/ and ONNX Runtime's
# outputs for it (scripts/make_genai_reference.js), and genai_dml_fp16/f32_copy/, that form's
# graph with f32 values. Reference copies of the model (accuracy_level
# 0, f16-rounded weights, an fp16 form's f32 copy) are written under $TMP and not kept.
#
#   NODE_PATH=/work/npm/node_modules scripts/make_genai_fixtures.sh
# Needs /usr/bin/python3 with numpy and onnx, node with onnxruntime-node. Not run by CI.
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-/usr/bin/python3}
TMP=${TMPDIR:-/tmp}/genai_fixtures.$$
DIMS="--layers 2 --hidden 64 --heads 4 --kv_heads 2 --ffn 128 --vocab 128 --max_positions 64 --block 32 --seed 0"
trap 'rm -rf "$TMP"' EXIT
for form in 0.5 0.11 0.12 0.14 0.15 head_swa cuda_fp16 dml_fp16 int8 tied_kquant gather_int4; do
    name=genai_$(echo "$form" | tr . _)
    out=tests/e2e/data/$name
    rm -rf "$out"
    $PY bench/make_genai_llm.py --out "$out" --form "$form" $DIMS
    level=$($PY -c "import sys; sys.path.insert(0, 'bench'); import genai_forms as g; print(g.FORMS['$form'].accuracy_level)")
    io=$($PY -c "import sys; sys.path.insert(0, 'bench'); import genai_forms as g; print(g.FORMS['$form'].io == g.F16)")
    model=$out
    exact=""
    if [ "$level" = 4 ]; then
        model=$TMP/$name/exact
        exact="--accuracy_level 0"
        $PY bench/make_genai_llm.py --out "$model" --form "$form" $DIMS $exact >/dev/null
    fi
    if [ "$io" = True ]; then
        $PY bench/make_genai_llm.py --out "$TMP/$name/copy" --form "$form" $DIMS --f32_copy >/dev/null
        tag=f32
    else
        $PY bench/make_genai_llm.py --out "$TMP/$name/copy" --form "$form" $DIMS $exact --round_f16 >/dev/null
        tag=f16r
    fi
    node scripts/make_genai_reference.js "$out" "$model" "$TMP/$name/copy" "$tag"
done
# The DML form's graph in f32 (the only form with RotaryEmbedding ops): its exact references.
out=tests/e2e/data/genai_dml_fp16/f32_copy
$PY bench/make_genai_llm.py --out "$out" --form dml_fp16 $DIMS --f32_copy
$PY bench/make_genai_llm.py --out "$TMP/f32_copy_f16r" --form dml_fp16 $DIMS --f32_copy --round_f16 >/dev/null
node scripts/make_genai_reference.js "$out" "$out" "$TMP/f32_copy_f16r" f16r
