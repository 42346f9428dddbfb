// adb's own clients drive a device through `adbwire server --listen`: adbkit
// (Adb.createClient({port}): connect, listDevices, shell) and ya-webadb's server client
// (@yume-chan/adb with @yume-chan/adb-server-node-tcp: devices, a transport, shell, sync), both
// from npm, against the virtual device (`adbwire vdevice`, its own process). Run by ctest (tests/peers/CMakeLists.txt) with ADBWIRE_CLI set; the packages come from
// `npm ci` in bench/peers, which scripts/setup runs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { kStepTimeoutMs, LineWatcher, within } from "../node_support.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const peers = join(here, "..", "..", "bench", "peers");
for (const name of ["@devicefarmer/adbkit", "@yume-chan/adb", "@yume-chan/adb-server-node-tcp"]) {
  if (!existsSync(join(peers, "node_modules", name, "package.json"))) {
    throw new Error(`${name} is missing: run scripts/setup, or \`npm ci\` in bench/peers`);
  }
}
// adbkit is CommonJS (its Adb class under .Adb); ya-webadb's packages are ES modules.
const Adbkit = createRequire(join(peers, "package.json"))("@devicefarmer/adbkit").Adb;
const esm = (name, file) => import(pathToFileURL(join(peers, "node_modules", name, file)).href);
const { AdbServerClient } = await esm("@yume-chan/adb", "esm/index.js");
const { AdbServerNodeTcpConnector } = await esm("@yume-chan/adb-server-node-tcp", "esm/index.js");

const adbwire = process.env.ADBWIRE_CLI;
if (!adbwire) throw new Error("ADBWIRE_CLI must name the adbwire binary (ctest sets it)");
let home;
let device;
let devicePort;
let server;
let serverPort;

before(async () => {
  home = mkdtempSync(join(tmpdir(), "adbwire-peers-test-"));
  const env = { ...process.env, HOME: home, XDG_RUNTIME_DIR: join(home, "run") };
  device = spawn(adbwire, ["vdevice", "--port", "0"], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const deviceOutput = new LineWatcher(device.stdout);
  const listening = await deviceOutput.wait((l) => l.startsWith("adbwire vdevice listening on "),
                                            "the virtual device's start");
  devicePort = Number(/:(\d+)$/.exec(listening)[1]);

  server = spawn(adbwire, ["server", "--listen", "127.0.0.1:0"], {
    env,
    stdio: ["ignore", "inherit", "pipe"],
  });
  const serverOutput = new LineWatcher(server.stderr);
  const line = await serverOutput.wait((l) => /listening on 127\.0\.0\.1:\d+ /.test(l),
                                       "the server's start");
  serverPort = Number(/127\.0\.0\.1:(\d+) /.exec(line)[1]);
});

after(async () => {
  if (server) server.kill("SIGTERM");
  if (device) device.kill("SIGTERM");
  if (home) rmSync(home, { recursive: true, force: true });
});

const serial = () => `127.0.0.1:${devicePort}`;

test("adbkit connects, lists and runs a shell through adbwire's server", async () => {
  const client = Adbkit.createClient({ host: "127.0.0.1", port: serverPort });
  assert.equal(await within(client.version(), kStepTimeoutMs, "version"), 41);
  const connected = await within(client.connect("127.0.0.1", devicePort), kStepTimeoutMs, "connect");
  assert.equal(connected, serial());
  const devices = await within(client.listDevices(), kStepTimeoutMs, "listDevices");
  assert.deepEqual(devices.map((d) => [d.id, d.type]), [[serial(), "device"]]);

  const deviceClient = client.getDevice(serial());
  const output = await within(
    deviceClient.shell("echo adbkit; getprop ro.serialno").then((s) => Adbkit.util.readAll(s)),
    kStepTimeoutMs, "shell");
  assert.equal(output.toString(), "adbkit\nadbwire-vdevice\n");
  const state = await within(deviceClient.getState(), kStepTimeoutMs, "getState");
  assert.equal(state, "device");
});

test("ya-webadb's server client makes a transport and runs the shell protocol and sync", async () => {
  const client = new AdbServerClient(new AdbServerNodeTcpConnector({ host: "127.0.0.1", port: serverPort }));
  const devices = await within(client.getDevices(), kStepTimeoutMs, "getDevices");
  const listed = devices.find((d) => d.serial === serial());
  assert.ok(listed, `devices-l lists ${serial()}: ${devices.map((d) => d.serial).join(", ")}`);
  assert.ok(listed.transportId > 0n, "with a transport id");

  const adb = await within(client.createAdb({ serial: serial() }), kStepTimeoutMs, "createAdb");
  try {
    const result = await within(adb.subprocess.shellProtocol.spawnWaitText("echo tango; exit 3"),
                                kStepTimeoutMs, "shell protocol");
    assert.equal(result.stdout, "tango\n");
    assert.equal(result.exitCode, 3, "the shell protocol's exit status came through");

    const sync = await within(adb.sync(), kStepTimeoutMs, "sync");
    try {
      const content = new TextEncoder().encode("pushed by ya-webadb\n");
      const file = new ReadableStream({
        start(controller) {
          controller.enqueue(content);
          controller.close();
        },
      });
      await within(sync.write({ filename: "/data/local/tmp/tango.txt", file }), kStepTimeoutMs,
                   "sync write");
      const chunks = [];
      await within((async () => {
        for await (const chunk of sync.read("/data/local/tmp/tango.txt")) chunks.push(chunk);
      })(), kStepTimeoutMs, "sync read");
      assert.equal(Buffer.concat(chunks).toString(), "pushed by ya-webadb\n");
    } finally {
      await sync.dispose();
    }
  } finally {
    await adb.close();
  }
});

test("adbkit disconnects the device and the list empties", async () => {
  const client = Adbkit.createClient({ host: "127.0.0.1", port: serverPort });
  await within(client.disconnect("127.0.0.1", devicePort), kStepTimeoutMs, "disconnect");
  const devices = await within(client.listDevices(), kStepTimeoutMs, "listDevices");
  assert.deepEqual(devices, []);
});
