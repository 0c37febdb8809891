#!/usr/bin/python3
"""Shared helpers of the end-to-end tests: a private gcloud configuration, finished commands,
a counting unittest runner, and a real `trainyard serve` in a child process.

Standard library only; imported by gcloud_parity_test.py and gcloud_jobs_test.py.
"""

import argparse
import io
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import unittest

GCLOUD = shutil.which("gcloud") or "/usr/bin/gcloud"

# The backend every `trainyard serve` of the tests uses: TY_E2E_BACKEND=local (default) or slurm,
# the Slurm test cluster of TY_SLURM_STATE_DIR (tests/slurm/CMakeLists.txt, the CTest fixture
# `slurm_cluster`).
BACKEND = os.environ.get("TY_E2E_BACKEND", "local")
# What the tests' Slurm configuration says (as tests/slurm/slurm_execution_test.cc).
SLURM_CONFIG = """partition: debug
gres_types:
  NVIDIA_TESLA_T4: fake
finished_jobs: jobcomp
ports: {first: 30000, count: 2000}
"""
SKIPPED = 77  # exit code of a run skipped as a whole (CTest's SKIP_RETURN_CODE)
JOB_USER = "trainyard-job"  # the user scripts/setup.sh creates for `serve --run-as`


def run_as_setup(prefix):
    """For a test class of `serve --run-as JOB_USER`: that user's passwd entry and a new temp dir
    (named with `prefix`) the user may pass through to a data directory below it. SkipTest when
    not root (--run-as needs it); AssertionError when the user is missing."""
    if os.geteuid() != 0:
        raise unittest.SkipTest("--run-as needs root")
    try:
        user = pwd.getpwnam(JOB_USER)
    except KeyError:
        raise AssertionError("the user %s is missing: scripts/setup.sh creates it" % JOB_USER)
    tmp = tempfile.mkdtemp(prefix=prefix)
    os.chmod(tmp, 0o711)  # the job user passes through to the data directory
    return user, tmp


def make_sdist(path, name, files):
    """A legacy sdist (`<name>-0.1/` holding `files`, {relative path: text}) at `path`, readable
    by everyone (a run-as user's install reads it)."""
    with tarfile.open(path, "w:gz") as sdist:
        for relative, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo("%s-0.1/%s" % (name, relative))
            info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
            sdist.addfile(info, io.BytesIO(data))
    os.chmod(path, 0o644)


