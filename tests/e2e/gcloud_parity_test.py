#!/usr/bin/python3
"""Parity of `trainyard jobs submit training --dry-run` with the real gcloud (Cloud SDK 528).

For each combination of flags and `--config` files, runs
`gcloud ai-platform jobs submit training` against a local recording server (recording_server.py)
and trainyard with the same arguments, and asserts that the two create-request bodies are equal
as JSON. What gcloud sends is the specification. Where trainyard knowingly differs, no case here
shows it, for these reasons:
  * A zero value written in a --config file (`scaleTier: BASIC`, `useChiefInTfConfig: false`,
    `workerCount: 0`) is echoed by gcloud's apitools messages but left out by trainyard: the model
    keeps no presence for such fields, and the service decodes both bodies to the same Job. The
    same zero values given as flags are sent, as gcloud does (request_body.h).
  * An unknown field in a --config file is forwarded by gcloud (and refused by the service);
    trainyard's strict decoder refuses it before sending.
  * `--master-accelerator type=tpu-v2-pod,...` and other enum values the catalog does not offer
    are accepted by gcloud's flag parser (and refused by the service); trainyard refuses them
    while parsing the flag. Conversely trainyard accepts the catalog's newer GPUs.
  * gcloud exits 2 for flag-value errors (argparse); trainyard exits 1 (2 only for command lines
    its parser cannot read). The messages are gcloud's (test_client_side_errors_match_gcloud).
  * An sdist embeds build times, so the sha256 in --package-path object names differs between any
    two builds; that case compares the names with the checksum masked, and the local-archive case
    checks the checksum rule exactly.

Usage: gcloud_parity_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)
import recording_server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "configs")
GCLOUD = gcloud_env.GCLOUD
Run = gcloud_env.Run
TRAINYARD = None  # set by main()
PROJECT = "p"
CREATE_PATH = "/v1/projects/%s/jobs" % PROJECT
SHA256_SEGMENT = re.compile(r"/[0-9a-f]{64}/")


def config(name):
    return os.path.join(CONFIGS, name)


class GcloudParityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-parity-")
        cls.record = os.path.join(cls.tmp, "requests.jsonl")
        cls.server = recording_server.RecordingServer(cls.record).start()
        cls.gcloud_env = gcloud_env.gcloud_environment(
            os.path.join(cls.tmp, "gcloud"), PROJECT, "http://127.0.0.1:%d/" % cls.server.port)
        cls.trainyard_env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        cls.trainyard_env["TRAINYARD_PROJECT"] = PROJECT
        cls.work = os.path.join(cls.tmp, "work")
        cls._write_fixtures(cls.work)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @staticmethod
    def _write_fixtures(work):
        """A package directory without setup.py, and two prebuilt local archives."""
        os.makedirs(os.path.join(work, "src", "trainer"))
        with open(os.path.join(work, "src", "trainer", "__init__.py"), "w") as f:
            f.write("")
        with open(os.path.join(work, "src", "trainer", "task.py"), "w") as f:
            f.write("print('training')\n")
        os.makedirs(os.path.join(work, "dist"))
        with open(os.path.join(work, "dist", "extra-1.0.tar.gz"), "wb") as f:
            f.write(b"not really a tarball, but bytes with a fixed sha256\n")
        with open(os.path.join(work, "dist", "dep-2.0-py3-none-any.whl"), "wb") as f:
            f.write(b"\x00\x01 wheel bytes \xff")

    # -- running the two CLIs ---------------------------------------------------------------

    def gcloud(self, args, track=()):
        """Runs gcloud; returns (Run, [records of the requests it made])."""
        before = len(recording_server.read_records(self.record))
        proc = subprocess.run([GCLOUD, *track, "ai-platform", "jobs", "submit", "training", *args],
                              env=self.gcloud_env, cwd=self.work, capture_output=True, text=True,
                              timeout=120)
        return Run(proc), recording_server.read_records(self.record)[before:]

    def trainyard(self, args, verb=("jobs", "submit", "training")):
        proc = subprocess.run([TRAINYARD, *verb, *args], env=self.trainyard_env, cwd=self.work,
                              capture_output=True, text=True, timeout=120)
        return Run(proc)

    @staticmethod
    def split_user_args(args):
        if "--" in args:
            i = args.index("--")
            return args[:i], args[i:]
        return args, []

    def assert_parity(self, args, track=(), mask_checksum=False):
        """Both CLIs accept `args`; the create bodies are equal as JSON. Returns both bodies."""
        g, records = self.gcloud(args, track)
        self.assertEqual(g.rc, 0, "gcloud failed:\n" + g.err)
        creates = [r for r in records if r["method"] == "POST" and r["path"] == CREATE_PATH]
        self.assertEqual(len(creates), 1, records)
        expected = creates[0]["body"]

        flags, user_args = self.split_user_args(args)
        t = self.trainyard(flags + ["--dry-run"] + user_args)
        self.assertEqual(t.rc, 0, "trainyard failed:\n" + t.err)
        self.assertIn("Would POST to %s" % CREATE_PATH, t.err)
        actual = json.loads(t.out)
        if mask_checksum:
            # sdists embed build times, so two builds of one tree differ in their sha256.
            expected = json.loads(SHA256_SEGMENT.sub("/<sha256>/", json.dumps(expected)))
            actual = json.loads(SHA256_SEGMENT.sub("/<sha256>/", json.dumps(actual)))
        self.assertEqual(actual, expected)
        return expected, actual, records, t

    # -- the combinations -------------------------------------------------------------------

    def test_config_file_only(self):
        # A whole custom-container job from the file; gcloud still requires --region.
        body, _, _, _ = self.assert_parity(
            ["job_config_only", "--config", config("container_cluster.yaml"),
             "--region", "us-central1"])
        self.assertEqual(body["trainingInput"]["evaluatorCount"], "1")

    def test_flags_only(self):
        self.assert_parity(
            ["job_flags_only", "--packages", "gs://bkt1/trainer-0.1.tar.gz",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.11", "--python-version", "3.7",
             "--scale-tier", "standard-1", "--service-account", "sa@p.iam.gserviceaccount.com"])

    def test_flags_override_config_file(self):
        # --labels replaces the file's map, `--` args replace its args, and the file's
        # packageUris never survive (gcloud always sets the flags' package list).
        body, _, _, _ = self.assert_parity(
            ["job_override", "--config", config("hptuning.yaml"), "--region", "us-central1",
             "--packages", "gs://bkt1/trainer-0.1.tar.gz", "--runtime-version", "2.11",
             "--labels", "owner=bob,env=dev", "--job-dir", "gs://bkt1/out", "--", "--epochs=5"])
        self.assertEqual(body["labels"], {"owner": "bob", "env": "dev"})
        self.assertEqual(body["trainingInput"]["args"], ["--epochs=5"])

    def test_accelerators_on_master_worker_and_parameter_servers(self):
        self.assert_parity(
            ["job_gpus", "--packages", "gs://bkt1/trainer-0.1.tar.gz",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.11", "--scale-tier", "custom",
             "--master-machine-type", "n1-standard-8",
             "--master-accelerator", "count=4,type=nvidia-tesla-t4",
             "--worker-machine-type", "n1-standard-8", "--worker-count", "3",
             "--worker-accelerator", "type=NVIDIA_TESLA_V100,count=1",
             "--parameter-server-machine-type", "n1-highmem-8",
             "--parameter-server-count", "2",
             "--parameter-server-accelerator", "type=nvidia-tesla-k80,count=1"])

    def test_legacy_machine_types(self):
        self.assert_parity(
            ["job_legacy", "--packages", "gs://bkt1/trainer-0.1.tar.gz",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "1.15", "--python-version", "3.7", "--scale-tier", "custom",
             "--master-machine-type", "complex_model_m",
             "--worker-machine-type", "standard_gpu", "--worker-count", "4",
             "--parameter-server-machine-type", "large_model", "--parameter-server-count", "2"])

    def test_scale_tier_basic_gpu(self):
        self.assert_parity(
            ["job_basic_gpu", "--packages", "gs://bkt1/trainer-0.1.tar.gz",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.11", "--scale-tier", "basic-gpu"])

    def test_scale_tier_basic_is_sent_explicitly(self):
        # BASIC is the proto3 zero value, yet gcloud sends it when the flag is given.
        body, _, _, _ = self.assert_parity(
            ["job_basic", "--packages", "gs://bkt1/trainer-0.1.tar.gz",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.11", "--scale-tier", "basic"])
        self.assertEqual(body["trainingInput"]["scaleTier"], "BASIC")

    def test_scale_tier_basic_tpu(self):
        self.assert_parity(
            ["job_basic_tpu", "--packages", "gs://bkt1/trainer-0.1.tar.gz",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.1", "--scale-tier", "basic-tpu"])

    def test_tpu_worker_with_tpu_tf_version_through_gcloud_beta(self):
        # --tpu-tf-version exists only in gcloud's beta/alpha tracks; trainyard always has it.
        body, _, _, _ = self.assert_parity(
            ["job_tpu", "--config", config("tpu_container.yaml"), "--region", "us-central1",
             "--tpu-tf-version", "2.2", "--worker-accelerator", "type=tpu-v3,count=8"],
            track=("beta",))
        self.assertEqual(body["trainingInput"]["workerConfig"]["tpuTfVersion"], "2.2")
        self.assertEqual(body["trainingInput"]["workerConfig"]["imageUri"],
                         "gcr.io/p/tpu-trainer:1")

    def test_tricky_user_args_pass_through_verbatim(self):
        body, _, _, _ = self.assert_parity(
            ["job_args", "--packages", "gs://bkt1/trainer-0.1.tar.gz",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.11",
             "--", "--x=1", "with space", 'q"uote', "it's", "", "--region=us-east1", "--",
             "ünï cödé", "{\"json\": [1, 2]}", "-v"])
        self.assertEqual(body["trainingInput"]["args"][6], "--")

    def test_labels_merge_across_repeated_flags(self):
        # Within one --labels a later key wins; repeated --labels merge (distinct keys only).
        body, _, _, _ = self.assert_parity(
            ["job_labels", "--packages", "gs://bkt1/trainer-0.1.tar.gz",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.11", "--labels", "team=ml,cost-center=c_42,team=infra",
             "--labels", "empty="])
        self.assertEqual(body["labels"], {"team": "infra", "cost-center": "c_42", "empty": ""})

    def test_packages_list_of_gs_objects_and_job_dir_bucket(self):
        body, _, _, _ = self.assert_parity(
            ["job_gs_packages", "--packages",
             "gs://bkt1/trainer-0.1.tar.gz,gs://bkt1/deps/dep-2.0-py3-none-any.whl",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.11", "--job-dir", "gs://bkt1"])
        self.assertEqual(body["trainingInput"]["jobDir"], "gs://bkt1/")

    def test_master_image_uri_with_chief_web_access_and_kms(self):
        self.assert_parity(
            ["job_container", "--master-image-uri", "gcr.io/p/trainer:2",
             "--worker-image-uri", "gcr.io/p/worker:2", "--region", "us-central1",
             "--scale-tier", "custom", "--master-machine-type", "n1-standard-8",
             "--worker-machine-type", "n1-standard-8", "--worker-count", "2",
             "--use-chief-in-tf-config", "true", "--enable-web-access",
             "--kms-key", "k1", "--kms-keyring", "ring", "--kms-location", "us-central1",
             "--", "--steps", "100"])

    def test_use_chief_in_tf_config_false_is_sent_explicitly(self):
        body, _, _, _ = self.assert_parity(
            ["job_no_chief", "--config", config("container_cluster.yaml"),
             "--region", "us-central1", "--use-chief-in-tf-config", "false"])
        self.assertIs(body["trainingInput"]["useChiefInTfConfig"], False)

    def test_local_packages_are_staged_under_the_same_checksum(self):
        body, _, records, t = self.assert_parity(
            ["job_local", "--packages",
             "dist/extra-1.0.tar.gz,gs://bkt1/remote.tar.gz,dist/dep-2.0-py3-none-any.whl",
             "--staging-bucket", "gs://bkt1", "--module-name", "trainer.task",
             "--region", "us-central1", "--runtime-version", "2.11"])
        uploads = ["gs://%s/%s" % (r["path"].split("/")[5], r["query"]["name"][0])
                   for r in records if r["path"].startswith("/upload/storage/v1/b/")]
        would = re.findall(r"Would upload \[[^\]]+\] to \[([^\]]+)\]", t.err)
        self.assertEqual(would, uploads)
        self.assertEqual(body["trainingInput"]["packageUris"][1:], uploads)

    def test_package_path_is_built_and_staged_under_job_dir(self):
        body, _, records, t = self.assert_parity(
            ["job_package_path", "--package-path", "src/trainer", "--job-dir", "gs://bkt1/out/",
             "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.11"], mask_checksum=True)
        uri = body["trainingInput"]["packageUris"][0]
        self.assertRegex(uri, r"^gs://bkt1/out/packages/<sha256>/trainer-0\.0\.0\.tar\.gz$")
        self.assertIn("Would upload [", t.err)
        self.assertFalse(os.path.exists(os.path.join(self.work, "src", "setup.py")))

    # -- refusals ---------------------------------------------------------------------------

    def test_client_side_errors_match_gcloud(self):
        base = ["job_err", "--packages", "gs://bkt1/trainer-0.1.tar.gz", "--region",
                "us-central1", "--module-name", "trainer.task"]
        cases = {
            "zero accelerator count": ["--master-accelerator", "count=0,type=nvidia-tesla-t4"],
            "missing accelerator count": ["--master-accelerator", "type=nvidia-tesla-t4"],
            "unknown accelerator key": ["--worker-accelerator", "type=tpu-v2,count=8,x=1"],
            "upper-case label key": ["--labels", "Team=a"],
            "label key in two --labels": ["--labels", "a=1", "--labels", "b=2,a=3"],
            "custom tier without master": ["--scale-tier", "custom"],
            "image and runtime": ["--master-image-uri", "gcr.io/p/i", "--runtime-version", "2.1"],
            "count without machine type": ["--worker-count", "2"],
            "zero worker count": ["--worker-count", "0", "--worker-machine-type", "n1-standard-4"],
            "bad boolean": ["--use-chief-in-tf-config", "maybe"],
            "staging bucket without gs://": ["--staging-bucket", "bkt1"],
            "partial kms key": ["--kms-key", "k1"],
        }
        for name, extra in cases.items():
            with self.subTest(name):
                g, records = self.gcloud(base + extra)
                t = self.trainyard(base + extra + ["--dry-run"])
                self.assertNotEqual(g.rc, 0)
                self.assertFalse([r for r in records if r["path"] == CREATE_PATH])
                self.assertEqual(t.rc, 1, t.err)
                self.assertEqual(t.out, "")
                self.assertEqual(t.error_line(), g.error_line())
        with self.subTest("no packages"):
            args = ["job_err", "--region", "us-central1", "--module-name", "trainer.task"]
            g, _ = self.gcloud(args)
            t = self.trainyard(args + ["--dry-run"])
            self.assertEqual((t.rc, t.error_line()), (1, g.error_line()))
            self.assertEqual(t.error_line(), "Non-custom jobs must have packages.")

    def test_validate_refuses_an_invalid_accelerator_count_naming_the_field(self):
        # gcloud accepts any count > 0; the service (and trainyard, offline) refuses 3 x T4.
        args = ["job_bad_count", "--packages", "gs://bkt1/trainer-0.1.tar.gz",
                "--module-name", "trainer.task", "--region", "us-central1",
                "--runtime-version", "2.11", "--scale-tier", "custom",
                "--master-machine-type", "n1-standard-8",
                "--master-accelerator", "type=nvidia-tesla-t4,count=3"]
        t = self.trainyard(args, verb=("jobs", "validate"))
        self.assertEqual(t.rc, 1, t.out + t.err)
        self.assertIn("trainingInput.masterConfig.acceleratorConfig.count: ", t.out)
        self.assertNotIn("Job request is valid.", t.out)
        submit = self.trainyard(args + ["--dry-run"])
        self.assertEqual((submit.rc, submit.out), (1, ""))
        self.assertIn("trainingInput.masterConfig.acceleratorConfig.count: ", submit.err)
        fixed = self.trainyard([a.replace("count=3", "count=4") for a in args],
                               verb=("jobs", "validate"))
        self.assertEqual((fixed.rc, fixed.out), (0, "Job request is valid.\n"))


def main():
    def set_trainyard(path):
        global TRAINYARD
        TRAINYARD = path

    gcloud_env.main(__doc__, set_trainyard)


if __name__ == "__main__":
    main()
