// Runs an ONNX model with ONNX Runtime (the npm package onnxruntime-node) on .npy inputs and
// writes its outputs as output_<i>.npy next to the model: references for tests. Not run by CI.
//
//   npm install --ignore-scripts onnxruntime-node   (in any folder; NODE_PATH=that/node_modules)
//   node scripts/ort_outputs.js DIR                  (DIR/model.onnx, DIR/input_<i>.npy)
//   ORT_OPTIMIZATION=disabled node scripts/ort_outputs.js DIR   (the graph as written: ONNX Runtime's
//                       CPU fusions may change the arithmetic, e.g. DequantizeLinear -> MatMul)
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { readNpy, writeNpy } = require('./npy.js');

async function main() {
  const dir = process.argv[2];
  const options = process.env.ORT_OPTIMIZATION ? { graphOptimizationLevel: process.env.ORT_OPTIMIZATION } : {};
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), options);
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const a = readNpy(path.join(dir, `input_${i}.npy`));
    feeds[name] = new ort.Tensor(a.type, a.data, a.dims);
  });
  const out = await session.run(feeds);
  session.outputNames.forEach((name, i) => writeNpy(path.join(dir, `output_${i}.npy`), out[name]));
}

main().catch((e) => { console.error(e); process.exit(1); });
