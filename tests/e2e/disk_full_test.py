#!/usr/bin/python3
"""`trainyard serve` with its data dir on a full disk (issue #17): a small tmpfs.

The data dir is a tmpfs of TMPFS_SIZE (mounting needs root: without it the suite is SKIPPED, or
FAILED under TRAINYARD_REQUIRE_TMPFS=1). The tests run in order on one server:

  1-3. storage uploads larger than the disk (uploadType=media, multipart, resumable in 1 MiB
       chunks): each is answered with an error in the GCS shape whose message says the disk is
       full; no object (or partial object) is visible; the space is given back; the server's
       peak memory grows far less than the upload (bodies are spooled to disk, not held);
  4.   the disk filled to the last byte by a file beside the data: job creations are refused
       with a google.rpc error naming the full disk (or accepted, when SQLite still had room),
       small uploads too; a job writing logs goes on running, and one that ends while the disk
       is full still gets its outcome once space is freed;
  5.   space freed (the file removed), without a restart: uploads and jobs work again, every job
       acknowledged before is still there, the logs read back as whole records;
  6.   `PRAGMA integrity_check` is ok on trainyard.db and storage.db.

The figures (tmpfs size, what was written before each error, the errors seen, integrity) are
printed at the end.

Usage: disk_full_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import http.client
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

TRAINYARD = None  # set by main()
PROJECT = "full"
BUCKET = "full"
TMPFS_SIZE = 8 << 20
BIG = 16 << 20  # twice the disk
CHUNK = 1 << 20
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
# What an answer must say when the disk is full, in words a user understands.
FULL_WORDS = re.compile(r"No space left on device|disk is full", re.IGNORECASE)
FIGURES = {"tmpfs_bytes": TMPFS_SIZE}

# A trainer printing numbered lines until $1 exists, then writing $2; its count so far in $3 (both
# outside the tmpfs).
CHATTER = r"""
i=0
while [ ! -e "$1" ]; do i=$((i+1)); echo "line $i"; echo $i > "$3"; sleep 0.005; done
echo done
touch "$2"
"""


def require_root_tmpfs(mount_point):
    """Mounts the tmpfs at `mount_point`; exits SKIPPED (or FAILED under
    TRAINYARD_REQUIRE_TMPFS=1) when that is not possible here, saying why, after removing the
    test's temporary directory (the mount point's parent)."""
    why = ""
    if os.geteuid() != 0:
        why = "not root: mounting the small tmpfs needs root"
    else:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % TMPFS_SIZE, "tmpfs",
                               mount_point], capture_output=True, text=True)
        if done.returncode == 0:
            return
        why = "mount -t tmpfs failed: " + (done.stderr.strip() or "rc %d" % done.returncode)
    shutil.rmtree(os.path.dirname(mount_point), ignore_errors=True)
    required = os.environ.get("TRAINYARD_REQUIRE_TMPFS") == "1"
    print(("FAILED: " if required else "SKIPPED: ") + why +
          "; TRAINYARD_REQUIRE_TMPFS=1 makes this a failure", flush=True)
    sys.exit(1 if required else gcloud_env.SKIPPED)


def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def peak_rss_kib(pid):
    with open("/proc/%d/status" % pid, encoding="utf-8") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


class DiskFullTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-full-")
        cls.data = os.path.join(cls.tmp, "data")
        os.makedirs(cls.data)
        require_root_tmpfs(cls.data)
        cls.server = None
        try:
            cls.server = gcloud_env.TrainyardServer(
                TRAINYARD, cls.data, extra_args=["--containers", "host", "--stop-grace", "2"])
            cls.server.start()
            cls.port = cls.server.port
            status, body = cls.call("POST", "/storage/v1/b?project=" + PROJECT,
                                    json.dumps({"name": BUCKET}))
            assert status == 200, body
            cls.before = [cls.submit("before_%d" % i) for i in range(3)]
            assert all(status == 200 for status, _ in cls.before), cls.before
            for i in range(3):
                assert cls.wait_for_end("before_%d" % i)["state"] == "SUCCEEDED"
            cls.stop_chatter = os.path.join(cls.tmp, "stop-chatter")
            cls.chatter_ended = os.path.join(cls.tmp, "chatter-ended")
            cls.chatter_count = os.path.join(cls.tmp, "chatter-count")
            status, body = cls.submit("chatter", ["/bin/sh", "-c", CHATTER, "chatter",
                                                  cls.stop_chatter, cls.chatter_ended,
                                                  cls.chatter_count])
            assert status == 200, body
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.server is not None:
                cls.server.stop()
        finally:
            for _ in range(50):  # the replicas' supervisors may still hold files there
                if subprocess.run(["umount", cls.data], capture_output=True).returncode == 0:
                    break
                time.sleep(0.1)
            else:
                subprocess.run(["umount", "-l", cls.data], capture_output=True)
            shutil.rmtree(cls.tmp, ignore_errors=True)
            print("figures: " + json.dumps(FIGURES, indent=1), flush=True)

    # -- helpers ----------------------------------------------------------------------------

    @classmethod
    def call(cls, method, path, body=None, headers=None, timeout=60):
        """(status, parsed JSON or {"text": ...}, headers); status 0 when no answer came."""
        conn = http.client.HTTPConnection("127.0.0.1", cls.port, timeout=timeout)
        try:
            conn.request(method, path, body=body,
                         headers=headers or {"Content-Type": "application/json"})
            reply = conn.getresponse()
            text = reply.read()
            try:
                parsed = json.loads(text) if text else {}
            except ValueError:
                parsed = {"text": text.decode(errors="replace")}
            return reply.status, parsed
        except (OSError, http.client.HTTPException) as e:
            return 0, {"connection": repr(e)}
        finally:
            conn.close()

    @classmethod
    def submit(cls, job_id, command=("/bin/echo", "hello")):
        job = {"jobId": job_id, "trainingInput": {
            "region": "us-central1",
            "masterConfig": {"imageUri": "full/local", "containerCommand": list(command)}}}
        return cls.call("POST", "/v1/projects/%s/jobs" % PROJECT, json.dumps(job))

    @classmethod
    def get_job(cls, job_id):
        return cls.call("GET", "/v1/projects/%s/jobs/%s" % (PROJECT, job_id))

    @classmethod
    def wait_for_end(cls, job_id, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            status, job = cls.get_job(job_id)
            if (status == 200 and job.get("state") in TERMINAL) or time.monotonic() > deadline:
                return job
            time.sleep(0.1)

    def chatter_exit_seen(self):
        """Whether the executor handled the chatter's exit: its job ended, or its replica is
        EXITED while the outcome waits for the store."""
        if self.get_job("chatter")[1].get("state") in TERMINAL:
            return True
        status, body = self.call("GET", "/trainyard/v1/projects/%s/jobs/chatter/replicas"
                                 % PROJECT)
        return status == 200 and any(r.get("state") == "EXITED"
                                     for r in body.get("replicas", []))

    def chatter_lines(self):
        try:
            with open(self.chatter_count, encoding="utf-8") as f:
                return int(f.read().strip() or 0)
        except (OSError, ValueError):
            return 0

    def object_status(self, name):
        return self.call("GET", "/storage/v1/b/%s/o/%s" % (BUCKET, name))[0]

    def scratch_files(self):
        scratch = os.path.join(self.data, "buckets", ".uploads")
        found = []
        for parent, _, files in os.walk(scratch):
            found += [os.path.relpath(os.path.join(parent, f), scratch) for f in files]
        return sorted(found)

    def assert_full_error(self, status, body, what):
        """An error answer whose message says the disk is full; returns the message."""
        self.assertGreaterEqual(status, 400, "%s: %s %s" % (what, status, body))
        message = body.get("error", {}).get("message", "")
        self.assertRegex(message, FULL_WORDS, "%s: %s %s" % (what, status, body))
        return message

    def upload_too_large(self, name, path, body, headers):
        """Uploads `body`; checks the error, that nothing is visible and the space came back."""
        free = free_bytes(self.data)
        rss = peak_rss_kib(self.server.pid)
        status, answer = self.call("POST", path, body, headers)
        FIGURES[name] = {"free_before": free, "upload_bytes": len(body), "status": status,
                         "error": answer.get("error", answer),
                         "peak_rss_growth_kib": peak_rss_kib(self.server.pid) - rss}
        self.assert_full_error(status, answer, name)
        self.assertEqual(self.object_status(name), 404)
        self.assertEqual(self.scratch_files(), [])
        self.assertGreaterEqual(free_bytes(self.data), free - (64 << 10))
        # Spooled to disk: far less memory than the body (which is twice the disk).
        self.assertLess(FIGURES[name]["peak_rss_growth_kib"] * 1024, len(body) // 2)

    # -- the tests, in order ----------------------------------------------------------------

    def test_1_media_upload_larger_than_the_disk(self):
        self.upload_too_large(
            "big-media", "/upload/storage/v1/b/%s/o?uploadType=media&name=big-media" % BUCKET,
            os.urandom(BIG), {"Content-Type": "application/octet-stream"})

    def test_2_multipart_upload_larger_than_the_disk(self):
        boundary = "trainyard-boundary"
        body = (("--%s\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n"
                 '{"name": "big-multipart"}\r\n--%s\r\nContent-Type: application/octet-stream'
                 "\r\n\r\n" % (boundary, boundary)).encode() + os.urandom(BIG) +
                ("\r\n--%s--\r\n" % boundary).encode())
        self.upload_too_large(
            "big-multipart", "/upload/storage/v1/b/%s/o?uploadType=multipart" % BUCKET, body,
            {"Content-Type": "multipart/related; boundary=" + boundary})

    def test_3_resumable_upload_larger_than_the_disk(self):
        free = free_bytes(self.data)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("POST", "/upload/storage/v1/b/%s/o?uploadType=resumable&name=big-resumable"
                     % BUCKET, "{}", {"Content-Type": "application/json"})
        reply = conn.getresponse()
        reply.read()
        conn.close()
        self.assertEqual(reply.status, 200)
        # The session URL: its path and query are this server's.
        session = "/upload/" + reply.getheader("Location").split("/upload/", 1)[1]
        data = os.urandom(BIG)
        offset, status, answer = 0, 308, {}
        while offset < BIG and status == 308:
            chunk = data[offset:offset + CHUNK]
            status, answer = self.call(
                "PUT", session, chunk,
                {"Content-Range": "bytes %d-%d/%d" % (offset, offset + len(chunk) - 1, BIG)})
            if status == 308:
                offset += len(chunk)
        query_status, _ = self.call("PUT", session, b"", {"Content-Range": "bytes */%d" % BIG})
        FIGURES["big-resumable"] = {"free_before": free, "upload_bytes": BIG,
                                    "chunks_accepted_bytes": offset, "status": status,
                                    "error": answer.get("error", answer),
                                    "query_after_error": query_status}
        self.assert_full_error(status, answer, "resumable chunk")
        # GCS's shape: a 429 whose reason clients know to retry later.
        self.assertEqual(status, 429, answer)
        self.assertEqual(answer["error"]["errors"][0]["reason"], "rateLimitExceeded", answer)
        self.assertEqual(query_status, 308)  # the session is still there to resume
        self.assertEqual(self.object_status("big-resumable"), 404)
        self.assertEqual(self.call("DELETE", session)[0], 499)
        self.assertEqual(self.scratch_files(), [])
        self.assertGreaterEqual(free_bytes(self.data), free - (64 << 10))

    def test_4_a_full_disk(self):
        filler = os.path.join(self.data, "filler")
        written = 0
        with open(filler, "wb", buffering=0) as f:
            block = b"\0" * 65536
            while True:
                try:
                    written += f.write(block)
                except OSError:
                    break
            for size in (4096, 512, 1):  # the last pages
                while True:
                    try:
                        written += f.write(block[:size])
                    except OSError:
                        break
        FIGURES["filler_bytes"] = written
        try:
            created, errors = [], []
            for i in range(50):
                status, body = self.submit("while_full_%d" % i)
                if status == 200:
                    created.append(body["jobId"])
                    continue
                errors.append((status, body))
                break
            FIGURES["jobs_created_while_full"] = len(created)
            FIGURES["job_create_error"] = errors[0] if errors else None
            small_status, small = self.call(
                "POST", "/upload/storage/v1/b/%s/o?uploadType=media&name=small" % BUCKET,
                os.urandom(64 << 10), {"Content-Type": "application/octet-stream"})
            FIGURES["small_upload_while_full"] = [small_status, small.get("error", small)]
            # The chatter job prints 100 more lines, then ends, while the disk is full; its outcome
            # must still be written.
            count_at_full = self.chatter_lines()
            deadline = time.monotonic() + 60
            while self.chatter_lines() < count_at_full + 100 and time.monotonic() < deadline:
                time.sleep(0.05)
            FIGURES["chatter_lines_while_full"] = self.chatter_lines() - count_at_full
            open(self.stop_chatter, "w").close()
            deadline = time.monotonic() + 30
            while not os.path.exists(self.chatter_ended) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertTrue(os.path.exists(self.chatter_ended), "the chatter trainer did not end")
            # The executor sees the exit while the disk is still full.
            deadline = time.monotonic() + 30
            while not self.chatter_exit_seen() and time.monotonic() < deadline:
                time.sleep(0.05)
            FIGURES["chatter_state_while_full"] = self.get_job("chatter")[1].get("state")
        finally:
            os.unlink(filler)
        FIGURES["jobs_state_after_free"] = {
            job_id: self.wait_for_end(job_id).get("state") for job_id in created + ["chatter"]}
        if errors:
            status, body = errors[0]
            message = self.assert_full_error(status, body, "job create")
            self.assertIn(body["error"].get("status"), ("RESOURCE_EXHAUSTED", "UNAVAILABLE",
                                                        "INTERNAL"), message)
        if small_status != 200:
            self.assert_full_error(small_status, small, "small upload")
            self.assertEqual(self.object_status("small"), 404)
        self.assertEqual(FIGURES["jobs_state_after_free"],
                         {job_id: "SUCCEEDED" for job_id in created + ["chatter"]})

    def test_5_space_freed_without_restart(self):
        status, body = self.submit("after_free")
        self.assertEqual(status, 200, body)
        self.assertEqual(self.wait_for_end("after_free").get("state"), "SUCCEEDED")
        data = os.urandom(2 << 20)
        status, body = self.call(
            "POST", "/upload/storage/v1/b/%s/o?uploadType=media&name=after-free" % BUCKET, data,
            {"Content-Type": "application/octet-stream"})
        self.assertEqual(status, 200, body)
        self.assertEqual(int(body["size"]), len(data))
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", "/storage/v1/b/%s/o/after-free?alt=media" % BUCKET)
        self.assertEqual(conn.getresponse().read(), data)
        conn.close()
        for i in range(3):
            self.assertEqual(self.get_job("before_%d" % i)[1].get("state"), "SUCCEEDED")
        # The chatter's log: whole records only, in order, whatever the full disk lost.
        texts, token = [], None
        while True:
            request = {"resourceNames": ["projects/" + PROJECT], "orderBy": "timestamp asc",
                       "pageSize": 1000,
                       "filter": 'resource.labels.job_id="chatter" AND '
                                 'resource.labels.task_name="master-replica-0"'}
            if token:
                request["pageToken"] = token
            status, page = self.call("POST", "/v2/entries:list", json.dumps(request))
            self.assertEqual(status, 200, page)
            texts += [e.get("textPayload", "") for e in page.get("entries", [])]
            token = page.get("nextPageToken")
            if not token:
                break
        torn = [t for t in texts if not re.fullmatch(r"line \d+|done", t)]
        numbers = [int(t.split()[1]) for t in texts if t.startswith("line ")]
        printed = self.chatter_lines() + 1  # and "done"
        FIGURES["chatter_log"] = {"printed": printed, "records": len(texts), "torn": torn[:5],
                                  "lost_while_full": printed - len(texts)}
        # Lines printed while the disk was full may be lost; those recorded are whole and in order.
        self.assertEqual(torn, [])
        self.assertEqual(numbers, sorted(numbers))
        self.assertGreater(len(numbers), 0)

    def test_6_databases_intact(self):
        results = {}
        for name in ("trainyard.db", "storage.db"):
            db = sqlite3.connect("file:%s?mode=ro" % os.path.join(self.data, name), uri=True)
            try:
                results[name] = db.execute("PRAGMA integrity_check").fetchall()
            finally:
                db.close()
        FIGURES["integrity_check"] = results
        self.assertEqual(results, {"trainyard.db": [("ok",)], "storage.db": [("ok",)]})


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
