#!/usr/bin/python3
"""Parity of `trainyard ai custom-jobs` and `ai hp-tuning-jobs` with the real gcloud (Cloud SDK
528) `gcloud ai custom-jobs` and `gcloud ai hp-tuning-jobs` (issue #20).

Both CLIs talk to one local recording server (recording_server.py: gcloud through
`api_endpoint_overrides/aiplatform`, trainyard through $TRAINYARD_SERVER). For each combination of
flags and `--config` files the test asserts that the two requests are the same (method, path,
query without gcloud's `alt=json`, and the body as JSON), and that what trainyard prints is
gcloud's text with `trainyard` for `gcloud`. Client-side refusals must carry gcloud's message.
Where trainyard knowingly differs, no case here shows it:
  * gcloud exits 2 for errors of its argument parser and 1 for the rest; trainyard exits 1 for
    every refusal of a flag's value, 2 only for command lines its parser cannot read.
  * A value of the wrong type in a --config file (`machineType: 123`) is refused by gcloud's
    apitools and converted by trainyard (the server judges it); gcloud's message for a
    non-integer `replica-count` names no key, trainyard's does.
  * `local-package-path` (gcloud builds and pushes a Docker image) is refused: trainyard builds
    no images. `--max-failed-trial-count` is trainyard's own flag.
  * `list --filter` is sent to the server (gcloud filters on the client); `list` has no
    `--page-size` (gcloud's only pages its output; both ask the server for 100 a page).
  * A dict flag without `=` gets trainyard's own hint instead of gcloud's `gcloud topic`.

Usage: vertex_parity_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
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
REGION = "us-central1"
PARENT = "/v1/projects/%s/locations/%s/" % (PROJECT, REGION)
JOB_NAME = "projects/%s/locations/%s/customJobs/%s" % (PROJECT, REGION,
                                                         recording_server.VERTEX_JOB_ID)
T4 = "accelerator-type=NVIDIA_TESLA_T4"
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"


def config(name):
    return os.path.join(CONFIGS, name)


def request(record):
    """What a request says, without gcloud's `alt=json`."""
    query = {k: v for k, v in record["query"].items() if k != "alt"}
    return record["method"], record["path"], query, record["body"]


def without_upper_bound(record):
    """A request as JSON text, an entries:list filter without its `timestamp<"…"` clause: the
    client's clock, which trainyard also leaves out of its last poll of an ended job."""
    method, path, query, body = request(record)
    if isinstance(body, dict) and "filter" in body:
        body = dict(body)
        body["filter"] = " AND ".join(c for c in body["filter"].split(" AND ")
                                      if not c.startswith("timestamp<"))
    return json.dumps([method, path, query, body], sort_keys=True)


class VertexParityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-vertex-parity-")
        cls.record = os.path.join(cls.tmp, "requests.jsonl")
        cls.server = recording_server.RecordingServer(cls.record).start()
        url = "http://127.0.0.1:%d/" % cls.server.port
        cls.gcloud_env = gcloud_env.gcloud_environment(
            os.path.join(cls.tmp, "gcloud"), PROJECT, url, logging_url=url, aiplatform_url=url)
        for name in ("CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE", "REQUESTS_CA_BUNDLE"):
            cls.gcloud_env.pop(name, None)
        cls.trainyard_env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        cls.trainyard_env.update({"TRAINYARD_PROJECT": PROJECT, "TRAINYARD_SERVER": url})

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # -- running the two CLIs ---------------------------------------------------------------

    def run_cli(self, program, env, args):
        """Runs `program ai ARGS`; returns (Run, [records of the requests it made])."""
        before = len(recording_server.read_records(self.record))
        proc = subprocess.run([program, "ai", *args], env=env, cwd=self.tmp, capture_output=True,
                              text=True, timeout=120)
        return Run(proc), recording_server.read_records(self.record)[before:]

    def gcloud(self, args):
        return self.run_cli(GCLOUD, self.gcloud_env, args)

    def trainyard(self, args):
        return self.run_cli(TRAINYARD, self.trainyard_env, args)

    def assert_parity(self, args):
        """Both CLIs accept `args` and make the same requests; returns (gcloud, trainyard, the
        requests)."""
        g, g_records = self.gcloud(args)
        self.assertEqual(g.rc, 0, "gcloud failed:\n%r" % g)
        t, t_records = self.trainyard(args)
        self.assertEqual(t.rc, 0, "trainyard failed:\n%r" % t)
        self.assertEqual([request(r) for r in t_records], [request(r) for r in g_records])
        return g, t, g_records

    def assert_same_text(self, gcloud_text, trainyard_text):
        """trainyard prints gcloud's text, with its own name in the commands it suggests and
        without gcloud's "Using endpoint" line."""
        lines = [line for line in gcloud_text.splitlines(keepends=True)
                 if not line.startswith("Using endpoint [")]
        self.assertEqual(trainyard_text, "".join(lines).replace("$ gcloud ", "$ trainyard "))

    def create_custom(self, *flags):
        return ["custom-jobs", "create", "--region", REGION, *flags]

    def create_study(self, *flags):
        return ["hp-tuning-jobs", "create", "--region", REGION, *flags]

    # -- custom-jobs create -----------------------------------------------------------------

    def test_container_pool_with_accelerators_args_and_labels(self):
        g, t, records = self.assert_parity(self.create_custom(
            "--display-name", "c1", "--worker-pool-spec=machine-type=n1-standard-4,"
            "replica-count=2,%s,accelerator-count=1,container-image-uri=localhost/img:1" % T4,
            "--args=--epochs=3,--lr=0.1", "--labels=team=vision,env=dev"))
        body = records[0]["body"]
        self.assertEqual(body["jobSpec"]["workerPoolSpecs"][0]["replicaCount"], "2")
        self.assertEqual(body["labels"], {"team": "vision", "env": "dev"})
        self.assert_same_text(g.err, t.err)
        self.assertIn("CustomJob [%s] is submitted successfully." % JOB_NAME, t.err)
        self.assertEqual(t.out, "")

    def test_python_package_pool_with_package_uris(self):
        _, _, records = self.assert_parity(self.create_custom(
            "--display-name", "py", "--worker-pool-spec=machine-type=n1-standard-4,"
            "executor-image-uri=%s,python-module=trainer.task" % EXECUTOR,
            "--python-package-uris=gs://b/trainer-0.1.tar.gz,gs://b/dep-1.0.tar.gz",
            "--args=--lr=0.1"))
        spec = records[0]["body"]["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]
        self.assertEqual(spec["packageUris"], ["gs://b/trainer-0.1.tar.gz", "gs://b/dep-1.0.tar.gz"])

    def test_two_pools_with_accelerators_and_a_command(self):
        # accelerator-count defaults to 1 once accelerator-type is given.
        _, _, records = self.assert_parity(self.create_custom(
            "--display-name", "two", "--worker-pool-spec=machine-type=n1-standard-8,%s,"
            "accelerator-count=2,container-image-uri=localhost/img:1" % T4,
            "--worker-pool-spec=machine-type=n1-standard-4,replica-count=3,"
            "accelerator-type=NVIDIA_TESLA_V100,container-image-uri=localhost/img:1",
            "--command=python3,-m,trainer.task", "--args=a", "--args=b"))
        pools = records[0]["body"]["jobSpec"]["workerPoolSpecs"]
        self.assertEqual(pools[1]["machineSpec"]["acceleratorCount"], 1)
        self.assertEqual(pools[1]["containerSpec"]["args"], ["a", "b"])

    def test_an_empty_flag_is_an_empty_pool(self):
        _, _, records = self.assert_parity(self.create_custom(
            "--display-name", "gap",
            "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=localhost/img:1",
            "--worker-pool-spec=",
            "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=localhost/img:1"))
        self.assertEqual(records[0]["body"]["jobSpec"]["workerPoolSpecs"][1], {})

    def test_config_with_four_pools(self):
        _, _, records = self.assert_parity(self.create_custom(
            "--display-name", "four", "--config", config("vertex_four_pools.yaml")))
        spec = records[0]["body"]["jobSpec"]
        self.assertEqual(len(spec["workerPoolSpecs"]), 4)
        self.assertEqual(spec["workerPoolSpecs"][1]["diskSpec"]["bootDiskSizeGb"], 100)

    def test_flags_over_a_config(self):
        # The flags' pool replaces the file's four; the file's other fields stay.
        self.assert_parity(self.create_custom(
            "--display-name", "over", "--config", config("vertex_four_pools.yaml"),
            "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=localhost/img:2",
            "--args=x", "--command=sh,-c", "--network=projects/1/global/networks/n",
            "--service-account=sa@p.iam.gserviceaccount.com", "--enable-web-access",
            "--labels=a=b"))

    def test_args_and_command_apply_to_every_pool_of_a_config(self):
        self.assert_parity(self.create_custom(
            "--display-name", "cfgargs", "--config", config("vertex_four_pools.yaml"),
            "--args=--steps=10", "--command=python3"))

    def test_config_holding_one_pool_as_a_mapping(self):
        self.assert_parity(self.create_custom(
            "--display-name", "single", "--config", config("vertex_single_pool_mapping.yaml")))

    # -- hp-tuning-jobs create --------------------------------------------------------------

    def test_study_config_with_trial_counts(self):
        g, t, records = self.assert_parity(self.create_study(
            "--display-name", "h1", "--config", config("vertex_hp_study.yaml"),
            "--max-trial-count", "4", "--parallel-trial-count", "2"))
        body = records[0]["body"]
        self.assertEqual((body["maxTrialCount"], body["parallelTrialCount"]), (4, 2))
        self.assertEqual(body["studySpec"]["parameters"][1]["integerValueSpec"]["maxValue"], "4")
        self.assert_same_text(g.err, t.err)

    def test_study_flags_go_to_the_study_and_the_trial_spec(self):
        _, _, records = self.assert_parity(self.create_study(
            "--display-name", "h2", "--config", config("vertex_hp_study.yaml"),
            "--algorithm=grid-search", "--labels=a=b", "--enable-web-access", "--network=n",
            "--service-account=sa@p.iam.gserviceaccount.com"))
        body = records[0]["body"]
        self.assertEqual(body["studySpec"]["algorithm"], "GRID_SEARCH")
        self.assertEqual(body["trialJobSpec"]["network"], "n")
        self.assertEqual((body["maxTrialCount"], body["parallelTrialCount"]), (1, 1))

    def test_a_whole_study_file_and_a_zero_count(self):
        # --max-trial-count 0 leaves the file's count; --algorithm algorithm-unspecified is sent.
        _, _, records = self.assert_parity(self.create_study(
            "--display-name", "h3", "--config", config("vertex_hp_full.yaml"),
            "--max-trial-count=0", "--algorithm=algorithm-unspecified"))
        body = records[0]["body"]
        self.assertEqual((body["maxTrialCount"], body["displayName"]), (6, "h3"))
        self.assertEqual(body["maxFailedTrialCount"], 2)

    # -- describe, list, cancel, stream-logs ------------------------------------------------

    def test_describe_list_and_cancel_make_gclouds_requests_and_print_its_text(self):
        self.assert_parity(self.create_custom(
            "--display-name", "d", "--worker-pool-spec=machine-type=n1-standard-4,"
            "container-image-uri=localhost/img:1", "--labels=k=v"))
        self.assert_parity(self.create_study(
            "--display-name", "h", "--config", config("vertex_hp_study.yaml")))
        for group in ("custom-jobs", "hp-tuning-jobs"):
            for verb in (["describe", "123"], ["describe", JOB_NAME.replace(
                    "customJobs", "hyperparameterTuningJobs" if group != "custom-jobs"
                    else "customJobs")], ["list"], ["list", "--limit=1"],
                    ["cancel", "123"]):
                with self.subTest(group=group, verb=verb):
                    g, t, _ = self.assert_parity([group, *verb, "--region", REGION])
                    self.assertEqual(t.out, g.out)
                    self.assert_same_text(g.err, t.err)

    def test_stream_logs_asks_for_the_jobs_entries_as_gcloud(self):
        # The job has ended. gcloud polls until its 10 s check of the job (log_util.py) and
        # trainyard once, so the requests are compared as sets.
        for group, extra in (("custom-jobs", []), ("hp-tuning-jobs", ["--task-name=workerpool1-0"])):
            with self.subTest(group=group, extra=extra):
                args = [group, "stream-logs", "123", "--region", REGION, "--polling-interval=1",
                        *extra]
                g, g_records = self.gcloud(args)
                t, t_records = self.trainyard(args)
                self.assertEqual((g.rc, t.rc), (0, 0), (g, t))
                self.assertEqual(sorted({without_upper_bound(r) for r in t_records}),
                                 sorted({without_upper_bound(r) for r in g_records}))
                self.assertEqual(len([r for r in t_records if r["path"] == "/v2/entries:list"]), 1)
                self.assertEqual(t.out, g.out)

    # -- refusals ---------------------------------------------------------------------------

    def test_client_side_refusals_match_gcloud(self):
        pool = "machine-type=n1-standard-4,container-image-uri=localhost/img:1"
        cases = {
            "unknown key": ["--worker-pool-spec=machine-typo=n1-standard-4"],
            "no machine type": ["--worker-pool-spec=container-image-uri=a"],
            "count without type": ["--worker-pool-spec=%s,accelerator-count=2" % pool],
            "unknown accelerator": ["--worker-pool-spec=%s,accelerator-type=NVIDIA_FOO" % pool],
            "lower-case accelerator": ["--worker-pool-spec=%s,accelerator-type=nvidia-tesla-t4"
                                       % pool],
            "no image": ["--worker-pool-spec=machine-type=n1-standard-4"],
            "two images": ["--worker-pool-spec=%s,executor-image-uri=e,python-module=m" % pool],
            "module with container": ["--worker-pool-spec=%s,python-module=m" % pool],
            "executor without module": ["--worker-pool-spec=machine-type=a,executor-image-uri=e"],
            "empty first pool": ["--worker-pool-spec=", "--worker-pool-spec=%s" % pool],
            "script without a local package": ["--worker-pool-spec=%s,script=x.py" % pool],
            "config pool without software": ["--config", config("vertex_no_software.yaml")],
            "neither config nor pools": [],
            "bad service account": ["--worker-pool-spec=%s" % pool, "--service-account=x@y"],
            "upper-case label": ["--worker-pool-spec=%s" % pool, "--labels=Team=a"],
            "unreadable config": ["--config", os.path.join(CONFIGS, "no_such_file.yaml")],
        }
        for name, extra in cases.items():
            with self.subTest(name):
                args = self.create_custom("--display-name", "bad", *extra)
                g, g_records = self.gcloud(args)
                t, t_records = self.trainyard(args)
                self.assertNotEqual(g.rc, 0, g)
                self.assertEqual((g_records, t_records), ([], []))
                self.assertEqual(t.rc, 1, t)
                self.assertEqual(t.error_line(), g.error_line().replace("gcloud", "trainyard"))
        with self.subTest("unknown algorithm"):
            args = self.create_study("--display-name", "bad", "--config",
                                     config("vertex_hp_study.yaml"), "--algorithm=foo")
            g, _ = self.gcloud(args)
            t, t_records = self.trainyard(args)
            self.assertEqual((t.rc, t.error_line(), t_records), (1, g.error_line(), []))

    def test_bad_syntax_a_bad_integer_and_a_local_package_are_refused_naming_the_key(self):
        for value, key in (("machine-type", "Bad syntax for dict arg: [machine-type]."),
                           ("replica-count=x", "[replica-count]"),
                           ("accelerator-count=two", "[accelerator-count]"),
                           ("local-package-path=/tmp", "[local-package-path]")):
            with self.subTest(value):
                t, records = self.trainyard(self.create_custom(
                    "--display-name", "bad", "--worker-pool-spec=machine-type=n1-standard-4,"
                    "container-image-uri=a," + value))
                self.assertEqual((t.rc, records), (1, []))
                self.assertIn(key, t.error_line())

    def test_a_missing_region_is_refused_as_gcloud_words_it(self):
        args = ["custom-jobs", "create", "--display-name", "r", "--worker-pool-spec="
                "machine-type=n1-standard-4,container-image-uri=a"]
        g, _ = self.gcloud(args)
        t, records = self.trainyard(args)
        self.assertEqual((t.rc, records), (1, []))
        self.assertEqual(t.error_line(), g.error_line())


def main():
    def set_trainyard(path):
        global TRAINYARD
        TRAINYARD = path

    gcloud_env.main(__doc__, set_trainyard)


if __name__ == "__main__":
    main()
