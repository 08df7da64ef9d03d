// ONNX Runtime's outputs for a model written by bench/make_genai_llm.py --form NAME (its
// form.json says the KV geometry), as the references of tests/e2e/genai_forms_test.cpp. Writes
// every input and output as .npy:
//   step1_*: a 5-token prompt (prompt.npy, i64 [1, 5]) with an empty KV cache;
//   step2_*: one more token with step 1's present.* fed back as past_key_values.*;
//   greedy_tokens.npy (i64 [16]): ORT's greedy decoding from the prompt, 16 new tokens, each
//     step feeding the argmax of the last logits and the presents back.
// Forms with a sliding-window cache (form.json "window") run as ONNX Runtime GenAI runs them on
// CPU: past and present are one fixed buffer of CAPACITY (= window + 1 here, GenAI's
// window + cache_slack) positions, zero at the start; rows past the ones the op wrote
// (ORT's GroupQueryAttention leaves them unwritten: WindowedCacheEnd) are set to 0 before they
// are saved or fed back.
// The outputs are those of MODEL_DIR's model (default DIR's): for forms whose MatMulNBits have
// accuracy_level 4, the same model written with --accuracy_level 0, so that ORT computes the
// float products the IR computes (at level 4 ORT's CPU kernel quantizes the activations to int8
// first; docs/llm-forms.md). With COPY_DIR (the same model written with --round_f16, or for an
// fp16 form with --f32_copy), also writes step1/2_<TAG>_out_logits.npy from that model, TAG
// being "f16r" or "f32": the error f16 rounding alone causes is measured against them.
//
//   NODE_PATH=/work/npm/node_modules node scripts/make_genai_reference.js DIR [MODEL_DIR [COPY_DIR TAG]]
// scripts/make_genai_fixtures.sh runs it for every fixture. Not run by CI.
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { writeNpy } = require('./npy.js');

const PROMPT = [5, 17, 42, 99, 3];
const GREEDY_STEPS = 16;

const i64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);

// Rows [0, end) of a [1, heads, capacity, head] cache kept, the rest zeroed.
function keepRows(t, end) {
  const [, heads, capacity, head] = t.dims;
  const data = t.data.slice();
  for (let h = 0; h < heads; ++h) data.fill(0, (h * capacity + end) * head, (h + 1) * capacity * head);
  return new ort.Tensor(t.type, data, t.dims);
}

// ORT's WindowedCacheEnd: where the cache of `length` positions ends in a buffer of `capacity`.
function windowedEnd(length, capacity, window) {
  if (length <= capacity) return length;
  const gap = capacity - window + 1;
  return length - gap * Math.ceil((length - capacity) / gap);
}

class Runner {
  constructor(session, form) {
    this.session = session;
    this.form = form;
    this.pastNames = session.inputNames.filter((n) => n.startsWith('past_key_values.'));
    this.capacity = form.window ? form.window + 1 : 0;
    this.type = form.float;
  }

  empty() {
    const { kv_heads: heads, head_dim: head } = this.form;
    const rows = this.capacity;
    const Array_ = this.type === 'float16' ? Uint16Array : Float32Array;
    const past = {};
    for (const name of this.pastNames)
      past[name] = new ort.Tensor(this.type, new Array_(heads * rows * head), [1, heads, rows, head]);
    return past;
  }

  // One call: `ids` after `done` earlier tokens; returns { feeds, out, past } (past: the presents
  // to feed back).
  async step(ids, done, past) {
    const total = done + ids.length;
    const feeds = {
      input_ids: i64(ids, [1, ids.length]),
      attention_mask: i64(new Array(total).fill(1), [1, total]),
      ...past,
    };
    if (this.session.inputNames.includes('position_ids'))
      feeds.position_ids = i64(ids.map((_, i) => done + i), [1, ids.length]);
    const out = await this.session.run(feeds);
    const next = {};
    for (const name of this.pastNames) {
      const present = name.replace('past_key_values', 'present');
      if (this.capacity) out[present] = keepRows(out[present], windowedEnd(total, this.capacity, this.form.window));
      next[name] = out[present];
    }
    return { feeds, out, past: next };
  }
}

function argmaxLast(logits) {
  const vocab = logits.dims[2];
  const last = logits.dims[1] - 1;
  const values = logits.type === 'float16' ? Array.from(logits.data, halfToFloat) : logits.data;
  let best = 0;
  for (let v = 1; v < vocab; ++v) if (values[last * vocab + v] > values[last * vocab + best]) best = v;
  return best;
}

// An f16 tensor as f32 (exactly); others as they are.
function toType(t, type) {
  if (t.type === type) return t;
  if (t.type === 'float16' && type === 'float32') return new ort.Tensor(type, Float32Array.from(t.data, halfToFloat), t.dims);
  throw new Error(`no conversion from ${t.type} to ${type}`);
}

function halfToFloat(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

async function main() {
  const [dir, modelDir = dir, copyDir, tag] = process.argv.slice(2);
  const form = JSON.parse(fs.readFileSync(path.join(dir, 'form.json'), 'utf8'));
  const options = { intraOpNumThreads: 1 };
  const runner = new Runner(await ort.InferenceSession.create(path.join(modelDir, 'model.onnx'), options), form);

  let past = runner.empty();
  const s1 = await runner.step(PROMPT, 0, past);
  const next = argmaxLast(s1.out.logits);
  const s2 = await runner.step([next], PROMPT.length, s1.past);
  for (const [s, r] of [[1, s1], [2, s2]]) {
    for (const [name, t] of Object.entries(r.feeds)) writeNpy(path.join(dir, `step${s}_in_${name}.npy`), t);
    for (const [name, t] of Object.entries(r.out)) writeNpy(path.join(dir, `step${s}_out_${name}.npy`), t);
  }
  writeNpy(path.join(dir, 'prompt.npy'), i64(PROMPT, [1, PROMPT.length]));

  const tokens = [];
  let r = s1;
  for (let i = 0; i < GREEDY_STEPS; ++i) {
    tokens.push(argmaxLast(r.out.logits));
    if (i + 1 < GREEDY_STEPS) r = await runner.step([tokens[i]], PROMPT.length + i, r.past);
  }
  writeNpy(path.join(dir, 'greedy_tokens.npy'), i64(tokens, [GREEDY_STEPS]));
  console.log(`${dir}: greedy tokens ${tokens.join(' ')}`);

  if (copyDir) {
    // step<N>_<TAG>: the copy on step N's inputs (the past converted to the copy's float type);
    // step2_<TAG>_decode: the copy decoding from its own step-1 presents.
    const copyForm = JSON.parse(fs.readFileSync(path.join(copyDir, 'form.json'), 'utf8'));
    const copy = new Runner(await ort.InferenceSession.create(path.join(copyDir, 'model.onnx'), options), copyForm);
    const asCopy = (pastFeeds) => {
      const out = {};
      for (const name of copy.pastNames) out[name] = toType(pastFeeds[name], copy.type);
      return out;
    };
    const c1 = await copy.step(PROMPT, 0, asCopy(runner.empty()));
    const c2 = await copy.step([next], PROMPT.length, asCopy(s1.past));
    const decode = await copy.step([next], PROMPT.length, c1.past);
    writeNpy(path.join(dir, `step1_${tag}_out_logits.npy`), c1.out.logits);
    writeNpy(path.join(dir, `step2_${tag}_out_logits.npy`), c2.out.logits);
    writeNpy(path.join(dir, `step2_${tag}_decode_out_logits.npy`), decode.out.logits);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
