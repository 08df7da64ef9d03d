// Runs a TFLite model with the TFLite interpreter of @tensorflow/tfjs-tflite (its WebAssembly
// build, tflite_web_api_cc.wasm, loaded directly in Node: the package's own loader expects a
// browser) on .npy inputs and writes its outputs as output_<i>.npy next to the model:
// references for tests. Not run by CI.
//
//   npm install @tensorflow/tfjs-tflite   (in any folder; NODE_PATH=that/node_modules)
//   node scripts/tflite_outputs.js DIR ...   (DIR/model.tflite, DIR/input_<i>.npy)
//   node scripts/tflite_outputs.js --random DIR ...   (first writes the absent input_<i>.npy:
//       float32 inputs uniform in [-1, 1), from a fixed seed)
const fs = require('fs');
const path = require('path');
const { readNpy, writeNpy } = require('./npy.js');

// The interpreter module: the emscripten factory script evaluated in this process, given the
// wasm bytes so that it fetches nothing.
async function loadInterpreter() {
  const dir = path.join(path.dirname(require.resolve('@tensorflow/tfjs-tflite/package.json')), 'wasm');
  const script = fs.readFileSync(path.join(dir, 'tflite_web_api_cc.js'), 'utf8');
  const factory = new Function(script + '\nreturn tflite_web_api_ModuleFactory;')();
  return factory({ wasmBinary: fs.readFileSync(path.join(dir, 'tflite_web_api_cc.wasm')) });
}

function vectorToArray(v) {
  const out = [];
  for (let i = 0; i < v.size(); ++i) out.push(v.get(i));
  v.delete();
  return out;
}

// A reproducible uniform [-1, 1) generator (the inputs must not depend on Math.random).
function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296 * 2 - 1;
  };
}

function run(module, dir, random) {
  const bytes = fs.readFileSync(path.join(dir, 'model.tflite'));
  const pointer = module._malloc(bytes.length);
  module.HEAPU8.set(bytes, pointer);
  const created = module.TFLiteWebModelRunner.CreateFromBufferAndOptions(pointer, bytes.length,
    { numThreads: 1, enableProfiling: false, maxProfilingBufferEntries: 1024 });
  if (!created.ok()) throw new Error(dir + ': ' + created.errorMessage());
  const runner = created.value();
  vectorToArray(runner.GetInputs()).forEach((input, i) => {
    const file = path.join(dir, `input_${i}.npy`);
    if (random && !fs.existsSync(file)) {
      if (input.dataType !== 'float32') throw new Error(`${dir}: --random makes float32 inputs; input ${i} is ${input.dataType}`);
      const dims = input.shape.split(',').map(Number);
      writeNpy(file, { type: 'float32', dims, data: Float32Array.from({ length: input.data().length }, lcg(1234 + i)) });
    }
    const a = readNpy(file);
    if (a.type !== input.dataType) throw new Error(`${dir}: input ${i} is ${a.type}, the model takes ${input.dataType}`);
    input.data().set(a.data);
  });
  if (!runner.Infer()) throw new Error(dir + ': inference failed');
  vectorToArray(runner.GetOutputs()).forEach((output, i) => {
    const dims = output.shape ? output.shape.split(',').map(Number) : [];  // '' is a scalar
    writeNpy(path.join(dir, `output_${i}.npy`), { type: output.dataType, dims, data: output.data().slice() });
    console.log(`${dir}: output ${i} '${output.name}' ${output.dataType} [${dims}]`);
  });
}

async function main() {
  const module = await loadInterpreter();
  const args = process.argv.slice(2);
  const random = args[0] === '--random';
  for (const dir of random ? args.slice(1) : args) run(module, dir, random);
}

main().catch((e) => { console.error(e); process.exit(1); });
