// Every built-in schema that can reach an IR, against shared/ir/opsets.json: the op version it
// writes exists in the runtime's opsets with that IR spelling, the attributes it writes are the
// spec's and every required one is among them (order is not checked here: the reader looks them
// up by name), and the input counts agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>

#include "ops/ops.hpp"
#include "support/op_test_util.hpp"

namespace mo {
namespace {

// Framework-level ops that back transformations lower before emission (CheckOnlyOpsetOps refuses
// any that remain), and the graph's own placeholder.
const std::set<std::string> kNeverWritten = {"FrameworkNode", "Gemm", "Flatten", "BatchNormalization", "Clip",
                                             "SequenceMake", "SequenceInsert"};

TEST(AllSchemas, MatchOpsetsJson) {
    auto json = test::load_opsets_json();
    if (!json) GTEST_SKIP() << "shared/ir/opsets.json not found";
    OpRegistry r;
    register_builtin_ops(r);
    size_t checked = 0;
    for (const auto& type : r.types()) {
        if (kNeverWritten.count(type)) continue;
        const OpSchema& s = r.get(type);
        SCOPED_TRACE(type + " " + s.ir_version);
        ASSERT_EQ(s.ir_version.rfind("opset", 0), 0u);
        const std::string key = type + "-" + s.ir_version.substr(5);
        ASSERT_TRUE((*json)["ops"].contains(key)) << key << " is not an op version of the runtime";
        const auto& op = (*json)["ops"][key];
        EXPECT_EQ(s.ir_type, op["ir_type"].get<std::string>());
        EXPECT_EQ(s.ir_version, op["ir_version"].get<std::string>());
        ++checked;
        // The spec's attributes and input counts, where the spec page was transcribed (the
        // emitter writes Constant's data attributes itself).
        if (op.value("spec_read", false) == false || type == "Constant") continue;
        // Every attribute written is the spec's; every required one is written.
        std::set<std::string> written, spec, required;
        for (const auto& a : s.attrs) written.insert(a.name);
        for (const auto& a : op["attributes"]) {
            spec.insert(a["name"].get<std::string>());
            if (a.value("required", true) == true) required.insert(a["name"].get<std::string>());
        }
        for (const auto& name : written) EXPECT_TRUE(spec.count(name)) << "not in the spec: " << name;
        for (const auto& name : required) EXPECT_TRUE(written.count(name)) << "required, not written: " << name;
        EXPECT_EQ(s.min_inputs, op["inputs"]["min"].get<size_t>());
        const auto& max = op["inputs"]["max"];  // null: any number
        EXPECT_EQ(s.max_inputs, max.is_null() ? SIZE_MAX : max.get<size_t>());
    }
    EXPECT_GT(checked, 100u);
}

}  // namespace
}  // namespace mo
