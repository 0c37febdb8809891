// A built-in algorithm's replica (plan/cluster_plan.h, plan/replicas.h): its image is not pulled
// but run as the algorithm's program with Debian's Python, given what the image would be given.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "plan/cluster_plan.h"
#include "plan/plan_test_jobs.h"
#include "plan/replicas.h"

namespace trainyard::plan {
namespace {

model::Job XgboostJob(std::string image) {
  model::Job job = testing::ContainerJob({});
  job.training_input->master_config->image_uri = std::move(image);
  job.training_input->master_config->container_args.clear();
  job.training_input->args = {"--preprocess", "--training_data_path=gs://b/data.csv"};
  return job;
}

TEST(AlgorithmPlan, TheMasterRunsTheAlgorithmsProgramInsteadOfTheImage) {
  for (const char* image :
       {"gcr.io/cloud-ml-algos/boosted_trees:latest", "gcr.io/cloud-ml-algos/boosted_trees"}) {
    const model::Job job = XgboostJob(image);
    const Result<std::vector<ReplicaShape>> shapes =
        ExpandReplicas(*job.training_input, catalog::Catalog::Builtin());
    ASSERT_TRUE(shapes.ok());
    ASSERT_EQ(shapes->size(), 1u);
    EXPECT_EQ(shapes->at(0).algorithm_image, image);
    EXPECT_EQ(shapes->at(0).config.image_uri, "");  // nothing to pull

    PlanContext context = testing::Context();
    context.trial_id = "3";
    context.trial_args = {"--max_depth=4"};
    const Result<std::vector<ReplicaLaunch>> launches = testing::Plan(job, {}, context);
    ASSERT_TRUE(launches.ok()) << launches.status().ToString();
    const ReplicaLaunch& master = launches->at(0);
    EXPECT_FALSE(master.container.has_value());
    EXPECT_EQ(master.argv, (std::vector<std::string>{
                               "/usr/bin/python3", "-m", "trainyard_algorithms.xgboost_train",
                               "--preprocess", "--training_data_path=gs://b/data.csv",
                               "--max_depth=4", "--job-dir", "/data/buckets/my-bucket/output"}));
    EXPECT_EQ(testing::EnvOf(master, "TRAINYARD_GCS_MOUNT"), "/data/buckets");
    EXPECT_EQ(testing::EnvOf(master, "PYTHONPATH"), context.pythonpath);
  }
}

TEST(AlgorithmPlan, OtherImagesAndUnavailableAlgorithmsStayContainers) {
  for (const char* image :
       {"gcr.io/p/boosted_trees:latest", "gcr.io/cloud-ml-algos/image_classification:latest"}) {
    const Result<std::vector<ReplicaLaunch>> launches = testing::Plan(XgboostJob(image));
    ASSERT_TRUE(launches.ok()) << launches.status().ToString();
    ASSERT_TRUE(launches->at(0).container.has_value()) << image;
    EXPECT_EQ(launches->at(0).container->image, image);
    EXPECT_FALSE(testing::EnvOf(launches->at(0), "TRAINYARD_GCS_MOUNT").has_value());
  }
}

}  // namespace
}  // namespace trainyard::plan
