// Runs two decoding steps of a model written by bench/make_llm.py or bench/make_genai_llm.py
// with ONNX Runtime (the npm package onnxruntime-node) and writes every input and output as
// .npy: step 1 reads a 3-token prompt with an empty KV cache, step 2 one more token with step
// 1's present.* as its past. position_ids is fed when the model has that input. These are the
// references of tests/e2e/llm_test.cpp and tests/e2e/genai_llm_test.cpp. Not run by CI.
//
//   npm install --ignore-scripts onnxruntime-node   (in any folder; NODE_PATH=that/node_modules)
//   node scripts/make_llm_reference.js tests/e2e/data/llm
//   KV_HEADS=2 HEAD_DIM=32 node scripts/make_llm_reference.js tests/e2e/data/llm_int4
const path = require('path');
const ort = require('onnxruntime-node');
const { writeNpy } = require('./npy.js');

const i64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);

async function main() {
  const dir = process.argv[2];
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'));
  const pastNames = session.inputNames.filter((n) => n.startsWith('past_key_values.'));
  // The empty cache: [1, kv_heads, 0, head_dim] (the fixture: 2 KV heads of size 8).
  const kvHeads = Number(process.env.KV_HEADS || 2), headDim = Number(process.env.HEAD_DIM || 8);
  const steps = [
    { ids: [5, 17, 42], positions: [0, 1, 2] },
    { ids: [7], positions: [3] },
  ];
  let past = {};
  for (const name of pastNames) past[name] = new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headDim]);
  for (let s = 0; s < steps.length; ++s) {
    const { ids, positions } = steps[s];
    const total = positions[positions.length - 1] + 1;
    const feeds = {
      input_ids: i64(ids, [1, ids.length]),
      attention_mask: i64(new Array(total).fill(1), [1, total]),
      ...(session.inputNames.includes('position_ids') ? { position_ids: i64(positions, [1, positions.length]) } : {}),
      ...past,
    };
    const out = await session.run(feeds);
    for (const [name, t] of Object.entries(feeds)) writeNpy(path.join(dir, `step${s + 1}_in_${name}.npy`), t);
    for (const [name, t] of Object.entries(out)) writeNpy(path.join(dir, `step${s + 1}_out_${name}.npy`), t);
    past = {};
    for (const name of pastNames) past[name] = out[name.replace('past_key_values', 'present')];
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
