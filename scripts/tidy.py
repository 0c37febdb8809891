#!/usr/bin/python3
"""clang-tidy (the repository's .clang-tidy) over src/'s .cc files that it has not passed as they are.

A file passes once for its exact inputs: its bytes and those of every project header it includes,
directly or not, its compile command, .clang-tidy, clang-tidy's version and the versions of the
library packages whose headers it reads. The key of those inputs is remembered in a cache
(~/.cache/trainyard/tidy, or $TY_TIDY_CACHE) when the file passes, and a later run checks only the
files whose key it has not seen: the files changed since the last run on this machine, and the
files that include a changed header. A first run on a machine checks every file.

  scripts/tidy.py BUILD_DIR                  the files not yet passed as they are
  scripts/tidy.py BUILD_DIR --since REV      of those, only the ones a change since REV reaches
  scripts/tidy.py BUILD_DIR --all-files      every file, whatever the cache says

BUILD_DIR holds compile_commands.json with one command per source file (the `tidy` preset,
configured and not built). Each file is checked on its own, so a file that compiles only with its
unity-batch neighbours' includes fails here. Exits 1 on any finding; prints what it checked.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE_DIRS = ("src", "tests")  # the project's own -I directories
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The -dev packages whose headers the sources include (scripts/setup.sh), and the compiler's.
HEADER_PACKAGES = ("libstdc++-12-dev", "libc6-dev", "nlohmann-json3-dev", "libyaml-cpp-dev",
                   "libcli11-dev", "libfmt-dev", "libspdlog-dev", "libsqlite3-dev",
                   "libboost1.74-dev", "libeigen3-dev", "libssl-dev", "libgtest-dev",
                   "libgmock-dev", "clang-tidy-14", "libclang-common-14-dev")
NOISE = re.compile(r"^\d+ warnings? generated|^Suppressed \d+ warnings|^Use -header-filter")


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


class Includes:
    """The project's own #include "..." graph over src/ and tests/, resolved as the compiler does:
    next to the including file first, then in each include directory."""

    def __init__(self):
        self.files = set(git("ls-files", "src", "tests").split())
        self.edges = {}
        self.digests = {}

    def resolve(self, path, name):
        for candidate in (os.path.join(os.path.dirname(path), name),
                          *(os.path.join(d, name) for d in INCLUDE_DIRS)):
            candidate = os.path.normpath(candidate)
            if candidate in self.files:
                return candidate
        return None  # a system header, or a generated one

    def direct(self, path):
        if path not in self.edges:
            text = read(path).decode("utf-8", "replace")
            found = (self.resolve(path, name) for name in INCLUDE.findall(text))
            self.edges[path] = sorted({f for f in found if f})
        return self.edges[path]

    def closure(self, path):
        seen, stack = set(), [path]
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(self.direct(current))
        return sorted(seen)

    def digest(self, path):
        if path not in self.digests:
            self.digests[path] = hashlib.sha256(read(path)).hexdigest()
        return self.digests[path]


def environment_fingerprint():
    """clang-tidy's version, .clang-tidy, and the header packages' versions."""
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True).stdout
    packages = subprocess.run(["dpkg-query", "-W", *HEADER_PACKAGES], capture_output=True,
                              text=True).stdout
    return hashlib.sha256("\0".join([version, packages, read(".clang-tidy").decode()])
                          .encode()).hexdigest()


def compile_commands(build_dir):
    """{repository-relative source: its compile arguments, with the checkout's paths made
    relative, as they enter the key}."""
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    commands = {}
    for entry in entries:
        path = os.path.relpath(entry["file"], ROOT)
        args = entry.get("arguments") or shlex.split(entry["command"])
        commands[path] = " ".join(a.replace(ROOT, ".") for a in args
                                  if not a.endswith(".o") and not a.endswith(".cc"))
    return commands


def changed_since(rev):
    """Files changed between `rev` and the working tree (deleted ones left out: nothing includes
    them any more), untracked files included."""
    changed = set(git("diff", "--name-only", "--diff-filter=d", rev, "--").split())
    changed |= set(git("ls-files", "--others", "--exclude-standard").split())
    return changed


def run_tidy(build_dir, path):
    proc = subprocess.run(["clang-tidy", "-p", build_dir, "--quiet", path], cwd=ROOT,
                          capture_output=True, text=True)
    output = "\n".join(line for line in (proc.stdout + proc.stderr).splitlines()
                       if line.strip() and not NOISE.match(line))
    return path, proc.returncode, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir")
    selection = parser.add_mutually_exclusive_group()
    selection.add_argument("--since", metavar="REV",
                           help="only files that a change since REV reaches")
    selection.add_argument("--all-files", action="store_true",
                           help="every file, whatever the cache says")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    build_dir = os.path.abspath(args.build_dir)
    cache = os.environ.get("TY_TIDY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "trainyard", "tidy")
    os.makedirs(cache, exist_ok=True)

    includes = Includes()
    commands = compile_commands(build_dir)
    sources = sorted(f for f in git("ls-files", "src/*.cc").split())
    missing = [f for f in sources if f not in commands]
    if missing:
        sys.exit("tidy: no compile command for %s in %s (configure the tidy preset)"
                 % (", ".join(missing[:5]), build_dir))
    changed = changed_since(args.since) if args.since else None
    fingerprint = environment_fingerprint()

    keys, todo = {}, []
    for path in sources:
        closure = includes.closure(path)
        if changed is not None and not changed.intersection(closure):
            continue
        key = hashlib.sha256("\n".join(
            [fingerprint, commands[path]] + ["%s %s" % (f, includes.digest(f)) for f in closure]
        ).encode()).hexdigest()
        keys[path] = key
        if args.all_files or not os.path.exists(os.path.join(cache, key)):
            todo.append(path)

    considered = len(keys)
    print("tidy: %d of %d files to check (%d passed before as they are%s)"
          % (len(todo), len(sources), considered - len(todo),
             "; %d reached by changes since %s" % (considered, args.since) if args.since else ""),
          flush=True)
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for path, rc, output in pool.map(lambda p: run_tidy(build_dir, p), todo):
            if rc == 0 and not output:
                with open(os.path.join(cache, keys[path]), "w", encoding="utf-8") as f:
                    f.write(path + "\n")
            else:
                failed.append(path)
                print(output or "%s: clang-tidy exited %d" % (path, rc), flush=True)
    if failed:
        print("tidy: %d files with findings: %s" % (len(failed), " ".join(failed)))
        return 1
    print("tidy: %d files clean" % len(todo))
    return 0


if __name__ == "__main__":
    sys.exit(main())
