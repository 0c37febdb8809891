#include "store/token_store.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "access/principal.h"
#include "base/time_format.h"
#include "fakes/temp_dir.h"

namespace trainyard::store {
namespace {

using access::Grant;
using access::Role;

class TokenStoreTest : public ::testing::Test {
 protected:
  TokenStoreTest() {
    auto opened = OpenTokenStore(path_);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = *std::move(opened);
  }

  TokenInfo Info(std::string name, std::vector<Grant> grants) const {
    return {.name = std::move(name), .grants = std::move(grants), .create_time = created_};
  }

  testing::TempDir dir_;
  std::string path_ = TokenStorePath(dir_.path().string());
  WallTime created_ = *ParseTimestamp("2026-03-04T05:06:07Z");
  std::unique_ptr<TokenStore> store_;
};

TEST_F(TokenStoreTest, CreatesRandomSecretsAndFindsTheirTokens) {
  TokenInfo alice = Info("alice", {{Role::kEditor, "p"}, {Role::kEditor, "q"}});
  alice.expire_time = *ParseTimestamp("2027-01-01T00:00:00Z");
  const Result<std::string> secret = store_->Create(alice);
  ASSERT_TRUE(secret.ok()) << secret.status().ToString();
  EXPECT_TRUE(access::IsTokenSyntax(*secret)) << *secret;
  const Result<std::string> other = store_->Create(Info("bob", {{Role::kAdmin, ""}}));
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*secret, *other);

  const Result<TokenInfo> found = store_->Find(*secret);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->name, "alice");
  EXPECT_EQ(found->grants, alice.grants);
  EXPECT_EQ(found->create_time, created_);
  EXPECT_EQ(found->expire_time, alice.expire_time);
  EXPECT_EQ(store_->Find(*other)->name, "bob");
  EXPECT_EQ(store_->Find(*other)->expire_time, std::nullopt);
  EXPECT_EQ(store_->Find("ty_" + std::string(43, 'A')).status().code(), Code::kNotFound);
}

TEST_F(TokenStoreTest, SecretsAreRandomEnoughToNeverRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const Result<std::string> secret =
        store_->Create(Info("t" + std::to_string(i), {{Role::kViewer, "p"}}));
    ASSERT_TRUE(secret.ok());
    EXPECT_TRUE(seen.insert(*secret).second);
  }
}

TEST_F(TokenStoreTest, KeepsOnlyAHashOfTheSecretInAFileOnlyItsOwnerReads) {
  const Result<std::string> secret = store_->Create(Info("alice", {{Role::kViewer, "p"}}));
  ASSERT_TRUE(secret.ok());
  store_.reset();  // checkpoints the WAL into the file
  std::string bytes;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    std::ifstream in(entry.path(), std::ios::binary);
    bytes.append(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_NE(bytes.find("alice"), std::string::npos);
  EXPECT_EQ(bytes.find(secret->substr(3)), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
}

TEST_F(TokenStoreTest, NamesAreUnique) {
  ASSERT_TRUE(store_->Create(Info("alice", {{Role::kViewer, "p"}})).ok());
  const Result<std::string> again = store_->Create(Info("alice", {{Role::kEditor, "q"}}));
  EXPECT_EQ(again.status().code(), Code::kAlreadyExists);
  EXPECT_NE(again.status().message().find("alice"), std::string::npos);
  EXPECT_EQ(store_->List()->size(), 1U);
}

TEST_F(TokenStoreTest, ListsByNameAndRevokes) {
  const Result<std::string> zed = store_->Create(Info("zed", {{Role::kViewer, "p"}}));
  ASSERT_TRUE(store_->Create(Info("amy", {{Role::kAdmin, ""}})).ok());
  const Result<std::vector<TokenInfo>> listed = store_->List();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2U);
  EXPECT_EQ((*listed)[0].name, "amy");
  EXPECT_EQ((*listed)[1].name, "zed");

  EXPECT_TRUE(store_->Revoke("zed").ok());
  EXPECT_EQ(store_->Find(*zed).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->Revoke("zed").code(), Code::kNotFound);
  EXPECT_EQ(store_->List()->size(), 1U);
}

TEST_F(TokenStoreTest, AnotherProcessSeesARevocationAtOnce) {
  const Result<std::string> secret = store_->Create(Info("alice", {{Role::kViewer, "p"}}));
  ASSERT_TRUE(secret.ok());
  auto other = OpenTokenStore(path_);  // as `trainyard auth revoke` beside a running server
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(store_->Find(*secret).ok());
  ASSERT_TRUE((*other)->Revoke("alice").ok());
  EXPECT_EQ(store_->Find(*secret).status().code(), Code::kNotFound);
}

TEST_F(TokenStoreTest, AnUnopenablePathIsAClearError) {
  const auto opened = OpenTokenStore(dir_.File("missing/dir/tokens.db"));
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("missing/dir/tokens.db"), std::string::npos);
}

}  // namespace
}  // namespace trainyard::store
