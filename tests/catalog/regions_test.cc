// Regions and zones: the seeds' GPU and TPU region lists, docs/reference/ai-platform-training.md
// §5.2's per-region types, and §5.3's us-central1 zone model that makes the seed's T4 + K80 + P100
// job impossible.
#include <algorithm>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"

namespace trainyard::catalog {
namespace {

using NameSet = std::set<std::string>;

// Accelerators of the ml v1 enum offered anywhere in `region`.
NameSet ApiAccelerators(const Catalog& catalog, const Region& region) {
  NameSet names;
  for (const Zone& zone : region.zones) {
    for (const std::string& name : zone.accelerators) {
      if (catalog.FindAccelerator(name)->in_api_enum) {
        names.insert(name);
      }
    }
  }
  return names;
}

bool ZoneOffersAll(const Zone& zone, const NameSet& wanted) {
  return std::ranges::all_of(
      wanted, [&](const std::string& name) { return std::ranges::count(zone.accelerators, name); });
}

TEST(Regions, GpuRegionsAreTheSeedsList) {
  const NameSet seed = {"us-west1",           "us-west2",
                        "us-central1",        "us-east1",
                        "us-east4",           "northamerica-northeast1",
                        "southamerica-east1", "europe-west1",
                        "europe-west2",       "europe-west4",
                        "asia-south1",        "asia-southeast1",
                        "asia-east1",         "asia-northeast1",
                        "asia-northeast3",    "australia-southeast1"};
  NameSet with_gpus;
  for (const Region& region : Catalog::Builtin().regions()) {
    if (region.has_gpus) {
      with_gpus.insert(region.name);
    }
  }
  EXPECT_EQ(with_gpus, seed);
}

TEST(Regions, TpuRegionsAreUsCentral1AndEuropeWest4) {
  NameSet with_tpus;
  for (const Region& region : Catalog::Builtin().regions()) {
    if (region.has_tpus) {
      with_tpus.insert(region.name);
    }
  }
  EXPECT_EQ(with_tpus, (NameSet{"us-central1", "europe-west4"}));
}

TEST(Regions, CpuOnlyRegionsExistWithoutAccelerators) {
  for (const char* name : {"europe-north1", "europe-west3", "europe-west6", "asia-east2",
                           "asia-northeast2", "us-west3"}) {
    const Region* region = Catalog::Builtin().FindRegion(name);
    ASSERT_NE(region, nullptr) << name;
    EXPECT_FALSE(region->has_gpus) << name;
    EXPECT_FALSE(region->has_tpus) << name;
    ASSERT_FALSE(region->zones.empty()) << name;
  }
}

struct RegionCase {
  std::string name;  // test name
  std::string region;
  NameSet accelerators;  // docs/reference/ai-platform-training.md §5.2, API enum names

