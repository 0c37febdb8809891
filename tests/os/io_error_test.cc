// os::IoError, os/'s one errno → Status mapping: the code each errno value is answered with, the
// path and the system's words, and the errno handed on.
#include "os/io_error.h"

#include <cerrno>
#include <string>

#include <gtest/gtest.h>

namespace trainyard::os {
namespace {

struct ErrnoCase {
  int err;
  Code code;
};

TEST(IoError, CodeFollowsErrno) {
  for (const ErrnoCase& c : {
           ErrnoCase{ENOENT, Code::kNotFound},
           ErrnoCase{EEXIST, Code::kAlreadyExists},
           ErrnoCase{ELOOP, Code::kFailedPrecondition},
           ErrnoCase{EXDEV, Code::kFailedPrecondition},
           ErrnoCase{ENOTDIR, Code::kFailedPrecondition},
           ErrnoCase{EISDIR, Code::kFailedPrecondition},
           ErrnoCase{ENOTEMPTY, Code::kFailedPrecondition},
           ErrnoCase{EACCES, Code::kPermissionDenied},
           ErrnoCase{EPERM, Code::kPermissionDenied},
           ErrnoCase{EROFS, Code::kPermissionDenied},
           ErrnoCase{ENOSPC, Code::kResourceExhausted},
           ErrnoCase{EDQUOT, Code::kResourceExhausted},
           ErrnoCase{EIO, Code::kInternal},
           ErrnoCase{EBADF, Code::kInternal},
       }) {
    const Status status = IoError("write", "/data/x", c.err);
    EXPECT_EQ(status.code(), c.code) << c.err;
    EXPECT_NE(status.message().find("write /data/x"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find(Errno(c.err)), std::string::npos) << status.message();
  }
}

TEST(IoError, AFullDiskIsWordedForItsUser) {
  const Status status = IoError("write", "/data/x", ENOSPC);
  EXPECT_EQ(status.message(),
            "The server's disk is full (No space left on device): cannot write /data/x. Free "
            "space where the server keeps its data, then retry.");
  EXPECT_EQ(IoError("open", "/data/x", ENOENT).message(),
            "cannot open /data/x: No such file or directory");
}

TEST(IoError, GivesTheErrnoToCallersThatWordTheirOwn) {
  int error = -1;
  EXPECT_EQ(IoError("open", "/data/x", EACCES, &error).code(), Code::kPermissionDenied);
  EXPECT_EQ(error, EACCES);
  NoError(&error);
  EXPECT_EQ(error, 0);
  NoError(nullptr);  // no errno wanted
}

}  // namespace
}  // namespace trainyard::os
