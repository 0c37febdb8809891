// The web console in a real browser (issue #18): playwright-core drives Debian's Chromium
// against a real `trainyard serve` running real jobs (shell trainers on the host, `--containers
// host`; one emulated device of every accelerator type, `--accelerator-emulation=1`), and takes
// the screenshots in docs/console/.
//
// Each check waits for what the page shows, never for a time: a trainer waits on a gate file the
// test creates once the page has shown the state before, so "changes without a reload" is
// a state the page could not have shown at load. The page's `window.__loaded` marker, set once,
// proves no reload happened.
//
// Usage: node console_test.mjs --trainyard PATH --node-modules DIR [--screenshots DIR]
// Prints one line per check and "N passed, M failed"; exits 1 on a failure, 77 (skipped) when
// there is no Chromium and TRAINYARD_REQUIRE_BROWSER is not 1.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { WAIT_MS, openSuite, waitFor } from "../node/harness.mjs";

const CHROMIUM = process.env.TY_CHROMIUM ?? "/usr/bin/chromium";
const PROJECT = "console";
const { args, check, exitWithout, finish, load, startServer, tmp } = openSuite("ty-console-", {
  required: "TRAINYARD_REQUIRE_BROWSER",
});
const shots = path.resolve(
  process.env.TY_CONSOLE_SCREENSHOTS ??
    args.screenshots ??
    path.join(os.tmpdir(), "ty-console-screenshots"),
);
fs.mkdirSync(shots, { recursive: true });

if (!fs.existsSync(CHROMIUM))
  exitWithout(`no browser at ${CHROMIUM} (scripts/setup.sh installs Debian's chromium)`);
const { chromium } = await load("playwright-core");
const serve = (name, extra = []) => startServer({ name, extra: ["--stop-grace", "2", ...extra] });

async function api(server, method, urlPath, body, contentType = "application/json") {
  const headers = { "Content-Type": contentType };
  if (server.token) headers.Authorization = "Bearer " + server.token;
  const response = await fetch(server.url + urlPath, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${urlPath}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : {};
}

// A job whose master runs `script` with sh on the host.
function shellJob(jobId, script, extra = {}) {
  return {
    jobId,
    labels: { suite: "console" },
    trainingInput: {
      region: "us-central1",
      masterConfig: {
        imageUri: "console/local",
        containerCommand: ["sh", "-c", script, "trainer"],
      },
      ...extra,
    },
  };
}

const gate = (name) => path.join(tmp, "gate-" + name);
const waitGate = (name) => `while [ ! -e ${gate(name)} ]; do sleep 0.1; done`;
const open = (name) => fs.writeFileSync(gate(name), "");

// Polls the job until its state is one of `states`.
async function waitForJob(server, jobId, states) {
  let job = null;
  return waitFor(
    async () => {
      job = await api(server, "GET", `/v1/projects/${PROJECT}/jobs/${jobId}`);
      return states.includes(job.state) && job;
    },
    () => `${jobId} is still ${job?.state}: ${JSON.stringify(job)}`,
  );
}

const server = await serve("main", ["--accelerator-emulation=1"]);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--no-sandbox", "--disable-gpu"],
});
const context = await browser.newContext({
  viewport: { width: 1280, height: 860 },
  acceptDownloads: true,
});
context.setDefaultTimeout(WAIT_MS);
const page = await context.newPage();
page.on("dialog", (dialog) => void dialog.accept()); // the cancel confirmation
const errors = [];
page.on("pageerror", (error) => errors.push(String(error)));
const consoleUrl = (...parts) => `${server.url}/console/#/p/${PROJECT}/${parts.join("/")}`;
const stateOf = (selector) => page.locator(selector).getAttribute("data-state");
const waitState = (selector, state) => page.waitForSelector(`${selector} [data-state="${state}"]`);

