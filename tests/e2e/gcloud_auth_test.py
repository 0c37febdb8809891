#!/usr/bin/python3
"""Tokens and roles with the real clients (issue #17): `trainyard serve --auth tokens`, tokens
made by `trainyard auth create-token`, and the real gcloud (Cloud SDK 528) sending them from
`auth/access_token_file`, and the trainyard CLI from `--token-file` and $TRAINYARD_TOKEN. Then
the same over TLS (`--tls-cert`/`--tls-key`, a CA made here with openssl): gcloud with
`core/custom_ca_certs_file`, the CLI with `--ca-file`, and kubectl, which sends a kubeconfig's
`tokenFile` only over https.

An editor of project p uploads, submits, describes and follows a job's logs; a viewer reads but
is refused a cancel, an upload and `trainyard jobs suspend`/`resume` with 403; no token is 401;
an editor of another project is refused p's job with 403 whether or not it exists; `gcloud
logging read` of the project's activity audit log shows the submit and a refused cancel; a
revoked token stops working at once; and `trainyard serve` refuses a non-loopback address without
authentication unless told `--insecure-no-auth`.

Usage: gcloud_auth_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

GCLOUD = gcloud_env.GCLOUD
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"
TRAINYARD = None  # set by main()
PROJECT = "p"
BUCKET = "e2e-auth"
JOB = "auth_job"
RUNTIME = ["--region", "us-central1", "--runtime-version", "2.11", "--python-version", "3.7"]
COMMAND_TIMEOUT_S = 300
SETUP_PY = """from setuptools import setup

