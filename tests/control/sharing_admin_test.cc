// The sharing policy as the server keeps it (issue #34): changes are checked before they are
// written, survive a reload, reach the listener, and the controller refuses at create a job that
// can never fit its project's quota, storing nothing.
#include "control/sharing_admin.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "control/test_jobs.h"
#include "store/sharing_store.h"

namespace trainyard::control::testing {
namespace {

class SharingAdminTest : public ControllerTest {
 protected:
  SharingAdminTest() {
    auto opened = store::OpenSharingStore(store::SharingStorePath(dir_.path().string()));
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    sharing_store_ = *std::move(opened);
    admin_ = std::make_unique<SharingAdmin>(*sharing_store_, catalog::Catalog::Builtin());
    EXPECT_TRUE(admin_->Load().ok());
    controller_->SetSharingPolicy([this] { return admin_->Current(); });
  }

  static model::Job T4Job(const std::string& id, int count) {
    model::Job job = ValidRuntimeJob(id);
    job.training_input->scale_tier = model::ScaleTier::kCustom;
    job.training_input->master_type = "n1-standard-8";
    job.training_input->master_config.emplace().accelerator_config =
        model::AcceleratorConfig{.count = count, .type = "NVIDIA_TESLA_T4"};
    return job;
  }

  std::unique_ptr<store::SharingStore> sharing_store_;
  std::unique_ptr<SharingAdmin> admin_;
};

TEST_F(SharingAdminTest, ChangesReachTheListenerAndAReloadedAdminReadsThemBack) {
  std::vector<std::size_t> seen;
  admin_->SetChangeListener(
      [&](SharingPolicyPtr policy) { seen.push_back(policy->projects.size()); });
  ASSERT_TRUE(admin_->SetQuota("b", R"({"cpus":8,"weight":2})").ok());
  ASSERT_TRUE(admin_->SetQuota("a", R"({"accelerators":{"NVIDIA_TESLA_T4":4}})").ok());
  ASSERT_TRUE(admin_->SetQuota("b", R"({"cpus":16})").ok());
  ASSERT_TRUE(admin_->SetPriorityClass("high", R"({"value":900})").ok());
  EXPECT_EQ(seen, (std::vector<std::size_t>{1, 2, 2, 2}));

  SharingAdmin reloaded(*sharing_store_, catalog::Catalog::Builtin());
  ASSERT_TRUE(reloaded.Load().ok());
  EXPECT_EQ(*reloaded.Current(), *admin_->Current());
  ASSERT_EQ(admin_->Current()->projects.size(), 2U);
  EXPECT_EQ(admin_->Current()->projects[0].project, "a");
  EXPECT_EQ(admin_->Current()->QuotaOf("b")->cpus, 16);
  EXPECT_EQ(admin_->Current()->QuotaOf("b")->weight, 1);
  EXPECT_EQ(admin_->Current()->priority_classes.at("high"), 900);

  const SharingPolicyPtr before = admin_->Current();
  ASSERT_TRUE(admin_->DeleteQuota("a").ok());
  ASSERT_TRUE(admin_->DeletePriorityClass("high").ok());
  EXPECT_EQ(admin_->DeleteQuota("a").code(), Code::kNotFound);
  EXPECT_EQ(admin_->DeletePriorityClass("high").code(), Code::kNotFound);
  EXPECT_EQ(before->projects.size(), 2U);  // a caller's copy is not changed under it
  EXPECT_EQ(admin_->Current()->projects.size(), 1U);
  EXPECT_TRUE(admin_->Current()->priority_classes.empty());
}

TEST_F(SharingAdminTest, BadInputChangesNothing) {
  ASSERT_TRUE(admin_->SetQuota("p", R"({"cpus":8})").ok());
  const sched::SharingPolicy before = *admin_->Current();
  EXPECT_EQ(admin_->SetQuota("p", R"({"cpus":-1,"weight":0})").status().violations().size(), 2U);
  EXPECT_EQ(admin_->SetQuota("Bad Project", "{}").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(admin_->SetPriorityClass("x", R"({"value":5000})").status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(*admin_->Current(), before);
  SharingAdmin reloaded(*sharing_store_, catalog::Catalog::Builtin());
  ASSERT_TRUE(reloaded.Load().ok());
  EXPECT_EQ(*reloaded.Current(), before);
}

TEST_F(SharingAdminTest, AJobThatCanNeverFitItsQuotaIsRefusedAtCreateAndNotStored) {
  ASSERT_TRUE(admin_->SetQuota("proj", R"({"accelerators":{"NVIDIA_TESLA_T4":2}})").ok());
  Result<model::Job> refused = controller_->Submit("proj", T4Job("too_big", 4));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("custom_model_training_nvidia_t4_gpus"),
            std::string::npos)
      << refused.status().message();
  EXPECT_EQ(controller_->Get("proj", "too_big").status().code(), Code::kNotFound);
  EXPECT_EQ(controller_->QuotaExcesses("proj", T4Job("too_big", 4)).size(), 1U);

  EXPECT_TRUE(controller_->Submit("proj", T4Job("fits", 2)).ok());
  EXPECT_TRUE(controller_->Submit("other", T4Job("no_quota", 4)).ok());
  // An invalid job is INVALID_ARGUMENT first, whatever the quota.
  model::Job invalid = T4Job("1_bad", 4);
  EXPECT_EQ(controller_->Submit("proj", invalid).status().code(), Code::kInvalidArgument);
  ASSERT_TRUE(admin_->DeleteQuota("proj").ok());
  EXPECT_TRUE(controller_->Submit("proj", T4Job("too_big", 4)).ok());
}

}  // namespace
}  // namespace trainyard::control::testing
