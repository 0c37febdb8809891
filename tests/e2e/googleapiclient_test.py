#!/usr/bin/python3
"""Google's Python API client (Debian's python3-googleapi) against a real `trainyard serve`.

As Google's docs show a program following a training job: `googleapiclient.discovery.build('ml',
'v1', discoveryServiceUrl=...)` builds the client from the discovery document trainyard serves
(api/discovery.h), then `projects().jobs().create(...)` submits a tiny trainer, `get` polls it
to SUCCEEDED, `list` shows it, a second job is cancelled with `cancel` and reaches CANCELLED, and
`patch` changes a job's labels; `projects().getConfig` answers. The aiplatform v1 client built
the same way creates a custom job, follows it to JOB_STATE_SUCCEEDED and lists it. A client built from the
`/$discovery/rest?version=v1` form newer clients ask for works the same; an API trainyard does not
serve is a 404 in Google's error shape, and so is a job that does not exist (HttpError).

The storage v1 client built from trainyard's document uploads with `MediaIoBaseUpload` (media,
multipart with metadata, and resumable in several small chunks), downloads with `get_media` (whole,
and in ranged chunks with `MediaIoBaseDownload`), lists, patches an object's metadata and deletes,
composes two objects and rewrites (copies) the result, the bytes and fields compared with what was
sent. The logging v2 client reads a finished job's
log with `entries().list(body=...)`: the lines its trainer printed, in order. The trainyard v1
client (trainyard's own API) lists a running job's replicas, suspends it (`getSuspension` polled to
QUEUED, its replicas gone, `includeEnded` showing how they ended), resumes it to RUNNING, and
reads the cluster view and the caller; suspending the cancelled job is refused; a project's quota
and a priority class are set, read back (alone and in the whole sharing policy) and removed. The
jobs are container jobs run on the host (`--containers host`), so the suite needs no image and
stays short for CI.

Usage: googleapiclient_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import io
import json
import os
import sys
import tempfile
import time
import unittest

import httplib2
from googleapiclient import discovery, errors, http as gapi_http

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

TRAINYARD = None  # set by main()
PROJECT = "p"
PARENT = "projects/" + PROJECT
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
JOB_DEADLINE_S = 120


def container_job(job_id, code):
    """A job whose only replica runs Debian's Python on `code` (with --containers host)."""
    return {"jobId": job_id, "labels": {"via": "googleapiclient"}, "trainingInput": {
        "region": "us-central1", "scaleTier": "BASIC",
        "masterConfig": {"imageUri": "example/tiny", "containerCommand": [
            "/usr/bin/python3", "-c", code]}}}


