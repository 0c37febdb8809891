// The web console's files (issue #18): `GET /console/…` answers the console built from web/ at
// build time (cmake/console.cmake: TypeScript bundled by esbuild), embedded in the binary so a
// user needs no Node at run time. The files are public, like /healthz: the console then calls
// the APIs with the user's token, and those calls are checked as any other.
//
// `/console` redirects to `/console/`; `/console/` is index.html; any other name is one of the
// built files or a 404. The console routes in the browser with the URL's fragment (#/jobs/…),
// so every page is index.html.
#pragma once

#include <string_view>

#include "server/http_message.h"

namespace trainyard::server {

// Whether `target` (a raw request-target) is the console's.
bool ConsoleServes(std::string_view target);

// The answer to a request `ConsoleServes`: GET and HEAD only (405 otherwise).
HttpResponse ConsoleAnswer(const HttpRequest& request);

}  // namespace trainyard::server
