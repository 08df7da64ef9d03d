// Greedy decoding of an ONNX decoder-only LLM with ONNX Runtime (the npm package onnxruntime-node):
// the reference of `mo-run --generate` (tests/e2e/llm_generate_test.cpp). For each fixture
// folder it reads (or, when absent, writes) prompt.npy, an int64 [1, 5] array of input_ids, runs
// the prompt with an empty KV cache, then one token at a time with the presents fed back as the
// past, and writes the 16 greedy tokens as greedy_tokens.npy (int64 [16]). Each step feeds
// input_ids, attention_mask (ones over every token so far), position_ids (when the model has
// that input: the positions of the new tokens) and use_cache_branch (when it has that input:
// false for the prompt, true after). The next token is the first index of the largest logit of
// the last position. Not run by CI.
//
//   NODE_PATH=/work/npm/node_modules node scripts/make_greedy_reference.js tests/e2e/data/llm tests/e2e/data/llm_int4
//
// The empty cache is [1, kv_heads, 0, head_dim], read from the model's input shapes; a model whose
// cache inputs name a dimension symbolically (e.g. the GenAI builder's kv_cache_dim) needs
// KV_HEADS=... and HEAD_DIM=... in the environment.
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { writeNpy, readNpy } = require('./npy.js');

const STEPS = 16;
const DEFAULT_PROMPT = [5, 17, 42, 7, 33];

const i64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);

function cacheDims(meta) {
  const dim = (value, env, what) => {
    if (process.env[env]) return Number(process.env[env]);
    if (typeof value === 'number') return value;
    throw new Error(`${meta.name}: the ${what} is '${value}'; give it as ${env}=N`);
  };
  if (meta.shape.length !== 4) throw new Error(`${meta.name}: a cache of rank ${meta.shape.length}, not 4`);
  return [1, dim(meta.shape[1], 'KV_HEADS', 'number of KV heads'), 0, dim(meta.shape[3], 'HEAD_DIM', 'head size')];
}

function argmaxLast(logits) {
  const [, sequence, vocab] = logits.dims;
  const row = logits.data.subarray((sequence - 1) * vocab, sequence * vocab);
  let best = 0;
  for (let i = 1; i < vocab; ++i) if (row[i] > row[best]) best = i;
  return best;
}

async function generate(dir) {
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'));
  const promptFile = path.join(dir, 'prompt.npy');
  if (!fs.existsSync(promptFile)) writeNpy(promptFile, i64(DEFAULT_PROMPT, [1, DEFAULT_PROMPT.length]));
  const prompt = Array.from(readNpy(promptFile).data, Number);
  const pastNames = session.inputNames.filter((n) => n.startsWith('past_key_values.') || n.startsWith('past.'));
  const present = (name) => name.replace(/^past_key_values/, 'present').replace(/^past/, 'present');
  let past = {};
  for (const meta of session.inputMetadata.filter((m) => pastNames.includes(m.name)))
    past[meta.name] = new ort.Tensor('float32', new Float32Array(0), cacheDims(meta));
  const tokens = [];
  let ids = prompt, done = 0;
  for (let step = 0; step < STEPS; ++step) {
    const positions = ids.map((_, i) => done + i);
    const total = done + ids.length;
    const feeds = { input_ids: i64(ids, [1, ids.length]), attention_mask: i64(new Array(total).fill(1), [1, total]), ...past };
    if (session.inputNames.includes('position_ids')) feeds.position_ids = i64(positions, [1, positions.length]);
    if (session.inputNames.includes('use_cache_branch')) feeds.use_cache_branch = new ort.Tensor('bool', [step > 0], [1]);
    const out = await session.run(feeds);
    const next = argmaxLast(out.logits);
    tokens.push(next);
    past = {};
    for (const name of pastNames) past[name] = out[present(name)];
    done = total;
    ids = [next];
  }
  writeNpy(path.join(dir, 'greedy_tokens.npy'), i64(tokens, [tokens.length]));
  console.log(`${dir}: prompt ${prompt.join(' ')} -> tokens: ${tokens.join(' ')}`);
}

async function main() {
  const dirs = process.argv.slice(2);
  if (!dirs.length) throw new Error('usage: node scripts/make_greedy_reference.js FIXTURE_DIR...');
  for (const dir of dirs) await generate(dir);
}

main().catch((e) => { console.error(e); process.exit(1); });
