#!/usr/bin/env bash
# The install tree as a plugin author uses it: install mo into a temporary prefix, build the
# example plugin of docs/extending.md out of tree with find_package(mo), drop it into the
# installed plugin directory, and convert + validate the example model with the installed mo.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
example=$src/plugins/example_ops

cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"

# libmo exports the plugin API and hides the rest (here: a built-in extractor family).
libmo=$(find "$prefix" -name libmo.so | head -n 1)
symbols=$(nm -D --defined-only -C "$libmo")
grep -q 'mo::Graph::add_op(' <<< "$symbols" || { echo "FAIL: libmo does not export mo::Graph::add_op"; exit 1; }
grep -q 'mo::ExtractContext::become(' <<< "$symbols" || { echo "FAIL: libmo does not export ExtractContext"; exit 1; }
if grep -q 'register_onnx_eltwise' <<< "$symbols"; then echo "FAIL: libmo exports an internal function"; exit 1; fi
# The ONNX backend-test runner (conformance/) is its own library, not part of what is shipped.
if nm -C "$libmo" | grep -q 'mo::conformance::'; then echo "FAIL: libmo contains the conformance runner"; exit 1; fi
# The headers are installed under include/mo/ and stand alone: each compiles by itself with
# nothing but <prefix>/include, and a user's own core/graph.hpp neither shadows mo's nor is
# shadowed by it.
include=$prefix/include
for header in mo/plugin.hpp mo/core/graph.hpp mo/transforms/pattern.hpp; do
  [ -f "$include/$header" ] || { echo "FAIL: $header is not installed under $include"; exit 1; }
done
(cd "$include" && find mo -name '*.hpp' | sort) | while read -r header; do
  printf '#include <%s>\n' "$header" | ${CXX:-c++} -std=c++20 -fsyntax-only -I "$include" -x c++ - ||
    { echo "FAIL: the installed $header does not compile on its own"; exit 1; }
done
mkdir -p "$tmp/user/core"
printf '#pragma once\nconstexpr int users_own_graph = 1;\n' > "$tmp/user/core/graph.hpp"
printf '#include "core/graph.hpp"\n#include <mo/plugin.hpp>\nstatic_assert(users_own_graph == 1);\nmo::Graph* g = nullptr;\n' |
  ${CXX:-c++} -std=c++20 -fsyntax-only -I "$tmp/user" -I "$include" -x c++ - ||
  { echo "FAIL: a user's core/graph.hpp clashes with mo's headers"; exit 1; }

cmake -S "$example" -B "$tmp/plugin-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/configure.log"
cmake --build "$tmp/plugin-build" > "$tmp/build.log"
plugin_dir=$(find "$prefix" -type d -path '*/mo/plugins')
[ -n "$plugin_dir" ] || { echo "FAIL: no installed plugin directory under $prefix"; exit 1; }
cp "$tmp/plugin-build/libmo_example_ops.so" "$plugin_dir/"

listing=$("$prefix/bin/mo" --list_transformations)
printf '%s\n' "$listing" | grep -qxF "$(printf 'ExampleScaledTanhToTanh\tmiddle\tyes\t%s' "$plugin_dir/libmo_example_ops.so")" ||
  { echo "FAIL: the dropped-in plugin's transformation is not listed:"; echo "$listing"; exit 1; }

"$prefix/bin/mo" --input_model "$example/scaled_tanh.prototxt" --output_dir "$tmp/out" --compress_to_fp16=False \
  --validate_inputs "$example/x.npy" --validate_outputs "$example/y.npy"
grep -q '<layer id="[0-9]*" name="scaled_tanh" type="ScaledTanh" version="example_opset"' "$tmp/out/scaled_tanh.xml" ||
  { echo "FAIL: no ScaledTanh extension layer in the IR"; grep '<layer' "$tmp/out/scaled_tanh.xml"; exit 1; }
"$prefix/bin/mo-run" "$tmp/out/scaled_tanh.xml" --inputs "$example/x.npy" --reference "$example/y.npy"

# The Python module (when built): installed where Debian's python3 looks under the prefix
# (sysconfig's platlib), importable from there with its libmo and plugin directory.
if [ -f "$build/python/mo/__init__.py" ]; then
  platlib=$(/usr/bin/python3 -c "import os, sysconfig; print(os.path.relpath(sysconfig.get_path('platlib'), sysconfig.get_path('data')))")
  [ -f "$prefix/$platlib/mo/__init__.py" ] || { echo "FAIL: no mo package in $prefix/$platlib"; exit 1; }
  (cd "$tmp" && PYTHONPATH="$prefix/$platlib" /usr/bin/python3 -c "
import sys, mo
assert mo.__file__.startswith('$prefix'), mo.__file__
m = mo.convert_model('$example/scaled_tanh.prototxt', compress_to_fp16=False)
m.save('$tmp/py/scaled_tanh.xml')
")
  cmp "$tmp/py/scaled_tanh.xml" "$tmp/out/scaled_tanh.xml" ||
    { echo "FAIL: the installed Python module and mo wrote different IRs"; exit 1; }
fi
echo "install test passed"
