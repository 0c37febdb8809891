#include "cli/local/sdist.h"

#include <algorithm>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "cli/local/child_process.h"
#include "os/file.h"

namespace trainyard::cli {
namespace {

namespace fs = std::filesystem;

// jobs_prep.DEFAULT_SETUP_FILE.
constexpr const char* kDefaultSetupFile = R"(from setuptools import setup, find_packages

if __name__ == '__main__':
    setup(
        name='{0}',
        packages=find_packages(include=['{0}'])
    )
)";

// Removes a generated setup.py (and the setup.pyc some setuptools leave) on every return path.
class GeneratedSetupPy {
 public:
  explicit GeneratedSetupPy(fs::path root) : root_(std::move(root)) {}
  GeneratedSetupPy(const GeneratedSetupPy&) = delete;
  GeneratedSetupPy& operator=(const GeneratedSetupPy&) = delete;
  ~GeneratedSetupPy() {
    if (active_) {
      std::error_code ignored;
      fs::remove(root_ / "setup.py", ignored);
      fs::remove(root_ / "setup.pyc", ignored);
    }
  }
  void Activate() { active_ = true; }

 private:
  fs::path root_;
  bool active_ = false;
};

bool IsWritableDir(const fs::path& dir) {
  return os::CanWriteIn(dir.string());
}

}  // namespace

Result<std::vector<fs::path>> BuildSdist(const fs::path& package_path, const fs::path& work_dir,
                                         const fs::path& output_dir) {
  std::error_code ec;
  fs::path pkg = fs::absolute(package_path, ec).lexically_normal();
  if (pkg.filename().empty()) {  // "trainer/" -> ".../trainer", as os.path.abspath does
    pkg = pkg.parent_path();
  }
  fs::path root = pkg.parent_path();
  if (ec || !fs::is_directory(root, ec)) {
    return Status::InvalidArgument(
        fmt::format("Source directory [{}] is not a valid directory.", root.string()));
  }
  if (!IsWritableDir(root)) {  // jobs_prep._CopyIfNotWritable: build from a private copy
    const fs::path copy = work_dir / "dest";
    fs::copy(root, copy, fs::copy_options::recursive, ec);
    if (ec) {
      return Status::InvalidArgument(
          fmt::format("Cannot write to working location [{}]", copy.string()));
    }
    root = copy;
  }
  if (!fs::exists(pkg / "__init__.py", ec)) {
    return Status::InvalidArgument(fmt::format(
        "[{}] is not a valid Python package because it does not contain an `__init__.py` file. "
        "Please create one and try again. Also, please ensure that --package-path refers to a "
        "local directory.",
        pkg.string()));
  }

  const fs::path setup_py = root / "setup.py";
  GeneratedSetupPy generated(root);
  const bool generate = !fs::is_regular_file(setup_py, ec);
  if (generate) {
    std::ofstream out(setup_py, std::ios::binary);
    out << fmt::format(kDefaultSetupFile, pkg.filename().string());
    generated.Activate();
    if (!out) {
      return Status::InvalidArgument(
          fmt::format("Cannot write a temporary setup.py to [{}]", root.string()));
    }
  }

  // jobs_prep._RunSetupTools: the fullest invocation first (fewest artifacts left behind).
  const std::string work = work_dir.string();
  const std::vector<std::string> sdist = {"sdist", "--dist-dir", output_dir.string()};
  const std::vector<std::string> build = {"build", "--build-base", work, "--build-temp", work};
  const std::vector<std::string> egg_info = {"egg_info", "--egg-base", work};
  std::vector<std::vector<std::string>> attempts = {{}, {}, {}};
  for (const auto& part : {egg_info, build, sdist}) {
    attempts[0].insert(attempts[0].end(), part.begin(), part.end());
  }
  for (const auto& part : {build, sdist}) {
    attempts[1].insert(attempts[1].end(), part.begin(), part.end());
  }
  attempts[2] = sdist;

  std::string output;
  bool built = false;
  for (const auto& args : attempts) {
    std::vector<std::string> argv = {kPython, setup_py.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto run = RunProcess(argv, root);
    if (!run.ok()) {
      return run.status();
    }
    output = run->output;
    if (run->exit_code == 0) {
      built = true;
      break;
    }
  }
  if (!built) {
    std::string message =
        fmt::format("Packaging of user Python code failed with message:\n\n{}\n\n", output);
    message += generate ? "Try manually writing a setup.py file at your package root and "
                          "rerunning the command."
                        : "Try manually building your Python code by running:\n  $ python "
                          "setup.py sdist\nand providing the output via the `--packages` flag.";
    return Status::InvalidArgument(std::move(message));
  }

  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(output_dir, ec)) {
    files.push_back(entry.path());
  }
  std::ranges::sort(files);
  if (files.empty()) {
    return Status::InvalidArgument(fmt::format("Building [{}] produced no package.", pkg.string()));
  }
  return files;
}

}  // namespace trainyard::cli
