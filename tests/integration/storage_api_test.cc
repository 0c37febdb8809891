// The storage v1 API over real HTTP against the real bucket store: buckets, object metadata,
// downloads, listings and deletes, with GCS's resource and error shapes.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "integration/storage_fixture.h"

namespace trainyard::testing {
namespace {

std::vector<std::string> Names(const nlohmann::json& listing, const char* field) {
  std::vector<std::string> names;
  for (const auto& item : listing.value(field, nlohmann::json::array())) {
    names.push_back(item.is_string() ? item.get<std::string>() : item["name"].get<std::string>());
  }
  return names;
}

TEST_F(StorageApiTest, CreatesGetsListsAndDeletesBuckets) {
  const ClientResponse got = client_.Get("/storage/v1/b/bkt");
  ASSERT_EQ(got.status, 200) << got.body;
  const nlohmann::json bucket = Body(got);
  EXPECT_EQ(bucket["kind"], "storage#bucket");
  EXPECT_EQ(bucket["id"], "bkt");
  EXPECT_EQ(bucket["name"], "bkt");
  EXPECT_EQ(bucket["storageClass"], "STANDARD");
  EXPECT_TRUE(bucket["location"].is_string());
  // gcloud decodes projectNumber as an unsigned integer.
  EXPECT_TRUE(std::ranges::all_of(bucket["projectNumber"].get<std::string>(), ::isdigit));
  EXPECT_TRUE(bucket["timeCreated"].is_string());

  ASSERT_EQ(client_.Post("/storage/v1/b?project=proj", R"({"name":"second"})").status, 200);
  ASSERT_EQ(client_.Post("/storage/v1/b?project=other", R"({"name":"third"})").status, 200);
  const nlohmann::json listed = Body(client_.Get("/storage/v1/b?project=proj"));
  EXPECT_EQ(listed["kind"], "storage#buckets");
  EXPECT_EQ(Names(listed, "items"), (std::vector<std::string>{"bkt", "second"}));

  const ClientResponse again = client_.Post("/storage/v1/b?project=proj", R"({"name":"bkt"})");
  EXPECT_EQ(again.status, 409);
  GcsError(again, "conflict");

  EXPECT_EQ(client_.Send("DELETE", "/storage/v1/b/second").status, 204);
  EXPECT_EQ(client_.Get("/storage/v1/b/second").status, 404);
}

// The Node.js client given STORAGE_EMULATOR_HOST=http://HOST:PORT (as every replica is) calls the
// JSON API at the host's root: /b/… is the same API as /storage/v1/b/….
TEST_F(StorageApiTest, ServesTheJsonApiAtTheHostsRootToo) {
  ASSERT_EQ(client_.Post("/b?project=proj", R"({"name":"rooted"})").status, 200);
  ASSERT_EQ(UploadMedia("dir/a.txt", "alpha", "rooted").status, 200);
  EXPECT_EQ(Names(Body(client_.Get("/b?project=proj")), "items"),
            (std::vector<std::string>{"bkt", "rooted"}));
  EXPECT_EQ(Body(client_.Get("/b/rooted"))["name"], "rooted");
  EXPECT_EQ(Names(Body(client_.Get("/b/rooted/o?prefix=dir/")), "items"),
            (std::vector<std::string>{"dir/a.txt"}));
  const ClientResponse media = client_.Get("/b/rooted/o/dir%2Fa.txt?alt=media");
  EXPECT_EQ(media.status, 200);
  EXPECT_EQ(media.body, "alpha");
  const nlohmann::json described = Body(client_.Get("/b/rooted/o/dir%2Fa.txt"));
  EXPECT_EQ(described["size"], "5");
  // Links still name the documented root.
  EXPECT_NE(described["selfLink"].get<std::string>().find("/storage/v1/b/rooted/o/"),
            std::string::npos);
  EXPECT_EQ(client_.Post("/b/rooted/o/dir%2Fa.txt/rewriteTo/b/bkt/o/copy", "").status, 200);
  EXPECT_EQ(client_.Get("/storage/v1/b/bkt/o/copy?alt=media").body, "alpha");
  EXPECT_EQ(client_.Send("DELETE", "/b/rooted/o/dir%2Fa.txt").status, 204);
  EXPECT_EQ(client_.Get("/b/rooted/o/dir%2Fa.txt").status, 404);
  const ClientResponse unknown = client_.Get("/b/rooted/o?bogus=1");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(client_.Send("DELETE", "/b/rooted").status, 204);
}

// objects.compose (the Node.js client's combine, parallel composite uploads): the sources' bytes
// in order, the destination's resource, and the checks GCS makes.
TEST_F(StorageApiTest, ComposesObjectsInOrder) {
  ASSERT_EQ(UploadMedia("parts/0", "alpha ").status, 200);
  const ClientResponse second = UploadMedia("parts/1", "beta ");
  ASSERT_EQ(second.status, 200);
  const std::string generation = Body(second)["generation"];
  ASSERT_EQ(UploadMedia("parts/2", "gamma").status, 200);
  const nlohmann::json request = {
      {"kind", "storage#composeRequest"},
      {"sourceObjects",
       {{{"name", "parts/0"}},
        {{"name", "parts/1"},
         {"generation", generation},
         {"objectPreconditions", {{"ifGenerationMatch", generation}}}},
        {{"name", "parts/2"}}}},
      {"destination", {{"contentType", "text/plain"}, {"metadata", {{"k", "v"}}}}}};
  const ClientResponse composed =
      client_.Post("/storage/v1/b/bkt/o/whole%2Ftext/compose", request.dump());
  ASSERT_EQ(composed.status, 200) << composed.body;
  EXPECT_EQ(Body(composed)["name"], "whole/text");
  EXPECT_EQ(Body(composed)["size"], "16");
  EXPECT_EQ(Body(composed)["contentType"], "text/plain");
  EXPECT_EQ(Body(composed)["metadata"]["k"], "v");
  EXPECT_EQ(Download("whole/text").body, "alpha beta gamma");
  // At the host's root too, and over a source: the destination may be one of them.
  const nlohmann::json again = {
      {"sourceObjects", {{{"name", "whole/text"}}, {{"name", "parts/0"}}}}};
  ASSERT_EQ(client_.Post("/b/bkt/o/whole%2Ftext/compose", again.dump()).status, 200);
  EXPECT_EQ(Download("whole/text").body, "alpha beta gammaalpha ");

  // A stale source generation is not found, a failed source precondition is 412, a missing
  // source is 404, and the destination's ifGenerationMatch=0 (only if absent) holds it: none of
  // them writes anything.
  nlohmann::json stale = {{"sourceObjects", {{{"name", "parts/0"}, {"generation", "1"}}}}};
  EXPECT_EQ(client_.Post("/storage/v1/b/bkt/o/out/compose", stale.dump()).status, 404);
  nlohmann::json failed = {
      {"sourceObjects",
       {{{"name", "parts/0"}, {"objectPreconditions", {{"ifGenerationMatch", "1"}}}}}}};
  EXPECT_EQ(client_.Post("/storage/v1/b/bkt/o/out/compose", failed.dump()).status, 412);
  nlohmann::json missing = {{"sourceObjects", {{{"name", "nope"}}}}};
  EXPECT_EQ(client_.Post("/storage/v1/b/bkt/o/out/compose", missing.dump()).status, 404);
  EXPECT_EQ(
      client_.Post("/storage/v1/b/bkt/o/whole%2Ftext/compose?ifGenerationMatch=0", again.dump())
          .status,
      412);
  EXPECT_EQ(client_.Get(ObjectPath("out")).status, 404);
  const ClientResponse empty = client_.Post("/storage/v1/b/bkt/o/out/compose", R"({})");
  EXPECT_EQ(empty.status, 400);
  EXPECT_EQ(GcsError(empty, "invalid")["errors"][0]["location"], "sourceObjects");
}

TEST_F(StorageApiTest, RefusesBadBucketRequests) {
  const ClientResponse no_project = client_.Post("/storage/v1/b", R"({"name":"x"})");
  EXPECT_EQ(no_project.status, 400);
  EXPECT_EQ(GcsError(no_project, "invalid")["errors"][0]["location"], "project");
  const ClientResponse bad_name = client_.Post("/storage/v1/b?project=p", R"({"name":"A_B"})");
  EXPECT_EQ(bad_name.status, 400);
  EXPECT_EQ(GcsError(bad_name, "invalid")["errors"][0]["location"], "bucket");
  EXPECT_EQ(client_.Post("/storage/v1/b?project=p", "[]").status, 400);
  ASSERT_EQ(UploadMedia("x", "1").status, 200);
  const ClientResponse not_empty = client_.Send("DELETE", "/storage/v1/b/bkt");
  EXPECT_EQ(not_empty.status, 409);
  GcsError(not_empty, "conflict");
}

TEST_F(StorageApiTest, AnUnknownBucketIsNotFoundInGcsShape) {
  for (const char* target :
       {"/storage/v1/b/nope", "/storage/v1/b/nope/o", "/storage/v1/b/nope/o/x"}) {
    const ClientResponse response = client_.Get(target);
    EXPECT_EQ(response.status, 404) << target;
    EXPECT_EQ(GcsError(response, "notFound")["message"], "The specified bucket does not exist.");
  }
  const ClientResponse upload = UploadMultipart("x", "data", "nope");
  EXPECT_EQ(upload.status, 404);
  GcsError(upload, "notFound");
  EXPECT_FALSE(std::filesystem::exists(server_.dir().path() / "buckets/nope"));
}

TEST_F(StorageApiTest, DescribesAnObjectAsGcsDoes) {
  const ClientResponse uploaded = UploadMedia("dir/hello.txt", "hello");
  ASSERT_EQ(uploaded.status, 200) << uploaded.body;
  for (const std::string& target :
       {ObjectPath("dir/hello.txt"), std::string("/storage/v1/b/bkt/o/dir/hello.txt")}) {
    const ClientResponse response = client_.Get(target + "?alt=json&projection=noAcl");
    ASSERT_EQ(response.status, 200) << target << ": " << response.body;
    const nlohmann::json object = Body(response);
    EXPECT_EQ(object["kind"], "storage#object");
    EXPECT_EQ(object["bucket"], "bkt");
    EXPECT_EQ(object["name"], "dir/hello.txt");
    EXPECT_EQ(object["size"], "5");
    EXPECT_EQ(object["md5Hash"], "XUFAKrxLKna5cZ2REBfFkg==");
    EXPECT_EQ(object["crc32c"], "mnG7TA==");
    EXPECT_EQ(object["contentType"], "application/octet-stream");
    EXPECT_EQ(object["metageneration"], "1");
    EXPECT_EQ(object["id"], "bkt/dir/hello.txt/" + object["generation"].get<std::string>());
    const std::string base = "http://127.0.0.1:" + std::to_string(server_.port());
    EXPECT_EQ(object["selfLink"], base + "/storage/v1/b/bkt/o/dir%2Fhello.txt");
    EXPECT_EQ(object["mediaLink"], base +
                                       "/download/storage/v1/b/bkt/o/dir%2Fhello.txt?generation=" +
                                       object["generation"].get<std::string>() + "&alt=media");
    EXPECT_EQ(object["generation"], Body(uploaded)["generation"]);
  }
  const ClientResponse old = client_.Get(ObjectPath("dir/hello.txt") + "?generation=1");
  EXPECT_EQ(old.status, 404);
  const ClientResponse folder = client_.Get(ObjectPath("dir/"));  // gcloud ls probes this
  EXPECT_EQ(folder.status, 404);
  GcsError(folder, "notFound");
}

TEST_F(StorageApiTest, DownloadsTheExactBytes) {
  std::string data;
  for (int i = 0; i < (3 << 20) / 7; ++i) {
    data += std::to_string(i % 10) + std::string("\r\n\0\xff", 4) + static_cast<char>(i);
  }
  ASSERT_EQ(UploadMedia("big.bin", data).status, 200);
  const ClientResponse response = Download("big.bin");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.body.size(), data.size());
  EXPECT_TRUE(response.body == data);
  EXPECT_EQ(response.Header("content-type"), "application/octet-stream");
  const nlohmann::json object = Body(client_.Get(ObjectPath("big.bin")));
  EXPECT_EQ(response.Header("x-goog-hash"), "crc32c=" + object["crc32c"].get<std::string>() +
                                                ",md5=" + object["md5Hash"].get<std::string>());
  const ClientResponse via_download_path =
      client_.Get("/download/storage/v1/b/bkt/o/big.bin?alt=media");
  EXPECT_TRUE(via_download_path.body == data);
}

TEST_F(StorageApiTest, DownloadsARange) {
  ASSERT_EQ(UploadMedia("r", "0123456789").status, 200);
  const ClientResponse part =
      client_.Send("GET", ObjectPath("r") + "?alt=media", "", {{"Range", "bytes=2-4"}});
  EXPECT_EQ(part.status, 206);
  EXPECT_EQ(part.body, "234");
  EXPECT_EQ(part.Header("content-range"), "bytes 2-4/10");
  const ClientResponse tail =
      client_.Send("GET", ObjectPath("r") + "?alt=media", "", {{"Range", "bytes=-3"}});
  EXPECT_EQ(tail.body, "789");
  const ClientResponse open_end =
      client_.Send("GET", ObjectPath("r") + "?alt=media", "", {{"Range", "bytes=8-"}});
  EXPECT_EQ(open_end.body, "89");
  const ClientResponse past =
      client_.Send("GET", ObjectPath("r") + "?alt=media", "", {{"Range", "bytes=10-"}});
  EXPECT_EQ(past.status, 416);
  EXPECT_EQ(past.Header("content-range"), "bytes */10");
}

TEST_F(StorageApiTest, ListsWithPrefixDelimiterAndPages) {
  for (const char* name : {"a/1", "a/2", "b", "c/d/e"}) {
    ASSERT_EQ(UploadMedia(name, name).status, 200);
  }
  const nlohmann::json top = Body(client_.Get("/storage/v1/b/bkt/o?delimiter=%2F&alt=json"));
  EXPECT_EQ(top["kind"], "storage#objects");
  EXPECT_EQ(Names(top, "items"), (std::vector<std::string>{"b"}));
  EXPECT_EQ(Names(top, "prefixes"), (std::vector<std::string>{"a/", "c/"}));
  EXPECT_EQ(top["items"][0]["size"], "1");

  const nlohmann::json in_a = Body(client_.Get("/storage/v1/b/bkt/o?delimiter=/&prefix=a/"));
  EXPECT_EQ(Names(in_a, "items"), (std::vector<std::string>{"a/1", "a/2"}));
  EXPECT_FALSE(in_a.contains("prefixes"));

  std::vector<std::string> paged;
  std::string token;
  for (int page = 0; page < 10; ++page) {
    const nlohmann::json listing =
        Body(client_.Get("/storage/v1/b/bkt/o?maxResults=1" +
                         (token.empty() ? "" : "&pageToken=" + server::PercentEncode(token))));
    for (const std::string& name : Names(listing, "items")) {
      paged.push_back(name);
    }
    token = listing.value("nextPageToken", "");
    if (token.empty()) {
      break;
    }
  }
  EXPECT_EQ(paged, (std::vector<std::string>{"a/1", "a/2", "b", "c/d/e"}));

  const ClientResponse bad_token = client_.Get("/storage/v1/b/bkt/o?pageToken=%21%21");
  EXPECT_EQ(bad_token.status, 400);
  EXPECT_EQ(GcsError(bad_token, "invalid")["errors"][0]["location"], "pageToken");
}

TEST_F(StorageApiTest, ListsFilesWrittenByPlainFileIo) {
  const auto dir = server_.dir().path() / "buckets/bkt/job/out";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "model.txt") << "hello";
  const nlohmann::json listing = Body(client_.Get("/storage/v1/b/bkt/o?prefix=job/"));
  ASSERT_EQ(Names(listing, "items"), (std::vector<std::string>{"job/out/model.txt"}));
  EXPECT_EQ(listing["items"][0]["md5Hash"], "XUFAKrxLKna5cZ2REBfFkg==");
  EXPECT_EQ(Download("job/out/model.txt").body, "hello");
}

