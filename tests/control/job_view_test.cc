// The view of a job's replicas (control/job_view.h) and the rules every view is made by
// (run/view_paths.h): table-driven, no files.
#include "control/job_view.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/view_paths.h"

namespace trainyard::control {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const std::vector<std::string> kPrivate = {"/dev/shm", "/tmp", "/var/tmp"};

JobViewInput Input() {
  return JobViewInput{.data_dir = "/srv/ty",
                      .job_root = "/srv/ty/jobs/p/j1",
                      .gcs_mount = "/srv/ty/buckets",
                      .project_buckets = {},
                      .job_dir = "",
                      .package_entries = {},
                      .hp_metric_dir = "",
                      .home = ""};
}

TEST(JobViewTest, HidesTheDataDirAndShowsTheJobRootWithPrivateTemporaries) {
  const run::FileView view = JobView(Input());
  EXPECT_EQ(view.hidden, "/srv/ty");
  EXPECT_THAT(view.writable, ElementsAre("/srv/ty/jobs/p/j1"));
  EXPECT_THAT(view.readable, IsEmpty());
  EXPECT_EQ(view.private_dirs, kPrivate);
}

TEST(JobViewTest, ShowsWhatTheJobMayUse) {
  struct Case {
    std::string name;
    JobViewInput input;
    std::vector<std::string> writable;
    std::vector<std::string> readable;
    std::vector<std::string> private_dirs;
  };
  const std::string root = "/srv/ty/jobs/p/j1";
  const auto with = [](auto change) {
    JobViewInput input = Input();
    change(input);
    return input;
  };
  const std::vector<Case> cases = {
      {"the project's buckets, each once",
       with([](JobViewInput& in) {
         in.project_buckets = {"b2", "b1", "b2"};
       }),
       {"/srv/ty/buckets/b1", "/srv/ty/buckets/b2", root},
       {},
       kPrivate},
      {"odd bucket names are never the whole store",
       with([](JobViewInput& in) {
         in.project_buckets = {"", ".", "..", "a/b"};
       }),
       {root},
       {},
       kPrivate},
      {"no bucket store, no buckets",
       with([](JobViewInput& in) {
         in.gcs_mount = "";
         in.project_buckets = {"b1"};
       }),
       {root},
       {},
       kPrivate},
      {"a job directory in the project's bucket adds nothing",
       with([](JobViewInput& in) {
         in.project_buckets = {"b1"};
         in.job_dir = "/srv/ty/buckets/b1/out/run1/";
       }),
       {"/srv/ty/buckets/b1", root},
       {},
       kPrivate},
      {"a job directory in another project's bucket: that directory only",
       with([](JobViewInput& in) {
         in.project_buckets = {"b1"};
         in.job_dir = "/srv/ty/buckets/shared/out/run1";
       }),
       {"/srv/ty/buckets/b1", "/srv/ty/buckets/shared/out/run1", root},
       {},
       kPrivate},
      {"a bucket whose name extends another's is not below it",
       with([](JobViewInput& in) {
         in.project_buckets = {"b1"};
         in.job_dir = "/srv/ty/buckets/b1-other/x";
       }),
       {"/srv/ty/buckets/b1", "/srv/ty/buckets/b1-other/x", root},
       {},
       kPrivate},
      {"package entries, read-only",
       with([](JobViewInput& in) {
         in.package_entries = {"/srv/ty/packages/abc", "/srv/ty/packages/abc/"};
       }),
       {root},
       {"/srv/ty/packages/abc"},
       kPrivate},
      {"a hypertune directory below the root adds nothing",
       with([&](JobViewInput& in) { in.hp_metric_dir = root + "/trial-3/hypertune"; }),
       {root},
       {},
       kPrivate},
      {"a hypertune directory elsewhere is shown",
       with([](JobViewInput& in) { in.hp_metric_dir = "/srv/metrics/j1"; }),
       {"/srv/metrics/j1", root},
       {},
       kPrivate},
      {"the job user's HOME is its own",
       with([](JobViewInput& in) { in.home = "/home/trainyard-job/"; }),
       {root},
       {},
       {"/dev/shm", "/home/trainyard-job", "/tmp", "/var/tmp"}},
      {"a HOME of / is never emptied",
       with([](JobViewInput& in) { in.home = "/"; }),
       {root},
       {},
       kPrivate},
      {"a data directory below /tmp: /tmp stays private, the job root is shown inside it",
       with([](JobViewInput& in) {
         in.data_dir = "/tmp/t1/data";
         in.job_root = "/tmp/t1/data/jobs/p/j1";
         in.home = "/tmp/t1/data/jobs/p/j1/home";
       }),
       {"/tmp/t1/data/jobs/p/j1"},
       {},
       kPrivate},
      {"private directories below the job's private root",
       with([](JobViewInput& in) { in.private_root = "/dev/shm/trainyard-1-2/p/j1/"; }),
       {root},
       {},
       kPrivate},
      {"trainyard's own modules are shown read-only",
       with([](JobViewInput& in) { in.runtime_modules = {"/tmp/build/python"}; }),
       {root},
       {"/tmp/build/python"},
       kPrivate},
      {"relative paths are left out",
       with([](JobViewInput& in) {
         in.job_dir = "out/run1";
         in.package_entries = {"packages/abc"};
         in.home = "home";
       }),
       {root},
       {},
       kPrivate},
  };
  for (const Case& c : cases) {
    const run::FileView view = JobView(c.input);
    EXPECT_EQ(view.hidden, c.input.data_dir) << c.name;
    EXPECT_EQ(view.writable, c.writable) << c.name;
    EXPECT_EQ(view.readable, c.readable) << c.name;
    EXPECT_EQ(view.private_dirs, c.private_dirs) << c.name;
    EXPECT_EQ(view.private_root, c.input.private_root.empty() ? "" : "/dev/shm/trainyard-1-2/p/j1")
        << c.name;
  }
}

TEST(NormaliseViewTest, DropsWhatAnotherPathShowsOrWouldHide) {
  struct Case {
    std::string name;
    run::FileView in;
    run::FileView out;
  };
  const std::vector<Case> cases = {
      {"normal, sorted, once",
       {.hidden = "/d/",
        .writable = {"/w/b/", "/w/a", "/w/./a", "/w/x/../b"},
        .readable = {"/r/2", "/r/1", "/r/1/"},
        .private_dirs = {"/tmp/", "/tmp"}},
       {.hidden = "/d",
        .writable = {"/w/a", "/w/b"},
        .readable = {"/r/1", "/r/2"},
        .private_dirs = {"/tmp"}}},
      {"nested writable paths: the one above",
       {.hidden = "", .writable = {"/w/a/b", "/w/a", "/w/a-b"}, .readable = {}, .private_dirs = {}},
       {.hidden = "", .writable = {"/w/a", "/w/a-b"}, .readable = {}, .private_dirs = {}}},
      {"a readable path at or below a writable one is shown read-write",
       {.hidden = "", .writable = {"/w"}, .readable = {"/w", "/w/r", "/wr"}, .private_dirs = {}},
       {.hidden = "", .writable = {"/w"}, .readable = {"/wr"}, .private_dirs = {}}},
      {"private directories below what is shown, or below another, are dropped",
       {.hidden = "/tmp/d",
        .writable = {"/home/u/w", "/srv/w"},
        .readable = {"/var/tmp/r", "/opt/r"},
        .private_dirs = {"/", "/tmp", "/tmp/d/h", "/srv/w/tmp", "/opt/r/x", "/dev/shm",
                         "/dev/shm/x"}},
       {.hidden = "/tmp/d",
        .writable = {"/home/u/w", "/srv/w"},
        .readable = {"/opt/r", "/var/tmp/r"},
        .private_dirs = {"/dev/shm", "/tmp"}}},
      {"relative paths are dropped",
       {.hidden = "d", .writable = {"w", ""}, .readable = {"r"}, .private_dirs = {"tmp"}},
       {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(run::NormaliseView(c.in), c.out) << c.name;
  }
}

TEST(JobPrivateDirsTest, TemporariesAndTheHome) {
  EXPECT_THAT(run::JobPrivateDirs(""), ElementsAre("/tmp", "/var/tmp", "/dev/shm"));
  EXPECT_THAT(run::JobPrivateDirs("/home/u"),
              ElementsAre("/tmp", "/var/tmp", "/dev/shm", "/home/u"));
}

}  // namespace
}  // namespace trainyard::control
