// `kubectl auth can-i` (api/kube/reviews.h): its answers come from the access table, and for
// every Kubernetes route, role and namespace they are what AccessControl::Authorize decides for
// the request itself.
#include "api/kube/reviews.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "access/principal.h"
#include "access/roles.h"
#include "api/access_check.h"
#include "api/kube/api.h"
#include "base/clock.h"
#include "server/router.h"
#include "store/token_store.h"

namespace trainyard::server {
namespace {

using access::Principal;

// Authorize reads no token; AccessControl only needs a store to exist.
class NoTokens final : public store::TokenStore {
 public:
  Result<std::string> Create(const store::TokenInfo&) override {
    return Status::Unimplemented("test");
  }
  Result<std::vector<store::TokenInfo>> List() const override {
    return Status::Unimplemented("test");
  }
  Status Revoke(std::string_view) override { return Status::Unimplemented("test"); }
  Result<store::TokenInfo> Find(std::string_view) const override {
    return Status::NotFound("test");
  }
};

// Each role in project "p" (admin: every project), and a caller with no grant at all.
std::vector<Principal> Callers() {
  std::vector<Principal> callers = {Principal{.name = "nobody"}};
  for (const access::Role role : access::AllRoles()) {
    Result<std::vector<access::Grant>> grants =
        access::GrantsFor(role, access::RoleSpansProjects(role) ? std::vector<std::string>{}
                                                                : std::vector<std::string>{"p"});
    EXPECT_TRUE(grants.ok());
    callers.push_back(Principal{.name = std::string(access::RoleName(role)), .grants = *grants});
  }
  return callers;
}

TEST(KubeReviewsTest, CanIAgreesWithTheAccessCheckOnEveryKubernetesRoute) {
  NoTokens tokens;
  SystemClock clock;
  const AccessControl control(ServerAccess{.tokens = &tokens}, nullptr, clock);
  const HttpRequest http{.method = "GET", .target = "/apis"};
  int checked = 0;
  for (const RouteAccess& row : KubeRouteAccess()) {
    const std::string verb = row.kube.verb;
    SCOPED_TRACE(verb + " " + row.kube.group + "/" + row.kube.resource);
    if (verb.empty()) {  // discovery: no resource to ask about
      EXPECT_EQ(row.from, ProjectFrom::kAnyCaller) << "a Kubernetes resource route without a verb";
      continue;
    }
    // The row as the router hands it to the access check: the matched route carries it.
    const Route route{.method = "GET", .pattern = "/apis", .name = "kube.row", .access = {row}};
    const bool lists = verb == "list";
    for (const Principal& caller : Callers()) {
      for (const std::string namespace_name : {"p", "q", ""}) {
        for (const bool watch : {false, true}) {
          if (watch && !lists) {
            continue;
          }
          std::vector<std::pair<std::string, std::string>> params;
          if (!namespace_name.empty()) {
            params.emplace_back("namespace", namespace_name);
          }
          std::vector<std::pair<std::string, std::string>> query;
          if (watch) {
            query.emplace_back("watch", "true");
          }
          const RoutedRequest routed{.http = http,
                                     .route = route.name,
                                     .params = params,
                                     .query = query,
                                     .matched = &route};
          const bool authorized = !control.Authorize(caller, routed).has_value();
          const KubeAccessAnswer answer =
              DecideKubeAccess(KubeRouteAccess(), caller,
                               {.verb = watch ? std::string("watch") : verb,
                                .group = row.kube.group,
                                .resource = row.kube.resource,
                                .namespace_name = namespace_name});
          EXPECT_EQ(answer.allowed, authorized) << caller.name << " in \"" << namespace_name
                                                << "\" watch " << watch << ": " << answer.reason;
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, 200);
}

TEST(KubeReviewsTest, AnswersFromTheCallersRoles) {
  const std::vector<Principal> callers = Callers();
  const auto by_name = [&](std::string_view name) {
    for (const Principal& caller : callers) {
      if (caller.name == name) {
        return std::optional<Principal>(caller);
      }
    }
    ADD_FAILURE() << name;
    return std::optional<Principal>();
  };
  const struct {
    std::optional<Principal> caller;
    KubeAccessQuestion question;
    bool allowed;
    std::string reason;
  } cases[] = {
      {by_name("editor"),
       {"create", "kubeflow.org", "tfjobs", "p"},
       true,
       "the caller holds ml.jobs.create"},
      {by_name("editor"),
       {"create", "kubeflow.org", "tfjobs", "q"},
       false,
       "ml.jobs.create is not among the caller's grants in project q"},
      {by_name("viewer"),
       {"create", "kubeflow.org", "tfjobs", "p"},
       false,
       "ml.jobs.create is not among the caller's grants in project p"},
      {by_name("viewer"), {"watch", "kubeflow.org", "tfjobs", "p"}, true, ""},
      {by_name("viewer"), {"get", "", "pods/log", "p"}, true, ""},
      {by_name("viewer"), {"delete", "kubeflow.org", "tfjobs", "p"}, false, ""},
      {by_name("editor"),
       {"list", "kubeflow.org", "tfjobs", ""},
       false,
       "ml.jobs.list is not among the caller's grants in every project"},
      {by_name("admin"), {"list", "kubeflow.org", "tfjobs", ""}, true, ""},
      {by_name("nobody"),
       {"get", "", "namespaces", "p"},
       true,
       "any caller with a valid token may"},
      {by_name("nobody"),
       {"create", "authorization.k8s.io", "selfsubjectaccessreviews", ""},
       true,
       ""},
      // a group the route does not serve it in, a resource or verb no route serves
      {by_name("admin"),
       {"create", "", "tfjobs", "p"},
       false,
       "trainyard serves no route to create tfjobs"},
      {by_name("admin"),
       {"create", "apps", "deployments", "p"},
       false,
       "trainyard serves no route to create deployments.apps"},
      {by_name("admin"), {"*", "kubeflow.org", "tfjobs", "p"}, false, ""},
      {std::nullopt,
       {"delete", "kubeflow.org", "tfjobs", "p"},
       true,
       "the server checks no tokens"},
      {std::nullopt,
       {"delete", "kubeflow.org", "deployments", "p"},
       false,
       "trainyard serves no route to delete deployments.kubeflow.org"},
  };
  for (const auto& c : cases) {
    const KubeAccessAnswer answer = DecideKubeAccess(KubeRouteAccess(), c.caller, c.question);
    EXPECT_EQ(answer.allowed, c.allowed) << c.question.verb << " " << c.question.resource;
    if (!c.reason.empty()) {
      EXPECT_EQ(answer.reason, c.reason);
    }
  }
}

TEST(KubeReviewsTest, OpenPathsAreDiscoveryReads) {
  const struct {
    std::string_view verb;
    std::string_view path;
    bool allowed;
  } cases[] = {
      {"get", "/api", true},      {"get", "/apis/kubeflow.org/v1", true},
      {"get", "/version", true},  {"get", "/openapi/v3", true},
      {"post", "/api", false},    {"get", "/healthz", false},
      {"get", "/apis/", false},   {"get", "/apisx", false},
      {"get", "/metrics", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(KubeOpenPathAllows(c.verb, c.path), c.allowed) << c.verb << " " << c.path;
  }
}

TEST(KubeReviewsTest, RulesListWhatTheCallerMayDoInTheNamespace) {
  const std::vector<Principal> callers = Callers();
  const Principal& viewer = callers[1];
  ASSERT_EQ(viewer.name, "viewer");
  const std::vector<KubeRule> in_p = KubeRulesIn(KubeRouteAccess(), viewer, "p");
  const auto rule_of = [](const std::vector<KubeRule>& rules, std::string_view resource) {
    for (const KubeRule& rule : rules) {
      if (rule.resource == resource) {
        return rule.verbs;
      }
    }
    return std::vector<std::string>();
  };
  EXPECT_EQ(rule_of(in_p, "tfjobs"), (std::vector<std::string>{"list", "watch", "get"}));
  EXPECT_EQ(rule_of(in_p, "pods/log"), (std::vector<std::string>{"get"}));
  EXPECT_EQ(rule_of(in_p, "namespaces"), (std::vector<std::string>{"list", "watch", "get"}));
  // Another project: only what any caller may.
  const std::vector<KubeRule> in_q = KubeRulesIn(KubeRouteAccess(), viewer, "q");
  EXPECT_EQ(rule_of(in_q, "tfjobs"), std::vector<std::string>());
  EXPECT_EQ(rule_of(in_q, "namespaces"), (std::vector<std::string>{"list", "watch", "get"}));
  // The editor also creates, updates, patches and deletes.
  const std::vector<std::string> editor =
      rule_of(KubeRulesIn(KubeRouteAccess(), callers[2], "p"), "tfjobs");
  for (const std::string_view verb : {"create", "update", "patch", "delete"}) {
    EXPECT_NE(std::ranges::find(editor, verb), editor.end()) << verb;
  }
}

}  // namespace
}  // namespace trainyard::server
