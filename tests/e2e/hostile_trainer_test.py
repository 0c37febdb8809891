#!/usr/bin/python3
"""A hostile trainer (issue #31): `trainyard serve --auth tokens --run-as trainyard-job`, two
projects A (the attacker) and B (the victim), each with an editor token; jobs run Python on the
host as the job user (`--containers host`), or in podman containers, and attack from there.

Where the server and the root supervisor write as root (a job's root, run/ and logs/), the job
may read but not create entries: planting a link to a root-owned 0600 file at
run/replicas.json.tmp, run/<task>.exit(.tmp), logs/<task>.log or logs/service.log, or renaming
run/ away, is refused with EACCES, and after the trainer kills itself (so that the supervisor and
the server write those files) the root file is as it was. Where the job may write (its metrics
file), the server reads without following a link: a trial whose metrics file is a link to a
root file that looks like metrics reports none of its values.

Each job sees only its own project (issue #31 item 2). A's trainer, told the paths of the data
dir's layout (control/job_layout.h), tries, and reports in its log what it could do:
- B's running job: its job.token, its job dir, logs, run records and working dir, and the files
  it left in /tmp, /var/tmp, /dev/shm and its HOME: refused (reading: ENOENT or EACCES; writing:
  also EROFS or EPERM), and so is attaching the System V segment (mode 0600) it made (EINVAL:
  each job has an IPC namespace of its own), while its own token, job dir and working dir stay
  usable;
- B's bucket (`<data>/buckets/<bucket>/`): listing, reading an object, creating, overwriting or
  replacing one: refused, while it writes and reads its own project's bucket;
- the package cache: B's job installed a package, so `<data>/packages/` has its entry; every file
  and directory there is refused to A (create, write, replace), and B's next job runs B's code;
- the same from A's install (a setup.py run by the stager), which may still write /tmp.
The container class plays the first two from a podman container (also through /gcs/); it is
skipped without podman or the fixture's image (failed under TRAINYARD_REQUIRE_CONTAINERS=1).

Every process a job starts ends with it (issue #31 item 3): a trainer starts a `setsid` child
and a double-forked grandchild in a process group of its own, both long sleeps whose command
lines carry a unique marker; once its job has ended (the trainer exited, or the job was
cancelled) no process on the host carries the marker. Staging too: an sdist whose setup.py
starts such a process and then hangs is cancelled while PREPARING, and nothing of it remains.

Usage: hostile_trainer_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

TRAINYARD = None  # set by main()
JOB_USER = gcloud_env.JOB_USER
PROJECT_A, PROJECT_B = "hostile-a", "victim-b"  # the attacker's project and the victim's
BUCKETS = {PROJECT_A: "hostile-a-bucket", PROJECT_B: "victim-b-bucket"}
B_OBJECT = "secret.txt"  # an object of B's bucket, and what it holds
B_SECRET = "an object of project B\n"
CONTAINER_IMAGE = "localhost/trainyard-test/trainer:1"  # tests/images (fixture container_images)
FINAL_STATES = ("SUCCEEDED", "FAILED", "CANCELLED")
# How an attempt may be refused: a path the job cannot see, or may not read or write.
READ_REFUSED = ("ENOENT", "EACCES")
WRITE_REFUSED = ("ENOENT", "EACCES", "EROFS", "EPERM")
SEGMENT_REFUSED = ("EINVAL", "EACCES")  # no such segment in the job's IPC namespace; not its own
PROCESS_DEADLINE_S = 15  # how long the processes of an ended job may take to be gone
# What the root-owned file holds: a line the hypertune library could have written, with a value
# no trial reports, so that reading it through a link would show in the study's output.
CANARY_TEXT = ('{"accuracy": "0.123456", "checkpoint_path": "", "global_step": "1", '
               '"timestamp": 1, "trial": "1"}\n')
# Every attack script starts with this: one log line per attempt, "done" or the errno's name.
ATTEMPT = r'''
import errno, os, sys
def attempt(name, action):
    try:
        action()
        print("attempt %s: done" % name, flush=True)
    except OSError as e:
        print("attempt %s: %s" % (name, errno.errorcode.get(e.errno, e.errno)), flush=True)
'''
# Plants links to the canary (argv[1]) where the server writes in the job's tree (argv[2]),
# prints what happened to each attempt, then kills itself.
ATTACK_LINKS = ATTEMPT + r'''
import signal
canary, job, task = sys.argv[1], sys.argv[2], sys.argv[3]
def plant(target):
    # A link made where the job may write (its working directory), then moved over the target:
    # what replaces an existing file as well as a missing one.
    link = "link-%d-%d" % (os.getpid(), len(os.listdir(".")))
    os.symlink(canary, link)
    os.replace(link, target)
run, logs = os.path.join(job, "run"), os.path.join(job, "logs")
attempt("run-record-temporary", lambda: plant(os.path.join(run, "replicas.json.tmp")))
attempt("run-record", lambda: plant(os.path.join(run, "replicas.json")))
attempt("exit-temporary", lambda: plant(os.path.join(run, task + ".exit.tmp")))
attempt("exit-file", lambda: plant(os.path.join(run, task + ".exit")))
attempt("log", lambda: plant(os.path.join(logs, task + ".log")))
attempt("service-log", lambda: plant(os.path.join(logs, "service.log")))
attempt("token", lambda: plant(os.path.join(job, "job.token")))
attempt("move-run-away", lambda: os.rename(run, os.path.join(job, "run.old")))
attempt("move-job-away", lambda: os.rename(job, job + ".old"))
os.kill(os.getpid(), signal.SIGKILL)
'''
# Tries each [name, operation, path, data...] of the JSON list argv[1] in turn (a path's $VARS
# expanded), then ends well.
ATTACK_FILES = ATTEMPT + r'''
import json
def read(path):
    with open(path, "rb") as f:
        f.read()
def create(path, data):
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644), "w") as f:
        f.write(data)
def overwrite(path, data):
    with open(os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW), "w") as f:
        f.write(data)
def open_for_write(path):  # may it be written? (changes nothing)
    os.close(os.open(path, os.O_WRONLY | os.O_NOFOLLOW))
def replace(path, data):  # a new file moved over it
    temporary = "%s.new-%d" % (path, os.getpid())
    create(temporary, data)
    os.replace(temporary, path)
def shm_attach(segment):  # a System V shared memory segment, by its id
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    if libc.shmat(int(segment), None, 0) in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "shmat")
OPERATIONS = {"read": read, "list": os.listdir, "create": create, "overwrite": overwrite,
              "open-for-write": open_for_write, "replace": replace, "mkdir": os.mkdir,
              "shm-attach": shm_attach}
for name, operation, path, *data in json.loads(sys.argv[1]):
    attempt(name, lambda: OPERATIONS[operation](os.path.expandvars(path), *data))
'''
# Replaces its metrics file with a link to the canary, then ends well.
ATTACK_METRICS = r'''
import os, sys
path = os.environ["CLOUD_ML_HP_METRIC_FILE"]
os.makedirs(os.path.dirname(path), exist_ok=True)
os.symlink(sys.argv[1], path)
print("planted " + path, flush=True)
'''
ATTEMPTS = ["run-record-temporary", "run-record", "exit-temporary", "exit-file", "log",
            "service-log", "token", "move-run-away", "move-job-away"]
# B's running job: leaves a file in its working directory (a host process's), one named after
# argv[1] in each of /tmp, /var/tmp, /dev/shm and its HOME (saying which), and a System V shared
# memory segment of mode 0600 (saying its id), says it runs, then waits to be cancelled.
VICTIM = r'''
import ctypes, os, sys, time
def leave(path):
    try:
        with open(path, "w") as f:
            f.write("left by B")
        return True
    except OSError:
        return False  # a container's working directory is the image's; a HOME may be missing
leave("b-working-file.txt")
for directory in ("/tmp", "/var/tmp", "/dev/shm", os.path.expanduser("~")):
    path = os.path.join(directory, "trainyard-victim-" + sys.argv[1])
    if leave(path):
        print("left " + path, flush=True)
segment = ctypes.CDLL(None).shmget(0, 4096, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
if segment >= 0:
    print("left segment %d" % segment, flush=True)
print("victim running", flush=True)
time.sleep(600)
'''
# Starts two processes meant to outlive it, long sleeps whose command lines carry the marker
# argv[1]: a child in a session of its own (setsid), and a double-forked grandchild in a process
# group of its own; waits until both have exec'd (the pipe's write end is closed on exec), says
# so, then ends (argv[2] "exit") or sleeps until cancelled ("stay").
SURVIVORS = r'''
import os, sys, time
marker, mode = sys.argv[1], sys.argv[2]
r, w = os.pipe()  # not inherited across exec
def sleeper(name, leave):
    try:
        leave()
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.execv("/bin/sleep", ["%s-%s" % (marker, name), "1000"])
    finally:
        os._exit(127)
if os.fork() == 0:
    sleeper("setsid", os.setsid)
middle = os.fork()
if middle == 0:
    if os.fork() == 0:
        sleeper("grandchild", lambda: os.setpgid(0, 0))
    os._exit(0)
os.waitpid(middle, 0)
os.close(w)
os.read(r, 1)
print("survivors started", flush=True)
if mode == "stay":
    time.sleep(600)
'''
SURVIVOR_NAMES = ("setsid", "grandchild")
# A package whose setup.py runs attack.py (ATTACK_FILES) on attempts.json while it is installed.
ATTACKING_SETUP_PY = """import subprocess, sys
with open("attempts.json") as f:
    attempts = f.read()
