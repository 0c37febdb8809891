// The package cache (issue #19): keys by content, installs once, never uses a half-installed
// entry, evicts least recently used entries but not one a job holds. The installer is a fake that
// copies each package's bytes into the target, so what an entry holds says which package it is.
#include "run/local/package_cache.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "fakes/temp_dir.h"
#include "run/local/pip_stager.h"
#include "support/wait.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::trainyard::testing::TempDir;

constexpr char kPython[] = "/usr/bin/python3";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

mode_t ModeBits(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Installs by writing `contents` (each package's bytes, joined) plus `padding` bytes into the
// target; counts its installs. With `gated`, an install waits inside until the test opens the
// gate, so that concurrent callers overlap with it.
class FakeInstaller final : public Stager {
 public:
  Status Stage(const StageRequest& request) override {
    ++installs;
    if (on_start) {
      on_start();
    }
    uris = request.package_uris;
    files = request.package_files;
    std::string contents;
    for (const std::string& file : request.package_files) {
      contents += ReadFile(file);
    }
    WriteFile(fs::path(request.target_dir) / "contents", contents);
    WriteFile(fs::path(request.target_dir) / "padding", std::string(padding, 'x'));
    target_mode = ModeBits(request.target_dir);
    if (leave) {
      leave(request.target_dir);
    }
    if (!link_manifest_to.empty()) {  // what a hostile package's build could leave
      fs::create_symlink(link_manifest_to, fs::path(request.target_dir) / ".trainyard-entry");
    }
    if (gated) {
      std::unique_lock lock(mu_);
      entered_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return open_; });
    }
    return fail ? Status::FailedPrecondition("Failed to install packages: broken") : Status();
  }

  std::atomic<int> installs{0};
  std::vector<std::string> uris;   // of the last install
  std::vector<std::string> files;  // likewise
  std::size_t padding = 0;
  bool gated = false;
  bool fail = false;
  std::string link_manifest_to;  // set: the install leaves a link to it at the manifest's name
  std::function<void(const fs::path& target)> leave;  // set: what the install also leaves
  std::function<void()> on_start;  // set: done before the install reads a package
  mode_t target_mode = 0;          // of the last install's target dir, when it started

  // Whether an install entered the gate within 30 s.
  bool WaitUntilEntered() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return entered_; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false;  // guarded by mu_
  bool open_ = false;     // guarded by mu_
};

// How many flock requests wait for the lock on `path` (the "->" lines of /proc/locks, whose
// MAJOR:MINOR:INODE field ends with the file's inode).
int BlockedFlocks(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return 0;
  }
  const std::string inode = ":" + std::to_string(info.st_ino) + " ";
  std::ifstream locks("/proc/locks");
  int blocked = 0;
  for (std::string line; std::getline(locks, line);) {
    blocked += line.find("-> FLOCK") != std::string::npos && line.find(inode) != std::string::npos;
  }
  return blocked;
}

class PackageCacheTest : public ::testing::Test {
 protected:
  PackageCacheOptions Options(std::uint64_t max_bytes = 0) const {
    return PackageCacheOptions{.dir = dir_.File("cache"), .max_bytes = max_bytes};
  }
  StageRequest Request(const std::string& job, const std::vector<std::string>& packages,
                       const std::string& python = kPython) const {
    return StageRequest{.package_uris = packages,
                        .gcs_mount = dir_.File("gcs"),
                        .target_dir = Target(job),
                        .python = python,
                        .log_path = dir_.File("jobs/" + job + "/staging.log")};
  }
  std::string Target(const std::string& job) const {
    return dir_.File("jobs/" + job + "/packages");
  }
  // A package file with these bytes.
  std::string Package(const std::string& name, const std::string& bytes) {
    WriteFile(dir_.File(name), bytes);
    return dir_.File(name);
  }
  std::vector<std::string> Keys(const PackageCache& cache) const {
    std::vector<std::string> keys;
    for (const PackageCache::Entry& entry : cache.Entries()) {
      keys.push_back(entry.key);
    }
    return keys;
  }
  std::string EntryOf(const std::string& job) const {
    std::error_code error;
    return fs::read_symlink(Target(job), error).filename().string();
  }

  TempDir dir_;
  FakeInstaller installer_;
};

TEST_F(PackageCacheTest, SameNameDifferentContentsNeverShareAnEntry) {
  PackageCache cache(installer_, Options());
  const std::string package = Package("dist/trainer-0.1.tar.gz", "first");
  ASSERT_TRUE(cache.Stage(Request("a", {package})).ok());
  Package("dist/trainer-0.1.tar.gz", "second");
  ASSERT_TRUE(cache.Stage(Request("b", {package})).ok());

  EXPECT_EQ(installer_.installs, 2);
  EXPECT_NE(EntryOf("a"), EntryOf("b"));
  EXPECT_EQ(ReadFile(Target("a") + "/contents"), "first");
  EXPECT_EQ(ReadFile(Target("b") + "/contents"), "second");
}

