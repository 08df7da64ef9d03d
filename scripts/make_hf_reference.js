// ONNX Runtime (onnxruntime-node) references of the Hugging Face export fixtures written by
// scripts/make_hf_models.py, read by tests/e2e/hf_llm_test.cpp. Each folder's fixture.json says
// what the model is; every input and output is written as .npy:
// * decoders (kind decoder / merged / whisper): step 1 is the 5-token prompt with an empty cache
//   ([1, kv_heads, 0, head_dim]; the merged forms with use_cache_branch false), step 2 one token,
//   the greedy one, with step 1's present.* fed back as past_key_values.* (use_cache_branch true;
//   Whisper keeps step 1's encoder presents, as transformers.js does, since the with-past branch
//   returns them empty). prompt.npy (i64 [1, 5]) and greedy_tokens.npy (i64 [16]): the 16 tokens
//   greedy decoding after the prompt gives, one token a step with the cache fed back.
// * encoders (kind encoder): one step, two sequences, the second padded.
// * f16ref_step<N>_out_<name>.npy: the same steps on the fixture's copy with f16-rounded weights
//   ($MO_HF_SCRATCH or $TMPDIR/mo_hf_fixtures, <folder>_f16_rounded.onnx, written by
//   make_hf_models.py), for the f16 error bound.
//
//   NODE_PATH=/work/npm/node_modules node scripts/make_hf_reference.js tests/e2e/data/hf_*
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');
const { writeNpy } = require('./npy.js');

const i64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
const f32 = (values, dims) => new ort.Tensor('float32', Float32Array.from(values), dims);

function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function argmaxLast(logits) {
  const v = logits.dims[logits.dims.length - 1];
  const data = logits.data;
  const off = data.length - v;
  let best = 0;
  for (let i = 1; i < v; ++i) if (data[off + i] > data[off + best]) best = i;
  return best;
}

class Decoder {
  constructor(session, spec) {
    this.session = session;
    this.spec = spec;
    this.pastNames = session.inputNames.filter((n) => n.startsWith('past_key_values.'));
    if (spec.kind === 'whisper') {
      const rnd = lcg(1234);
      const n = spec.encoder_length * spec.hidden;
      this.encoder = f32(Array.from({ length: n }, () => rnd() * 2 - 1), [1, spec.encoder_length, spec.hidden]);
    }
  }

  emptyPast() {
    const past = {};
    for (const n of this.pastNames) {
      past[n] = new ort.Tensor('float32', new Float32Array(0), [1, this.spec.kv_heads, 0, this.spec.head_dim]);
    }
    return past;
  }

  feeds(ids, past, pastLength, first) {
    const total = pastLength + ids.length;
    const f = { input_ids: i64(ids, [1, ids.length]) };
    const names = this.session.inputNames;
    if (names.includes('attention_mask')) f.attention_mask = i64(new Array(total).fill(1), [1, total]);
    if (names.includes('position_ids')) f.position_ids = i64(ids.map((_, i) => pastLength + i), [1, ids.length]);
    if (names.includes('encoder_hidden_states')) f.encoder_hidden_states = this.encoder;
    if (names.includes('use_cache_branch')) f.use_cache_branch = new ort.Tensor('bool', Uint8Array.from([first ? 0 : 1]), [1]);
    return Object.assign(f, past);
  }

  nextPast(out, previous) {
    const past = {};
    for (const n of this.pastNames) {
      const p = out[n.replace('past_key_values', 'present')];
      // The with-past branch of a merged seq2seq decoder returns the cross-attention cache empty.
      past[n] = n.includes('.encoder.') && p.dims[0] === 0 ? previous[n] : p;
    }
    return past;
  }
}

async function runDecoder(dir, spec, session, write) {
  const d = new Decoder(session, spec);
  const prompt = spec.prompt;
  let feeds = d.feeds(prompt, d.emptyPast(), 0, true);
  let out = await session.run(feeds);
  const steps = [[feeds, out]];
  const next = argmaxLast(out.logits);
  const past = d.nextPast(out, feeds);
  feeds = d.feeds([next], past, prompt.length, false);
  out = await session.run(feeds);
  steps.push([feeds, out]);
  if (write) {
    steps.forEach(([fe, o], s) => {
      for (const [name, t] of Object.entries(fe)) writeNpy(path.join(dir, `step${s + 1}_in_${name}.npy`), t);
      for (const [name, t] of Object.entries(o)) writeNpy(path.join(dir, `step${s + 1}_out_${name}.npy`), t);
    });
    // Greedy decoding: 16 new tokens.
    const tokens = [];
    let f = d.feeds(prompt, d.emptyPast(), 0, true);
    let length = 0;
    for (let i = 0; i < 16; ++i) {
      const o = await session.run(f);
      const t = argmaxLast(o.logits);
      tokens.push(t);
      length += f.input_ids.dims[1];
      f = d.feeds([t], d.nextPast(o, f), length, false);
    }
    writeNpy(path.join(dir, 'prompt.npy'), i64(prompt, [1, prompt.length]));
    writeNpy(path.join(dir, 'greedy_tokens.npy'), i64(tokens, [tokens.length]));
    console.log(dir, 'greedy', tokens.join(' '));
  }
  return steps;
}

async function runEncoder(dir, spec, session, write) {
  const ids = [5, 17, 42, 7, 99, 3, 64, 12, 88, 1];
  const mask = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0];
  const types = [0, 0, 1, 1, 1, 0, 0, 1, 1, 1];
  const feeds = { input_ids: i64(ids, [2, 5]), attention_mask: i64(mask, [2, 5]), token_type_ids: i64(types, [2, 5]) };
  const out = await session.run(feeds);
  if (write) {
    for (const [name, t] of Object.entries(feeds)) writeNpy(path.join(dir, `step1_in_${name}.npy`), t);
    for (const [name, t] of Object.entries(out)) writeNpy(path.join(dir, `step1_out_${name}.npy`), t);
  }
  return [[feeds, out]];
}

async function main() {
  for (const dir of process.argv.slice(2)) {
    const spec = JSON.parse(fs.readFileSync(path.join(dir, 'fixture.json'), 'utf8'));
    const run = spec.kind === 'encoder' ? runEncoder : runDecoder;
    const session = await ort.InferenceSession.create(path.join(dir, spec.model));
    const steps = await run(dir, spec, session, true);
    const scratch = process.env.MO_HF_SCRATCH || path.join(os.tmpdir(), 'mo_hf_fixtures');
    const roundedPath = path.join(scratch, path.basename(path.resolve(dir)) + '_f16_rounded.onnx');
    if (fs.existsSync(roundedPath)) {
      const rounded = await ort.InferenceSession.create(roundedPath);
      const outName = spec.kind === 'encoder' ? 'last_hidden_state' : 'logits';
      // Rounded weights, same inputs: feed the rounded model the original's step inputs.
      for (let s = 0; s < steps.length; ++s) {
        const o = await rounded.run(steps[s][0]);
        writeNpy(path.join(dir, `f16ref_step${s + 1}_out_${outName}.npy`), o[outName]);
        let worst = 0;
        const a = o[outName].data, b = steps[s][1][outName].data;
        for (let i = 0; i < a.length; ++i) worst = Math.max(worst, Math.abs(a[i] - b[i]));
        console.log(dir, `step ${s + 1}: f16-rounded weights move ${outName} by ${worst.toExponential(3)}`);
      }
    }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