subprocess.run([sys.executable, "attack.py", attempts], check=False)
from setuptools import setup
setup(name="installattack", version="0.1", packages=["installattack"])
"""
# A package that prints whose code it is.
VICTIM_SETUP_PY = """from setuptools import setup

setup(name="victimpkg", version="0.1", packages=["victimpkg"])
"""
VICTIM_TASK_PY = 'print("victim code of project B", flush=True)\n'
POISON = 'print("poisoned by project A", flush=True)\n'
# A package whose install (setup.py, run by the stager) starts a marked long sleep in a session
# of its own, then hangs: %(marker)s is the marker.
STALLING_SETUP_PY = """import os, time
if os.fork() == 0:
    try:
        os.setsid()
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.execv("/bin/sleep", ["%(marker)s-staging", "1000"])
    finally:
        os._exit(127)
time.sleep(600)
from setuptools import setup
setup(name="stallpkg", version="0.1", packages=["stallpkg"])
"""


def kill_marked(marker):
    """SIGKILLs, by pid, what a test left running with its marker."""
    for pid, _ in gcloud_env.marked_processes(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def remove_if_there(path):
    if os.path.lexists(path):
        os.remove(path)


def wait_until(predicate, timeout, interval=0.1):
    """predicate()'s first true value within `timeout` seconds, or its last false one."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