TEST_F(PackageCacheTest, SameContentsAreInstalledOnceAndShared) {
  PackageCache cache(installer_, Options());
  const std::string first = Package("one/trainer-0.1.tar.gz", "same bytes");
  const std::string second = Package("two/renamed.tar.gz", "same bytes");
  ASSERT_TRUE(cache.Stage(Request("a", {first})).ok());
  ASSERT_TRUE(cache.Stage(Request("b", {second})).ok());

  EXPECT_EQ(installer_.installs, 1);
  EXPECT_EQ(EntryOf("a"), EntryOf("b"));
  EXPECT_EQ(ReadFile(Target("b") + "/contents"), "same bytes");
  EXPECT_THAT(ReadFile(dir_.File("jobs/a/staging.log")), HasSubstr("Installed packages"));
  EXPECT_THAT(ReadFile(dir_.File("jobs/b/staging.log")), HasSubstr("Using installed packages"));
}

// The installer gets the server's copies, read once from the bucket: the bytes it installs are
// the bytes the key was made of, whatever the job writes to its object meanwhile.
TEST_F(PackageCacheTest, InstallerGetsTheCopiesTheKeyWasMadeOf) {
  PackageCache cache(installer_, Options());
  const std::string object = Package("gcs/bucket/trainer-0.1.tar.gz", "from the bucket");
  const std::string key = *cache.KeyOf({object}, kPython);
  installer_.on_start = [&] { WriteFile(object, "written after the key"); };
  ASSERT_TRUE(cache.Stage(Request("a", {"gs://bucket/trainer-0.1.tar.gz"})).ok());
  EXPECT_EQ(EntryOf("a"), key);
  EXPECT_EQ(installer_.uris, std::vector<std::string>{"gs://bucket/trainer-0.1.tar.gz"});
  ASSERT_EQ(installer_.files.size(), 1U);
  EXPECT_EQ(fs::path(installer_.files[0]).filename(), "trainer-0.1.tar.gz");
  EXPECT_EQ(ReadFile(Target("a") + "/contents"), "from the bucket");
  // The copies go with the stage.
  EXPECT_FALSE(fs::exists(installer_.files[0]));
  EXPECT_FALSE(fs::exists(Target("a") + ".sources"));
}

TEST_F(PackageCacheTest, KeyDependsOnOrderInterpreterAndInstaller) {
  PackageCache cache(installer_, Options());
  PackageCache other_installer(
      installer_, PackageCacheOptions{.dir = dir_.File("cache"), .installer_identity = "uid 1000"});
  const std::string a = Package("a.tar.gz", "a");
  const std::string b = Package("b.tar.gz", "b");
  const std::string key = *cache.KeyOf({a, b}, kPython);
  EXPECT_EQ(key.size(), 64U);
  EXPECT_EQ(*cache.KeyOf({a, b}, kPython), key);
  EXPECT_NE(*cache.KeyOf({b, a}, kPython), key);
  EXPECT_NE(*cache.KeyOf({a, b}, "/bin/sh"), key);
  EXPECT_NE(*other_installer.KeyOf({a, b}, kPython), key);
}

TEST_F(PackageCacheTest, ConcurrentStagesOfOneKeyInstallOnce) {
  installer_.gated = true;
  PackageCache cache(installer_, Options());
  const std::string package = Package("trainer.tar.gz", "shared");
  const std::string key = *cache.KeyOf({package}, kPython);
  std::vector<std::thread> jobs;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i) {
    jobs.emplace_back([&, i] {
      failures += cache.Stage(Request("job" + std::to_string(i), {package})).ok() ? 0 : 1;
    });
  }
  // One installs; the other seven wait for its lock on the key before it is done.
  EXPECT_TRUE(installer_.WaitUntilEntered());
  EXPECT_TRUE(::trainyard::testing::WaitUntil(
      [&] { return BlockedFlocks(dir_.File("cache/" + key + ".lock")) == 7; },
      std::chrono::seconds(30)));
  installer_.Open();
  for (std::thread& job : jobs) {
    job.join();
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(installer_.installs, 1);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(ReadFile(Target("job" + std::to_string(i)) + "/contents"), "shared") << i;
  }
}