setup(name="authtrainer", version="0.1", packages=["authtrainer"])
"""
TRAINER_PY = '''import sys

print("trained with a token", flush=True)
print("and logged on stderr", file=sys.stderr, flush=True)
'''
# A trainer that calls the storage API with its job's own token ($TRAINYARD_TOKEN), and without
# one, and keeps the token in its job dir so the test can try it once the job has ended.
STORAGE_CALL_PY = '''import argparse
import os
import subprocess
import urllib.error
import urllib.request


def status(url, token):
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


parser = argparse.ArgumentParser()
parser.add_argument("--job-dir", required=True)
args = parser.parse_args()
token = os.environ["TRAINYARD_TOKEN"]
with open(os.path.join(args.job_dir, "token.txt"), "w") as f:
    f.write(token)
base = os.environ["STORAGE_EMULATOR_HOST"] + "/storage/v1/b/"
print("own project with the job's token: %d" % status(base + "e2e-auth/o", token), flush=True)
print("own project without a token: %d" % status(base + "e2e-auth/o", None), flush=True)
print("another project with the job's token: %d" % status(base[:-1] + "?project=q", token),
      flush=True)
# gcloud as a trainer would call it: the job's token from CLOUDSDK_AUTH_ACCESS_TOKEN_FILE.
listed = subprocess.run(["gcloud", "storage", "ls", "gs://e2e-auth/"], capture_output=True,
                        text=True, timeout=120,
                        env=dict(os.environ, CLOUDSDK_CONFIG=os.path.abspath("gcloud-config")))
print("gcloud storage ls in the replica: rc %d, %s" % (listed.returncode,
                                                       "|".join(listed.stdout.split())), flush=True)
if listed.returncode != 0:
    print("gcloud said: " + " ".join(listed.stderr.split()), flush=True)
'''
DENIED_JOB = ("Permission 'ml.jobs.get' denied on resource 'projects/p/jobs/%s' (or it may not "
              "exist).")


class GcloudAuthTest(gcloud_env.ServerTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-auth-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.token_files = {}
        for name, role, projects in (("editor", "editor", ["p"]), ("viewer", "viewer", ["p"]),
                                     ("outsider", "editor", ["q"]), ("revoked", "editor", ["p"])):
            args = [TRAINYARD, "auth", "create-token", name, "--role", role,
                    "--data-dir", cls.data]
            for project in projects:
                args += ["--project", project]
            made = cls.run_command(args)
            if made.rc != 0:
                shutil.rmtree(cls.tmp, ignore_errors=True)
                raise AssertionError("create-token %s: %r" % (name, made))
            path = os.path.join(cls.tmp, name + ".token")
            with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
                f.write(made.out)
            cls.token_files[name] = path
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, cls.data, ["--auth", "tokens"])
        cls.envs = {}
        for name in (*cls.token_files, None):
            env = gcloud_env.gcloud_environment(
                os.path.join(cls.tmp, "gcloud-%s" % name), PROJECT, cls.server.url,
                logging_url=cls.server.url, token_file=cls.token_files.get(name))
            env["CLOUDSDK_ML_ENGINE_POLLING_INTERVAL"] = "1"
            cls.envs[name] = env
        cls.package = os.path.join(cls.tmp, "pkg", "authtrainer")
        os.makedirs(cls.package)
        for path, text in (("../setup.py", SETUP_PY), ("__init__.py", ""),
                           ("task.py", TRAINER_PY), ("storage_call.py", STORAGE_CALL_PY)):
            with open(os.path.join(cls.package, path), "w", encoding="utf-8") as f:
                f.write(text)
        made = cls.gcloud("editor", "storage", "buckets", "create", "gs://" + BUCKET)
        submitted = cls.gcloud("editor", "ai-platform", "jobs", "submit", "training", JOB,
                               "--package-path", cls.package, "--module-name",
                               "authtrainer.task", "--staging-bucket", "gs://" + BUCKET,
                               *RUNTIME)
        if made.rc != 0 or submitted.rc != 0:
            cls.tearDownClass()
            raise AssertionError("setup as the editor failed: %r %r" % (made, submitted))

    # -- helpers ----------------------------------------------------------------------------

    @classmethod
    def run_command(cls, argv, env=None):
        proc = subprocess.run(argv, env=env, cwd=cls.tmp, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S)
        return gcloud_env.Run(proc)

    @classmethod
    def gcloud(cls, who, *args):
        return cls.run_command([GCLOUD, *args], cls.envs[who])

    def trainyard(self, *args, token_env=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        if token_env is not None:
            env["TRAINYARD_TOKEN"] = token_env
        return self.run_command([TRAINYARD, *args, "--server", self.server.url,
                                 "--project", PROJECT], env)

    def token(self, who):
        with open(self.token_files[who], encoding="utf-8") as f:
            return f.read().strip()

    # -- tests ------------------------------------------------------------------------------

    def test_an_editor_uploads_submits_describes_and_follows_logs(self):
        local = os.path.join(self.tmp, "hello.txt")
        with open(local, "w", encoding="utf-8") as f:
            f.write("hello through a token\n")
        copied = self.gcloud("editor", "storage", "cp", local, "gs://%s/hello.txt" % BUCKET)
        self.assertEqual(copied.rc, 0, copied)
        cat = self.gcloud("editor", "storage", "cat", "gs://%s/hello.txt" % BUCKET)
        self.assertEqual(cat.out, "hello through a token\n", cat)
        logs = self.gcloud("editor", "ai-platform", "jobs", "stream-logs", JOB,
                           "--polling-interval=1")
        self.assertEqual(logs.rc, 0, logs)
        self.assertIn("trained with a token", logs.out)
        self.assertIn("and logged on stderr", logs.out)
        described = self.gcloud("editor", "ai-platform", "jobs", "describe", JOB)
        self.assertEqual(described.rc, 0, described)
        self.assertIn("state: SUCCEEDED", described.out)

    def test_a_replica_uses_its_jobs_own_token_while_the_job_runs(self):
        job = "auth_token_job"
        run = self.gcloud("editor", "ai-platform", "jobs", "submit", "training", job,
                          "--package-path", self.package, "--module-name",
                          "authtrainer.storage_call", "--staging-bucket", "gs://" + BUCKET,
                          "--job-dir", "gs://%s/%s" % (BUCKET, job), "--stream-logs", *RUNTIME)
        self.assertEqual(run.rc, 0, run)
        logs = run.err + run.out
        self.assertIn("own project with the job's token: 200", logs)
        self.assertIn("own project without a token: 401", logs)
        self.assertIn("another project with the job's token: 403", logs)
        # gcloud streams only entries older than 5 s and may stop before the replica's last line,
        # printed just before it exits, is that old: the line is read from the replica's log.
        with open(os.path.join(self.data, "jobs", PROJECT, job, "logs", "master-replica-0.log"),
                  encoding="utf-8") as f:
            self.assertIn("gcloud storage ls in the replica: rc 0, gs://e2e-auth/", f.read())
        with open(os.path.join(self.data, "buckets", BUCKET, job, "token.txt"),
                  encoding="utf-8") as f:
            token = f.read()
        self.assertTrue(token.startswith("tyj."), token)
        self.assertNotIn(token, self.server.log())
        ended = self.trainyard("jobs", "describe", job, token_env=token)
        self.assertEqual(ended.rc, 1, ended)
        self.assertIn("works only while its job runs", ended.err)

    def test_a_viewer_reads_but_may_not_change(self):
        described = self.gcloud("viewer", "ai-platform", "jobs", "describe", JOB)
        self.assertEqual(described.rc, 0, described)
        self.assertIn("jobId: %s" % JOB, described.out)
        cancel = self.gcloud("viewer", "ai-platform", "jobs", "cancel", JOB)
        self.assertNotEqual(cancel.rc, 0, cancel)
        self.assertIn("PERMISSION_DENIED", cancel.err)
        self.assertIn("Permission 'ml.jobs.cancel' denied on resource 'projects/p/jobs/%s'" % JOB,
                      cancel.err)
        local = os.path.join(self.tmp, "viewer.txt")
        with open(local, "w", encoding="utf-8") as f:
            f.write("no\n")
        upload = self.gcloud("viewer", "storage", "cp", local, "gs://%s/viewer.txt" % BUCKET)
        self.assertNotEqual(upload.rc, 0, upload)
        self.assertIn("viewer does not have storage.objects.create access to bucket %s" % BUCKET,
                      upload.err)
        self.assertFalse(os.path.exists(os.path.join(self.data, "buckets", BUCKET, "viewer.txt")))
        # trainyard's own suspend verb needs ml.jobs.suspend, which a viewer lacks.
        for verb in ("suspend", "resume"):
            refused = self.trainyard("jobs", verb, JOB, "--token-file", self.token_files["viewer"])
            self.assertEqual(refused.rc, 1, refused)
            self.assertEqual(refused.err, "ERROR: (trainyard.jobs.%s) PERMISSION_DENIED: "
                                          "Permission 'ml.jobs.suspend' denied on resource "
                                          "'projects/p/jobs/%s' (or it may not exist).\n"
                             % (verb, JOB))

    def test_no_token_is_unauthenticated(self):
        run = self.gcloud(None, "ai-platform", "jobs", "describe", JOB)
        self.assertNotEqual(run.rc, 0, run)
        self.assertIn("UNAUTHENTICATED", run.err)
        ls = self.gcloud(None, "storage", "ls", "gs://" + BUCKET)
        self.assertNotEqual(ls.rc, 0, ls)
        self.assertIn("401", ls.err)

    def test_the_audit_log_shows_the_submit_and_a_refused_call(self):
        # Who may read it, and that other projects' readers see nothing of it, is
        # tests/integration/audit_test.cc's; here gcloud's own request and output.
        cancel = self.gcloud("viewer", "ai-platform", "jobs", "cancel", JOB)
        self.assertNotEqual(cancel.rc, 0, cancel)
        read = self.gcloud("editor", "logging", "read",
                           'logName="projects/%s/logs/cloudaudit.googleapis.com%%2Factivity"'
                           % PROJECT, "--project", PROJECT, "--format=json")
        self.assertEqual(read.rc, 0, read)
        entries = json.loads(read.out)
        calls = [(e["protoPayload"]["methodName"], e["protoPayload"]["resourceName"],
                  e["protoPayload"]["authenticationInfo"].get("principalEmail"),
                  e["protoPayload"]["status"].get("code", 0), e["severity"]) for e in entries]
        self.assertIn(("google.cloud.ml.v1.JobService.CreateJob", "projects/p/jobs/" + JOB,
                       "editor", 0, "NOTICE"), calls)
        self.assertIn(("google.cloud.ml.v1.JobService.CancelJob", "projects/p/jobs/" + JOB,
                       "viewer", 7, "ERROR"), calls)
        self.assertTrue(all(e["logName"] == "projects/p/logs/cloudaudit.googleapis.com%2Factivity"
                            for e in entries), entries)

    def test_another_projects_job_is_denied_whether_or_not_it_exists(self):
        for job in (JOB, "no_such_job"):
            run = self.gcloud("outsider", "ai-platform", "jobs", "describe", job)
            self.assertNotEqual(run.rc, 0, run)
            self.assertIn(DENIED_JOB % job, run.err)
        own = self.gcloud("outsider", "ai-platform", "jobs", "list", "--project", "q")
        self.assertEqual(own.rc, 0, own)

    def test_the_trainyard_cli_sends_its_token_file_or_variable(self):
        by_file = self.trainyard("jobs", "describe", JOB, "--token-file",
                                 self.token_files["viewer"])
        self.assertEqual(by_file.rc, 0, by_file)
        self.assertIn("jobId: %s" % JOB, by_file.out)
        by_env = self.trainyard("jobs", "describe", JOB, token_env=self.token("viewer"))
        self.assertEqual(by_env.rc, 0, by_env)
        none = self.trainyard("jobs", "describe", JOB)
        self.assertEqual(none.rc, 1, none)
        self.assertIn("UNAUTHENTICATED", none.err)
        missing = self.trainyard("jobs", "describe", JOB, "--token-file",
                                 os.path.join(self.tmp, "nope"))
        self.assertEqual(missing.rc, 1, missing)
        self.assertIn("cannot read the token file", missing.err)

    def test_a_revoked_token_stops_working_and_list_shows_no_secret(self):
        before = self.gcloud("revoked", "ai-platform", "jobs", "list")
        self.assertEqual(before.rc, 0, before)
        listed = self.run_command([TRAINYARD, "auth", "list", "--data-dir", self.data])
        self.assertEqual(listed.rc, 0, listed)
        self.assertIn("revoked", listed.out)
        self.assertIn("editor on q", listed.out)
        for who in self.token_files:
            self.assertNotIn(self.token(who), listed.out)
        revoked = self.run_command([TRAINYARD, "auth", "revoke", "revoked", "--data-dir",
                                    self.data])
        self.assertEqual(revoked.rc, 0, revoked)
        after = self.gcloud("revoked", "ai-platform", "jobs", "list")
        self.assertNotEqual(after.rc, 0, after)
        self.assertIn("UNAUTHENTICATED", after.err)

    def test_serve_refuses_an_open_address_without_authentication(self):
        data = os.path.join(self.tmp, "open-data")
        refused = self.run_command([TRAINYARD, "serve", "--listen", "0.0.0.0:0", "--data-dir",
                                    data])
        self.assertEqual(refused.rc, 1, refused)
        self.assertIn("refusing to serve 0.0.0.0:0 without authentication", refused.err)
        self.assertIn("--insecure-no-auth", refused.err)
        server = gcloud_env.TrainyardServer(TRAINYARD, data, ["--insecure-no-auth"],
                                            listen="0.0.0.0:0").start()
        try:
            deadline = time.monotonic() + 10
            while "WARNING: no authentication" not in server.log() and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertIn("WARNING: no authentication (--insecure-no-auth) on 0.0.0.0:0",
                          server.log())
        finally:
            server.stop_cleanly()


def make_certificates(directory):
    """A CA and a server certificate it signs for 127.0.0.1 and localhost, made with openssl;
    returns (ca.pem, server.pem, server.key) paths."""
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=trainyard e2e CA")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
            "server.csr", "-subj", "/CN=127.0.0.1")
    with open(os.path.join(directory, "san.ext"), "w", encoding="utf-8") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext")
    return tuple(os.path.join(directory, name) for name in ("ca.pem", "server.pem", "server.key"))


class GcloudAuthTlsTest(gcloud_env.ServerTestCase):
    """`serve --auth tokens --tls-cert --tls-key`: every client over https with the test CA."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-tls-")
        cls.data = os.path.join(cls.tmp, "data")
        try:
            cls.ca, cert, key = make_certificates(cls.tmp)
        except Exception:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise
        cls.token_files = {}
        for name, role in (("editor", "editor"), ("viewer", "viewer")):
            made = subprocess.run([TRAINYARD, "auth", "create-token", name, "--role", role,
                                   "--project", PROJECT, "--data-dir", cls.data],
                                  capture_output=True, text=True, check=True)
            path = os.path.join(cls.tmp, name + ".token")
            with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
                f.write(made.stdout)
            cls.token_files[name] = path
        cls.server = gcloud_env.start_server(
            TRAINYARD, cls.tmp, cls.data,
            ["--auth", "tokens", "--tls-cert", cert, "--tls-key", key])
        if not cls.server.url.startswith("https://"):
            cls.tearDownClass()
            raise AssertionError("not serving https: " + cls.server.log())
        cls.env = gcloud_env.gcloud_environment(
            os.path.join(cls.tmp, "gcloud"), PROJECT, cls.server.url,
            logging_url=cls.server.url, token_file=cls.token_files["editor"], ca_file=cls.ca)
        # Only the configuration names the CA: no bundle from the environment may stand in.
        for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"):
            cls.env.pop(name, None)

    def run_command(self, argv, env=None):
        proc = subprocess.run(argv, env=env, cwd=self.tmp, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S)
        return gcloud_env.Run(proc)

    def gcloud(self, *args):
        return self.run_command([GCLOUD, *args], self.env)

    def test_gcloud_works_over_https_with_the_custom_ca(self):
        made = self.gcloud("storage", "buckets", "create", "gs://e2e-tls")
        self.assertEqual(made.rc, 0, made)
        local = os.path.join(self.tmp, "over-tls.txt")
        with open(local, "w", encoding="utf-8") as f:
            f.write("encrypted on the wire\n")
        copied = self.gcloud("storage", "cp", local, "gs://e2e-tls/over-tls.txt")
        self.assertEqual(copied.rc, 0, copied)
        cat = self.gcloud("storage", "cat", "gs://e2e-tls/over-tls.txt")
        self.assertEqual(cat.out, "encrypted on the wire\n", cat)
        listed = self.gcloud("ai-platform", "jobs", "list")
        self.assertEqual(listed.rc, 0, listed)
        denied = self.gcloud("ai-platform", "jobs", "describe", "x", "--project", "q")
        self.assertNotEqual(denied.rc, 0, denied)
        self.assertIn("PERMISSION_DENIED", denied.err)

    def test_gcloud_refuses_a_server_its_ca_did_not_sign(self):
        env = dict(self.env, CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE="/etc/ssl/certs/ca-certificates.crt")
        run = self.run_command([GCLOUD, "ai-platform", "jobs", "list"], env)
        self.assertNotEqual(run.rc, 0, run)
        self.assertIn("CERTIFICATE_VERIFY_FAILED", run.err)

    def test_the_trainyard_cli_verifies_with_its_ca_file(self):
        base = [TRAINYARD, "jobs", "list", "--server", self.server.url, "--project", PROJECT,
                "--token-file", self.token_files["viewer"]]
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        ok = self.run_command([*base, "--ca-file", self.ca], env)
        self.assertEqual(ok.rc, 0, ok)
        by_env = self.run_command(base, dict(env, TRAINYARD_CA_FILE=self.ca))
        self.assertEqual(by_env.rc, 0, by_env)
        untrusted = self.run_command(base, env)
        self.assertEqual(untrusted.rc, 1, untrusted)
        self.assertIn("TLS handshake", untrusted.err)
        plain = self.run_command([*base[:3], "--server",
                                  self.server.url.replace("https://", "http://"),
                                  *base[5:]], env)
        self.assertEqual(plain.rc, 1, plain)
        self.assertIn("This server speaks HTTPS only", plain.err)

    def kubectl_env(self, who):
        """kubectl's environment with a kubeconfig sending `who`'s token."""
        made = self.run_command([TRAINYARD, "kubeconfig", "--server", self.server.url,
                                 "--namespace", PROJECT, "--token-file",
                                 self.token_files[who], "--certificate-authority", self.ca])
        self.assertEqual(made.rc, 0, made)
        config = os.path.join(self.tmp, "kubeconfig-" + who)
        with open(config, "w", encoding="utf-8") as f:
            f.write(made.out)
        return dict(os.environ, KUBECONFIG=config, HOME=self.tmp)

    def test_kubectl_auth_can_i_answers_from_the_callers_role(self):
        """`kubectl auth can-i` (issue #36): yes/no (exit 0/1) per role and namespace, as the
        request itself would be answered; `--list` names the verbs."""
        cases = [
            ("viewer", ["get", "tfjobs"], "yes"),
            ("viewer", ["watch", "pods"], "yes"),
            ("viewer", ["get", "pods", "--subresource", "log"], "yes"),
            ("viewer", ["create", "tfjobs"], "no"),
            ("viewer", ["delete", "tfjobs"], "no"),
            ("editor", ["create", "tfjobs"], "yes"),
            ("editor", ["delete", "tfjobs"], "yes"),
            ("editor", ["create", "tfjobs", "-n", "other"], "no"),
            ("editor", ["list", "tfjobs", "-A"], "no"),
            ("editor", ["get", "/version"], "yes"),
        ]
        envs = {who: self.kubectl_env(who) for who in ("viewer", "editor")}
        for who, args, answer in cases:
            run = self.run_command([KUBECTL, "auth", "can-i", *args], envs[who])
            self.assertEqual(run.out.strip().split(" - ")[0], answer, (who, args, run))
            self.assertEqual(run.rc, 0 if answer == "yes" else 1, (who, args, run))
        refused = self.run_command([KUBECTL, "auth", "can-i", "create", "tfjobs"], envs["viewer"])
        self.assertEqual(refused.out.strip(), "no - ml.jobs.create is not among the caller's "
                         "grants in project p", refused)
        listed = self.run_command([KUBECTL, "auth", "can-i", "--list"], envs["viewer"])
        self.assertEqual(listed.rc, 0, listed)
        self.assertRegex(listed.out, r"tfjobs\.kubeflow\.org\s+\[\]\s+\[\]\s+\[list watch get\]",
                         listed.out)
        self.assertRegex(listed.out, r"pods/log\s+\[\]\s+\[\]\s+\[get\]", listed.out)
        # What can-i says is what the request gets.
        denied = self.run_command([KUBECTL, "delete", "tfjob", "x"], envs["viewer"])
        self.assertIn('cannot delete resource "tfjobs"', denied.err)
        allowed = self.run_command([KUBECTL, "delete", "tfjob", "x"], envs["editor"])
        self.assertIn('tfjobs.kubeflow.org "x" not found', allowed.err)

    def test_kubectl_sends_its_token_over_https(self):
        env = self.kubectl_env("viewer")
        listed = self.run_command([KUBECTL, "get", "tfjobs"], env)
        self.assertEqual(listed.rc, 0, listed)
        self.assertIn("No resources found in p namespace.", listed.err)
        deleted = self.run_command([KUBECTL, "delete", "tfjob", "x"], env)
        self.assertNotEqual(deleted.rc, 0, deleted)
        self.assertIn('User "viewer" cannot delete resource "tfjobs" in API group '
                      '"kubeflow.org" in the namespace "p"', deleted.err)


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
