#!/usr/bin/env bash
# Installs everything mo needs to build and test, from Debian 12 packages only.
# Run as root (or with sudo). Safe to run again: apt-get skips what is installed.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libpugixml-dev
  libboost-dev  # Boost.Graph's algorithms on mo's graph (header-only)
  libprotobuf-dev protobuf-compiler libonnx-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev
  libre2-dev  # transformations-config name patterns
  libonnx-testdata  # ONNX backend tests for mo-conformance
  libflatbuffers-dev flatbuffers-compiler  # the TFLite loader
  clang libclang-rt-14-dev llvm  # the hardening lane: ASan, UBSan, libFuzzer, llvm-symbolizer
  pybind11-dev python3-dev  # the Python module (python/)
  python3-pytest python3-numpy python3-onnx  # its tests (tests/python)
)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
