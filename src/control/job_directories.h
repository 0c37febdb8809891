// The directories of a job that the server and the root supervisor write in (issue #31): the
// data directory's jobs/ and jobs/<project>/, the job's root (its token, staging log and
// packages link), run/ (run records, exit files) and logs/ (replica and service logs), and a
// trial's run/trial-<n>/ and logs/trial-<n>/. Only the server's user may create entries there;
// the job's group (`serve --run-as`) may read and pass. A job's processes write only in their
// working directories, their metrics directory and the buckets, so no job can put a link where
// the server writes as root. The files themselves are still opened without following links
// (os/file_handle.h, os/no_follow.h), should a directory ever be writable again.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "control/job_layout.h"

namespace trainyard::control {

// Creates those directories of `layout` (with a trial's when it has one), or, where they exist,
// takes write access from group and others (an older server made them group-writable); each is
// opened without following a link, so a link in their place is an error, not a directory.
// INTERNAL naming the directory when one cannot be made or changed.
Status SecureServerDirectories(const JobLayout& layout);

// Creates a job's `--job-dir` (a path, or gs://bucket/path below `gcs_mount`). In a bucket, which
// the project's jobs write, each directory is made and opened beneath the bucket's own without
// following a link (`os::Dir::MakeDirs`): a link a job left there is refused, never followed.
// FAILED_PRECONDITION with a message for the job's state: an unusable URI, a missing bucket, a
// link or a file in the way, or an IO error.
Status MakeJobDir(std::string_view job_dir, const std::string& gcs_mount);

}  // namespace trainyard::control