  friend void PrintTo(const RegionCase& c, std::ostream* os) { *os << c.name; }
};

class RegionGpuTest : public ::testing::TestWithParam<RegionCase> {};

TEST_P(RegionGpuTest, OffersTheReferencesTypes) {
  const Region* region = Catalog::Builtin().FindRegion(GetParam().region);
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(ApiAccelerators(Catalog::Builtin(), *region), GetParam().accelerators);
  for (const Zone& zone : region->zones) {
    EXPECT_TRUE(zone.name.starts_with(region->name + "-")) << zone.name;
  }
}

const std::string kK80 = "NVIDIA_TESLA_K80";
const std::string kP4 = "NVIDIA_TESLA_P4";
const std::string kP100 = "NVIDIA_TESLA_P100";
const std::string kT4 = "NVIDIA_TESLA_T4";
const std::string kV100 = "NVIDIA_TESLA_V100";
const std::string kA100 = "NVIDIA_TESLA_A100";

INSTANTIATE_TEST_SUITE_P(
    Reference, RegionGpuTest,
    ::testing::Values(RegionCase{"UsCentral1",
                                 "us-central1",
                                 {kK80, kP4, kP100, kT4, kV100, kA100, "TPU_V2", "TPU_V3"}},
                      RegionCase{"UsEast1", "us-east1", {kK80, kP100, kT4, kV100}},
                      RegionCase{"UsEast4", "us-east4", {kP4, kT4}},
                      RegionCase{"UsWest1", "us-west1", {kK80, kP100, kT4, kV100}},
                      RegionCase{"UsWest2", "us-west2", {kP4, kT4}},
                      RegionCase{"NorthamericaNortheast1", "northamerica-northeast1", {kP4}},
                      RegionCase{"SouthamericaEast1", "southamerica-east1", {kT4}},
                      RegionCase{"EuropeWest1", "europe-west1", {kK80, kP100}},
                      RegionCase{"EuropeWest2", "europe-west2", {kT4}},
                      RegionCase{"EuropeWest4",
                                 "europe-west4",
                                 {kP4, kP100, kT4, kV100, kA100, "TPU_V2", "TPU_V3"}},
                      RegionCase{"AsiaEast1", "asia-east1", {kK80, kP100, kT4, kV100}},
                      RegionCase{"AsiaNortheast1", "asia-northeast1", {kT4, kA100}},
                      RegionCase{"AsiaNortheast3", "asia-northeast3", {kT4, kA100}},
                      RegionCase{"AsiaSouth1", "asia-south1", {kT4}},
                      RegionCase{"AsiaSoutheast1", "asia-southeast1", {kP4, kT4, kA100}},
                      RegionCase{"AustraliaSoutheast1", "australia-southeast1", {kP4, kP100, kT4}}),
    [](const auto& tc) { return tc.param.name; });

TEST(UsCentral1Zones, NoZoneOffersT4K80AndP100Together) {
  // GPU seed: master on T4, parameter servers on K80 and workers on P100 cannot run in
  // us-central1, although each type is available there.
  const Region* region = Catalog::Builtin().FindRegion("us-central1");
  ASSERT_NE(region, nullptr);
  for (const Zone& zone : region->zones) {
    EXPECT_FALSE(ZoneOffersAll(zone, {kT4, kK80, kP100})) << zone.name;
  }
  for (const std::string& type : {kT4, kK80, kP100}) {
    EXPECT_TRUE(std::ranges::any_of(region->zones, [&](const Zone& zone) {
      return ZoneOffersAll(zone, {type});
    })) << type;
  }
  EXPECT_TRUE(std::ranges::any_of(region->zones, [&](const Zone& zone) {
    return ZoneOffersAll(zone, {kT4, kV100, kA100});
  }));
}

// The zones of `region` that offer `accelerator`.
NameSet ZonesOffering(const std::string& accelerator) {
  NameSet zones;
  for (const Region& region : Catalog::Builtin().regions()) {
    for (const Zone& zone : region.zones) {
      if (ZoneOffersAll(zone, {accelerator})) {
        zones.insert(zone.name);
      }
    }
  }
  return zones;
}

TEST(TpuZones, AreTheCloudTpuZones) {
  // docs/reference/ai-platform-training.md §5.2: v2-8 in us-central1-b/-c, v3-8 in
  // us-central1-a/-b, both in europe-west4-a.
  EXPECT_EQ(ZonesOffering("TPU_V2"), (NameSet{"us-central1-b", "us-central1-c", "europe-west4-a"}));
  EXPECT_EQ(ZonesOffering("TPU_V3"), (NameSet{"us-central1-a", "us-central1-b", "europe-west4-a"}));
}

TEST(ExtensionAccelerators, AreOfferedInTheDocumentedZones) {
  const NameSet expected = {"us-central1-a",  "us-central1-b",  "us-central1-c",
                            "europe-west4-a", "europe-west4-b", "asia-southeast1-b"};
  for (const char* name : {"NVIDIA_A100_80GB", "NVIDIA_H100_80GB", "NVIDIA_H200", "NVIDIA_L4"}) {
    EXPECT_EQ(ZonesOffering(name), expected) << name;
  }
}

TEST(UsEast1Zones, FollowTheComputeEngineEvidence) {
  EXPECT_EQ(ZonesOffering(kV100).count("us-east1-c"), 1u);
  EXPECT_EQ(ZonesOffering(kV100).count("us-east1-d"), 0u);
  EXPECT_EQ(ZonesOffering(kK80).count("us-east1-d"), 1u);
}

}  // namespace
}  // namespace trainyard::catalog
