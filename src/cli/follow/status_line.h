// The live status line shown on a terminal while following a job's logs, e.g.
// "RUNNING · 4/4 replicas up · 01:02": the job's state, how many of its replicas run, and the
// time since it started (since it was created while it has not). `FormatStatusLine` is pure;
// `StatusLine` draws it in place (carriage return, clear to end of line) and clears it before
// anything else is printed. Not thread-safe.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

#include "cli/follow/log_follower.h"

namespace trainyard::cli {

// "RUNNING · 4/4 replicas up · 01:02"; no replica part when `progress` lists none; the
// elapsed time as MM:SS, or H:MM:SS from one hour on, until the job's end once it has one.
std::string FormatStatusLine(const FollowProgress& progress);

class StatusLine {
 public:
  // Draws on `terminal` only when `enabled` (stderr is a terminal); otherwise does nothing.
  StatusLine(std::ostream& terminal, bool enabled) : terminal_(terminal), enabled_(enabled) {}
  ~StatusLine() { Clear(); }
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  // Replaces the line shown by `text`.
  void Show(const std::string& text);
  // Removes the line, if one is shown.
  void Clear();

 private:
  std::ostream& terminal_;
  bool enabled_;
  bool shown_ = false;
};

}  // namespace trainyard::cli
