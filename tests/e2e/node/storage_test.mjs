// Google's Node.js storage client (@google-cloud/storage 7, from package-lock.json) against a real
// `trainyard serve`, configured as its docs say for an emulator: `apiEndpoint` in the options,
// and `STORAGE_EMULATOR_HOST` in the environment (which trainyard gives every replica). Every
// check asserts what the library returns (bytes, generations, metadata), not only that it did
// not throw: buckets created, listed, read, labelled and deleted; uploads of several sizes in every
// mode the library has (`save` resumable and not, with a `chunkSize`, `createWriteStream`,
// `bucket.upload`); gzip; byte ranges; preconditions, and concurrent saves racing on them;
// metadata; buckets.update; listing with prefix, delimiter,
// pages, matchGlob and offsets; copy, move, compose, delete and `deleteFiles`.
//
// Usage: node storage_test.mjs --trainyard PATH --node-modules DIR (harness.mjs).

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { expectEqual, expectRejects, openSuite } from "./harness.mjs";

const { check, finish, load, startServer, tmp } = openSuite("ty-node-storage-");

const { Storage } = await load("@google-cloud/storage");
const PROJECT = "node-storage";
const server = await startServer();
// As the docs' emulator setup: an endpoint, a project, no credentials (the server has no auth).
const storage = new Storage({ apiEndpoint: server.url, projectId: PROJECT });
process.env.STORAGE_EMULATOR_HOST = server.url;
const viaEnvironment = new Storage({ projectId: PROJECT });
delete process.env.STORAGE_EMULATOR_HOST;

const bucket = storage.bucket("node-main");
const md5 = (bytes) => crypto.createHash("md5").update(bytes).digest("base64");
// Bytes that differ at every offset, so a range or a chunk out of place shows.
const bytesOf = (size, seed = 0) =>
  Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + seed + (i >> 8)) & 0xff));
const download = async (file, options) => (await file.download(options))[0];

// Ends a write stream with `data` and waits for it to finish.
function streamUp(file, data, options) {
  return new Promise((resolve, reject) => {
    const stream = file.createWriteStream(options);
    stream.on("error", reject).on("finish", resolve);
    stream.end(data);
  });
}