def marked_processes(*markers):
    """[(pid, command line)] of the host's processes (this one aside) whose command line contains
    one of `markers`. A job's processes are found so, never by the pids it reports: under
    --run-as those are its own PID namespace's."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile
            continue
        if any(marker in cmdline for marker in markers):
            found.append((int(name), cmdline.strip()))
    return found


def slurm_cluster():
    """(slurm_conf, why) for the Slurm test cluster of TY_SLURM_STATE_DIR, by the rule of
    tests/support/slurm_cluster.h: it is there when its setup left <state dir>/etc/slurm.conf and
    <state dir>/env.sh; otherwise slurm_conf is None and `why` quotes <state dir>.unavailable."""
    state_dir = os.environ.get("TY_SLURM_STATE_DIR", "")
    conf = os.path.join(state_dir, "etc", "slurm.conf")
    if state_dir and os.path.exists(conf) and os.path.exists(os.path.join(state_dir, "env.sh")):
        return conf, ""
    reason = ""
    try:
        with open(state_dir + ".unavailable", encoding="utf-8") as f:
            reason = f.read().strip()
    except OSError:
        pass
    return None, ("no Slurm test cluster in %s (%s); TRAINYARD_REQUIRE_SLURM=1 makes this a "
                  "failure" % (state_dir or "$TY_SLURM_STATE_DIR (unset)",
                               reason or "not started: ctest starts it, as the fixture "
                                         "slurm_cluster"))


def backend_setup(tmp):
    """(extra serve arguments, extra environment) for BACKEND; for slurm writes the configuration
    into `tmp`. Call only after main() checked that the cluster is there."""
    if BACKEND == "local":
        return [], {}
    if BACKEND != "slurm":
        raise ValueError("TY_E2E_BACKEND must be local or slurm, not %r" % BACKEND)
    conf, why = slurm_cluster()
    if conf is None:
        raise RuntimeError(why)
    config = os.path.join(tmp, "slurm-config.yaml")
    with open(config, "w", encoding="utf-8") as f:
        f.write(SLURM_CONFIG)
    return ["--backend", "slurm", "--slurm-config", config], {"SLURM_CONF": conf}


def gcloud_environment(config_dir, project, url, storage_url=None, logging_url=None,
                       token_file=None, ca_file=None, aiplatform_url=None):
    """An environment whose CLOUDSDK_CONFIG is a private configuration at `config_dir`.

    The configuration (docs/reference/ai-platform-training.md §1.1 and §15) points the ml API at
    `url` (which ends with "/"), storage at `storage_url` (default `url + "storage/v1/"`) and, when
    given, logging at `logging_url`, and Vertex AI (`aiplatform`) at `aiplatform_url`; it sends no
    credentials (or, with `token_file`, the token in that file: `auth/access_token_file`, issue #17;
    an https server's CA in `ca_file`: `core/custom_ca_certs_file`), reports no usage and checks for
    no update. The file is written directly: six `gcloud config set` calls would cost about ten
    seconds.
    """
    sections = {
        "core": {"project": project, "disable_usage_reporting": "true"},
        "api_endpoint_overrides": {"ml": url, "storage": storage_url or url + "storage/v1/"},
        "auth": ({"access_token_file": token_file} if token_file
                 else {"disable_credentials": "true"}),
        "component_manager": {"disable_update_check": "true"},
    }
    if ca_file:
        sections["core"]["custom_ca_certs_file"] = ca_file
    if logging_url:
        sections["api_endpoint_overrides"]["logging"] = logging_url
    if aiplatform_url:
        sections["api_endpoint_overrides"]["aiplatform"] = aiplatform_url
    os.makedirs(os.path.join(config_dir, "configurations"), exist_ok=True)
    with open(os.path.join(config_dir, "active_config"), "w", encoding="utf-8") as f:
        f.write("default")
    with open(os.path.join(config_dir, "configurations", "config_default"), "w",
              encoding="utf-8") as f:
        for section, values in sections.items():
            f.write("[%s]\n" % section)
            for key, value in values.items():
                f.write("%s = %s\n" % (key, value))
            f.write("\n")
    # CLOUDSDK_<SECTION>_<PROPERTY> variables override the file; keep only the interpreter choice.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CLOUDSDK_") or k.startswith("CLOUDSDK_PYTHON")}
    env["CLOUDSDK_CONFIG"] = config_dir
    env["CLOUDSDK_CORE_DISABLE_PROMPTS"] = "1"
    return env


def wait_until(what, condition, timeout_s, log=lambda: "", interval_s=0.2):
    """Polls `condition` every `interval_s` until it returns something true, which it returns;
    after `timeout_s` an AssertionError naming `what`, with the tail of `log()` (a server's
    output) to show why."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("%s did not happen within %g s\n--- trainyard serve\n%s"
                                 % (what, timeout_s, log()[-4000:]))
        time.sleep(interval_s)


class Run:
    """One finished command: exit code and output."""

    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def error_line(self):
        """The text after "ERROR: (<command>) " on the first error line, or ""."""
        for line in self.err.splitlines():
            match = re.match(r"ERROR: \([^)]*\) (.*)", line)
            if match:
                return match.group(1)
        return ""

    def __repr__(self):
        return "rc=%d\n--- stdout\n%s--- stderr\n%s" % (self.rc, self.out, self.err)


