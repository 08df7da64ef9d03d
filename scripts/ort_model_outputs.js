// Runs an ONNX model with ONNX Runtime (npm onnxruntime-node) on .npy inputs given by position and
// writes output_<j>.npy (in the session's output order) to OUTDIR. Used by
// scripts/onnx_output_check.py; not run by CI (ONNX Runtime is not installed there).
//
//   NODE_PATH=/work/npm/node_modules node scripts/ort_model_outputs.js MODEL.onnx OUTDIR IN0.npy [IN1.npy ...]
const path = require('path');
const ort = require('onnxruntime-node');
const { readNpy, writeNpy } = require('./npy.js');

async function main() {
  const [model, outDir, ...inputs] = process.argv.slice(2);
  // ORT_OPTIMIZATION=disabled: the graph as written (ONNX Runtime's fusions may change the arithmetic).
  const options = process.env.ORT_OPTIMIZATION ? { graphOptimizationLevel: process.env.ORT_OPTIMIZATION } : {};
  const session = await ort.InferenceSession.create(model, options);
  // Inputs beyond those given keep their defaults (initializers of the same name: a stateless
  // model's variables before the first step).
  if (inputs.length > session.inputNames.length)
    throw new Error(`${model} takes ${session.inputNames.length} inputs, ${inputs.length} given`);
  const feeds = {};
  session.inputNames.slice(0, inputs.length).forEach((name, i) => {
    const a = readNpy(inputs[i]);
    feeds[name] = new ort.Tensor(a.type, a.data, a.dims);
  });
  const out = await session.run(feeds);
  session.outputNames.forEach((name, j) => writeNpy(path.join(outDir, `output_${j}.npy`), out[name]));
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
