#!/usr/bin/env bash
# Rewrites the generated table of docs/ops.md ("Every op schema") with what `mo --list_ops`
# prints for the built-in ops.   scripts/update_ops_doc.sh [PATH/TO/mo]   (default build/tools/mo)
set -euo pipefail
cd "$(dirname "$0")/.."
mo=${1:-build/tools/mo}
table=$(MO_PLUGIN_PATH= "$mo" --list_ops)
python3 - "$table" <<'PY'
import sys
begin, end = "<!-- begin mo --list_ops -->\n", "<!-- end mo --list_ops -->\n"
text = open("docs/ops.md").read()
head, rest = text.split(begin)
_, tail = rest.split(end)
open("docs/ops.md", "w").write(head + begin + sys.argv[1] + "\n" + end + tail)
PY