try {
  await check("the console is served offline: every request stays on the server", async () => {
    const outside = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith("blob:"))
        outside.push(request.url());
    });
    await page.goto(consoleUrl("jobs"));
    await page.waitForSelector("table.jobs tbody tr");
    await page.evaluate(() => (window.__loaded = true));
    if (outside.length) throw new Error("requests outside the server: " + outside.join(", "));
  });

  await check(
    "the jobs table shows a submitted job and its state changes without a reload",
    async () => {
      await api(
        server,
        "POST",
        `/v1/projects/${PROJECT}/jobs`,
        shellJob("state_1", `${waitGate("state1")}; echo done`),
      );
      await waitState('tr[data-job-id="state_1"]', "RUNNING");
      open("state1"); // only now can the job succeed
      await waitState('tr[data-job-id="state_1"]', "SUCCEEDED");
      if (!(await page.evaluate(() => window.__loaded))) throw new Error("the page reloaded");
    },
  );

  await check("a running job's log lines appear live", async () => {
    await api(
      server,
      "POST",
      `/v1/projects/${PROJECT}/jobs`,
      shellJob(
        "live_1",
        `echo "hello from the trainer"; ${waitGate("live1")}; echo "after the gate"; ${waitGate("live2")}; echo done`,
      ),
    );
    await page.waitForSelector('a:text-is("live_1")');
    await page.click('a:text-is("live_1")');
    await page.waitForSelector('#log-lines .text:text-is("hello from the trainer")');
    open("live1");
    await page.waitForSelector('#log-lines .text:text-is("after the gate")');
    await page.waitForSelector('.replicas tr[data-task="master-replica-0"]');
    await page.waitForSelector('.timeline li.done:has(b:text-is("running"))');
    await page.screenshot({ path: path.join(shots, "job.png"), fullPage: true });
    open("live2");
    await waitState("#job-state", "SUCCEEDED");
    await page.click('nav a:text-is("Jobs")');
    await waitState('tr[data-job-id="live_1"]', "SUCCEEDED");
    if (!(await page.evaluate(() => window.__loaded))) throw new Error("the page reloaded");
  });

  await check("cancel from the console cancels the job", async () => {
    await api(
      server,
      "POST",
      `/v1/projects/${PROJECT}/jobs`,
      shellJob("cancel_me", "echo waiting; exec sleep 600"),
    );
    await page.goto(consoleUrl("jobs", "cancel_me"));
    await waitState("#job-state", "RUNNING");
    await page.click("#cancel");
    await waitState("#job-state", "CANCELLED");
    const job = await api(server, "GET", `/v1/projects/${PROJECT}/jobs/cancel_me`);
    if (job.state !== "CANCELLED") throw new Error("the server says " + job.state);
  });

  await check(
    "a failed job shows its errorMessage and replicas, its logs filter, and submit again shows the server's validation",
    async () => {
      await api(
        server,
        "POST",
        `/v1/projects/${PROJECT}/jobs`,
        shellJob("fails", "echo 'Traceback: no data' >&2; exit 3"),
      );
      await page.goto(consoleUrl("jobs", "fails"));
      const message = await page.waitForSelector("#error-message");
      if (!(await message.textContent()).includes("non-zero status of 3"))
        throw new Error(await message.textContent());
      // The replicas of the ended job, as its run left them.
      await page.waitForSelector(
        '.replicas tr[data-task="master-replica-0"] td:has-text("non-zero status of 3")',
      );
      await page.screenshot({ path: path.join(shots, "job-failed.png") });
      // The log filters: errors only, then the master's lines only.
      const shown = () =>
        page.evaluate(() =>
          [...document.querySelectorAll("#log-lines .log-line")].map(
            (l) => `${l.querySelector(".task").textContent} ${l.querySelector(".sev").textContent}`,
          ),
        );
      await page.selectOption("#log-severity", "ERROR");
      await page.waitForFunction(
        () => document.querySelectorAll("#log-lines .log-line").length === 2,
      );
      if ((await shown()).join() !== "master-replica-0 ERROR,service ERROR")
        throw new Error("errors only: " + (await shown()));
      await page.selectOption("#log-task", "master-replica-0");
      await page.waitForFunction(
        () => document.querySelectorAll("#log-lines .log-line").length === 1,
      );
      if ((await shown()).join() !== "master-replica-0 ERROR")
        throw new Error("the master's errors: " + (await shown()));
      await page.click("#submit-again");
      const edited = (await page.inputValue("#resubmit-text")).replace(
        '"region": "us-central1"',
        '"region": "moon-north1"',
      );
      await page.fill("#resubmit-text", edited);
      await page.click("#resubmit-send");
      await page.waitForSelector('#resubmit-errors code:text-is("trainingInput.region")');
      await page.keyboard.press("Escape");
    },
  );

  await check("a finished study draws one point per trial", async () => {
    // Reports three steps of 1 - (x - 0.3)^2 (plus 0.1 for kind b) as cloudml-hypertune does.
    const trainer = `
for a in "$@"; do case $a in --x=*) x=\${a#--x=};; --kind=*) kind=\${a#--kind=};; esac; done
for step in 1 2 3; do
  v=$(awk -v x="$x" -v k="$kind" -v s="$step" 'BEGIN { print (1 - (x - 0.3) ^ 2 + (k == "b" ? 0.1 : 0)) * s / 3 }')
  echo "{\\"global_step\\": \\"$step\\", \\"timestamp\\": 1700000000.$step, \\"score\\": \\"$v\\"}" >> "$CLOUD_ML_HP_METRIC_FILE"
done
echo "x=$x kind=$kind score=$v"`;
    const job = shellJob("study_1", trainer, {
      hyperparameters: {
        goal: "MAXIMIZE",
        hyperparameterMetricTag: "score",
        maxTrials: 5,
        maxParallelTrials: 2,
        algorithm: "RANDOM_SEARCH",
        params: [
          {
            parameterName: "x",
            type: "DOUBLE",
            minValue: 0,
            maxValue: 1,
            scaleType: "UNIT_LINEAR_SCALE",
          },
          { parameterName: "kind", type: "CATEGORICAL", categoricalValues: ["a", "b"] },
        ],
      },
    });
    await api(server, "POST", `/v1/projects/${PROJECT}/jobs`, job);
    const done = await waitForJob(server, "study_1", ["SUCCEEDED", "FAILED", "CANCELLED"]);
    if (done.state !== "SUCCEEDED") throw new Error(JSON.stringify(done));
    const trials = done.trainingOutput.trials.filter((t) => t.finalMetric).length;
    await page.goto(consoleUrl("jobs", "study_1"));
    await page.waitForSelector("#objective-chart");
    const points = await page.locator("#objective-chart circle.trial-point").count();
    if (trials !== 5 || points !== trials)
      throw new Error(`${points} points for ${trials} trials with a metric (5 run)`);
    // Sorted by the objective, best last; the curves chart has a line per trial.
    await page.click('#trials th[data-column="objective"]');
    const column = await page.$$eval("#trials th", (ths) =>
      ths.findIndex((th) => th.dataset.column === "objective"),
    );
    const objectives = await page.$$eval(
      "#trials tbody tr",
      (rows, i) => rows.map((row) => Number(row.children[i].textContent)),
      column,
    );
    const sorted = [...objectives].sort((a, b) => a - b);
    if (JSON.stringify(objectives) !== JSON.stringify(sorted))
      throw new Error("not sorted: " + objectives);
    const curves = await page.locator("#curves-chart g.curve").count();
    if (curves !== 5) throw new Error(`${curves} curves for 5 trials`);
    await page.screenshot({ path: path.join(shots, "study.png"), fullPage: true });
  });

  await check(
    "the cluster page shows an emulated GPU held by a running job, each project's quota, use, " +
      "borrowed and share, and the queue; a job beyond the quota is refused naming it; the jobs " +
      "filter",
    async () => {
      // A quota set through the sharing API: the project's one T4, weight 2.
      await api(server, "PUT", `/trainyard/v1/projects/${PROJECT}/quota`, {
        accelerators: { NVIDIA_TESLA_T4: 1 },
        weight: 2,
      });
      const gpu = { scaleTier: "CUSTOM", masterType: "n1-standard-4" };
      const config = (id) => ({
        ...shellJob(id, "exec sleep 600").trainingInput.masterConfig,
        acceleratorConfig: { count: "1", type: "NVIDIA_TESLA_T4" },
      });
      await api(server, "POST", `/v1/projects/${PROJECT}/jobs`, {
        jobId: "gpu_1",
        trainingInput: { region: "us-central1", ...gpu, masterConfig: config("gpu_1") },
      });
      await waitForJob(server, "gpu_1", ["RUNNING"]);
      await api(server, "POST", `/v1/projects/${PROJECT}/jobs`, {
        jobId: "gpu_2",
        trainingInput: { region: "us-central1", ...gpu, masterConfig: config("gpu_2") },
      });
      await page.goto(consoleUrl("cluster"));
      const row = page.locator("tr.busy", { has: page.locator('a:text-is("gpu_1")') });
      await row.waitFor();
      const accelerator = await row.locator("td").nth(1).textContent();
      if (accelerator !== "NVIDIA_TESLA_T4") throw new Error("held device is " + accelerator);
      if ((await row.locator("td").nth(2).textContent()) !== "emulated")
        throw new Error("not emulated");
      await page.waitForSelector('#queue tr[data-job-id="gpu_2"]');
      // The Projects table: gpu_1 holds the one emulated T4 (a 100% share), within the quota.
      const projectRow = `#projects tr[data-project="${PROJECT}"]`;
      const cell = (column) => page.locator(`${projectRow} td[data-column="${column}"]`);
      await page.waitForFunction(
        (row) =>
          document.querySelector(`${row} td[data-column="waiting"]`)?.textContent === "1" &&
          document.querySelector(`${row} td[data-column="use"]`)?.textContent.includes("T4"),
        projectRow,
      );
      const shown = {};
      for (const column of ["quota", "use", "borrowed", "share", "weight", "waiting"])
        shown[column] = await cell(column).innerText();
      const expect = (column, ok) => {
        if (!ok) throw new Error(`Projects ${column} is ${JSON.stringify(shown[column])}`);
      };
      expect("quota", shown.quota === "1 × NVIDIA_TESLA_T4");
      expect("use", shown.use.split("\n").includes("1 × NVIDIA_TESLA_T4"));
      expect("borrowed", shown.borrowed === "none");
      expect("share", shown.share === "100%");
      expect("weight", shown.weight === "2");
      // Another project's job: that project has no quota ("—") and weight 1.
      await api(server, "POST", "/v1/projects/other/jobs", shellJob("other_1", "exec sleep 600"));
      const otherRow = '#projects tr[data-project="other"]';
      await page.waitForSelector(otherRow);
      const other = await page.locator(`${otherRow} td`).allInnerTexts();
      if (other[1] !== "—" || other[3] !== "none" || other[5] !== "1")
        throw new Error("project other shows " + JSON.stringify(other));
      await page.screenshot({ path: path.join(shots, "cluster.png"), fullPage: true });
      await page.click('nav a:text-is("Jobs")');
      await waitState('tr[data-job-id="gpu_2"]', "QUEUED");
      await page.screenshot({ path: path.join(shots, "jobs.png") });
      // The list filter language, as gcloud's --filter sends it.
      await page.fill("#filter", "state=FAILED");
      await page.click('button:text-is("Filter")');
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll("table.jobs tbody tr")]
            .map((r) => r.dataset.jobId)
            .join() === "fails",
      );
      // A job beyond the quota, sent again from gpu_1's page: refused, the quota named.
      await page.goto(consoleUrl("jobs", "gpu_1"));
      await page.click("#submit-again");
      const twice = (await page.inputValue("#resubmit-text")).replace(
        '"count": "1"',
        '"count": "2"',
      );
      await page.fill("#resubmit-text", twice);
      await page.click("#resubmit-send");
      const refusal = await page.waitForSelector("#resubmit-errors p");
      const said = await refusal.textContent();
      const quota = `The job needs 2 NVIDIA_TESLA_T4 at once and project ${PROJECT}'s quota is 1`;
      if (!said.includes(quota)) throw new Error("the quota refusal reads " + JSON.stringify(said));
      await page.keyboard.press("Escape");
      await api(server, "POST", `/v1/projects/${PROJECT}/jobs/gpu_2:cancel`, {});
      await api(server, "POST", `/v1/projects/${PROJECT}/jobs/gpu_1:cancel`, {});
      await api(server, "POST", "/v1/projects/other/jobs/other_1:cancel", {});
      await api(server, "DELETE", `/trainyard/v1/projects/${PROJECT}/quota`);
    },
  );

  await check("the buckets page lists objects and downloads one", async () => {
    await api(server, "POST", `/storage/v1/b?project=${PROJECT}`, { name: "console-data" });
    await api(
      server,
      "POST",
      "/upload/storage/v1/b/console-data/o?uploadType=media&name=models%2Fmodel.txt",
      "weights 42\n",
      "text/plain",
    );
    await api(
      server,
      "POST",
      "/upload/storage/v1/b/console-data/o?uploadType=media&name=README.txt",
      "hello\n",
      "text/plain",
    );
    await page.goto(consoleUrl("buckets"));
    await page.click('a:text-is("console-data")');
    await page.click('a:text-is("models/")');
    const row = page.locator('tr[data-object="models/model.txt"]');
    await row.waitFor();
    await page.screenshot({ path: path.join(shots, "buckets.png") });
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      row.locator("button").click(),
    ]);
    const text = fs.readFileSync(await download.path(), "utf8");
    if (text !== "weights 42\n") throw new Error("downloaded " + JSON.stringify(text));
  });

  await check(
    "the project picker offers the projects holding jobs or buckets; picking p2 shows its " +
      "jobs, and the choice survives a reload and the next visit",
    async () => {
      await api(server, "POST", "/v1/projects/p2/jobs", shellJob("p2_job", "echo p2"));
      await api(server, "POST", "/storage/v1/b?project=p3", { name: "p3-data" });
      await page.goto(consoleUrl("jobs"));
      const offered = () =>
        page.$$eval("select#project option", (options) =>
          options.map((o) => o.value).filter((v) => v !== "…"),
        );
      await page.waitForFunction(
        () => document.querySelectorAll("select#project option").length > 1,
      );
      // "other" holds a job of the cluster check, "console" jobs and a bucket, p3 a bucket only.
      const expected = ["console", "default", "other", "p2", "p3"];
      if (JSON.stringify(await offered()) !== JSON.stringify(expected))
        throw new Error("offers " + (await offered()));
      await page.selectOption("select#project", "p2");
      await page.waitForSelector('tr[data-job-id="p2_job"]');
      if (await page.locator(`tr[data-job-id="state_1"]`).count())
        throw new Error("p2 shows a job of " + PROJECT);
      const onP2 = async (what, tab = page) => {
        await tab.waitForSelector('tr[data-job-id="p2_job"]');
        const [hash, picked] = [
          await tab.evaluate(() => location.hash),
          await tab.inputValue("select#project"),
        ];
        if (hash !== "#/p/p2/jobs" || picked !== "p2")
          throw new Error(`${what}: at ${hash} with ${picked} picked`);
      };
      await onP2("after picking");
      await page.reload();
      await onP2("after a reload");
      // The next visit: a new tab (its own session storage) opening the bare console.
      const next = await context.newPage();
      try {
        await next.goto(`${server.url}/console/`);
        await onP2("on the next visit", next);
      } finally {
        await next.close();
      }
    },
  );

  await check(
    "with --auth tokens, the console asks for a token and shows only the token's projects",
    async () => {
      const secured = await serve("auth", ["--auth", "tokens"]);
      try {
        const out = execFileSync(
          args.trainyard,
          [
            "auth",
            "create-token",
            "viewer-1",
            "--role",
            "viewer",
            "--project",
            PROJECT,
            "--data-dir",
            secured.data,
          ],
          { encoding: "utf8" },
        );
        const token = /ty_[A-Za-z0-9_-]{43}/.exec(out)?.[0];
        if (!token) throw new Error("no token in: " + out);
        await page.goto(`${secured.url}/console/#/p/${PROJECT}/jobs`);
        await page.waitForSelector("#token");
        await page.fill("#token", "ty_" + "x".repeat(43));
        await page.fill("#signin-project", "");
        await page.click('button:text-is("Sign in")');
        await page.waitForSelector('.error:has-text("token")');
        await page.fill("#token", token);
        await page.screenshot({ path: path.join(shots, "signin.png") });
        await page.click('button:text-is("Sign in")');
        await page.waitForSelector("table.jobs");
        await page.waitForSelector('td.empty:text-is("No jobs.")');
        // The nav offers the token's projects only.
        await page.waitForSelector("select#project");
        const offered = await page.locator("select#project option").allTextContents();
        if (JSON.stringify(offered) !== JSON.stringify([PROJECT]))
          throw new Error("offers " + offered);
        await page.goto(`${secured.url}/console/#/p/other/jobs`);
        await page.waitForSelector('.error:has-text("Permission")');
        // A running job's page offers the viewer no Suspend (it lacks ml.jobs.suspend).
        const editor = /ty_[A-Za-z0-9_-]{43}/.exec(
          execFileSync(
            args.trainyard,
            ["auth", "create-token", "editor-1", "--role", "editor", "--project", PROJECT].concat([
              "--data-dir",
              secured.data,
            ]),
            { encoding: "utf8" },
          ),
        )?.[0];
        const asEditor = { url: secured.url, token: editor };
        await api(
          asEditor,
          "POST",
          `/v1/projects/${PROJECT}/jobs`,
          shellJob("viewed", "exec sleep 600"),
        );
        await page.goto(`${secured.url}/console/#/p/${PROJECT}/jobs/viewed`);
        await waitState("#job-state", "RUNNING");
        await page.waitForSelector("#submit-again");
        if (await page.locator("#suspend").count()) throw new Error("a viewer is offered Suspend");
        await api(asEditor, "POST", `/v1/projects/${PROJECT}/jobs/viewed:cancel`, {});
      } finally {
        await secured.stop();
      }
    },
  );

  // A built-in algorithm's job (issue #35): its page shows trainingOutput.builtInAlgorithmOutput.
  await check(
    "a built-in algorithm job's page shows its framework, versions and model",
    async () => {
      await api(server, "POST", `/storage/v1/b?project=${PROJECT}`, { name: "console-algo" });
      const rows = Array.from({ length: 60 }, (_, i) => {
        const x = ((i * 37) % 101) / 101;
        return `${x > 0.5 ? 1 : 0},${x.toFixed(4)},${(((i * 13) % 17) / 17).toFixed(4)}`;
      });
      await api(
        server,
        "POST",
        "/upload/storage/v1/b/console-algo/o?uploadType=media&name=data.csv",
        rows.join("\n") + "\n",
        "text/csv",
      );
      await api(server, "POST", `/v1/projects/${PROJECT}/jobs`, {
        jobId: "xgb_console",
        trainingInput: {
          region: "us-central1",
          scaleTier: "BASIC",
          jobDir: "gs://console-algo/out",
          masterConfig: { imageUri: "gcr.io/cloud-ml-algos/boosted_trees:latest" },
          args: [
            "--preprocess",
            "--training_data_path=gs://console-algo/data.csv",
            "--objective=binary:logistic",
          ],
        },
      });
      const job = await waitForJob(server, "xgb_console", ["SUCCEEDED", "FAILED", "CANCELLED"]);
      if (job.state !== "SUCCEEDED") throw new Error(JSON.stringify(job));
      const expected = job.trainingOutput.builtInAlgorithmOutput;
      await page.goto(consoleUrl("jobs", "xgb_console"));
      await page.waitForSelector("#algorithm-output");
      for (const [id, value] of [
        ["#algorithm-framework", "XGBOOST"],
        ["#algorithm-runtime", expected.runtimeVersion],
        ["#algorithm-python", expected.pythonVersion],
        ["#algorithm-model", "gs://console-algo/out/model"],
      ]) {
        const shown = await page.locator(id).textContent();
        if (!value || shown !== value) throw new Error(`${id} shows ${shown}, not ${value}`);
      }
      // Not on another job's page.
      await page.goto(consoleUrl("jobs", "fails"));
      await page.waitForSelector("#error-message");
      if (await page.locator("#algorithm-output").count()) throw new Error("shown for a shell job");
    },
  );

  // Issue #34: suspend and resume on a job's page, a refusal as the server words it, and a
  // preempted job's standing.
  await check(
    "suspend from the console suspends a running job, resume runs it again, a refusal shows the server's message",
    async () => {
      await api(
        server,
        "POST",
        `/v1/projects/${PROJECT}/jobs`,
        shellJob("suspend_me", "echo waiting; exec sleep 600"),
      );
      await page.goto(consoleUrl("jobs", "suspend_me"));
      await waitState("#job-state", "RUNNING");
      await page.click("#suspend");
      await page.waitForSelector('#job-standing[data-standing="suspended"]');
      await waitState("#job-state", "QUEUED");
      const suspension = `/trainyard/v1/projects/${PROJECT}/jobs/suspend_me/suspension`;
      if (!(await api(server, "GET", suspension)).suspended) throw new Error("not suspended");
      await page.screenshot({ path: path.join(shots, "job-suspended.png") });
      await page.click("#resume");
      await waitState("#job-state", "RUNNING");
      await page.waitForSelector("#job-standing", { state: "detached" });
      if ((await api(server, "GET", suspension)).suspended) throw new Error("still suspended");
      // The button of a job that has ended since the page drew it: the server refuses.
      const stale = await page.waitForSelector("#suspend");
      await api(server, "POST", `/v1/projects/${PROJECT}/jobs/suspend_me:cancel`, {});
      await waitForJob(server, "suspend_me", ["CANCELLED"]);
      await stale.evaluate((button) => button.click());
      const refusal = await page.waitForSelector("#action-error:not(:empty)");
      if (!(await refusal.textContent()).includes("CANCELLED"))
        throw new Error("the refusal reads: " + (await refusal.textContent()));
    },
  );

  await check("a preempted job's page says so and why it waits", async () => {
    const onT4 = (jobId, priority) => ({
      jobId,
      trainingInput: {
        region: "us-central1",
        scaleTier: "CUSTOM",
        masterType: "n1-standard-4",
        masterConfig: {
          imageUri: "console/local",
          containerCommand: ["sh", "-c", "exec sleep 600", "trainer"],
          acceleratorConfig: { count: "1", type: "NVIDIA_TESLA_T4" },
        },
        scheduling: { priority },
      },
    });
    await api(server, "POST", `/v1/projects/${PROJECT}/jobs`, onT4("low_t4", 0));
    await page.goto(consoleUrl("jobs", "low_t4"));
    await waitState("#job-state", "RUNNING");
    if (await page.locator("#job-standing").count()) throw new Error("a standing while running");
    await api(server, "POST", `/v1/projects/${PROJECT}/jobs`, onT4("high_t4", 100));
    const standing = await page.waitForSelector('#job-standing[data-standing="preempted"]');
    const text = await standing.textContent();
    if (!text.startsWith("preempted: waiting for room: ") || !text.includes("NVIDIA_TESLA_T4"))
      throw new Error("the standing reads: " + text);
    await waitState("#job-state", "QUEUED");
    for (const jobId of ["high_t4", "low_t4"])
      await api(server, "POST", `/v1/projects/${PROJECT}/jobs/${jobId}:cancel`, {});
  });

  await check("no script error on any page", async () => {
    if (errors.length) throw new Error(errors.join("\n"));
  });
} finally {
  await browser.close();
  await server.stop();
}
finish(server);