class TrainyardServer:
    """`trainyard serve --listen 127.0.0.1:0 --data-dir DATA_DIR` (or another `listen`) in a child
    process.

    `start()` waits for the "serving on http://..." line and sets `url` and `port`; `stop()` sends
    SIGTERM and waits for the exit (killing it if it does not stop). The rest of stderr is kept in
    `log()` so that a failure can show it.
    """

    _SERVING = re.compile(r"trainyard: serving on (https?://[^/\s]+:(\d+)/)")

    def __init__(self, trainyard, data_dir, extra_args=(), extra_env=None, listen="127.0.0.1:0"):
        self._args = [trainyard, "serve", "--listen", listen, "--data-dir", data_dir,
                      *extra_args]
        self._extra_env = dict(extra_env or {})
        self._proc = None
        self._lines = []
        self._reader = None
        self.url = None
        self.port = None
        self.returncode = None

    def start(self, timeout=30):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        env.update(self._extra_env)
        self._proc = subprocess.Popen(self._args, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      text=True, env=env)
        ready = threading.Event()

        def read():
            for line in self._proc.stderr:
                self._lines.append(line)
                match = self._SERVING.search(line)
                if match and not ready.is_set():
                    self.url, self.port = match.group(1), int(match.group(2))
                    ready.set()
            ready.set()  # end of output: the server exited

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()
        if not ready.wait(timeout) or self.url is None:
            self.stop()
            raise RuntimeError("trainyard serve did not start:\n" + self.log())
        return self

    @property
    def pid(self):
        return self._proc.pid

    def log(self):
        return "".join(self._lines)

    def stop(self, timeout=20):
        """SIGTERM, then wait; returns the exit code (negative: killed by that signal)."""
        if self._proc is None or self.returncode is not None:
            return self.returncode
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._reader.join(5)
        self.returncode = self._proc.returncode
        return self.returncode

    def stop_cleanly(self):
        """stop(), then AssertionError (a failure of the calling test class) when the server did
        not exit 0 after saying it stopped, or its process is still there."""
        pid = self.pid
        rc = self.stop()
        log = self.log()
        if rc != 0 or "trainyard: stopped" not in log:
            raise AssertionError("trainyard serve did not stop cleanly (rc %s):\n%s" % (rc, log))
        if os.path.exists("/proc/%d" % pid):
            raise AssertionError("trainyard serve (pid %d) is still running" % pid)


class ServerTestCase(unittest.TestCase):
    """A test class that owns a trainyard server (`cls.server`, from start_server) and a temp dir
    (`cls.tmp`): tearDownClass stops the server, a stop that was not clean being reported as an
    error of the class (counted as a failure), and removes the directory."""

    @classmethod
    def tearDownClass(cls):
        try:
            cls.server.stop_cleanly()
        finally:
            shutil.rmtree(cls.tmp, ignore_errors=True)


def start_server(trainyard, tmp, data_dir, extra_args=()):
    """A started TrainyardServer on BACKEND; on failure removes the test class's `tmp` and
    raises."""
    try:
        backend_args, backend_env = backend_setup(tmp)
        server = TrainyardServer(trainyard, data_dir, extra_args=[*extra_args, *backend_args],
                                 extra_env=backend_env)
        server.start()
    except Exception:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return server


class _CountingResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1


def exit_without_containers(why):
    """Ends a container suite whose fixture (tests/images) is missing: SKIPPED, or FAILED under
    TRAINYARD_REQUIRE_CONTAINERS=1, saying why."""
    required = os.environ.get("TRAINYARD_REQUIRE_CONTAINERS") == "1"
    print(("FAILED: " if required else "SKIPPED: ") + why, flush=True)
    sys.exit(1 if required else SKIPPED)


def main(doc, set_trainyard):
    """Parses --trainyard PATH (handing the absolute path to `set_trainyard`), runs the calling
    module's unittest tests with the remaining arguments, prints "N passed, M failed", and exits
    non-zero when any test failed or none passed. With TY_E2E_BACKEND=slurm and no Slurm test
    cluster it runs nothing and exits SKIPPED, or 1 under TRAINYARD_REQUIRE_SLURM=1."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--trainyard", required=True, help="path of the trainyard binary")
    args, rest = parser.parse_known_args()
    if BACKEND == "slurm":
        conf, why = slurm_cluster()
        if conf is None:
            required = os.environ.get("TRAINYARD_REQUIRE_SLURM") == "1"
            print(("FAILED: " if required else "SKIPPED: ") + why, flush=True)
            sys.exit(1 if required else SKIPPED)
    set_trainyard(os.path.abspath(args.trainyard))
    program = unittest.main(module="__main__", argv=[sys.argv[0]] + rest, exit=False,
                            verbosity=2,
                            testRunner=unittest.TextTestRunner(resultclass=_CountingResult,
                                                               stream=sys.stdout, verbosity=2))
    result = program.result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    print("%d passed, %d failed" % (result.passed, failed), flush=True)
    sys.exit(1 if failed or not result.passed else 0)
