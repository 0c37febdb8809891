#include "base/filter_syntax.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::filter_syntax {
namespace {

// The tree in a compact form: AND(l, r), OR(l, r), NOT(x), and a term as
// {segment,segment}OP value, the value in "quotes" when it was quoted.
std::string Render(const Node& node) {
  switch (node.type) {
    case Node::Type::kAnd:
      return "AND(" + Render(*node.left) + ", " + Render(*node.right) + ")";
    case Node::Type::kOr:
      return "OR(" + Render(*node.left) + ", " + Render(*node.right) + ")";
    case Node::Type::kNot:
      return "NOT(" + Render(*node.left) + ")";
    case Node::Type::kTerm: {
      std::string out = "{";
      for (std::size_t i = 0; i < node.term.path.size(); ++i) {
        out += (i == 0 ? "" : ",") + node.term.path[i];
      }
      out += "}" + std::string(OpSpelling(node.term.op));
      out += node.term.quoted ? "\"" + node.term.value + "\"" : node.term.value;
      return out;
    }
  }
  return "?";
}

struct TreeCase {
  std::string name;
  std::string filter;
  std::string tree;  // Render() of the parse
};

class FilterSyntaxTreeTest : public ::testing::TestWithParam<TreeCase> {};

TEST_P(FilterSyntaxTreeTest, ParsesToTheExpectedTree) {
  Result<std::unique_ptr<const Node>> root = Parse(GetParam().filter);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  ASSERT_NE(*root, nullptr);
  EXPECT_EQ(Render(**root), GetParam().tree);
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, FilterSyntaxTreeTest,
    ::testing::Values(
        TreeCase{"OneTerm", "jobId=a", "{jobId}=a"},
        TreeCase{"SpacesAroundOperator", "  jobId  =  a  ", "{jobId}=a"},
        TreeCase{"DottedPath", "resource.labels.job_id=j", "{resource,labels,job_id}=j"},
        TreeCase{"QuotedSegment", "labels.\"ml.googleapis.com/trial_id\"=\"3\"",
                 "{labels,ml.googleapis.com/trial_id}=\"3\""},
        TreeCase{"QuotedSegmentThenMore", "a.\"b.c\".d:x", "{a,b.c,d}:x"},
        TreeCase{"EmptySegmentIsKept", "labels.=x", "{labels,}=x"},
        TreeCase{"NameCharacters", "a_b-c9=1", "{a_b-c9}=1"},
        TreeCase{"AllOperators", "a=1 b!=2 c<3 d<=4 e>5 f>=6 g:7",
                 "AND(AND(AND(AND(AND(AND({a}=1, {b}!=2), {c}<3), {d}<=4), {e}>5), {f}>=6), "
                 "{g}:7)"},
        TreeCase{"RegexOperatorsAreRecognised", "a=~x AND b!~\"y\"", "AND({a}=~x, {b}!~\"y\")"},
        TreeCase{"SingleQuotes", "a='x y'", "{a}=\"x y\""},
        TreeCase{"Escapes", R"(a="say \"hi\" \\ ok")", R"({a}="say "hi" \ ok")"},
        TreeCase{"QuotedStarIsQuoted", "a:\"*\"", "{a}:\"*\""},
        TreeCase{"BareStar", "a:*", "{a}:*"}, TreeCase{"BareValueStopsAtParen", "(a=x)", "{a}=x"},
        TreeCase{"OrBindsTighterThanAnd", "a=1 AND b=2 OR c=3", "AND({a}=1, OR({b}=2, {c}=3))"},
        TreeCase{"ImplicitAnd", "a=1 b=2", "AND({a}=1, {b}=2)"},
        TreeCase{"AndIsLeftAssociative", "a=1 AND b=2 AND c=3", "AND(AND({a}=1, {b}=2), {c}=3)"},
        TreeCase{"Parentheses", "(a=1 AND b=2) OR c=3", "OR(AND({a}=1, {b}=2), {c}=3)"},
        TreeCase{"NotKeyword", "NOT a=1", "NOT({a}=1)"},
        TreeCase{"MinusIsNot", "-a=1", "NOT({a}=1)"},
        TreeCase{"NotBindsTightest", "NOT a=1 OR b=2", "OR(NOT({a}=1), {b}=2)"},
        TreeCase{"NotGroup", "NOT(a=1 OR b=2)", "NOT(OR({a}=1, {b}=2))"},
        TreeCase{"KeywordPrefixIsAField", "ORDER=1 ANDROID=2 NOTE=3",
                 "AND(AND({ORDER}=1, {ANDROID}=2), {NOTE}=3)"},
        TreeCase{"GcloudLowerBound",
                 "((timestamp=\"2026-11-21T09:35:01.760285Z\" AND insertId>\"0042\") OR "
                 "timestamp>\"2026-11-21T09:35:01.760285Z\")",
                 "OR(AND({timestamp}=\"2026-11-21T09:35:01.760285Z\", {insertId}>\"0042\"), "
                 "{timestamp}>\"2026-11-21T09:35:01.760285Z\")"}),
    [](const auto& tc) { return tc.param.name; });

TEST(FilterSyntax, BlankIsNull) {
  for (const std::string text : {"", " \t\r\n "}) {
    Result<std::unique_ptr<const Node>> root = Parse(text);
    ASSERT_TRUE(root.ok()) << root.status().ToString();
    EXPECT_EQ(*root, nullptr);
  }
}

TEST(FilterSyntax, TermsCarryOneBasedPositionsAndTheFieldAsWritten) {
  //                                         1        10        20        30
  Result<std::unique_ptr<const Node>> root = Parse("a=1 AND labels.\"x.y\" >= 'v'");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  const Term& first = (*root)->left->term;
  EXPECT_EQ(first.position, 1U);
  EXPECT_EQ(first.op_position, 2U);
  EXPECT_EQ(first.value_position, 3U);
  const Term& second = (*root)->right->term;
  EXPECT_EQ(second.field, "labels.\"x.y\"");
  EXPECT_EQ(second.position, 9U);
  EXPECT_EQ(second.op_position, 22U);
  EXPECT_EQ(second.value_position, 25U);
  EXPECT_EQ(second.value, "v");
  EXPECT_TRUE(second.quoted);
}

TEST(FilterSyntaxCanonicalField, QuotesOnlySegmentsThatAreNotNames) {
  EXPECT_EQ(CanonicalField({"resource", "labels", "job_id"}), "resource.labels.job_id");
  EXPECT_EQ(CanonicalField({"labels", "ml.googleapis.com/trial_id"}),
            "labels.\"ml.googleapis.com/trial_id\"");
  EXPECT_EQ(CanonicalField({"labels", ""}), "labels.\"\"");
  EXPECT_EQ(CanonicalField({"a", "9b", "say \"hi\" \\"}), R"(a."9b"."say \"hi\" \\")");
}

TEST(FilterSyntaxCanonicalField, SpellsAQuotedNameAsTheBareOne) {
  Result<std::unique_ptr<const Node>> root = Parse("labels.\"task_name\"=a");
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(CanonicalField((*root)->term.path), "labels.task_name");
}

struct ErrorCase {
  std::string name;
  std::string filter;
  std::string message;  // a substring of the violation's description
};

class FilterSyntaxErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(FilterSyntaxErrorTest, IsInvalidArgumentOnFilterSayingWhere) {
  Result<std::unique_ptr<const Node>> root = Parse(GetParam().filter);
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(root.status().violations().size(), 1U);
  EXPECT_EQ(root.status().violations()[0].field, "filter");
  EXPECT_NE(root.status().violations()[0].description.find(GetParam().message), std::string::npos)
      << root.status().violations()[0].description;
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, FilterSyntaxErrorTest,
    ::testing::Values(
        ErrorCase{"NoOperator", "a", "character 2: expected an operator (=, !=, <, <=, >, >=, :)"},
        ErrorCase{"BareWord", "error", "after \"error\"; a bare value is not supported"},
        ErrorCase{"BareQuotedValue", "\"error\"",
                  "character 1: expected a field name, found '\"'; a bare value is not supported"},
        ErrorCase{"BareNumber", "a=1 42", "character 5: expected a field name, found '4'"},
        ErrorCase{"NoValue", "a=", "character 3: expected a value"},
        ErrorCase{"NoValueBeforeParen", "(a=)", "character 4: expected a value"},
        ErrorCase{"UnclosedQuotedValue", "a=\"x", "character 3: this quoted value is never closed"},
        ErrorCase{"UnclosedQuotedSegment", "labels.\"x=1",
                  "character 8: this quoted field name is never closed"},
        ErrorCase{"QuotedSegmentRunsOn", "labels.\"x\"y=1",
                  "character 11: expected an operator (=, !=, <, <=, >, >=, :) after "
                  "\"labels.\"x\"\""},
        ErrorCase{"UnknownCharacter", "a=1 AND #", "character 9: expected a field name, found '#'"},
        ErrorCase{"ControlCharacter", std::string("a=1 \x01", 5),
                  "character 5: expected a field name, found a control character"},
        ErrorCase{"UnclosedParen", "(a=1", "character 1: this '(' is never closed"},
        ErrorCase{"StrayParen", "a=1)", "character 4: unexpected ')'"},
        ErrorCase{"EmptyParens", "()", "character 2: expected a field name, found ')'"},
        ErrorCase{"DanglingAnd", "a=1 AND", "character 8: expected a term, found the end"},
        ErrorCase{"DanglingOr", "a=1 OR", "character 7: expected a term, found the end"},
        ErrorCase{"LeadingOr", "OR a=1", "character 1: expected a term, found OR"},
        ErrorCase{"DoubleAnd", "a=1 AND AND b=2", "character 9: expected a term, found AND"},
        ErrorCase{"LoneMinus", "-", "character 2: expected a term, found the end"},
        ErrorCase{"TooDeep", std::string(100, '(') + "a=1" + std::string(100, ')'),
                  "nests deeper than 64 levels"},
        ErrorCase{"DeepNots",
                  [] {
                    std::string s;
                    for (int i = 0; i < 70; ++i) {
                      s += "NOT ";
                    }
                    return s + "a=1";
                  }(),
                  "nests deeper than 64 levels"},
        ErrorCase{"TooLong", "a=" + std::string(5000, 'x'),
                  "character 1: the filter is longer "
                  "than 4096 characters"}),
    [](const auto& tc) { return tc.param.name; });

TEST(FilterSyntax, AcceptsTheLongestAndDeepestAllowed) {
  EXPECT_TRUE(Parse("a=" + std::string(kMaxLength - 2, 'x')).ok());
  EXPECT_TRUE(Parse(std::string(kMaxDepth, '(') + "a=1" + std::string(kMaxDepth, ')')).ok());
}

// A user's tree, as MapTerms builds it: here the terms become their values as numbers.
struct IntNode {
  Node::Type type = Node::Type::kTerm;
  std::unique_ptr<const IntNode> left;
  std::unique_ptr<const IntNode> right;
  int term = 0;
};

Result<int> Number(const Term& term) {
  if (term.value.empty() || term.value.find_first_not_of("0123456789") != std::string::npos) {
    return FilterError(term.value_position, "not a number: " + term.value);
  }
  return std::stoi(term.value);
}

int Sum(const IntNode& node) {
  return node.type == Node::Type::kTerm
             ? node.term
             : Sum(*node.left) + (node.right != nullptr ? Sum(*node.right) : 0);
}

TEST(FilterSyntaxMapTerms, BuildsTheSameShapeWithInterpretedTerms) {
  Result<std::unique_ptr<const Node>> root = Parse("a=1 AND (b=20 OR NOT c=300)");
  ASSERT_TRUE(root.ok());
  Result<std::unique_ptr<const IntNode>> mapped = MapTerms<IntNode>(**root, Number);
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_EQ((*mapped)->type, Node::Type::kAnd);
  EXPECT_EQ((*mapped)->right->type, Node::Type::kOr);
  EXPECT_EQ((*mapped)->right->right->type, Node::Type::kNot);
  EXPECT_EQ((*mapped)->right->right->right, nullptr);
  EXPECT_EQ(Sum(**mapped), 321);
}

TEST(FilterSyntaxMapTerms, ReportsTheLeftmostBadTerm) {
  Result<std::unique_ptr<const Node>> root = Parse("a=1 AND (b=x OR c=y)");
  ASSERT_TRUE(root.ok());
  Result<std::unique_ptr<const IntNode>> mapped = MapTerms<IntNode>(**root, Number);
  ASSERT_FALSE(mapped.ok());
  ASSERT_EQ(mapped.status().violations().size(), 1U);
  EXPECT_EQ(mapped.status().violations()[0].description,
            "Invalid filter at character 12: not a number: x");
}

}  // namespace
}  // namespace trainyard::filter_syntax