// A job cancelled while another job installs its key stops waiting for the key's lock at once;
// the install goes on for the other job.
TEST_F(PackageCacheTest, StopEndsAWaitForAnotherJobsInstallOfTheKey) {
  installer_.gated = true;
  PackageCache cache(installer_, Options());
  const std::string package = Package("trainer.tar.gz", "shared");
  Status first;
  std::thread installing([&] { first = cache.Stage(Request("first", {package})); });
  ASSERT_TRUE(installer_.WaitUntilEntered());
  std::stop_source stop;
  StageRequest second = Request("second", {package});
  second.stop = stop.get_token();
  Status waited;
  std::thread waiting([&] { waited = cache.Stage(second); });
  stop.request_stop();
  waiting.join();
  EXPECT_EQ(waited.code(), Code::kCancelled) << waited.ToString();
  installer_.Open();
  installing.join();
  EXPECT_TRUE(first.ok()) << first.ToString();
  EXPECT_EQ(installer_.installs, 1);
  EXPECT_FALSE(fs::exists(Target("second")));
}

TEST_F(PackageCacheTest, CrashedInstallIsNeverUsedAndIsCleanedUp) {
  const std::string package = Package("trainer.tar.gz", "whole");
  std::string key;
  {
    PackageCache cache(installer_, Options());
    key = *cache.KeyOf({package}, kPython);
  }
  // What a server killed mid-install leaves: its temporary directory, and (as if a rename had
  // been half done by hand) the entry's directory without a manifest.
  WriteFile(dir_.File("cache/" + key + ".tmp-999-0/contents"), "half");
  WriteFile(dir_.File("cache/" + key + "/contents"), "half");

  PackageCache cache(installer_, Options());
  EXPECT_FALSE(fs::exists(dir_.File("cache/" + key + ".tmp-999-0")));
  EXPECT_TRUE(cache.Entries().empty());
  ASSERT_TRUE(cache.Stage(Request("a", {package})).ok());
  EXPECT_EQ(installer_.installs, 1);
  EXPECT_EQ(ReadFile(Target("a") + "/contents"), "whole");
}

TEST_F(PackageCacheTest, FailedInstallLeavesNothingAndIsRetried) {
  PackageCache cache(installer_, Options());
  const std::string package = Package("trainer.tar.gz", "bytes");
  installer_.fail = true;
  EXPECT_EQ(cache.Stage(Request("a", {package})),
            Status::FailedPrecondition("Failed to install packages: broken"));
  EXPECT_FALSE(fs::exists(Target("a")));
  std::vector<std::string> left;
  for (const auto& item : fs::directory_iterator(dir_.File("cache"))) {
    if (!item.path().filename().string().ends_with(".lock") && item.path().filename() != "leases") {
      left.push_back(item.path().filename().string());
    }
  }
  EXPECT_TRUE(left.empty()) << left.front();

  installer_.fail = false;
  ASSERT_TRUE(cache.Stage(Request("a", {package})).ok());
  EXPECT_EQ(installer_.installs, 2);
}

// The install runs as the job's user in the temporary directory; the server, as root, then
// writes the manifest there: a link the install left at its name is replaced, and the file it
// leads to stays as it was (issue #31).
TEST_F(PackageCacheTest, ALinkTheInstallLeftAtTheManifestIsNotWrittenThrough) {
  PackageCache cache(installer_, Options());
  const std::string victim = Package("victim", "root's own\n");
  installer_.link_manifest_to = victim;
  ASSERT_TRUE(cache.Stage(Request("a", {Package("trainer.tar.gz", "bytes")})).ok());
  EXPECT_EQ(ReadFile(victim), "root's own\n");
  const fs::path manifest = fs::path(Target("a")) / ".trainyard-entry";
  EXPECT_FALSE(fs::is_symlink(manifest));
  EXPECT_TRUE(fs::is_regular_file(manifest));
  EXPECT_EQ(Keys(cache).size(), 1U);
}

// Issue #31: the installer writes only its own new directory, and what it leaves is sealed
// (package_entry.h) before it becomes an entry.
TEST_F(PackageCacheTest, AnInstallIsSealedBeforeItIsPublished) {
  FakeInstaller installer;
  installer.leave = [](const fs::path& target) {
    WriteFile(target / "lib" / "mod.py", "x");
    fs::permissions(target / "lib" / "mod.py", fs::perms::all);
    fs::permissions(target / "lib", fs::perms::all);
  };
  PackageCache cache(installer, Options());
  ASSERT_TRUE(cache.Stage(Request("j1", {Package("a.tar.gz", "A")})).ok());
  EXPECT_EQ(installer.target_mode, 0700U);
  const fs::path entry = fs::read_symlink(Target("j1"));
  EXPECT_EQ(ModeBits(entry / "lib"), 0755U);
  EXPECT_EQ(ModeBits(entry / "lib" / "mod.py"), 0755U);
  EXPECT_EQ(ModeBits(dir_.File("cache/leases")), 0700U);
  EXPECT_EQ(ModeBits(dir_.File("cache/" + entry.filename().string() + ".lock")), 0600U);
}

