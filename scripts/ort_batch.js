// Runs many ONNX models with ONNX Runtime (npm onnxruntime-node) in one process, for
// scripts/onnx_roundtrip_conformance.py. JOBS.json: [{ "id", "model", "feeds": { name: file.npy },
// "out": dir }]; each job's outputs go to <out>/<k>.npy in the session's output order and
// RESULTS.json gets { id: { "outputs": [names] } or { "error": message } }. Not run by CI.
//
//   NODE_PATH=/work/npm/node_modules node scripts/ort_batch.js JOBS.json RESULTS.json
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { readNpy, writeNpy } = require('./npy.js');

async function main() {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const results = {};
  for (const job of jobs) {
    try {
      const session = await ort.InferenceSession.create(job.model);
      const feeds = {};
      for (const [name, file] of Object.entries(job.feeds)) {
        if (!session.inputNames.includes(name)) continue;  // an input the model does not read
        const a = readNpy(file);
        feeds[name] = new ort.Tensor(a.type, a.data, a.dims);
      }
      const out = await session.run(feeds);
      fs.mkdirSync(job.out, { recursive: true });
      session.outputNames.forEach((name, k) => writeNpy(path.join(job.out, `${k}.npy`), out[name]));
      results[job.id] = { outputs: session.outputNames };
    } catch (e) {
      results[job.id] = { error: String(e.message || e).split('\n')[0] };
    }
  }
  fs.writeFileSync(process.argv[3], JSON.stringify(results, null, 1));
}

main().catch((e) => { console.error(e); process.exit(1); });
