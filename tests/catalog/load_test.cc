// Catalog::Load rejects broken documents with an INVALID_ARGUMENT that names the file and entry.
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/data_files.h"

namespace trainyard::catalog {
namespace {

using nlohmann::json;
using Files = std::vector<std::pair<std::string, std::string>>;

// The source data with `file` replaced by `mutate` applied to its parsed JSON.
Files WithEdit(const std::string& file, const std::function<void(json&)>& mutate) {
  Files files = testing::ReadDataFiles();
  for (auto& [name, text] : files) {
    if (name == file) {
      json doc = json::parse(text);
      mutate(doc);
      text = doc.dump();
    }
  }
  return files;
}

json& Entry(json& doc, const std::string& array, const std::string& key, const std::string& value) {
  for (json& entry : doc[array]) {
    if (entry[key] == value) {
      return entry;
    }
  }
  ADD_FAILURE() << "no " << array << " entry with " << key << " = " << value;
  return doc;
}

TEST(CatalogLoad, AcceptsTheSourceFilesAndPaths) {
  Files files = testing::ReadDataFiles();
  for (auto& [name, text] : files) {
    name.insert(0, "/etc/trainyard/catalog/");
  }
  Result<Catalog> catalog = Catalog::Load(files);
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  EXPECT_NE(catalog->FindMachineType("n1-standard-4"), nullptr);
}

struct BrokenCase {
  std::string name;  // test name
  std::string file;
  std::function<void(json&)> mutate;
  std::vector<std::string> expected;  // substrings of the error message

