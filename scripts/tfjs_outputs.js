// Runs a TF.js graph model with TensorFlow.js itself (@tensorflow/tfjs, its CPU backend, in
// Node) on .npy inputs and writes its outputs as output_<j>.npy next to the model: references
// for tests. Inputs and outputs follow the model's own order, as tf.loadGraphModel gives them
// (the signature's, else the placeholders and the sinks); control flow runs through
// executeAsync. Not run by CI.
//
//   npm install @tensorflow/tfjs   (in any folder; NODE_PATH=that/node_modules)
//   node scripts/tfjs_outputs.js DIR ...   (DIR/model.json + its shards, DIR/input_<i>.npy)
//   node scripts/tfjs_outputs.js --random DIR ...   (first writes input_<i>.npy that are absent:
//       uniform [-1, 1) floats, or integers 0..255 for an int32 input (an image); an unknown
//       batch is 1, another unknown dimension 320)
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const { readNpy, writeNpy } = require('./npy.js');

// An IOHandler reading model.json and its weight shards from disk (tfjs-node is not needed).
function fileHandler(file) {
  return {
    async load() {
      const json = JSON.parse(fs.readFileSync(file, 'utf8'));
      const weightSpecs = [];
      const shards = [];
      for (const group of json.weightsManifest) {
        weightSpecs.push(...group.weights);
        for (const p of group.paths) shards.push(fs.readFileSync(path.join(path.dirname(file), p)));
      }
      const all = Buffer.concat(shards);
      return {
        modelTopology: json.modelTopology,
        weightSpecs,
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
        signature: json.signature,
        userDefinedMetadata: json.userDefinedMetadata,
        modelInitializer: json.modelInitializer,
        initializerSignature: json.initializerSignature,
      };
    },
  };
}

// A reproducible uniform [-1, 1) generator (the inputs must not depend on Math.random).
function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296 * 2 - 1;
  };
}

async function run(dir, random) {
  const model = await tf.loadGraphModel(fileHandler(path.join(dir, 'model.json')));
  const feeds = {};
  model.inputs.forEach((info, i) => {
    const file = path.join(dir, `input_${i}.npy`);
    if (random && !fs.existsSync(file)) {
      const dims = info.shape.map((d, k) => (d >= 0 ? d : k === 0 ? 1 : 320));
      const next = lcg(1234 + i);
      const length = dims.reduce((a, b) => a * b, 1);
      if (info.dtype === 'int32') {
        const data = Int32Array.from({ length }, () => Math.floor((next() + 1) * 128));
        writeNpy(file, { type: 'int32', dims, data });
      } else {
        writeNpy(file, { type: 'float32', dims, data: Float32Array.from({ length }, next) });
      }
    }
    const a = readNpy(file);
    feeds[model.inputNodes[i]] = tf.tensor(a.data, a.dims, a.type === 'float32' ? 'float32' : 'int32');
  });
  let outputs = await model.executeAsync(feeds);
  if (!Array.isArray(outputs)) outputs = [outputs];
  outputs.forEach((t, j) => {
    // dataSync() may hand back the backend's array of another type than the tensor's dtype (a
    // Cast's int32 values in a float32 tensor): the values are copied into the declared type.
    const types = { float32: Float32Array, int32: Int32Array, bool: Uint8Array };
    const type = t.dtype === 'bool' ? 'uint8' : t.dtype;
    const data = types[t.dtype].from(t.dataSync());
    writeNpy(path.join(dir, `output_${j}.npy`), { type, dims: t.shape, data });
    console.log(`${dir}: output ${j} '${model.outputNodes[j]}' ${t.dtype} [${t.shape}]`);
  });
}

async function main() {
  const args = process.argv.slice(2);
  const random = args[0] === '--random';
  for (const dir of random ? args.slice(1) : args) await run(dir, random);
}

main().catch((e) => { console.error(e); process.exit(1); });
