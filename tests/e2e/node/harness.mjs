// What the Node.js client-library suites (issue #36) share: their arguments, the packages from
// package-lock.json (installed by CMake with `npm ci` into the build directory), a real
// `trainyard serve` on a free port, and one line per check with "N passed, M failed" at the end.
//
// A suite runs `node SUITE.mjs --trainyard PATH --node-modules DIR`. Without the packages it
// exits 77 (skipped), or 1 under TRAINYARD_REQUIRE_NODE=1 (scripts/test.sh sets it).

import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const args = Object.fromEntries(
  process.argv
    .slice(2)
    .reduce(
      (pairs, arg, i, all) =>
        arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs,
      [],
    ),
);

// Ends the suite as skipped (77), or failed under TRAINYARD_REQUIRE_NODE=1, saying why.
export function exitWithout(why) {
  fs.rmSync(tmp, { recursive: true, force: true });
  const required = process.env.TRAINYARD_REQUIRE_NODE === "1";
  console.log(`${required ? "FAILED" : "SKIPPED"}: ${why}`);
  process.exit(required ? 1 : 77);
}

// The package `name` from --node-modules, as its documentation imports it: `require` for a
// CommonJS package, `import` for an ES module.
export async function load(name) {
  const dir = args["node-modules"];
  if (!dir || !fs.existsSync(path.join(dir, name, "package.json"))) {
    exitWithout(
      `no ${name} under ${dir} (the build installs tests/e2e/node/package-lock.json with npm ci)`,
    );
  }
  const require = createRequire(path.resolve(dir, "_"));
  const { type } = JSON.parse(fs.readFileSync(path.join(dir, name, "package.json"), "utf8"));
  return type === "module" ? import(pathToFileURL(require.resolve(name)).href) : require(name);
}

export const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ty-node-clients-"));

// One `trainyard serve` on a free port with replicas on the host; its log kept for a failure.
export async function startServer(extra = []) {
  const data = path.join(tmp, "data");
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

const results = [];

// Runs one check, printing its outcome; later checks run whatever this one did.
export async function check(name, body) {
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

// Prints the counts (and the server's log after a failure) and exits 1 on any failure or when
// nothing passed; the temporary directory stays for a failure's study.
export function finish(server) {
  const failed = results.filter(([, error]) => error);
  if (failed.length && server) console.log("server log:\n" + server.log());
  console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
  if (!failed.length) fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(failed.length || !results.length ? 1 : 0);
}