  friend void PrintTo(const BrokenCase& c, std::ostream* os) { *os << c.name; }
};

class BrokenDocumentTest : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenDocumentTest, IsRejectedNamingFileAndEntry) {
  const BrokenCase& c = GetParam();
  Result<Catalog> catalog = Catalog::Load(WithEdit(c.file, c.mutate));
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().code(), Code::kInvalidArgument);
  for (const std::string& part : c.expected) {
    EXPECT_NE(catalog.status().message().find(part), std::string::npos)
        << "\"" << part << "\" not in: " << catalog.status().message();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Documents, BrokenDocumentTest,
    ::testing::Values(
        BrokenCase{"UnknownAcceleratorInZone",
                   "regions.json",
                   [](json& d) {
                     Entry(d, "regions", "name", "us-east4")["zones"][0]["accelerators"].push_back(
                         "NVIDIA_TESLA_K40");
                   },
                   {"regions.json", "us-east4-b", "NVIDIA_TESLA_K40"}},
        BrokenCase{"DuplicateMachineType",
                   "machine_types.json",
                   [](json& d) {
                     d["machine_types"].push_back(
                         Entry(d, "machine_types", "name", "n1-highmem-8"));
                   },
                   {"machine_types.json", "n1-highmem-8", "duplicate"}},
        BrokenCase{"DuplicateZone",
                   "regions.json",
                   [](json& d) {
                     json& zones = Entry(d, "regions", "name", "us-central1")["zones"];
                     zones.push_back(zones[0]);
                   },
                   {"regions.json", "us-central1-a", "duplicate"}},
        BrokenCase{"DuplicateAcceleratorFlag",
                   "accelerators.json",
                   [](json& d) {
                     Entry(d, "accelerators", "name", "NVIDIA_L4")["flag_name"] = "nvidia-h200";
                   },
                   {"accelerators.json", "NVIDIA_L4", "flag_name"}},
        BrokenCase{"CellNamesUnknownMachineType",
                   "accelerator_counts.json",
                   [](json& d) { d["rows"][0]["machine_type"] = "n1-standard-3"; },
                   {"accelerator_counts.json", "n1-standard-3"}},
        BrokenCase{"CellNamesUnknownAccelerator",
                   "accelerator_counts.json",
                   [](json& d) { d["additional_rows"][1]["counts"]["NVIDIA_B200"] = {8}; },
                   {"accelerator_counts.json", "a2-ultragpu-1g", "NVIDIA_B200"}},
        BrokenCase{"SeedRowOutsideTheColumns",
                   "accelerator_counts.json",
                   [](json& d) { d["rows"][0]["counts"]["TPU_V2"] = {8}; },
                   {"accelerator_counts.json", "rows[0]", "n1-standard-4", "TPU_V2"}},
        BrokenCase{"DuplicateTableRow",
                   "accelerator_counts.json",
                   [](json& d) { d["rows"].push_back(d["rows"][2]); },
                   {"accelerator_counts.json", "n1-standard-16", "duplicate"}},
        BrokenCase{"BuiltinOnlyOnN1",
                   "accelerator_counts.json",
                   [](json& d) { d["rows"][0]["counts"]["NVIDIA_TESLA_A100"] = {1}; },
                   {"accelerator_counts.json", "n1-standard-4", "NVIDIA_TESLA_A100"}},
        BrokenCase{"CountNotAllowed",
                   "accelerator_counts.json",
                   [](json& d) {
                     d["rows"][0]["counts"]["NVIDIA_TESLA_T4"] = {1, 2, 3};
                   },
                   {"accelerator_counts.json", "n1-standard-4", "count 3"}},
        BrokenCase{"UnknownBuiltinAccelerator",
                   "machine_types.json",
                   [](json& d) {
                     Entry(d, "machine_types", "name", "standard_gpu")["builtin_accelerator"] =
                         "NVIDIA_TESLA_K40";
                   },
                   {"machine_types.json", "standard_gpu", "NVIDIA_TESLA_K40"}},
        BrokenCase{"MisspeltField",
                   "machine_types.json",
                   [](json& d) {
                     json& entry = Entry(d, "machine_types", "name", "n1-standard-8");
                     entry["vcpu"] = entry["vcpus"];
                     entry.erase("vcpus");
                   },
                   {"machine_types.json", "n1-standard-8", "vcpu"}},
        BrokenCase{
            "WrongType",
            "machine_types.json",
            [](json& d) { Entry(d, "machine_types", "name", "n1-standard-8")["vcpus"] = "8"; },
            {"machine_types.json", "n1-standard-8", "vcpus", "integer"}},
        BrokenCase{"FlagSpelling",
                   "accelerators.json",
                   [](json& d) {
                     Entry(d, "accelerators", "name", "NVIDIA_TESLA_T4")["flag_name"] = "tesla-t4";
                   },
                   {"accelerators.json", "NVIDIA_TESLA_T4", "nvidia-tesla-t4"}},
        BrokenCase{"AmbiguousDeviceName",
                   "accelerators.json",
                   [](json& d) {
                     Entry(d, "accelerators", "name", "NVIDIA_A100_80GB")["device_name_patterns"]
                         .push_back("A100");
                   },
                   {"accelerators.json", "NVIDIA_A100_80GB", "\"A100\"", "A100-SXM4-40GB"}},
        BrokenCase{"CapAtUnallowedCount",
                   "accelerators.json",
                   [](json& d) {
                     Entry(d, "accelerators", "name", "NVIDIA_TESLA_P100")["caps"][0]["count"] = 8;
                   },
                   {"accelerators.json", "NVIDIA_TESLA_P100", "caps[0]"}},
        BrokenCase{"UnknownTierMachine",
                   "scale_tiers.json",
                   [](json& d) {
                     Entry(d, "scale_tiers", "name", "PREMIUM_1")["parameter_server_type"] =
                         "huge_model";
                   },
                   {"scale_tiers.json", "PREMIUM_1", "huge_model"}},
        BrokenCase{"DuplicateRuntime",
                   "runtime_versions.json",
                   [](json& d) { d["runtime_versions"].push_back(d["runtime_versions"][3]); },
                   {"runtime_versions.json", "2.1", "duplicate"}},
        BrokenCase{"ZoneOfAnotherRegion",
                   "regions.json",
                   [](json& d) {
                     Entry(d, "regions", "name", "us-west2")["zones"][0]["name"] = "us-west1-z";
                   },
                   {"regions.json", "us-west2", "us-west1-z"}},
        BrokenCase{"MissingArray",
                   "runtime_versions.json",
                   [](json& d) { d.erase("runtime_versions"); },
                   {"runtime_versions.json", "runtime_versions", "missing"}}),
    [](const auto& tc) { return tc.param.name; });

class MalformedJsonTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MalformedJsonTest, NamesTheFile) {
  Files files = testing::ReadDataFiles();
  for (auto& [name, text] : files) {
    if (name == GetParam()) {
      text = text.substr(0, text.size() / 2);
    }
  }
  Result<Catalog> catalog = Catalog::Load(files);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().code(), Code::kInvalidArgument);
  EXPECT_NE(catalog.status().message().find(GetParam() + ": malformed JSON"), std::string::npos)
      << catalog.status().message();
}

INSTANTIATE_TEST_SUITE_P(EveryFile, MalformedJsonTest,
                         ::testing::ValuesIn(testing::DataFileNames()), [](const auto& tc) {
                           std::string name = tc.param.substr(0, tc.param.find('.'));
                           std::erase(name, '_');
                           return name;
                         });

TEST(CatalogLoad, RejectsAMissingFile) {
  Files files = testing::ReadDataFiles();
  std::erase_if(files, [](const auto& file) { return file.first == "regions.json"; });
  Result<Catalog> catalog = Catalog::Load(files);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().message(), "regions.json: missing from the catalog");
}

TEST(CatalogLoad, RejectsAFileGivenTwice) {
  Files files = testing::ReadDataFiles();
  files.push_back(files.front());
  Result<Catalog> catalog = Catalog::Load(files);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().message(), "machine_types.json: given twice to the catalog");
}

TEST(CatalogLoad, RejectsAnUnknownFile) {
  Files files = testing::ReadDataFiles();
  files.emplace_back("zones.json", "{}");
  Result<Catalog> catalog = Catalog::Load(files);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().message(), "zones.json: not a catalog data file");
}

}  // namespace
}  // namespace trainyard::catalog
