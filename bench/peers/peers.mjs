// The peers users would pick instead of adbwire, timed on the device peers_bench set up:
// @devicefarmer/adbkit and @yume-chan/adb (Tango), both through the adb server (neither
// speaks to a device without one from Node.js).
//
// Usage: node peers.mjs SERVER_PORT SERIAL N REMOTE_FILE BYTES LOCAL_DIR
// Prints one line per peer: "NAME shell_ms=MEDIAN pull_mb_s=RATE", medians over N
// `shell true` commands after 10 warm-up ones, and the median of 3 pulls of REMOTE_FILE to
// LOCAL_DIR/NAME.bin (written to disk, as adb pull and adbwire pull do; the size is checked).
import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { performance } from "node:perf_hooks";
import adbkitModule from "@devicefarmer/adbkit";
import { AdbServerClient } from "@yume-chan/adb";
import { AdbServerNodeTcpConnector } from "@yume-chan/adb-server-node-tcp";

const [port, serial, n, remoteFile, bytes, localDir] = process.argv.slice(2);
if (!localDir) {
  console.error("usage: node peers.mjs SERVER_PORT SERIAL N REMOTE_FILE BYTES LOCAL_DIR");
  process.exit(2);
}
// adbkit is CommonJS compiled from TypeScript: its Adb class sits under default.Adb.
const Adbkit = adbkitModule.Adb;
const count = Number(n);
const expected = Number(bytes);

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function timeEach(times, op) {
  const samples = [];
  for (let i = 0; i < times; ++i) {
    const start = performance.now();
    await op();
    samples.push(performance.now() - start);
  }
  return samples;
}

async function measure(name, shellTrue, pull) {
  await timeEach(10, shellTrue);
  const shellMs = median(await timeEach(count, shellTrue));
  const local = path.join(localDir, `${name}.bin`);
  const pullMs = [];
  for (let i = 0; i < 3; ++i) {
    const start = performance.now();
    await pull(local);
    pullMs.push(performance.now() - start);
    const got = fs.statSync(local).size;
    fs.rmSync(local);
    if (got !== expected) throw new Error(`${name}: pulled ${got} bytes of ${expected}`);
  }
  const seconds = median(pullMs) / 1000;
  console.log(`${name} shell_ms=${shellMs.toFixed(3)} pull_mb_s=${(expected / 1e6 / seconds).toFixed(1)}`);
}

async function adbkit() {
  const client = Adbkit.createClient({ host: "127.0.0.1", port: Number(port) });
  const device = client.getDevice(serial);
  await measure(
    "adbkit",
    async () => {
      await Adbkit.util.readAll(await device.shell("true"));
    },
    async (local) => {
      await pipeline(await device.pull(remoteFile), fs.createWriteStream(local));
    },
  );
}

async function tango() {
  const client = new AdbServerClient(new AdbServerNodeTcpConnector({ host: "127.0.0.1", port: Number(port) }));
  const adb = await client.createAdb({ serial });
  await measure(
    "ya-webadb",
    async () => {
      const result = await adb.subprocess.shellProtocol.spawnWaitText("true");
      if (result.exitCode !== 0) throw new Error(`ya-webadb: shell true exited ${result.exitCode}`);
    },
    async (local) => {
      const sync = await adb.sync();
      try {
        await sync.read(remoteFile).pipeTo(Writable.toWeb(fs.createWriteStream(local)));
      } finally {
        await sync.dispose();
      }
    },
  );
  await adb.close();
}

try {
  await adbkit();
  await tango();
} catch (error) {
  console.error(`peers: ${error.stack ?? error}`);
  process.exit(1);
}
process.exit(0);
