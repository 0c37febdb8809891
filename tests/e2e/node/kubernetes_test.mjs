// The Node.js Kubernetes client (@kubernetes/client-node 1.x, from package-lock.json) against a
// real `trainyard serve`, with the kubeconfig `trainyard kubeconfig` writes, loaded as its docs
// show (`KubeConfig.loadFromFile`, `makeApiClient`). CustomObjectsApi creates a TFJob (group
// kubeflow.org, v1, plural tfjobs), gets and lists it, a `Watch` of tfjobs follows it from ADDED
// to its Succeeded condition, CoreV1Api lists its worker's pod and a pod watch follows it to
// Succeeded, `Log` follows the running replica's log (`logs -f`) as lines appear and
// `readNamespacedPodLog` reads it whole, a merge patch changes its labels and a label selector
// finds it, and a delete removes it (a get is then 404). The worker runs on the host
// (`--containers host`) and waits on a gate file the suite creates once the followed log shows
// its first line, so "lines appear live" is a state the client could not have seen at once.
//
// Usage: node kubernetes_test.mjs --trainyard PATH --node-modules DIR (harness.mjs).

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { WAIT_MS, expectEqual, expectRejects, openSuite, waitFor } from "./harness.mjs";

const { args, check, finish, load, startServer, tmp } = openSuite("ty-node-kube-");

const k8s = await load("@kubernetes/client-node");
const NAMESPACE = "node-kube";
const JOB = "nodejob";
const POD = `${JOB}-worker-0`;
const TFJOBS = { group: "kubeflow.org", version: "v1", namespace: NAMESPACE, plural: "tfjobs" };
const gate = path.join(tmp, "gate");
const TRAINER = [
  "import os, time",
  "print('step 0', flush=True)",
  `while not os.path.exists(${JSON.stringify(gate)}): time.sleep(0.05)`,
  "print('step 1', flush=True)",
  "print('step 2', flush=True)",
].join("\n");

const server = await startServer();
const kubeconfig = path.join(tmp, "kubeconfig");
fs.writeFileSync(
  kubeconfig,
  execFileSync(args.trainyard, ["kubeconfig", "--server", server.url, "--namespace", NAMESPACE]),
);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const objects = kc.makeApiClient(k8s.CustomObjectsApi);
const core = kc.makeApiClient(k8s.CoreV1Api);

function tfjob() {
  return {
    apiVersion: "kubeflow.org/v1",
    kind: "TFJob",
    metadata: { name: JOB, labels: { via: "node" } },
    spec: {
      tfReplicaSpecs: {
        Worker: {
          replicas: 1,
          restartPolicy: "Never",
          template: {
            spec: {
              containers: [
                {
                  name: "tensorflow",
                  image: "example/tiny",
                  command: ["/usr/bin/python3", "-u", "-c", TRAINER],
                },
              ],
            },
          },
        },
      },
    },
  };
}

