// How much MatMulNBits' accuracy_level 4 changes ONNX Runtime's logits: runs each GenAI fixture
// whose model has accuracy_level 4 (as the builder writes it on CPU) on its step inputs and
// prints the largest |logit - the reference|, the reference being ONNX Runtime on the same model
// with accuracy_level 0 (scripts/make_genai_fixtures.sh), i.e. the float product the IR computes.
// The figures are quoted in docs/llm-forms.md. Not run by CI.
//
//   NODE_PATH=/work/npm/node_modules node scripts/genai_accuracy_level.js
const path = require('path');
const ort = require('onnxruntime-node');
const { readNpy } = require('./npy.js');

async function main() {
  const data = path.join(__dirname, '..', 'tests', 'e2e', 'data');
  for (const form of ['genai_0_11', 'genai_0_12', 'genai_0_14', 'genai_0_15', 'genai_head_swa', 'genai_int8',
                      'genai_tied_kquant', 'genai_gather_int4']) {
    const dir = path.join(data, form);
    const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), { intraOpNumThreads: 1 });
    let line = form;
    for (const step of [1, 2]) {
      const feeds = {};
      for (const name of session.inputNames) {
        const a = readNpy(path.join(dir, `step${step}_in_${name}.npy`));
        feeds[name] = new ort.Tensor(a.type, a.data, a.dims);
      }
      const logits = (await session.run(feeds)).logits.data;
      const reference = readNpy(path.join(dir, `step${step}_out_logits.npy`)).data;
      let worst = 0;
      logits.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - reference[i])); });
      line += `  step ${step}: ${worst.toExponential(1)}`;
    }
    console.log(line);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
