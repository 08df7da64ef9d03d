// .npy files (version 1.0, little-endian, C order) for the ONNX Runtime reference scripts:
// float32, float64, float16 (as its bits), int32, int64, int16, int8, uint8, uint16, uint32, uint64
// and bool arrays to and from onnxruntime-node tensors ({ type, dims, data }).
const fs = require('fs');

const DTYPES = { float32: '<f4', float64: '<f8', float16: '<f2', int32: '<i4', int64: '<i8', int16: '<i2', int8: '|i1',
  uint8: '|u1', uint16: '<u2', uint32: '<u4', uint64: '<u8', bool: '|b1' };

function writeNpy(file, tensor) {
  const descr = DTYPES[tensor.type];
  if (!descr) throw new Error('no .npy dtype for ' + tensor.type);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

// Returns { type, dims, data } for a float32, float16 (as Uint16Array bits), int32, int64, int16, int8, uint8 or
// bool (bytes 0 / 1) array.
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  const headerLength = bytes.readUInt16LE(8);
  const header = bytes.toString('latin1', 10, 10 + headerLength);
  const descr = /'descr': '([^']+)'/.exec(header)[1];
  const dims = /'shape': \(([^)]*)\)/.exec(header)[1].split(',').filter((s) => s.trim()).map(Number);
  const body = bytes.subarray(10 + headerLength);
  const copy = new Uint8Array(body).buffer;  // aligned
  if (descr === '<f4') return { type: 'float32', dims, data: new Float32Array(copy) };
  if (descr === '<f2') return { type: 'float16', dims, data: new Uint16Array(copy) };
  if (descr === '|u1') return { type: 'uint8', dims, data: new Uint8Array(copy) };
  if (descr === '|b1') return { type: 'bool', dims, data: new Uint8Array(copy) };
  if (descr === '|i1') return { type: 'int8', dims, data: new Int8Array(copy) };
  if (descr === '<i2') return { type: 'int16', dims, data: new Int16Array(copy) };
  if (descr === '<i4') return { type: 'int32', dims, data: new Int32Array(copy) };
  if (descr === '<i8') return { type: 'int64', dims, data: new BigInt64Array(copy) };
  if (descr === '<f8') return { type: 'float64', dims, data: new Float64Array(copy) };
  if (descr === '<f2') return { type: 'float16', dims, data: new Uint16Array(copy) };
  if (descr === '<u2') return { type: 'uint16', dims, data: new Uint16Array(copy) };
  if (descr === '<u4') return { type: 'uint32', dims, data: new Uint32Array(copy) };
  if (descr === '<u8') return { type: 'uint64', dims, data: new BigUint64Array(copy) };
  throw new Error(file + ': unsupported dtype ' + descr);
}

module.exports = { writeNpy, readNpy };
