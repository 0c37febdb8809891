#!/usr/bin/python3
"""The real gcloud (Cloud SDK 528) `storage` commands against a real `trainyard serve`.

Starts `trainyard serve` on a free loopback port with a temporary data directory and points a
private gcloud configuration at it, storage included (`api_endpoint_overrides/storage`,
docs/reference/ai-platform-training.md §1.1 and §11). Drives bucket creation and listing, uploads
(one-shot and resumable), listings, `cat`, downloads, copies, moves, `rsync` and removals through
gcloud, checking what it prints, its exit codes and the bytes: both those that come back and the
plain files under `<data dir>/buckets`. Then checks that `gcloud ai-platform jobs submit training
--package-path --staging-bucket` uploads the package through trainyard's storage API. Stops the
server with SIGTERM at the end and checks that it exited cleanly.

Usage: gcloud_storage_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import base64
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

GCLOUD = gcloud_env.GCLOUD
TRAINYARD = None  # set by main()
PROJECT = "p"
SETUP_PY = ('from setuptools import setup, find_packages\n'
            'setup(name="trainer", version="0.1", packages=find_packages())\n')


def md5_base64(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


class GcloudStorageTest(gcloud_env.ServerTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-storage-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, cls.data)
        cls.env = gcloud_env.gcloud_environment(os.path.join(cls.tmp, "gcloud"), PROJECT,
                                                cls.server.url)

    # -- helpers ----------------------------------------------------------------------------

    def gcloud(self, *args, binary=False):
        proc = subprocess.run([GCLOUD, *args], env=self.env, cwd=self.tmp, capture_output=True,
                              text=not binary, timeout=180)
        return gcloud_env.Run(proc)

    def ok(self, *args, binary=False):
        run = self.gcloud(*args, binary=binary)
        self.assertEqual(run.rc, 0, run)
        return run

    def local(self, name, data):
        """Writes `data` (bytes) to a file under the test's directory; returns its path."""
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def on_disk(self, bucket, name):
        """The plain file behind gs://bucket/name: the bucket store's contract."""
        return self.read(os.path.join(self.data, "buckets", bucket, name))

    def make_bucket(self, bucket):
        run = self.ok("storage", "buckets", "create", "gs://" + bucket)
        self.assertIn("Creating gs://%s/..." % bucket, run.err)
        self.assertNotIn("WARNING", run.err)  # e.g. about timestamps gcloud cannot parse

    def ls(self, *args):
        return self.ok("storage", "ls", *args).out.split()

    # -- buckets ----------------------------------------------------------------------------

    def test_buckets_create_list_describe_and_refuse_a_duplicate(self):
        self.make_bucket("e2e-buckets")
        self.assertIn("gs://e2e-buckets/", self.ls())
        listed = self.ok("storage", "buckets", "list", "--format", "value(name)").out.split()
        self.assertIn("e2e-buckets", listed)
        described = json.loads(self.ok("storage", "buckets", "describe", "gs://e2e-buckets",
                                       "--format", "json").out)
        self.assertEqual(described["name"], "e2e-buckets")
        self.assertEqual(described["storage_url"], "gs://e2e-buckets/")
        again = self.gcloud("storage", "buckets", "create", "gs://e2e-buckets")
        self.assertEqual(again.rc, 1, again)
        self.assertIn("HTTPError 409", again.err)

    def test_buckets_update_changes_the_labels_with_a_patch(self):
        self.make_bucket("e2e-labels")

        def labels():
            described = json.loads(self.ok("storage", "buckets", "describe", "gs://e2e-labels",
                                           "--format", "json").out)
            return described.get("labels")

        self.ok("storage", "buckets", "update", "gs://e2e-labels",
                "--update-labels", "team=ml,env=dev")
        self.assertEqual(labels(), {"env": "dev", "team": "ml"})
        self.ok("storage", "buckets", "update", "gs://e2e-labels",
                "--update-labels", "stage=raw", "--remove-labels", "env")
        self.assertEqual(labels(), {"stage": "raw", "team": "ml"})
        bad = self.gcloud("storage", "buckets", "update", "gs://e2e-labels",
                          "--update-labels", "team=UPPER")
        self.assertEqual(bad.rc, 1, bad)
        self.assertIn("HTTPError 400", bad.err)
        self.assertEqual(labels(), {"stage": "raw", "team": "ml"})
        self.ok("storage", "buckets", "update", "gs://e2e-labels", "--clear-labels")
        self.assertIsNone(labels())

    def test_a_missing_bucket_is_not_found(self):
        run = self.gcloud("storage", "ls", "gs://e2e-no-such-bucket/")
        self.assertEqual(run.rc, 1, run)
        self.assertEqual(run.error_line(), "gs://e2e-no-such-bucket not found: 404.")

    # -- objects ----------------------------------------------------------------------------

    def test_cp_ls_cat_download_and_rm(self):
        self.make_bucket("e2e-objects")
        data = b"hello\r\nworld\n\x00\xff" * 1000
        self.ok("storage", "cp", self.local("upload.bin", data), "gs://e2e-objects/x/y")
        self.assertEqual(self.on_disk("e2e-objects", "x/y"), data)
        self.assertEqual(self.ls("gs://e2e-objects/x/"), ["gs://e2e-objects/x/y"])
        self.assertEqual(self.ls("gs://e2e-objects"), ["gs://e2e-objects/x/"])
        self.assertEqual(self.ok("storage", "cat", "gs://e2e-objects/x/y", binary=True).out, data)
        target = os.path.join(self.tmp, "downloaded.bin")
        self.ok("storage", "cp", "gs://e2e-objects/x/y", target)
        self.assertEqual(self.read(target), data)
        described = json.loads(self.ok("storage", "objects", "describe", "gs://e2e-objects/x/y",
                                       "--format", "json").out)
        self.assertEqual(described["md5_hash"], md5_base64(data))
        self.assertEqual(described["size"], len(data))

        self.ok("storage", "rm", "gs://e2e-objects/x/y")
        self.assertFalse(os.path.exists(os.path.join(self.data, "buckets/e2e-objects/x/y")))
        run = self.gcloud("storage", "ls", "gs://e2e-objects/x/")
        self.assertEqual(run.rc, 1, run)
        self.assertIn("matched no objects", run.err)
        missing = self.gcloud("storage", "cat", "gs://e2e-objects/x/y")
        self.assertEqual(missing.rc, 1, missing)

    def test_a_large_file_goes_up_resumable_and_comes_back_whole(self):
        self.make_bucket("e2e-large")
        data = os.urandom(20 << 20)  # past gcloud's resumable threshold (8 MiB)
        self.ok("storage", "cp", self.local("large.bin", data), "gs://e2e-large/model.bin")
        self.assertEqual(self.on_disk("e2e-large", "model.bin"), data)
        hashes = self.ok("storage", "hash", "gs://e2e-large/model.bin", "--format", "json").out
        self.assertEqual(json.loads(hashes)[0]["md5_hash"], md5_base64(data))
        target = os.path.join(self.tmp, "large-back.bin")
        self.ok("storage", "cp", "gs://e2e-large/model.bin", target)
        self.assertEqual(self.read(target), data)

    def test_recursive_copy_move_rsync_and_bucket_removal(self):
        self.make_bucket("e2e-tree")
        self.local("tree/a.txt", b"a")
        self.local("tree/sub/b.txt", b"b")
        self.ok("storage", "cp", "-r", os.path.join(self.tmp, "tree"), "gs://e2e-tree/")
        self.assertEqual(self.ls("-r", "gs://e2e-tree/tree/**"),
                         ["gs://e2e-tree/tree/a.txt", "gs://e2e-tree/tree/sub/b.txt"])
        self.ok("storage", "cp", "gs://e2e-tree/tree/a.txt", "gs://e2e-tree/copy.txt")
        self.ok("storage", "mv", "gs://e2e-tree/copy.txt", "gs://e2e-tree/moved/a.txt")
        self.assertEqual(self.on_disk("e2e-tree", "moved/a.txt"), b"a")
        self.ok("storage", "rsync", "-r", os.path.join(self.tmp, "tree"), "gs://e2e-tree/synced")
        self.assertEqual(self.on_disk("e2e-tree", "synced/sub/b.txt"), b"b")
        self.assertEqual(self.ls("gs://e2e-tree"),
                         ["gs://e2e-tree/moved/", "gs://e2e-tree/synced/", "gs://e2e-tree/tree/"])
        self.ok("storage", "rm", "-r", "gs://e2e-tree")
        self.assertNotIn("gs://e2e-tree/", self.ls())
        self.assertFalse(os.path.exists(os.path.join(self.data, "buckets/e2e-tree")))

    def test_files_written_by_plain_file_io_are_objects(self):
        self.make_bucket("e2e-fileio")
        out = os.path.join(self.data, "buckets/e2e-fileio/job/output")
        os.makedirs(out)
        with open(os.path.join(out, "metrics.json"), "wb") as f:
            f.write(b'{"accuracy": 0.9}')
        self.assertEqual(self.ls("gs://e2e-fileio/job/output/"),
                         ["gs://e2e-fileio/job/output/metrics.json"])
        self.assertEqual(self.ok("storage", "cat", "gs://e2e-fileio/job/output/metrics.json").out,
                         '{"accuracy": 0.9}')

    # -- ai-platform staging ----------------------------------------------------------------

    def test_submit_training_uploads_the_package_through_the_storage_api(self):
        self.make_bucket("e2e-staging")
        self.local("pkg/setup.py", SETUP_PY.encode())
        self.local("pkg/trainer/__init__.py", b"")
        self.local("pkg/trainer/task.py", b'print("training")\n')
        run = self.gcloud("ai-platform", "jobs", "submit", "training", "e2e_staged",
                          "--package-path", os.path.join(self.tmp, "pkg/trainer"),
                          "--module-name", "trainer.task", "--staging-bucket", "gs://e2e-staging",
                          "--region", "us-central1", "--runtime-version", "2.11",
                          "--python-version", "3.7")
        self.assertEqual(run.rc, 0, run)
        self.assertIn("Job [e2e_staged] submitted successfully.", run.err)

        listed = self.ls("-r", "gs://e2e-staging/e2e_staged/**")
        self.assertEqual(len(listed), 1, listed)
        self.assertRegex(listed[0],
                         r"^gs://e2e-staging/e2e_staged/[0-9a-f]{64}/trainer-0\.1\.tar\.gz$")
        job = json.loads(self.ok("ai-platform", "jobs", "describe", "e2e_staged",
                                 "--format", "json").out)
        self.assertEqual(job["trainingInput"]["packageUris"], listed)
        package = os.path.join(self.tmp, "staged.tar.gz")
        self.ok("storage", "cp", listed[0], package)
        with tarfile.open(package) as tar:
            self.assertIn("trainer-0.1/trainer/task.py", tar.getnames())

    def test_submit_training_uploads_a_large_package_resumably(self):
        self.make_bucket("e2e-staging-large")
        data = os.urandom(12 << 20)  # gcloud's ai-platform upload goes resumable past 5 MiB
        package = self.local("trainer-0.2.tar.gz", data)
        run = self.gcloud("ai-platform", "jobs", "submit", "training", "e2e_staged_large",
                          "--packages", package, "--module-name", "trainer.task",
                          "--staging-bucket", "gs://e2e-staging-large",
                          "--region", "us-central1", "--runtime-version", "2.11",
                          "--python-version", "3.7")
        self.assertEqual(run.rc, 0, run)
        listed = self.ls("-r", "gs://e2e-staging-large/e2e_staged_large/**")
        self.assertEqual(len(listed), 1, listed)
        self.assertTrue(listed[0].endswith("/trainer-0.2.tar.gz"), listed)
        name = listed[0][len("gs://e2e-staging-large/"):]
        self.assertEqual(self.on_disk("e2e-staging-large", name), data)


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