TEST_F(PackageCacheTest, AnInstallLeavingAHardLinkIsNotPublished) {
  FakeInstaller installer;
  const std::string outside = Package("outside", "secret");
  installer.leave = [&](const fs::path& target) {
    fs::create_hard_link(outside, target / "linked");
  };
  PackageCache cache(installer, Options());
  const Status staged = cache.Stage(Request("j1", {Package("a.tar.gz", "A")}));
  EXPECT_EQ(staged.code(), Code::kFailedPrecondition);
  EXPECT_THAT(staged.message(), HasSubstr("more than one link"));
  EXPECT_TRUE(Keys(cache).empty());
  EXPECT_FALSE(fs::exists(Target("j1")));
}

TEST_F(PackageCacheTest, MissingPackageIsNamedBeforeAnyInstall) {
  PackageCache cache(installer_, Options());
  EXPECT_EQ(cache.Stage(Request("a", {dir_.File("nope.tar.gz")})),
            Status::FailedPrecondition("Package " + dir_.File("nope.tar.gz") + " not found."));
  EXPECT_EQ(installer_.installs, 0);
}

TEST_F(PackageCacheTest, EvictsLeastRecentlyUsedReleasedEntries) {
  installer_.padding = 1000;
  // Room for two entries, not three.
  PackageCache cache(installer_, Options(2500));
  const std::string a = Package("a.tar.gz", "a");
  const std::string b = Package("b.tar.gz", "b");
  const std::string c = Package("c.tar.gz", "c");
  ASSERT_TRUE(cache.Stage(Request("a1", {a})).ok());
  ASSERT_TRUE(cache.Stage(Request("b1", {b})).ok());
  ASSERT_TRUE(cache.Stage(Request("a2", {a})).ok());  // a is now the more recently used
  for (const std::string job : {"a1", "b1", "a2"}) {
    cache.Release(Target(job));
  }
  ASSERT_TRUE(cache.Stage(Request("c1", {c})).ok());

  EXPECT_THAT(Keys(cache), ::testing::ElementsAre(EntryOf("a2"), EntryOf("c1")));
  EXPECT_FALSE(fs::exists(Target("b1") + "/contents"));
  EXPECT_EQ(installer_.installs, 3);
}

TEST_F(PackageCacheTest, NeverEvictsAnEntryAJobHolds) {
  installer_.padding = 1000;
  PackageCache cache(installer_, Options(1500));  // room for one
  const std::string a = Package("a.tar.gz", "a");
  const std::string b = Package("b.tar.gz", "b");
  const std::string c = Package("c.tar.gz", "c");
  ASSERT_TRUE(cache.Stage(Request("running", {a})).ok());
  ASSERT_TRUE(cache.Stage(Request("ended", {b})).ok());
  cache.Release(Target("ended"));
  ASSERT_TRUE(cache.Stage(Request("new", {c})).ok());

  EXPECT_EQ(ReadFile(Target("running") + "/contents"), "a");
  EXPECT_FALSE(fs::exists(Target("ended") + "/contents"));
  EXPECT_EQ(Keys(cache).size(), 2U);  // over the limit while "running" holds its entry

  // A job deleted without a release (its directory gone) holds nothing.
  fs::remove_all(dir_.File("jobs/running"));
  cache.Release(Target("new"));
  ASSERT_TRUE(cache.Stage(Request("b2", {b})).ok());
  EXPECT_THAT(Keys(cache), ::testing::ElementsAre(EntryOf("b2")));
}

// The real installer, killed in the middle of an install: the job fails, no entry is left, and
// the next job installs afresh.
TEST_F(PackageCacheTest, InstallerKilledMidInstallLeavesNoEntry) {
  PipStager pip;
  PackageCache cache(pip, Options());
  const std::string package = Package("trainer.tar.gz", "bytes");
  const std::string python = dir_.File("fakepython");
  WriteFile(python, "#!/bin/sh\ntouch \"$3/half_installed\"\nkill -9 $$\n");
  fs::permissions(python, fs::perms::owner_all);

  const Status status = cache.Stage(Request("a", {package}, python));
  EXPECT_THAT(status.message(), HasSubstr("pip was terminated by signal 9"));
  EXPECT_TRUE(cache.Entries().empty());
  EXPECT_FALSE(fs::exists(Target("a")));
  for (const auto& item : fs::directory_iterator(dir_.File("cache"))) {
    EXPECT_THAT(item.path().filename().string(), ::testing::Not(HasSubstr(".tmp-")));
  }
}

}  // namespace
}  // namespace trainyard::run::local