class GoogleApiClientTest(gcloud_env.ServerTestCase):

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-googleapiclient-")
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, os.path.join(cls.tmp, "data"),
                                             extra_args=["--containers", "host"])
        cls.ml = cls.build("discovery/v1/apis/{api}/{apiVersion}/rest")

    @classmethod
    def build(cls, discovery_path, api="ml", version="v1"):
        # build_http() is the client's own transport: httplib2 with 308 not taken as a redirect,
        # which a resumable upload's unfinished chunks are answered with.
        return discovery.build(api, version, discoveryServiceUrl=cls.server.url + discovery_path,
                               http=gapi_http.build_http(), cache_discovery=False)

    def jobs(self, ml=None):
        return (ml or self.ml).projects().jobs()

    def wait_for(self, job_id, states):
        deadline = time.monotonic() + JOB_DEADLINE_S
        while True:
            job = self.jobs().get(name="%s/jobs/%s" % (PARENT, job_id)).execute()
            if job["state"] in states or time.monotonic() > deadline:
                return job
            time.sleep(0.1)

    def test_1_create_poll_to_succeeded_and_list(self):
        created = self.jobs().create(
            parent=PARENT, body=container_job("tiny", "print('trained')")).execute()
        self.assertEqual(created["jobId"], "tiny")
        self.assertEqual(created["state"], "QUEUED")
        job = self.wait_for("tiny", TERMINAL)
        self.assertEqual(job["state"], "SUCCEEDED", json.dumps(job))
        self.assertEqual(job["labels"], {"via": "googleapiclient"})
        listed = self.jobs().list(parent=PARENT, filter="jobId:tiny", pageSize=10).execute()
        self.assertEqual([j["jobId"] for j in listed["jobs"]], ["tiny"])
        self.assertEqual(listed["jobs"][0]["state"], "SUCCEEDED")

    def test_2_cancel_a_running_job(self):
        self.jobs().create(parent=PARENT, body=container_job(
            "held", "import time\nwhile True: time.sleep(1)")).execute()
        self.assertEqual(self.wait_for("held", TERMINAL + ("RUNNING",))["state"], "RUNNING")
        self.assertEqual(self.jobs().cancel(name=PARENT + "/jobs/held", body={}).execute(), {})
        self.assertEqual(self.wait_for("held", TERMINAL)["state"], "CANCELLED")

    def test_3_patch_labels_and_get_config(self):
        self.jobs().create(parent=PARENT, body=container_job("labelled", "pass")).execute()
        patched = self.jobs().patch(name=PARENT + "/jobs/labelled", updateMask="labels",
                                    body={"labels": {"team": "ml"}}).execute()
        self.assertEqual(patched["labels"], {"team": "ml"})
        config = self.ml.projects().getConfig(name=PARENT).execute()
        self.assertEqual(config["serviceAccount"], "trainyard@p.iam.gserviceaccount.com")

    def test_4_the_dollar_discovery_form_and_an_unknown_api(self):
        ml = self.build("$discovery/rest?version={apiVersion}")
        job = self.jobs(ml).get(name=PARENT + "/jobs/tiny").execute()
        self.assertEqual(job["jobId"], "tiny")
        # The client would go on to nosuchapi.googleapis.com: ask for the document as it does.
        resp, content = httplib2.Http(timeout=30).request(
            self.server.url + "discovery/v1/apis/nosuchapi/v1/rest")
        self.assertEqual(resp.status, 404)
        self.assertEqual(json.loads(content)["error"]["status"], "NOT_FOUND")
        with self.assertRaises(errors.HttpError) as refused:
            self.jobs().get(name=PARENT + "/jobs/nosuchjob").execute()
        self.assertEqual(refused.exception.resp.status, 404)

    def test_5_aiplatform_custom_job(self):
        vertex = self.build("discovery/v1/apis/{api}/{apiVersion}/rest", api="aiplatform")
        custom_jobs = vertex.projects().locations().customJobs()
        parent = PARENT + "/locations/us-central1"
        created = custom_jobs.create(parent=parent, body={
            "displayName": "tiny-vertex", "jobSpec": {"workerPoolSpecs": [{
                "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
                "containerSpec": {"imageUri": "example/tiny", "command": [
                    "/usr/bin/python3", "-c", "print('trained')"]}}]}}).execute()
        self.assertTrue(created["name"].startswith(parent + "/customJobs/"), created["name"])
        deadline = time.monotonic() + JOB_DEADLINE_S
        while True:
            job = custom_jobs.get(name=created["name"]).execute()
            if job["state"] in ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED",
                                "JOB_STATE_CANCELLED") or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(job["state"], "JOB_STATE_SUCCEEDED", json.dumps(job))
        listed = custom_jobs.list(parent=parent).execute()
        self.assertEqual([j["displayName"] for j in listed["customJobs"]], ["tiny-vertex"])

    def test_6_storage_uploads_downloads_list_patch_delete(self):
        gcs = self.build("discovery/v1/apis/{api}/{apiVersion}/rest", api="storage")
        bucket = gcs.buckets().insert(project=PROJECT, body={"name": "gac-bucket"}).execute()
        self.assertEqual(bucket["name"], "gac-bucket")
        objects = gcs.objects()
        small = os.urandom(3000)
        simple = objects.insert(bucket="gac-bucket", name="data/simple.bin", media_body=(
            gapi_http.MediaIoBaseUpload(io.BytesIO(small), "application/octet-stream",
                                        resumable=False))).execute()
        self.assertEqual((simple["name"], simple["size"]), ("data/simple.bin", "3000"))
        with_metadata = objects.insert(
            bucket="gac-bucket", body={"name": "data/tagged.txt", "metadata": {"stage": "raw"}},
            media_body=gapi_http.MediaIoBaseUpload(io.BytesIO(b"a,b\n1,2\n"), "text/csv",
                                                   resumable=False)).execute()
        self.assertEqual(with_metadata["metadata"], {"stage": "raw"})
        self.assertEqual(with_metadata["contentType"], "text/csv")
        # Resumable, in chunks of 256 KiB (GCS's unit): five PUTs, the last one short.
        chunk = 256 * 1024
        large = os.urandom(4 * chunk + 1234)
        request = objects.insert(bucket="gac-bucket", name="data/large.bin", media_body=(
            gapi_http.MediaIoBaseUpload(io.BytesIO(large), "application/octet-stream",
                                        chunksize=chunk, resumable=True)))
        progress, response, puts = [], None, 0
        while response is None:
            status, response = request.next_chunk()
            puts += 1
            if status is not None:
                progress.append(status.resumable_progress)
        self.assertEqual(puts, 5)
        self.assertEqual(progress, [chunk, 2 * chunk, 3 * chunk, 4 * chunk])
        self.assertEqual(response["size"], str(len(large)))

        self.assertEqual(objects.get_media(bucket="gac-bucket", object="data/simple.bin")
                         .execute(), small)
        self.assertEqual(objects.get_media(bucket="gac-bucket", object="data/tagged.txt")
                         .execute(), b"a,b\n1,2\n")
        downloaded = io.BytesIO()
        download = gapi_http.MediaIoBaseDownload(
            downloaded, objects.get_media(bucket="gac-bucket", object="data/large.bin"),
            chunksize=chunk)
        done, ranges = False, 0
        while not done:
            _, done = download.next_chunk()
            ranges += 1
        self.assertEqual(ranges, 5)
        self.assertEqual(downloaded.getvalue(), large)

        listed = objects.list(bucket="gac-bucket", prefix="data/").execute()
        self.assertEqual([(o["name"], o["size"]) for o in listed["items"]], [
            ("data/large.bin", str(len(large))), ("data/simple.bin", "3000"),
            ("data/tagged.txt", "8")])
        patched = objects.patch(bucket="gac-bucket", object="data/simple.bin",
                                body={"metadata": {"team": "ml"}}).execute()
        self.assertEqual(patched["metadata"], {"team": "ml"})
        self.assertEqual(objects.get(bucket="gac-bucket", object="data/simple.bin")
                         .execute()["metadata"], {"team": "ml"})
        self.assertEqual(objects.delete(bucket="gac-bucket", object="data/simple.bin")
                         .execute(), "")
        with self.assertRaises(errors.HttpError) as gone:
            objects.get(bucket="gac-bucket", object="data/simple.bin").execute()
        self.assertEqual(gone.exception.resp.status, 404)
        self.assertEqual([o["name"] for o in objects.list(bucket="gac-bucket").execute()["items"]],
                         ["data/large.bin", "data/tagged.txt"])

    def test_6b_storage_compose_and_rewrite(self):
        gcs = self.build("discovery/v1/apis/{api}/{apiVersion}/rest", api="storage")
        gcs.buckets().insert(project=PROJECT, body={"name": "gac-parts"}).execute()
        objects = gcs.objects()
        for name, data in (("parts/a", b"first,"), ("parts/b", b"second")):
            objects.insert(bucket="gac-parts", name=name, media_body=gapi_http.MediaIoBaseUpload(
                io.BytesIO(data), "text/plain", resumable=False)).execute()
        composed = objects.compose(destinationBucket="gac-parts", destinationObject="whole",
                                   body={"sourceObjects": [{"name": "parts/a"}, {"name": "parts/b"}],
                                         "destination": {"contentType": "text/plain"}}).execute()
        self.assertEqual((composed["name"], composed["size"]), ("whole", "12"))
        rewritten = objects.rewrite(sourceBucket="gac-parts", sourceObject="whole",
                                    destinationBucket="gac-parts", destinationObject="copy/whole",
                                    body={}).execute()
        self.assertTrue(rewritten["done"])
        self.assertEqual(rewritten["resource"]["name"], "copy/whole")
        for name in ("whole", "copy/whole"):
            self.assertEqual(objects.get_media(bucket="gac-parts", object=name).execute(),
                             b"first,second")

    def test_7_logging_reads_a_finished_jobs_lines(self):
        self.jobs().create(parent=PARENT, body=container_job(
            "chatty", "for i in range(3): print('epoch %d loss %.1f' % (i, 1.0 / (i + 1)))")
        ).execute()
        self.assertEqual(self.wait_for("chatty", TERMINAL)["state"], "SUCCEEDED")
        logging = self.build("discovery/v1/apis/{api}/{apiVersion}/rest", api="logging",
                             version="v2")
        listed = logging.entries().list(body={
            "resourceNames": [PARENT],
            "filter": 'resource.labels.job_id="chatty" AND textPayload:"epoch"',
            "orderBy": "timestamp asc"}).execute()
        self.assertEqual([e["textPayload"] for e in listed["entries"]],
                         ["epoch 0 loss 1.0", "epoch 1 loss 0.5", "epoch 2 loss 0.3"])
        self.assertEqual({e["resource"]["labels"]["job_id"] for e in listed["entries"]}, {"chatty"})

    def test_8_trainyard_api_replicas_suspend_resume_cluster_caller(self):
        ty = self.build("discovery/v1/apis/{api}/{apiVersion}/rest", api="trainyard")
        jobs = ty.projects().jobs()
        self.jobs().create(parent=PARENT, body=container_job(
            "pausable", "import time\nwhile True: time.sleep(1)")).execute()
        self.assertEqual(self.wait_for("pausable", TERMINAL + ("RUNNING",))["state"], "RUNNING")
        job = {"project": PROJECT, "jobId": "pausable"}
        replicas = self.poll(lambda: jobs.replicas(**job).execute()["replicas"],
                             lambda got: [r["state"] for r in got] == ["RUNNING"])
        self.assertEqual([r["taskName"] for r in replicas], ["master-replica-0"])
        self.assertGreater(replicas[0]["pid"], 0)
        self.assertEqual(replicas[0]["node"], "localhost")

        cluster = ty.projects().cluster().get(project=PROJECT).execute()
        self.assertEqual([n["name"] for n in cluster["nodes"]], ["localhost"])
        self.assertEqual(cluster["queue"], [])
        mine = [s for s in cluster["projects"] if s["project"] == PROJECT]
        self.assertEqual(len(mine), 1, json.dumps(cluster["projects"]))
        self.assertEqual((mine[0]["use"]["jobs"], mine[0]["quota"], mine[0]["weight"]),
                         (1, None, 1))

        caller = ty.caller().get().execute()
        self.assertEqual((caller["name"], caller["grants"], caller["allProjects"]),
                         ("anonymous", [], True))
        self.assertEqual(caller["projects"], ["default", PROJECT])

        self.assertEqual(jobs.suspend(body={}, **job).execute()["suspended"], True)
        stopped = self.poll(lambda: jobs.getSuspension(**job).execute(),
                            lambda got: got["state"] == "QUEUED")
        self.assertEqual(stopped, {"jobId": "pausable", "state": "QUEUED", "suspended": True})
        self.assertEqual(jobs.replicas(**job).execute(), {"replicas": []})
        ended = jobs.replicas(includeEnded=True, **job).execute()["replicas"]
        self.assertEqual([(r["taskName"], r["state"]) for r in ended],
                         [("master-replica-0", "EXITED")])

        resumed = jobs.resume(body={}, **job).execute()
        self.assertEqual((resumed["jobId"], resumed["suspended"]), ("pausable", False))
        self.assertEqual(self.wait_for("pausable", ("RUNNING",) + TERMINAL)["state"], "RUNNING")
        self.assertEqual(jobs.getSuspension(**job).execute()["suspended"], False)
        self.jobs().cancel(name=PARENT + "/jobs/pausable", body={}).execute()
        self.assertEqual(self.wait_for("pausable", TERMINAL)["state"], "CANCELLED")
        with self.assertRaises(errors.HttpError) as ended_job:
            jobs.suspend(body={}, **job).execute()
        self.assertEqual(ended_job.exception.resp.status, 400)

    def test_9_trainyard_api_sharing_policy(self):
        ty = self.build("discovery/v1/apis/{api}/{apiVersion}/rest", api="trainyard")
        quota = {"project": PROJECT, "accelerators": {}, "cpus": 8, "memory": "16Gi",
                 "weight": 2}
        self.assertEqual(ty.projects().quotas().update(
            project=PROJECT, body={"cpus": 8, "memory": "16384Mi", "weight": 2}).execute(), quota)
        self.assertEqual(ty.projects().quotas().get(project=PROJECT).execute(), quota)
        self.assertEqual(ty.priorityClasses().update(name="high", body={"value": 900}).execute(),
                         {"name": "high", "value": 900})
        self.assertEqual(ty.priorityClasses().list().execute(), {"priorityClasses": {"high": 900}})
        self.assertEqual(ty.sharing().get().execute(),
                         {"projects": [quota], "priorityClasses": {"high": 900}})
        self.assertEqual(ty.priorityClasses().delete(name="high").execute(), {})
        self.assertEqual(ty.projects().quotas().delete(project=PROJECT).execute(), {})
        self.assertEqual(ty.sharing().get().execute(), {"projects": [], "priorityClasses": {}})

    def poll(self, read, done):
        """`read()` until `done(value)` or JOB_DEADLINE_S; the last value."""
        deadline = time.monotonic() + JOB_DEADLINE_S
        while True:
            value = read()
            if done(value) or time.monotonic() > deadline:
                return value
            time.sleep(0.1)


if __name__ == "__main__":
    gcloud_env.main(__doc__, lambda path: globals().__setitem__("TRAINYARD", path))
