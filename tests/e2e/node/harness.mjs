// What the Node.js e2e suites share, the client libraries' (issue #36, this folder) and the
// console's (tests/e2e/console/): their arguments, packages from a lock file (installed by CMake
// with `npm ci` into the build directory), a temporary directory, a real `trainyard serve` on a
// free port, polling for a condition, and one line per check with "N passed, M failed" at the
// end. Importing it does nothing: a suite calls `openSuite`.
//
// A suite runs `node SUITE.mjs --trainyard PATH --node-modules DIR`. Without its packages it
// exits 77 (skipped), or 1 when its "required" variable is 1 (scripts/test.sh sets
// TRAINYARD_REQUIRE_NODE and TRAINYARD_REQUIRE_BROWSER).

import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

// A bound for the slowest step on a loaded 2-core machine, not a timing.
export const WAIT_MS = 120_000;

// `--name value` pairs as an object.
export function parseArgs(argv) {
  return Object.fromEntries(
    argv.reduce(
      (pairs, arg, i, all) =>
        arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs,
      [],
    ),
  );
}

// Polls `probe` (maybe async) until it returns something truthy, and returns that; after `ms`,
// an error saying `what()`.
export async function waitFor(probe, what, ms = WAIT_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`still waiting: ${await what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// Throws unless `actual` and `expected` have the same JSON.
export function expectEqual(actual, expected, what = "value") {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

// Throws unless `promise` rejects with HTTP status `code`; returns the error.
export async function expectRejects(promise, code, what) {
  let error = null;
  try {
    await promise;
  } catch (caught) {
    error = caught;
  }
  if (error === null) throw new Error(`${what}: succeeded, expected HTTP ${code}`);
  const status = error.code ?? error.status ?? error.response?.status;
  if (status !== code) throw new Error(`${what}: expected HTTP ${code}, got ${status}: ${error}`);
  return error;
}

// One suite run: its arguments (`args`), a fresh temporary directory named after `prefix`
// (`tmp`, removed when every check passed), and the functions below. `required` names the
// variable that turns a skip into a failure.
export function openSuite(prefix, { required = "TRAINYARD_REQUIRE_NODE" } = {}) {
  const args = parseArgs(process.argv.slice(2));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const results = [];

  // Ends the suite as skipped (77), or failed when `required` is 1, saying why.
  function exitWithout(why) {
    fs.rmSync(tmp, { recursive: true, force: true });
    const failed = process.env[required] === "1";
    console.log(`${failed ? "FAILED" : "SKIPPED"}: ${why}`);
    process.exit(failed ? 1 : 77);
  }

  // The package `name` from --node-modules, as its documentation imports it: `require` for a
  // CommonJS package, `import` for an ES module.
  async function load(name) {
    const dir = args["node-modules"];
    if (!dir || !fs.existsSync(path.join(dir, name, "package.json"))) {
      exitWithout(`no ${name} under ${dir} (the build installs it with npm ci)`);
    }
    const require = createRequire(path.resolve(dir, "_"));
    const { type } = JSON.parse(fs.readFileSync(path.join(dir, name, "package.json"), "utf8"));
    return type === "module" ? import(pathToFileURL(require.resolve(name)).href) : require(name);
  }

  // A `trainyard serve` on a free port, its data in `tmp`/`name`, replicas on the host, and
  // `extra` flags; its log kept for a failure. `stop()` ends it (SIGTERM) and waits.
  async function startServer({ name = "data", extra = [] } = {}) {
    const data = path.join(tmp, name);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !k.startsWith("TRAINYARD_") && k !== "STORAGE_EMULATOR_HOST",
      ),
    );
    const proc = spawn(
      args.trainyard,
      ["serve", "--listen", "127.0.0.1:0", "--data-dir", data, "--containers", "host", ...extra],
      { env, stdio: ["ignore", "ignore", "pipe"] },
    );
    let log = "";
    const url = await new Promise((resolve, reject) => {
      proc.stderr.on("data", (chunk) => {
        log += chunk;
        const match = /serving on (https?:\/\/[^/\s]+:\d+)\//.exec(log);
        if (match) resolve(match[1]);
      });
      proc.on("exit", (code) => reject(new Error(`trainyard serve exited with ${code}:\n${log}`)));
    });
    const stop = async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGTERM");
      await exited;
    };
    return { url, data, log: () => log, stop };
  }

  // Runs one check, printing its outcome; later checks run whatever this one did.
  async function check(name, body) {
    const start = Date.now();
    try {
      await body();
      results.push([name, null]);
      console.log(`ok    ${name} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
    } catch (error) {
      results.push([name, error]);
      const detail = error instanceof Error ? error.stack : JSON.stringify(error, null, 1);
      console.log(`FAIL  ${name}\n${detail}`);
    }
  }

  // Prints the counts (and `server`'s log after a failure) and exits 1 on any failure or when
  // nothing passed; the temporary directory stays for a failure's study.
  function finish(server) {
    const failed = results.filter(([, error]) => error);
    if (failed.length && server) console.log("server log:\n" + server.log());
    console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
    if (!failed.length) fs.rmSync(tmp, { recursive: true, force: true });
    process.exit(failed.length || !results.length ? 1 : 0);
  }

  return { args, tmp, exitWithout, load, startServer, check, finish };
}
