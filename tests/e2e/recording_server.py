#!/usr/bin/python3
"""A tiny recording stand-in for the ml v1 and storage v1 endpoints that gcloud talks to.

Every request is appended to a JSON-lines file as {"method", "path", "query", "body"} (the body
parsed as JSON when it is JSON; for a multipart storage upload, the metadata part plus the size
and sha256 of the uploaded bytes). It answers just enough for `gcloud ai-platform jobs submit
training` to exit 0: a create echoes the job with "state", "createTime" and a padded base64
"etag" (gcloud decodes it); an upload answers the object resource (gcloud reads "bucket", "name"
and "size"). Standard library only; run under /usr/bin/python3.

Standalone use: `recording_server.py RECORD_FILE` prints the port on stdout and serves forever.
"""

import base64
import hashlib
import http.server
import json
import re
import sys
import threading
import urllib.parse

_JOBS_PATH = re.compile(r"^/v1/projects/(?P<project>[^/]+)/jobs$")
_UPLOAD_PATH = re.compile(r"^/upload/storage/v1/b/(?P<bucket>[^/]+)/o$")
# Vertex AI's custom and hyperparameter tuning jobs (v1 and v1beta1): a collection, one job, or
# one job's `:cancel`.
_VERTEX_PATH = re.compile(
    r"^/(?P<version>v1|v1beta1)/(?P<parent>projects/[^/]+/locations/[^/]+)/"
    r"(?P<kind>customJobs|hyperparameterTuningJobs)(?:/(?P<id>[^/:]+))?(?P<cancel>:cancel)?$")
VERTEX_JOB_ID = "123"  # the id of every Vertex job the server creates


def _parse_multipart(content_type, body):
    """Returns (metadata dict, payload bytes) of a multipart/related upload.

    gcloud quotes the boundary with single quotes and ends lines with a bare LF, which the
    `email` package does not accept, so the split is done by hand.
    """
    match = re.search(r"boundary=(?P<b>'[^']*'|\"[^\"]*\"|[^;\s]+)", content_type)
    if not match:
        return {}, b""
    delimiter = b"--" + match.group("b").strip("'\"").encode()
    parts = []
    for chunk in body.split(delimiter)[1:]:
        if chunk.startswith(b"--"):
            break
        _, _, content = chunk.lstrip(b"\r\n").partition(b"\n\n")
        if b"\r\n\r\n" in chunk and not content:
            _, _, content = chunk.lstrip(b"\r\n").partition(b"\r\n\r\n")
        if content.endswith(b"\r\n"):
            content = content[:-2]
        elif content.endswith(b"\n"):
            content = content[:-1]
        parts.append(content)
    metadata = json.loads(parts[0]) if parts else {}
    payload = parts[1] if len(parts) > 1 else b""
    return metadata, payload


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the test prints what matters
        pass

    def _reply(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self, entry):
        with self.server.lock:
            with open(self.server.record_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def _handle(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        entry = {"method": self.command, "path": url.path, "query": query, "body": None}

        upload = _UPLOAD_PATH.match(url.path)
        if self.command == "POST" and upload:
            metadata, payload = _parse_multipart(self.headers.get("Content-Type", ""), raw)
            name = query.get("name", [""])[0]
            entry["body"] = {"metadata": metadata, "size": len(payload),
                             "sha256": hashlib.sha256(payload).hexdigest()}
            self._record(entry)
            self._reply(200, {"kind": "storage#object", "bucket": upload.group("bucket"),
                              "name": name, "size": str(len(payload))})
            return

        try:
            entry["body"] = json.loads(raw) if raw else None
        except ValueError:
            entry["body"] = raw.decode("utf-8", "replace")
        self._record(entry)

        if self.command == "POST" and _JOBS_PATH.match(url.path):
            job = dict(entry["body"] or {})
            job["state"] = "QUEUED"
            job["createTime"] = "2024-01-01T00:00:00Z"
            job["etag"] = base64.b64encode(b"\x01\x02\x03\x04\x05\x06\x07\x08").decode()
            self._reply(200, job)
            return
        vertex = _VERTEX_PATH.match(url.path)
        if vertex:
            self._reply(200, self._vertex_answer(vertex, entry["body"]))
            return
        if self.command == "POST" and url.path == "/v2/entries:list":
            self._reply(200, {})
            return
        self._reply(404, {"error": {"code": 404, "message": "not recorded: " + url.path,
                                    "status": "NOT_FOUND"}})

    def _vertex_answer(self, match, body):
        """A create echoes the job as created (id VERTEX_JOB_ID, JOB_STATE_PENDING); a get
        answers the last job created of that kind, ended; a list, that job; a cancel, {}."""
        kind = match.group("kind")
        if match.group("cancel"):
            return {}
        if self.command == "POST" and not match.group("id"):
            job = dict(body or {})
            job["name"] = "%s/%s/%s" % (match.group("parent"), kind, VERTEX_JOB_ID)
            job["state"] = "JOB_STATE_PENDING"
            job["createTime"] = "2024-01-01T00:00:00.123456Z"
            job["updateTime"] = "2024-01-01T00:00:00.123456Z"
            with self.server.lock:
                self.server.vertex_jobs[kind] = job
            return job
        with self.server.lock:
            job = dict(self.server.vertex_jobs.get(kind) or {
                "name": "%s/%s/%s" % (match.group("parent"), kind, VERTEX_JOB_ID),
                "displayName": "recorded", "createTime": "2024-01-01T00:00:00.123456Z"})
        job["state"] = "JOB_STATE_SUCCEEDED"
        job["startTime"] = "2024-01-01T00:00:01Z"
        job["endTime"] = "2024-01-01T00:00:02Z"
        if match.group("id"):
            return job
        return {kind: [job]}

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle


class RecordingServer:
    """Serves on 127.0.0.1:0 in a background thread until `stop()`."""

    def __init__(self, record_path):
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.record_path = record_path
        self._httpd.lock = threading.Lock()
        self._httpd.vertex_jobs = {}
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._httpd.shutdown()
        self._httpd.server_close()


def read_records(record_path):
    try:
        with open(record_path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


if __name__ == "__main__":
    server = RecordingServer(sys.argv[1])
    print(server.port, flush=True)
    server._httpd.serve_forever()