try {
  await check(
    "buckets are created, listed and read, through apiEndpoint and the environment",
    async () => {
      const [created] = await storage.createBucket("node-main");
      expectEqual(created.name, "node-main", "created");
      await viaEnvironment.createBucket("node-other");
      const [buckets] = await storage.getBuckets();
      expectEqual(buckets.map((b) => b.name).sort(), ["node-main", "node-other"], "listed");
      const [metadata] = await viaEnvironment.bucket("node-main").getMetadata();
      expectEqual([metadata.name, metadata.kind], ["node-main", "storage#bucket"], "read");
      expectEqual(
        (await storage.bucket("node-none").exists())[0],
        false,
        "a missing bucket exists",
      );
      await expectRejects(storage.createBucket("node-main"), 409, "a second create");
    },
  );

  // Sizes around the library's and the protocol's edges: empty, tiny, past one 256 KiB chunk,
  // two chunks exactly (an empty last chunk with chunkSize), several.
  const sizes = [0, 13, 256 * 1024 + 5, 512 * 1024, 1024 * 1024 + 17];
  const modes = {
    "save (resumable by default)": (file, data) => file.save(data),
    "save resumable: false": (file, data) => file.save(data, { resumable: false }),
    "save chunkSize 256 KiB": (file, data) => file.save(data, { chunkSize: 256 * 1024 }),
    createWriteStream: (file, data) => streamUp(file, data),
    "createWriteStream resumable: false": (file, data) =>
      streamUp(file, data, { resumable: false }),
    "bucket.upload": async (file, data) => {
      const local = path.join(tmp, "upload-" + file.name.replaceAll("/", "_"));
      fs.writeFileSync(local, data);
      await bucket.upload(local, { destination: file.name });
    },
    "bucket.upload resumable: false": async (file, data) => {
      const local = path.join(tmp, "upload-" + file.name.replaceAll("/", "_"));
      fs.writeFileSync(local, data);
      await bucket.upload(local, { destination: file.name, resumable: false });
    },
  };
  for (const [mode, upload] of Object.entries(modes)) {
    await check(`uploads of ${sizes.join(", ")} bytes by ${mode} read back intact`, async () => {
      for (const [i, size] of sizes.entries()) {
        const file = bucket.file(`uploads/${mode.replaceAll(/[^a-zA-Z]+/g, "-")}/${size}`);
        const data = bytesOf(size, i);
        await upload(file, data);
        const [metadata] = await file.getMetadata();
        expectEqual([metadata.size, metadata.md5Hash], [String(size), md5(data)], `${size} bytes`);
        if (!/^[1-9][0-9]*$/.test(metadata.generation))
          throw new Error(`generation ${metadata.generation}`);
        const back = await download(file);
        if (!back.equals(data)) throw new Error(`${size} bytes: the download differs`);
      }
    });
  }

  await check(
    "gzip: save({gzip: true}) stores it compressed and downloads the original",
    async () => {
      const text = "trainyard ".repeat(4400); // 44,000 bytes
      const file = bucket.file("gzip/text.txt");
      await file.save(text, { gzip: true, contentType: "text/plain" });
      const [metadata] = await file.getMetadata();
      expectEqual(
        [metadata.contentEncoding, metadata.contentType],
        ["gzip", "text/plain"],
        "fields",
      );
      if (Number(metadata.size) >= text.length) throw new Error(`stored ${metadata.size} bytes`);
      expectEqual((await download(file)).toString(), text, "the decompressed download");
      const stored = await download(file, { decompress: false });
      expectEqual(zlib.gunzipSync(stored).toString(), text, "the stored bytes, gunzipped");
      // Compressed by the caller, declared with contentEncoding.
      const own = bucket.file("gzip/own.txt");
      await own.save(zlib.gzipSync("x".repeat(5000)), { metadata: { contentEncoding: "gzip" } });
      expectEqual((await download(own)).toString(), "x".repeat(5000), "a declared gzip object");
    },
  );

  await check("downloads of byte ranges return exactly those bytes", async () => {
    const data = bytesOf(300_000, 3);
    const file = bucket.file("ranges/data.bin");
    await file.save(data, { resumable: false });
    for (const [start, end] of [
      [0, 0],
      [10, 19],
      [262_143, 262_150],
      [299_990, 299_999],
    ]) {
      const got = await download(file, { start, end });
      if (!got.equals(data.subarray(start, end + 1))) throw new Error(`bytes ${start}-${end}`);
    }
    let tail = Buffer.alloc(0);
    for await (const chunk of file.createReadStream({ start: 299_000 }))
      tail = Buffer.concat([tail, chunk]);
    if (!tail.equals(data.subarray(299_000))) throw new Error("the stream from byte 299000");
  });

  await check(
    "preconditions: ifGenerationMatch 0 writes only once (412 after), in both upload modes",
    async () => {
      const file = bucket.file("preconditions/once");
      const onlyIfAbsent = { preconditionOpts: { ifGenerationMatch: 0 } };
      await file.save("first", onlyIfAbsent);
      const [first] = await file.getMetadata();
      await expectRejects(file.save("second", onlyIfAbsent), 412, "a resumable second write");
      await expectRejects(
        file.save("second", { ...onlyIfAbsent, resumable: false }),
        412,
        "a multipart second write",
      );
      expectEqual((await download(file)).toString(), "first", "the content");
      // The current generation matches: the write goes ahead, with a new generation.
      await file.save("third", {
        resumable: false,
        preconditionOpts: { ifGenerationMatch: first.generation },
      });
      const [third] = await file.getMetadata();
      if (BigInt(third.generation) <= BigInt(first.generation)) throw new Error("same generation");
      expectEqual((await download(file)).toString(), "third", "the rewritten content");
      await expectRejects(
        file.delete({ ifGenerationMatch: first.generation }),
        412,
        "a stale delete",
      );
      await expectRejects(
        file.setMetadata({ contentType: "text/x" }, { ifMetagenerationMatch: 7 }),
        412,
        "a stale metadata change",
      );
      expectEqual((await file.exists())[0], true, "after the refusals");
    },
  );

  await check(
    "preconditions race: of 12 concurrent saves with ifGenerationMatch 0, exactly one writes",
    async () => {
      // Each mode: resumable sessions all start while the object is absent, so the condition
      // must be evaluated again when they finish; multipart requests race in one request each.
      for (const resumable of [true, false]) {
        const file = bucket.file(`preconditions/race-${resumable}`);
        const writers = Array.from({ length: 12 }, (_, i) => `writer ${i}`);
        const results = await Promise.allSettled(
          writers.map((data) =>
            file.save(data, { resumable, preconditionOpts: { ifGenerationMatch: 0 } }),
          ),
        );
        const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [writers[i]] : []));
        const codes = results.flatMap((r) =>
          r.status === "rejected" ? [r.reason.code ?? r.reason.response?.status] : [],
        );
        expectEqual(won.length, 1, `writers that wrote (resumable: ${resumable})`);
        expectEqual(codes, Array(11).fill(412), `the others' codes (resumable: ${resumable})`);
        expectEqual((await download(file)).toString(), won[0], "the content is the winner's");
      }
    },
  );

  await check(
    "buckets.update (PUT through the library's request): replaces the writable fields",
    async () => {
      const updated = storage.bucket("node-updated");
      await storage.createBucket("node-updated", { labels: { made: "here" } });
      // Created with labels (metageneration 2), then a website (3).
      await updated.setMetadata({ website: { mainPageSuffix: "index.html" } });
      const cors = [{ maxAgeSeconds: 60, method: ["GET"], origin: ["*"] }];  // served sorted
      // No library method sends PUT for a bucket; its own request does, as the JSON API says.
      const [replaced] = await updated.request({
        method: "PUT",
        uri: "",
        qs: { ifMetagenerationMatch: 3 },
        json: { cors, labels: { team: "ml" } },
      });
      expectEqual(replaced.cors, cors, "cors kept");
      expectEqual(replaced.labels, { team: "ml" }, "labels replaced, not merged");
      expectEqual(replaced.website, undefined, "website reset");
      expectEqual(replaced.metageneration, "4", "the metageneration");
      const [read] = await updated.getMetadata();
      expectEqual([read.cors, read.labels], [cors, { team: "ml" }], "read afresh");
      await expectRejects(
        updated.request({ method: "PUT", uri: "", qs: { ifMetagenerationMatch: 3 }, json: {} }),
        412,
        "a stale update",
      );
      await expectRejects(
        updated.setMetadata({ versioning: { enabled: true } }),
        400,
        "versioning, which trainyard does not keep",
      );
      expectEqual((await updated.getMetadata())[0].metageneration, "4", "after the refusals");
      await updated.delete();
    },
  );

  await check(
    "bucket labels: setLabels, setMetadata merging (null removes), getLabels, deleteLabels, " +
      "metageneration preconditions",
    async () => {
      const other = viaEnvironment.bucket("node-other");
      expectEqual((await other.getLabels())[0], {}, "labels of a new bucket");
      await other.setLabels({ team: "ml", env: "dev" });
      expectEqual((await other.getLabels())[0], { env: "dev", team: "ml" }, "after setLabels");
      const [changed] = await other.setMetadata({ labels: { env: null, stage: "raw" } });
      expectEqual(changed.labels, { stage: "raw", team: "ml" }, "setMetadata merges");
      expectEqual(changed.metageneration, "3", "the metageneration after two changes");
      const [read] = await storage.bucket("node-other").getMetadata();
      expectEqual(read.labels, { stage: "raw", team: "ml" }, "read afresh");
      await expectRejects(
        other.setMetadata({ labels: { team: "x" } }, { ifMetagenerationMatch: 2 }),
        412,
        "a stale ifMetagenerationMatch",
      );
      await other.setMetadata({ labels: { team: "cv" } }, { ifMetagenerationMatch: 3 });
      await expectRejects(other.setLabels({ Team: "upper" }), 400, "a key with a capital");
      await other.deleteLabels("stage");
      expectEqual((await other.getLabels())[0], { team: "cv" }, "after deleteLabels(stage)");
      await other.deleteLabels();
      expectEqual((await other.getLabels())[0], {}, "after deleteLabels()");
      const [labelled] = await storage.createBucket("node-labelled", { labels: { made: "here" } });
      expectEqual((await labelled.getLabels())[0], { made: "here" }, "created with labels");
      await labelled.delete();
    },
  );

  await check("metadata: set at upload and by setMetadata, metageneration counting", async () => {
    const file = bucket.file("meta/report.csv");
    await file.save("a,b\n1,2\n", {
      metadata: { contentType: "text/csv", cacheControl: "no-cache", metadata: { run: "7" } },
    });
    const [before] = await file.getMetadata();
    expectEqual(
      [before.contentType, before.cacheControl, before.metadata, before.metageneration],
      ["text/csv", "no-cache", { run: "7" }, "1"],
      "at upload",
    );
    const [after] = await file.setMetadata({
      cacheControl: "public, max-age=60",
      contentDisposition: 'attachment; filename="r.csv"',
      contentLanguage: "en",
      metadata: { owner: "ml", run: null },
    });
    expectEqual(
      [after.cacheControl, after.contentDisposition, after.contentLanguage, after.metadata],
      ["public, max-age=60", 'attachment; filename="r.csv"', "en", { owner: "ml" }],
      "after setMetadata",
    );
    expectEqual([after.generation, after.metageneration], [before.generation, "2"], "versions");
    const [read] = await storage.bucket("node-main").file("meta/report.csv").getMetadata();
    expectEqual(read.contentDisposition, 'attachment; filename="r.csv"', "read afresh");
  });

  await check(
    "listing: prefix and delimiter, pages, matchGlob, startOffset and endOffset",
    async () => {
      const names = [
        "list/a.txt",
        "list/b.bin",
        "list/c.txt",
        "list/d/e.txt",
        "list/d/f.bin",
        "list/g",
      ];
      await Promise.all(names.map((name) => bucket.file(name).save(name, { resumable: false })));
      const [files, , response] = await bucket.getFiles({
        prefix: "list/",
        delimiter: "/",
        autoPaginate: false,
      });
      expectEqual(
        files.map((f) => f.name),
        ["list/a.txt", "list/b.bin", "list/c.txt", "list/g"],
        "files",
      );
      expectEqual(response.prefixes, ["list/d/"], "prefixes");
      // Pages of two, by hand and by the library's own pagination.
      const pages = [];
      let query = { prefix: "list/", maxResults: 2, autoPaginate: false };
      while (query) {
        const [page, next] = await bucket.getFiles(query);
        pages.push(page.map((f) => f.name));
        query = next;
      }
      expectEqual(pages, [names.slice(0, 2), names.slice(2, 4), names.slice(4)], "pages");
      expectEqual(
        (await bucket.getFiles({ prefix: "list/", maxResults: 4 }))[0].length,
        4,
        "maxResults",
      );
      const streamed = [];
      for await (const file of bucket.getFilesStream({ prefix: "list/" })) streamed.push(file.name);
      expectEqual(streamed, names, "getFilesStream");
      const glob = (await bucket.getFiles({ matchGlob: "list/**.txt" }))[0].map((f) => f.name);
      expectEqual(glob, ["list/a.txt", "list/c.txt", "list/d/e.txt"], "matchGlob");
      const offsets = await bucket.getFiles({ startOffset: "list/b", endOffset: "list/d/f" });
      expectEqual(
        offsets[0].map((f) => f.name),
        ["list/b.bin", "list/c.txt", "list/d/e.txt"],
        "offsets",
      );
      await expectRejects(bucket.getFiles({ matchGlob: "list/[a" }), 400, "a malformed glob");
    },
  );

  await check("copy, move, rename and combine keep the bytes", async () => {
    const source = bucket.file("copy/source");
    await source.save("0123456789", { resumable: false });
    const [copied] = await source.copy(storage.bucket("node-other").file("copied"));
    expectEqual((await download(copied)).toString(), "0123456789", "the copy in the other bucket");
    await source.copy("copy/second");
    await bucket.file("copy/second").move("copy/moved");
    expectEqual((await bucket.file("copy/second").exists())[0], false, "the moved source");
    await bucket.file("copy/moved").rename("copy/renamed");
    await bucket.combine(["copy/source", "copy/renamed"], "copy/combined");
    expectEqual(
      (await download(bucket.file("copy/combined"))).toString(),
      "01234567890123456789",
      "combined",
    );
    const [files] = await bucket.getFiles({ prefix: "copy/" });
    expectEqual(
      files.map((f) => f.name),
      ["copy/combined", "copy/renamed", "copy/source"],
      "left",
    );
  });

  await check("delete, deleteFiles by prefix and with force, then the bucket", async () => {
    await bucket.file("copy/source").delete();
    expectEqual((await bucket.file("copy/source").exists())[0], false, "a deleted file");
    await expectRejects(bucket.file("copy/source").delete(), 404, "a second delete");
    await bucket.file("copy/source").delete({ ignoreNotFound: true });
    await bucket.deleteFiles({ prefix: "list/" });
    expectEqual((await bucket.getFiles({ prefix: "list/" }))[0], [], "after deleteFiles by prefix");
    if (!(await bucket.getFiles())[0].length)
      throw new Error("deleteFiles by prefix took everything");
    await expectRejects(bucket.delete(), 409, "deleting a bucket that holds objects");
    await bucket.deleteFiles({ force: true });
    expectEqual((await bucket.getFiles())[0], [], "after deleteFiles({force: true})");
    await bucket.delete();
    expectEqual((await bucket.exists())[0], false, "the deleted bucket");
    await storage.bucket("node-other").deleteFiles({ force: true });
    await storage.bucket("node-other").delete();
    expectEqual((await storage.getBuckets())[0], [], "buckets left");
  });
} finally {
  await server.stop();
}
finish(server);