class TwoProjectsTestCase(gcloud_env.ServerTestCase):
    """A server of `--auth tokens --run-as JOB_USER` (and CONTAINERS) with projects A and B, an
    editor token of each, a bucket of each and an object in B's; the helpers every hostile test
    uses. Jobs run PYTHON with a script, as the image IMAGE's containerCommand."""

    maxDiff = None
    CONTAINERS = "host"
    IMAGE = "hostile/local"
    PYTHON = "/usr/bin/python3"

    @classmethod
    def setUpClass(cls):
        cls.user, cls.tmp = gcloud_env.run_as_setup("trainyard-e2e-hostile-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.package_dir = os.path.join(cls.tmp, "package-dir")
        os.makedirs(cls.package_dir)
        os.chmod(cls.package_dir, 0o755)
        cls.tokens = {}
        try:
            for project in (PROJECT_A, PROJECT_B):
                made = subprocess.run([TRAINYARD, "auth", "create-token", "editor-" + project,
                                       "--role", "editor", "--project", project, "--data-dir",
                                       cls.data], capture_output=True, text=True, timeout=60)
                if made.returncode != 0:
                    raise AssertionError("create-token: %r" % gcloud_env.Run(made))
                cls.tokens[project] = made.stdout.strip()
            cls.prepare_files()
        except BaseException:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise
        cls.server = gcloud_env.start_server(
            TRAINYARD, cls.tmp, cls.data,
            extra_args=["--auth", "tokens", "--run-as", JOB_USER, "--containers", cls.CONTAINERS,
                        "--stop-grace", "2", "--package-dir", cls.package_dir])
        try:
            for project, bucket in BUCKETS.items():
                cls.request("POST", "storage/v1/b?project=" + project, project,
                            json.dumps({"name": bucket}).encode())
            cls.request("POST", "upload/storage/v1/b/%s/o?uploadType=media&name=%s"
                        % (BUCKETS[PROJECT_B], B_OBJECT), PROJECT_B, B_SECRET.encode(),
                        "text/plain")
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def prepare_files(cls):
        """Before the server starts: what the class needs in cls.tmp."""

    # -- helpers ----------------------------------------------------------------------------

    @classmethod
    def request(cls, method, path, project, data=None, content_type="application/json"):
        """The JSON answer to a request with `project`'s editor token; HTTP errors raise with
        their body."""
        request = urllib.request.Request(
            cls.server.url + path.lstrip("/"), method=method, data=data,
            headers={"Content-Type": content_type,
                     "Authorization": "Bearer " + cls.tokens[project]})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return json.loads(reply.read() or b"{}")
        except urllib.error.HTTPError as error:
            raise AssertionError("%s %s: %d %s" % (method, path, error.code,
                                                   error.read().decode(errors="replace")))

    def call(self, method, path, body=None, project=PROJECT_A):
        return self.request(method, path, project,
                            None if body is None else json.dumps(body).encode())

    def submit(self, job_id, script, args, extra=None, project=PROJECT_A):
        """A job whose one replica runs `script` with `args` in PYTHON."""
        body = {"jobId": job_id, "trainingInput": {
            "region": "us-central1",
            "masterConfig": {"imageUri": self.IMAGE,
                             "containerCommand": [self.PYTHON, "-c", script],
                             "containerArgs": list(args)}}}
        body["trainingInput"].update(extra or {})
        self.call("POST", "/v1/projects/%s/jobs" % project, body, project)

    def submit_package(self, job_id, sdist, module, project):
        """A job of the Python package `sdist` (a file of the package dir), running `module`."""
        self.call("POST", "/v1/projects/%s/jobs" % project, {"jobId": job_id, "trainingInput": {
            "region": "us-central1", "runtimeVersion": "2.11", "pythonVersion": "3.7",
            "packageUris": [sdist], "pythonModule": module}}, project)

    def job(self, job_id, project=PROJECT_A):
        return self.call("GET", "/v1/projects/%s/jobs/%s" % (project, job_id), project=project)

    def cancel(self, job_id, project=PROJECT_A):
        self.call("POST", "/v1/projects/%s/jobs/%s:cancel" % (project, job_id), {}, project)

    def wait_for_state(self, job_id, states, project=PROJECT_A, timeout=120):
        def reached():
            job = self.job(job_id, project)
            return job if job["state"] in states else None
        job = wait_until(reached, timeout, 0.2)
        if not job:
            self.fail("job %s was not %s within %d s: %s\n%s" % (
                job_id, "/".join(states), timeout, self.job(job_id, project),
                "\n".join(self.served_log(job_id, project))))
        return job

    def wait_for_end(self, job_id, project=PROJECT_A, timeout=120):
        return self.wait_for_state(job_id, FINAL_STATES, project, timeout)

    def served_log(self, job_id, project=PROJECT_A):
        """The job's log lines as the logging API serves them."""
        entries = self.call("POST", "/v2/entries:list", {
            "resourceNames": ["projects/" + project],
            "filter": 'resource.labels.job_id="%s"' % job_id, "pageSize": 1000}, project)
        return [e.get("textPayload", "") for e in entries.get("entries", [])]

    def job_root(self, project, job_id):
        return os.path.join(self.data, "jobs", project, job_id)

    def bucket_dir(self, project):
        return os.path.join(self.data, "buckets", BUCKETS[project])

    def attack(self, job_id, attempts):
        """Runs ATTACK_FILES in A's job `job_id` with `attempts` ([name, operation, path,
        data...]); {name: "done" or the errno's name} from its log."""
        self.submit(job_id, ATTACK_FILES, [json.dumps(attempts)])
        job = self.wait_for_end(job_id)
        lines = self.served_log(job_id)
        self.assertEqual(job["state"], "SUCCEEDED", "%s\n%s" % (job, "\n".join(lines)))
        return self.attempted(attempts, lines)

    def attempted(self, attempts, lines):
        """{name: "done" or the errno's name} of each of `attempts` from the lines that
        ATTACK_FILES printed (the first of a name, should it run twice)."""
        results = {}
        for line in lines:
            if line.startswith("attempt ") and ": " in line:
                name, result = line[len("attempt "):].rsplit(": ", 1)
                results.setdefault(name, result)
        self.assertEqual(sorted(results), sorted(a[0] for a in attempts), "\n".join(lines))
        return results

    def assertRefused(self, attempts, results, what):
        """Every attempt but those named "own-…" (which must be done) refused: READ_REFUSED for
        reading and listing, WRITE_REFUSED for the others."""
        allowed, own = {}, {}
        for name, operation, *_ in attempts:
            result = results[name]
            if name.startswith("own-"):
                if result != "done":
                    own[name] = result
            elif result not in {"read": READ_REFUSED, "list": READ_REFUSED,
                                "shm-attach": SEGMENT_REFUSED}.get(operation, WRITE_REFUSED):
                allowed[name] = result
        self.assertEqual((allowed, own), ({}, {}),
                         "%s: (attempts not refused, own attempts refused)" % what)

    def start_victim(self, job_id):
        """B's job `job_id`, running VICTIM until the test ends (then cancelled), once it said
        so and its token is there; (its job root, the paths it left in temporary directories
        and its HOME)."""
        self.submit(job_id, VICTIM, [uuid.uuid4().hex], project=PROJECT_B)
        # Ended before the test does: a replica that ends after the server stopped would write
        # its exit file into the removed temp dir.
        self.addCleanup(self.wait_for_end, job_id, PROJECT_B)
        self.addCleanup(self.cancel, job_id, PROJECT_B)
        root = self.job_root(PROJECT_B, job_id)
        wait_until(lambda: self.job(job_id, PROJECT_B)["state"] in FINAL_STATES or (
            "victim running" in self.served_log(job_id, PROJECT_B)), 60, 0.2)
        state = self.job(job_id, PROJECT_B)["state"]
        lines = self.served_log(job_id, PROJECT_B)
        self.assertEqual(state, "RUNNING", "B's job: %s" % lines)
        self.assertTrue(os.path.exists(os.path.join(root, "job.token")), root)
        left = [line[len("left "):] for line in lines if line.startswith("left /")]
        for path in left:  # on the host's own /tmp… where the job's are not private
            self.addCleanup(remove_if_there, path)
        segments = [line.split()[-1] for line in lines if line.startswith("left segment ")]
        self.assertEqual(len(segments), 1, "B's job made no segment: %s" % lines)
        return root, left + ["segment " + segments[0]]

    def other_jobs_attempts(self, victim):
        """Attempts on B's running job `victim` (start_victim's)."""
        victim_root, left = victim
        task = "master-replica-0"
        working = os.path.join(victim_root, task)
        return [["b-segment", "shm-attach", entry.split()[1]] if entry.startswith("segment ")
                else ["b-private:" + entry, "read", entry] for entry in left] + [
            ["b-token", "read", os.path.join(victim_root, "job.token")],
            ["b-project-jobs", "list", os.path.dirname(victim_root)],
            ["b-job-root", "list", victim_root],
            ["b-logs", "list", os.path.join(victim_root, "logs")],
            ["b-log", "read", os.path.join(victim_root, "logs", task + ".log")],
            ["b-service-log", "read", os.path.join(victim_root, "logs", "service.log")],
            ["b-run", "list", os.path.join(victim_root, "run")],
            ["b-run-record", "read", os.path.join(victim_root, "run", "replicas.json")],
            ["b-working-dir", "list", working],
            ["b-working-file", "read", os.path.join(working, "b-working-file.txt")],
            ["b-working-create", "create", os.path.join(working, "from-a.txt"), "from A"],
        ]

    def bucket_attempts(self, bucket_b, bucket_a, tag):
        """Attempts on B's bucket at `bucket_b` (and, done, on A's at `bucket_a`); the names end
        with `tag`, the files A writes are named after it."""
        secret = os.path.join(bucket_b, B_OBJECT)
        return [
            ["b-bucket-list" + tag, "list", bucket_b],
            ["b-object-read" + tag, "read", secret],
            ["b-object-create" + tag, "create", os.path.join(bucket_b, "from-a%s.txt" % tag),
             "planted by A"],
            ["b-object-overwrite" + tag, "overwrite", secret, "overwritten by A"],
            ["b-object-replace" + tag, "replace", secret, "replaced by A"],
            ["b-bucket-mkdir" + tag, "mkdir", os.path.join(bucket_b, "dir-from-a" + tag)],
            ["own-object-create" + tag, "create", os.path.join(bucket_a, "own%s.txt" % tag),
             "A's own"],
            ["own-object-read" + tag, "read", os.path.join(bucket_a, "own%s.txt" % tag)],
            ["own-bucket-list" + tag, "list", bucket_a],
        ]

    def assertBucketsAsTheyWere(self, tags):
        """B's bucket holds only its object, unchanged; A's holds what A wrote (`tags`)."""
        with open(os.path.join(self.bucket_dir(PROJECT_B), B_OBJECT), encoding="utf-8") as f:
            self.assertEqual(f.read(), B_SECRET, "A changed B's object")
        self.assertEqual(os.listdir(self.bucket_dir(PROJECT_B)), [B_OBJECT])
        for tag in tags:
            self.assertTrue(os.path.exists(os.path.join(self.bucket_dir(PROJECT_A),
                                                        "own%s.txt" % tag)), tag)


class HostileTrainerTest(TwoProjectsTestCase):
    """Trainers as host processes (`--containers host`)."""

    @classmethod
    def prepare_files(cls):
        cls.canary = os.path.join(cls.tmp, "root-only")
        with open(cls.canary, "w", encoding="utf-8") as f:
            f.write(CANARY_TEXT)
        os.chmod(cls.canary, 0o600)
        cls.victim_sdist = os.path.join(cls.package_dir, "victimpkg-0.1.tar.gz")
        gcloud_env.make_sdist(cls.victim_sdist, "victimpkg", {
            "setup.py": VICTIM_SETUP_PY, "victimpkg/__init__.py": "",
            "victimpkg/task.py": VICTIM_TASK_PY})

    def setUp(self):
        self.assertCanaryUntouched()

    def tearDown(self):
        self.assertCanaryUntouched()

    def assertCanaryUntouched(self):
        st = os.lstat(self.canary)
        self.assertEqual((st.st_uid, st.st_mode & 0o7777), (0, 0o600))
        with open(self.canary, encoding="utf-8") as f:
            self.assertEqual(f.read(), CANARY_TEXT, "the root-owned file was overwritten")

    def test_links_where_the_server_writes_as_root_cannot_be_planted(self):
        job_id = "hostile_links"
        job_root = self.job_root(PROJECT_A, job_id)
        self.submit(job_id, ATTACK_LINKS, [self.canary, job_root, "master-replica-0"])
        job = self.wait_for_end(job_id)
        self.assertEqual(job["state"], "FAILED", job)  # it killed itself
        lines = self.served_log(job_id)
        for name in ATTEMPTS:
            # The job's root lies in the empty read-only directory its view shows for the data
            # directory: moving it away is refused as a read-only file system there.
            refusal = "EROFS" if name == "move-job-away" else "EACCES"
            self.assertIn("attempt %s: %s" % (name, refusal), lines, "\n".join(lines))
        for directory in (job_root, os.path.join(job_root, "run"), os.path.join(job_root, "logs")):
            st = os.lstat(directory)
            self.assertEqual(st.st_uid, 0, directory)
            self.assertEqual(st.st_mode & 0o022, 0, "%s is writable by the job" % directory)
            for name in os.listdir(directory):
                self.assertFalse(os.path.islink(os.path.join(directory, name)), name)

    def test_a_metrics_file_that_is_a_link_is_not_read(self):
        job_id = "hostile_metrics"
        self.submit(job_id, ATTACK_METRICS, [self.canary], {"hyperparameters": {
            "goal": "MAXIMIZE", "hyperparameterMetricTag": "accuracy", "maxTrials": 1,
            "maxParallelTrials": 1,
            "params": [{"parameterName": "lr", "type": "DOUBLE", "minValue": 0.01,
                        "maxValue": 0.1}]}})
        job = self.wait_for_end(job_id)
        self.assertIn("planted ", "\n".join(self.served_log(job_id)))
        self.assertNotIn("0.123456", json.dumps(job), "the server read the root file as metrics")

    def test_another_projects_job_token_job_dir_and_logs_are_out_of_reach(self):
        victim = self.start_victim("victim_job")
        self.assertTrue(os.path.exists(os.path.join(victim[0], "master-replica-0",
                                                    "b-working-file.txt")))
        attempts = self.other_jobs_attempts(victim) + [
            ["own-token", "read", "$CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"],
            ["own-job-root", "list", self.job_root(PROJECT_A, "hostile_jobs")],
            ["own-working-create", "create", "from-a.txt", "A's own"]]
        results = self.attack("hostile_jobs", attempts)
        self.assertRefused(attempts, results, "B's job")
        self.assertFalse(os.path.exists(os.path.join(victim[0], "master-replica-0",
                                                     "from-a.txt")))

    def test_another_projects_bucket_is_out_of_reach(self):
        attempts = self.bucket_attempts(self.bucket_dir(PROJECT_B), self.bucket_dir(PROJECT_A), "")
        results = self.attack("hostile_buckets", attempts)
        self.assertRefused(attempts, results, "B's bucket")
        self.assertBucketsAsTheyWere([""])

    def test_the_package_cache_cannot_be_poisoned(self):
        self.submit_package("cache_victim_1", self.victim_sdist, "victimpkg.task", PROJECT_B)
        job = self.wait_for_end("cache_victim_1", PROJECT_B)
        lines = self.served_log("cache_victim_1", PROJECT_B)
        self.assertEqual(job["state"], "SUCCEEDED", "%s\n%s" % (job, "\n".join(lines)))
        self.assertIn("victim code of project B", lines)
        # Every directory of the cache gets a new file, every file is opened for writing (which
        # changes nothing: a broken manifest would only make the server install the entry
        # again), and every module is overwritten and replaced with A's code.
        cache = os.path.join(self.data, "packages")
        attempts = [["mkdir:.", "mkdir", os.path.join(cache, "entry-from-a")]]
        for directory, _, files in os.walk(cache):
            relative = os.path.relpath(directory, cache)
            attempts.append(["create:" + relative, "create",
                             os.path.join(directory, "from_a.py"), POISON])
            for name in files:
                path = os.path.join(directory, name)
                attempts.append(["write:%s/%s" % (relative, name), "open-for-write", path])
                if name.endswith(".py"):
                    attempts.append(["overwrite:%s/%s" % (relative, name), "overwrite", path,
                                     POISON])
                    attempts.append(["replace:%s/%s" % (relative, name), "replace", path,
                                     POISON])
        self.assertTrue([a for a in attempts if a[0].endswith("victimpkg/task.py")],
                        "B's job left no entry in %s: %s" % (cache, attempts))
        results = self.attack("hostile_cache", attempts)
        # B's next job, with the same package, runs B's code.
        self.submit_package("cache_victim_2", self.victim_sdist, "victimpkg.task", PROJECT_B)
        job = self.wait_for_end("cache_victim_2", PROJECT_B)
        lines = self.served_log("cache_victim_2", PROJECT_B)
        ran = [line for line in lines if "project" in line]
        self.assertRefused(attempts, results, "the package cache (then B's job printed %s)" % ran)
        self.assertEqual((job["state"], ran), ("SUCCEEDED", ["victim code of project B"]),
                         "\n".join(lines))

    def survivors_test(self, job_id, mode):
        """SURVIVORS in A's job `job_id` (`mode` "exit" or "stay", then cancelled); then no
        process with its marker."""
        marker = "trainyard-survivor-" + uuid.uuid4().hex
        self.addCleanup(kill_marked, marker)
        self.submit(job_id, SURVIVORS, [marker, mode])
        if mode == "stay":  # both are there while the job runs
            started = wait_until(lambda: all(gcloud_env.marked_processes("%s-%s" % (marker, name))
                                             for name in SURVIVOR_NAMES), 60)
            self.assertTrue(started, "the trainer started no survivors: %s\n%s" % (
                self.job(job_id), "\n".join(self.served_log(job_id))))
            self.cancel(job_id)
        job = self.wait_for_end(job_id)
        lines = self.served_log(job_id)
        self.assertIn("survivors started", lines, "%s\n%s" % (job, "\n".join(lines)))
        self.assertEqual(job["state"], "SUCCEEDED" if mode == "exit" else "CANCELLED", job)
        left = wait_until(lambda: not gcloud_env.marked_processes(marker), PROCESS_DEADLINE_S)
        self.assertTrue(left, "%d s after the job %s: %s" % (
            PROCESS_DEADLINE_S, job["state"], gcloud_env.marked_processes(marker)))
        # Its IPC namespace (mounted below its private directories) is released with them.
        ipc = "/%s/%s/.ipc " % (PROJECT_A, job_id)
        released = wait_until(lambda: ipc not in read_text("/proc/self/mountinfo"),
                              PROCESS_DEADLINE_S)
        self.assertTrue(released, "%s is still mounted after the job %s" % (ipc, job["state"]))

    def test_no_process_of_a_job_outlives_its_end(self):
        self.survivors_test("survivors_exit", "exit")

    def test_no_process_of_a_job_outlives_its_cancel(self):
        self.survivors_test("survivors_cancel", "stay")

    def test_a_cancelled_install_leaves_no_process(self):
        marker = "trainyard-survivor-" + uuid.uuid4().hex
        self.addCleanup(kill_marked, marker)
        sdist = os.path.join(self.package_dir, "stallpkg-0.1.tar.gz")
        gcloud_env.make_sdist(sdist, "stallpkg", {"setup.py": STALLING_SETUP_PY % {"marker": marker},
                                       "stallpkg/__init__.py": ""})
        self.submit_package("stalled_install", sdist, "stallpkg", PROJECT_A)
        started = wait_until(lambda: gcloud_env.marked_processes(marker + "-staging")
                             or self.job("stalled_install")["state"] in FINAL_STATES, 60)
        state = self.job("stalled_install")["state"]
        self.assertTrue(started and state == "PREPARING", "the install is not running (%s): %s"
                        % (state, gcloud_env.marked_processes(marker)))
        self.cancel("stalled_install")
        job = self.wait_for_end("stalled_install")
        self.assertEqual(job["state"], "CANCELLED", job)
        left = wait_until(lambda: not gcloud_env.marked_processes(marker), PROCESS_DEADLINE_S)
        self.assertTrue(left, "%d s after the cancel: %s" % (PROCESS_DEADLINE_S,
                                                             gcloud_env.marked_processes(marker)))

    def test_an_install_sees_only_its_own_project(self):
        job_id = "hostile_install"
        victim_root, _ = self.start_victim("victim_of_install")
        bucket_b = self.bucket_dir(PROJECT_B)
        attempts = [
            ["b-token", "read", os.path.join(victim_root, "job.token")],
            ["b-job-root", "list", victim_root],
            ["b-bucket-list", "list", bucket_b],
            ["b-object-read", "read", os.path.join(bucket_b, B_OBJECT)],
            ["b-object-create", "create", os.path.join(bucket_b, "from-a-install.txt"), "A"],
            ["cache-create", "create", os.path.join(self.data, "packages", "from_a.py"), POISON],
            ["own-tmp-create", "create", "/tmp/trainyard-install-" + uuid.uuid4().hex, "A"]]
        self.addCleanup(remove_if_there, attempts[-1][2])
        sdist = os.path.join(self.package_dir, "installattack-0.1.tar.gz")
        gcloud_env.make_sdist(sdist, "installattack", {
            "setup.py": ATTACKING_SETUP_PY, "attack.py": ATTACK_FILES,
            "attempts.json": json.dumps(attempts), "installattack/__init__.py": "",
            "installattack/task.py": 'print("installed", flush=True)\n'})
        self.submit_package(job_id, sdist, "installattack.task", PROJECT_A)
        job = self.wait_for_end(job_id)
        with open(os.path.join(self.job_root(PROJECT_A, job_id), "staging.log"),
                  encoding="utf-8", errors="replace") as f:
            staging = f.read().splitlines()
        self.assertEqual(job["state"], "SUCCEEDED", "%s\n%s" % (job, "\n".join(staging)))
        self.assertRefused(attempts, self.attempted(attempts, staging), "B's files to an install")
        self.assertBucketsAsTheyWere([])


class HostileContainerTest(TwoProjectsTestCase):
    """Trainers in podman containers (`--containers podman`, the image of the fixture
    container_images), running as the job user: the buckets are also at /gcs/."""

    CONTAINERS = "podman"
    IMAGE = CONTAINER_IMAGE
    PYTHON = "python3"

    @classmethod
    def setUpClass(cls):
        podman = shutil.which("podman")
        exists = podman and subprocess.run([podman, "image", "exists", CONTAINER_IMAGE],
                                           capture_output=True, timeout=60, check=False)
        if not exists or exists.returncode != 0:
            why = ("%s is missing (the fixture container_images builds it)" % CONTAINER_IMAGE
                   if podman else "podman is not installed")
            if os.environ.get("TRAINYARD_REQUIRE_CONTAINERS") == "1":
                raise AssertionError(why)
            raise unittest.SkipTest(why)
        super().setUpClass()

    def test_another_projects_job_token_job_dir_and_logs_are_out_of_reach(self):
        attempts = self.other_jobs_attempts(self.start_victim("victim_job")) + [
            ["own-bucket-list", "list", "/gcs/" + BUCKETS[PROJECT_A]]]
        results = self.attack("hostile_jobs", attempts)
        self.assertRefused(attempts, results, "B's job")

    def test_another_projects_bucket_is_out_of_reach(self):
        attempts = (self.bucket_attempts(self.bucket_dir(PROJECT_B), self.bucket_dir(PROJECT_A),
                                         "-data")
                    + self.bucket_attempts("/gcs/" + BUCKETS[PROJECT_B],
                                           "/gcs/" + BUCKETS[PROJECT_A], "-gcs"))
        results = self.attack("hostile_buckets", attempts)
        self.assertRefused(attempts, results, "B's bucket")
        self.assertBucketsAsTheyWere(["-data", "-gcs"])


if __name__ == "__main__":
    def _set(path):
        global TRAINYARD
        TRAINYARD = path
    gcloud_env.main(__doc__, _set)
