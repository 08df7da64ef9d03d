#include "transforms/registry.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "support/graph_builder.hpp"

namespace mo {
namespace {

// Records the order in which transformations ran.
struct Probe : Transformation {
    Probe(std::string id, Phase p, std::vector<std::string> after = {}, std::vector<std::string> before = {},
          std::vector<std::string>* log = nullptr, bool on = true)
        : id_(std::move(id)), phase_(p), after_(std::move(after)), before_(std::move(before)), log_(log), on_(on) {}
    std::string id() const override { return id_; }
    Phase phase() const override { return phase_; }
    std::vector<std::string> run_after() const override { return after_; }
    std::vector<std::string> run_before() const override { return before_; }
    bool enabled() const override { return on_; }
    bool run(Graph&, const TransformContext&) override {
        if (log_) log_->push_back(id_);
        return false;
    }
    std::string id_;
    Phase phase_;
    std::vector<std::string> after_, before_;
    std::vector<std::string>* log_;
    bool on_;
};

std::vector<std::string> ids(const TransformRegistry& r) {
    std::vector<std::string> v;
    for (auto* t : r.order()) v.push_back(t->id());
    return v;
}

TEST(TransformRegistry, PhasesOrderedByAnchorsAndTiesById) {
    TransformRegistry r;
    r.add(std::make_unique<Probe>("b_back", Phase::Back));
    r.add(std::make_unique<Probe>("z_front", Phase::Front));
    r.add(std::make_unique<Probe>("a_front", Phase::Front));
    r.add(std::make_unique<Probe>("m_middle", Phase::Middle));
    EXPECT_EQ(ids(r), (std::vector<std::string>{"FrontStart", "a_front", "z_front", "FrontFinish", "MiddleStart",
                                                "m_middle", "MiddleFinish", "BackStart", "b_back", "BackFinish"}));
}

TEST(TransformRegistry, ExplicitConstraintsOverrideIdOrder) {
    TransformRegistry r;
    r.add(std::make_unique<Probe>("a", Phase::Front, std::vector<std::string>{"c"}));
    r.add(std::make_unique<Probe>("b", Phase::Front, std::vector<std::string>{}, std::vector<std::string>{"c"}));
    r.add(std::make_unique<Probe>("c", Phase::Front));
    auto v = ids(r);
    auto pos = [&](const std::string& id) { return std::find(v.begin(), v.end(), id) - v.begin(); };
    EXPECT_LT(pos("b"), pos("c"));
    EXPECT_LT(pos("c"), pos("a"));
    EXPECT_LT(pos("a"), pos("FrontFinish"));
}

TEST(TransformRegistry, CycleIsReportedByName) {
    TransformRegistry r;
    r.add(std::make_unique<Probe>("first", Phase::Front, std::vector<std::string>{"second"}));
    r.add(std::make_unique<Probe>("second", Phase::Front, std::vector<std::string>{"first"}));
    try {
        r.order();
        FAIL() << "no error";
    } catch (const Error& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("cycle"), std::string::npos);
        EXPECT_NE(msg.find("first"), std::string::npos);
        EXPECT_NE(msg.find("second"), std::string::npos);
    }
}

TEST(TransformRegistry, UnknownIdInConstraintIsAnError) {
    TransformRegistry r;
    r.add(std::make_unique<Probe>("a", Phase::Front, std::vector<std::string>{"nope"}));
    EXPECT_THROW(r.order(), Error);
}

TEST(TransformRegistry, DuplicateIdIsAnError) {
    TransformRegistry r;
    r.add(std::make_unique<Probe>("a", Phase::Front));
    EXPECT_THROW(r.add(std::make_unique<Probe>("a", Phase::Back)), Error);
}

TEST(TransformRegistry, EnvironmentEnablesAndDisablesAndDisableWins) {
    std::vector<std::string> log;
    TransformRegistry r;
    r.add(std::make_unique<Probe>("on_by_default", Phase::Front, std::vector<std::string>{}, std::vector<std::string>{}, &log));
    r.add(std::make_unique<Probe>("off_by_default", Phase::Front, std::vector<std::string>{}, std::vector<std::string>{}, &log, false));
    r.add(std::make_unique<Probe>("both", Phase::Front, std::vector<std::string>{}, std::vector<std::string>{}, &log));
    setenv("MO_ENABLED_TRANSFORMS", "off_by_default, both", 1);
    setenv("MO_DISABLED_TRANSFORMS", "on_by_default,both", 1);
    r.apply_environment();
    unsetenv("MO_ENABLED_TRANSFORMS");
    unsetenv("MO_DISABLED_TRANSFORMS");
    test::GraphBuilder b;
    ConversionOptions opts;
    r.run_all(b.graph(), TransformContext{opts});
    EXPECT_EQ(log, std::vector<std::string>{"off_by_default"});
}

TEST(TransformRegistry, ErrorsCarryTheTransformationId) {
    struct Failing : Probe {
        Failing() : Probe("Failing", Phase::Back) {}
        bool run(Graph&, const TransformContext&) override { throw Error("boom", "node 'n' (X)"); }
    };
    TransformRegistry r;
    r.add(std::make_unique<Failing>());
    test::GraphBuilder b;
    ConversionOptions opts;
    try {
        r.run_all(b.graph(), TransformContext{opts});
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.where(), "transformation 'Failing': node 'n' (X)");
    }
}

// run_all(graph, ctx, from): what a held model runs when it saves (tools/held_model.hpp). The
// transformations ordered before `from` are skipped; shape inference counts as done when it is
// among them, so a change after `from` re-runs it.
TEST(TransformRegistry, RunFromSkipsWhatComesBeforeAndReinfersAfterChanges) {
    struct Changing : Probe {
        using Probe::Probe;
        bool run(Graph& g, const TransformContext& ctx) override {
            Probe::run(g, ctx);
            return true;
        }
    };
    std::vector<std::string> log;
    TransformRegistry r;
    r.add(std::make_unique<Probe>(kPartialInferenceId, Phase::Middle, std::vector<std::string>{}, std::vector<std::string>{}, &log));
    r.add(std::make_unique<Probe>("a_back", Phase::Back, std::vector<std::string>{}, std::vector<std::string>{}, &log));
    r.add(std::make_unique<Changing>("b_back", Phase::Back, std::vector<std::string>{}, std::vector<std::string>{}, &log));
    r.add(std::make_unique<Probe>("c_back", Phase::Back, std::vector<std::string>{}, std::vector<std::string>{}, &log));
    test::GraphBuilder b;
    ConversionOptions opts;
    r.run_all(b.graph(), TransformContext{opts}, "b_back");
    EXPECT_EQ(log, (std::vector<std::string>{"b_back", kPartialInferenceId, "c_back"}));
    log.clear();
    r.run_all(b.graph(), TransformContext{opts});
    EXPECT_EQ(log, (std::vector<std::string>{kPartialInferenceId, "a_back", "b_back", kPartialInferenceId, "c_back"}));
}

}  // namespace
}  // namespace mo
