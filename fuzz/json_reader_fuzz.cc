// libFuzzer target for the strict JSON reader (base/json_reader.h) in each of its dialects
// (base/json_dialects.h), the catalog's included, which no API decoder reaches. Any JSON
// document is walked with a schema made up from its own member names (the first letter picks the
// type each member is read as), so that every read meets every kind of value. Every problem must
// be worded as valid UTF-8 naming its field; every value read must be the value in the document.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/check.h"
#include "base/json_dialects.h"
#include "base/json_reader.h"
#include "base/utf8.h"

namespace trainyard {
namespace {

using nlohmann::json;

void Walk(JsonObject& object, const json& value, int depth) {
  if (!value.is_object() || depth > 8) {
    return;
  }
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string& name = it.key();
    switch (name.empty() ? ' ' : name[0] % 10) {
      case 0:
        if (const std::string text = object.String(name); !text.empty()) {
          TY_CHECK(*it == text);
        }
        break;
      case 1:
        if (const std::int32_t number = object.Int32(name); number != 0) {
          TY_CHECK(object.reader().dialect().lenient_integers || *it == number);
        }
        break;
      case 2:
        object.Int64(name);
        break;
      case 3:
        TY_CHECK(!object.Bool(name) || *it == true);
        break;
      case 4:
        object.Number(name);
        break;
      case 5:
        for (const std::string& item : object.StringList(name)) {
          TY_CHECK(IsValidUtf8(item));
        }
        break;
      case 6:
        object.StringMap(name);
        break;
      case 7:
        if (const json* array = object.Array(name)) {
          for (std::size_t i = 0; i < array->size(); ++i) {
            JsonObject item(object.reader(), (*array)[i], JsonIndexPath(object.ChildPath(name), i));
            Walk(item, (*array)[i], depth + 1);
            item.Finish();
          }
        }
        break;
      case 8:
        object.Unsupported(name, "fuzz");
        break;
      default:
        if (const json* nested = object.Object(name, {.type = "T", .owner = "O"})) {
          JsonObject inner(object.reader(), *nested, object.ChildPath(name));
          Walk(inner, *nested, depth + 1);
          inner.Finish();
        }
        break;
    }
  }
  object.Finish();
}

void FuzzOne(std::string_view text) {
  const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    return;
  }
  for (const JsonDialect* dialect :
       {&kMlV1JsonDialect, &kVertexJsonDialect, &kKubeJsonDialect, &kCatalogJsonDialect,
        &kTrainyardJsonDialect, &kStorageJsonDialect}) {
    JsonReader reader(*dialect, [](const JsonError& error) {
      TY_CHECK(!error.message.empty());
      TY_CHECK(IsValidUtf8(error.message)) << error.message;
      TY_CHECK(!error.locus.empty() || error.field.empty()) << error.field;
    });
    JsonObject root(reader, document, "");
    Walk(root, document, 0);
    for (const std::string& path : reader.unknown()) {
      TY_CHECK(!path.empty());
    }
  }
}

}  // namespace
}  // namespace trainyard

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