TEST_F(StorageApiTest, DeletesObjects) {
  ASSERT_EQ(UploadMedia("gone", "x").status, 200);
  EXPECT_EQ(client_.Send("DELETE", ObjectPath("gone")).status, 204);
  const ClientResponse missing = client_.Get(ObjectPath("gone"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(GcsError(missing, "notFound")["message"], "No such object: bkt/gone");
  EXPECT_EQ(client_.Send("DELETE", ObjectPath("gone")).status, 404);
}

TEST_F(StorageApiTest, RewritesObjectsAcrossBuckets) {
  ASSERT_EQ(client_.Post("/storage/v1/b?project=proj", R"({"name":"dest"})").status, 200);
  ASSERT_EQ(UploadMedia("dir/src.txt", "payload").status, 200);
  const ClientResponse response = client_.Post(
      "/storage/v1/b/bkt/o/dir%2Fsrc.txt/rewriteTo/b/dest/o/a%2Fb%2Fcopy.txt?alt=json", "{}");
  ASSERT_EQ(response.status, 200) << response.body;
  const nlohmann::json rewrite = Body(response);
  EXPECT_EQ(rewrite["kind"], "storage#rewriteResponse");
  EXPECT_EQ(rewrite["done"], true);
  EXPECT_EQ(rewrite["objectSize"], "7");
  EXPECT_EQ(rewrite["resource"]["name"], "a/b/copy.txt");
  EXPECT_EQ(rewrite["resource"]["bucket"], "dest");
  EXPECT_EQ(client_.Get("/storage/v1/b/dest/o/a%2Fb%2Fcopy.txt?alt=media").body, "payload");
  const ClientResponse escape =
      client_.Post("/storage/v1/b/bkt/o/dir%2Fsrc.txt/rewriteTo/b/dest/o/..%2Fbkt%2Fx", "{}");
  EXPECT_EQ(escape.status, 400);
}

TEST_F(StorageApiTest, AnswersWhatGcloudAsksBeforeRemovingABucket) {
  const nlohmann::json layout = Body(client_.Get("/storage/v1/b/bkt/storageLayout?alt=json"));
  EXPECT_EQ(layout["kind"], "storage#storageLayout");
  EXPECT_EQ(layout["hierarchicalNamespace"]["enabled"], false);
  const nlohmann::json folders =
      Body(client_.Get("/storage/v1/b/bkt/managedFolders?alt=json&pageSize=1000"));
  EXPECT_EQ(folders["kind"], "storage#managedFolders");
  EXPECT_FALSE(folders.contains("items"));
  EXPECT_EQ(client_.Get("/storage/v1/b/nope/storageLayout").status, 404);
  EXPECT_EQ(client_.Get("/storage/v1/b/nope/managedFolders").status, 404);
}

struct EscapeCase {
  std::string name;
  std::string method;
  std::string target;
};

class EscapeTest : public StorageApiTest, public ::testing::WithParamInterface<EscapeCase> {};

TEST_P(EscapeTest, IsRefusedAndWritesNothing) {
  std::filesystem::create_directories(server_.dir().path() / "buckets/other");
  const std::vector<std::string> before = Tree();
  const ClientResponse response =
      client_.Send(GetParam().method, GetParam().target, GetParam().method == "GET" ? "" : "data",
                   {{"Content-Type", "application/octet-stream"}});
  EXPECT_EQ(response.status, 400) << response.body;
  EXPECT_EQ(Tree(), before);
}

INSTANTIATE_TEST_SUITE_P(
    Names, EscapeTest,
    ::testing::Values(
        EscapeCase{"ParentInName", "POST",
                   "/upload/storage/v1/b/bkt/o?uploadType=media&name=..%2Fother%2Fx"},
        EscapeCase{"AbsoluteName", "POST",
                   "/upload/storage/v1/b/bkt/o?uploadType=media&name=%2Ftmp%2Fx"},
        EscapeCase{"NulInName", "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=a%00b"},
        EscapeCase{"DotSegment", "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=a/./b"},
        EscapeCase{"ParentBucket", "POST", "/upload/storage/v1/b/../o?uploadType=media&name=x"},
        EscapeCase{"EncodedParentBucket", "POST",
                   "/upload/storage/v1/b/%2E%2E/o?uploadType=media&name=x"},
        EscapeCase{"ResumableParent", "POST",
                   "/upload/storage/v1/b/bkt/o?uploadType=resumable&name=a/../../x"},
        EscapeCase{"ReadParent", "GET", "/storage/v1/b/bkt/o/..%2F..%2Fstorage.db?alt=media"},
        EscapeCase{"ReadRawParent", "GET", "/storage/v1/b/bkt/o/%2e%2e/other?alt=media"},
        EscapeCase{"ReadAbsolute", "GET", "/storage/v1/b/bkt/o/%2Fetc%2Fpasswd?alt=media"},
        EscapeCase{"ReadNul", "GET", "/storage/v1/b/bkt/o/a%00b"},
        EscapeCase{"DeleteParent", "DELETE", "/storage/v1/b/bkt/o/..%2Fother"}),
    [](const auto& tc) { return tc.param.name; });

struct ParamsCase {
  std::string name;
  std::string method;
  std::string target;  // on an object "obj" holding "data"
  int status;
};

// objects.list's matchGlob, startOffset and endOffset select names before a page is counted
// (docs/reference/ai-platform-training.md §11.1).
TEST_F(StorageApiTest, ListFiltersByGlobAndOffsets) {
  for (const char* name : {"a.txt", "b/c.txt", "b/d.bin", "e.bin"}) {
    ASSERT_EQ(UploadMedia(name, name).status, 200) << name;
  }
  auto names = [this](const std::string& query) {
    const ClientResponse response = client_.Send("GET", "/storage/v1/b/bkt/o?" + query);
    EXPECT_EQ(response.status, 200) << query << ": " << response.body;
    std::vector<std::string> out;
    for (const auto& item : Body(response).value("items", nlohmann::json::array())) {
      out.push_back(item["name"].get<std::string>());
    }
    return out;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(names("matchGlob=**.txt"), (Names{"a.txt", "b/c.txt"}));
  EXPECT_EQ(names("matchGlob=*.bin"), (Names{"e.bin"}));
  EXPECT_EQ(names("startOffset=b/&endOffset=e"), (Names{"b/c.txt", "b/d.bin"}));
  EXPECT_EQ(names("matchGlob=**.bin&maxResults=1"), (Names{"b/d.bin"}));
  const ClientResponse bad = client_.Send("GET", "/storage/v1/b/bkt/o?matchGlob=%7Ba");
  ASSERT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(Body(bad)["error"]["errors"][0]["location"], "matchGlob") << bad.body;
}

class StandardParamsTest : public StorageApiTest,
                           public ::testing::WithParamInterface<ParamsCase> {};

// What the client libraries send besides a method's own parameters is accepted as GCS accepts
// it; a parameter that would change what the call means is refused.
TEST_P(StandardParamsTest, AreAcceptedUnlessTheyChangeMeaning) {
  ASSERT_EQ(UploadMedia("obj", "data").status, 200);
  const ParamsCase& c = GetParam();
  const ClientResponse response = client_.Send(c.method, c.target);
  EXPECT_EQ(response.status, c.status) << response.body;
}

INSTANTIATE_TEST_SUITE_P(
    Requests, StandardParamsTest,
    ::testing::Values(
        ParamsCase{"GetWithSystemParams", "GET",
                   "/storage/v1/b/bkt/o/obj?alt=json&prettyPrint=false&fields=name%2Csize"
                   "&quotaUser=u&userProject=p&projection=full",
                   200},
        ParamsCase{"ListWithFields", "GET",
                   "/storage/v1/b/bkt/o?fields=items(name)%2CnextPageToken&prettyPrint=true", 200},
        ParamsCase{"DeleteWithForce", "DELETE", "/storage/v1/b/bkt/o/obj?force=true&userProject=p",
                   204},
        ParamsCase{"MediaUploadWithUserProject", "POST",
                   "/upload/storage/v1/b/bkt/o?uploadType=media&name=x&userProject=p"
                   "&prettyPrint=false&kmsKeyName=k",
                   200},
        // What the Node client's deleteFiles({prefix, force: true}) sends to both methods.
        ParamsCase{"ListWithForce", "GET", "/storage/v1/b/bkt/o?prefix=o&force=true", 200},
        ParamsCase{"DeleteWithListingParams", "DELETE",
                   "/storage/v1/b/bkt/o/obj?prefix=o&matchGlob=o*&force=true", 204},
        ParamsCase{"ListWithMalformedGlob", "GET", "/storage/v1/b/bkt/o?matchGlob=%5Bab", 400},
        ParamsCase{"ListWithFilter", "GET", "/storage/v1/b/bkt/o?filter=x", 400},
        ParamsCase{"GetSoftDeleted", "GET", "/storage/v1/b/bkt/o/obj?softDeleted=true", 400}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::testing
