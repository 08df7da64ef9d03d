#!/usr/bin/env bash
# Regenerates the generated part of docs/pattern-forms.md: every form of every built-in pattern
# fusion as Pattern::describe() prints it (the test Docs.PatternFormsAreWhatDescribePrints
# compares the page with it).   scripts/update_pattern_forms_doc.sh [PATH/TO/mo_tests]
#                               (default build/tests/mo_tests)
set -euo pipefail
tests=${1:-build/tests/mo_tests}
MO_UPDATE_DOCS=1 "$tests" --gtest_filter=Docs.PatternFormsAreWhatDescribePrints > /dev/null
"$tests" --gtest_filter=Docs.PatternFormsAreWhatDescribePrints