// Watches `path` until `done(type, object)`; resolves with the [type, object] events seen.
function watchUntil(path, query, done) {
  const events = [];
  let request = null;
  const finished = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no end in ${path}: ${JSON.stringify(events)}`)),
      WAIT_MS,
    );
    new k8s.Watch(kc)
      .watch(
        path,
        query,
        (type, object) => {
          events.push([type, object]);
          if (done(type, object)) {
            clearTimeout(timer);
            resolve(events);
          }
        },
        (error) => {
          clearTimeout(timer);
          if (error) reject(error);
          else resolve(events); // the server ended the watch: the caller checks what it saw
        },
      )
      .then((controller) => (request = controller), reject);
  });
  return finished.finally(() => request?.abort());
}

const lastCondition = (job) => job.status?.conditions?.at(-1)?.type;
let tfjobWatch;

try {
  await check(
    "CustomObjectsApi creates, gets and lists the TFJob; a tfjobs watch sees it ADDED",
    async () => {
      tfjobWatch = watchUntil(
        `/apis/kubeflow.org/v1/namespaces/${NAMESPACE}/tfjobs`,
        {},
        (type, job) => ["Succeeded", "Failed"].includes(lastCondition(job)),
      );
      tfjobWatch.catch(() => {}); // awaited by a later check, which reports its failure
      const created = await objects.createNamespacedCustomObject({ ...TFJOBS, body: tfjob() });
      expectEqual(
        [created.kind, created.metadata.name, created.metadata.namespace],
        ["TFJob", JOB, NAMESPACE],
        "created",
      );
      const got = await objects.getNamespacedCustomObject({ ...TFJOBS, name: JOB });
      expectEqual(got.metadata.uid, created.metadata.uid, "the uid");
      const listed = await objects.listNamespacedCustomObject(TFJOBS);
      expectEqual(
        listed.items.map((item) => item.metadata.name),
        [JOB],
        "listed",
      );
    },
  );

  await check("Log follows the running replica's log as lines appear (logs -f)", async () => {
    const out = new PassThrough();
    let text = "";
    const ended = new Promise((resolve) => out.on("end", resolve));
    out.on("data", (chunk) => {
      text += chunk;
      if (text.includes("step 0") && !fs.existsSync(gate)) fs.writeFileSync(gate, ""); // only now
    });
    // The pod exists once the job is admitted; follow asks for it while it runs.
    let pod = null;
    await waitFor(
      async () => {
        pod = await core.readNamespacedPod({ name: POD, namespace: NAMESPACE }).catch(() => null);
        return pod?.status?.phase === "Running";
      },
      () => `the pod is ${JSON.stringify(pod?.status)}`,
    );
    await new k8s.Log(kc).log(NAMESPACE, POD, "tensorflow", out, { follow: true });
    await ended;
    expectEqual(text, "step 0\nstep 1\nstep 2\n", "the followed log");
    if (!fs.existsSync(gate)) throw new Error("the log ended before the gate opened");
  });

  await check("the tfjobs watch ends on the Succeeded condition", async () => {
    const events = await tfjobWatch;
    expectEqual(events[0][0], "ADDED", "the first event");
    expectEqual(lastCondition(events.at(-1)[1]), "Succeeded", "the last condition");
  });

  await check(
    "CoreV1Api lists the pod, a pod watch sees it Succeeded, its log reads whole",
    async () => {
      const pods = await core.listNamespacedPod({ namespace: NAMESPACE });
      expectEqual(
        pods.items.map((pod) => pod.metadata.name),
        [POD],
        "pods",
      );
      const events = await watchUntil(
        `/api/v1/namespaces/${NAMESPACE}/pods`,
        { labelSelector: `training.kubeflow.org/job-name=${JOB}` },
        (type, pod) => pod.status.phase === "Succeeded",
      );
      expectEqual(events.at(-1)[1].metadata.name, POD, "the watched pod");
      const status = (await core.readNamespacedPodStatus({ name: POD, namespace: NAMESPACE }))
        .status;
      const terminated = status.containerStatuses[0].state.terminated;
      expectEqual([status.phase, terminated.exitCode], ["Succeeded", 0], "the pod's status");
      if (!(terminated.startedAt <= terminated.finishedAt))
        throw new Error(JSON.stringify(terminated));
      const log = await core.readNamespacedPodLog({ name: POD, namespace: NAMESPACE });
      expectEqual(log, "step 0\nstep 1\nstep 2\n", "the log");
    },
  );

  await check(
    "a merge patch changes the labels, and a label selector finds the TFJob",
    async () => {
      const patched = await objects.patchNamespacedCustomObject(
        { ...TFJOBS, name: JOB, body: { metadata: { labels: { team: "ml" } } } },
        k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
      );
      expectEqual(patched.metadata.labels, { team: "ml", via: "node" }, "the labels");
      const selected = await objects.listNamespacedCustomObject({
        ...TFJOBS,
        labelSelector: "team=ml",
      });
      expectEqual(
        selected.items.map((item) => item.metadata.name),
        [JOB],
        "selected",
      );
      const none = await objects.listNamespacedCustomObject({ ...TFJOBS, labelSelector: "team=x" });
      expectEqual(none.items, [], "not selected");
    },
  );

  await check("delete removes the TFJob: a get is then 404 NotFound", async () => {
    const deleted = await objects.deleteNamespacedCustomObject({ ...TFJOBS, name: JOB });
    expectEqual(deleted.status, "Success", "the delete's Status");
    const error = await expectRejects(
      objects.getNamespacedCustomObject({ ...TFJOBS, name: JOB }),
      404,
      "a get after the delete",
    );
    expectEqual(JSON.parse(error.body).reason, "NotFound", "the reason");
  });
} finally {
  await server.stop();
}
finish(server);
