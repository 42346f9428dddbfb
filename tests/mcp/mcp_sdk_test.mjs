// Drives `adbwire mcp` with the official MCP TypeScript SDK client against the virtual device
// (`adbwire vdevice` with the demo screens, in its own process): initialize, tools/list,
// snapshot, find, tap by ref (the device prints the tap it got), screenshot as an image block,
// tool errors an agent can act on, malformed JSON-RPC that gets an error while the server
// lives on, and every tool of tools/list called once. Run by ctest (tests/mcp/CMakeLists.txt) with ADBWIRE_CLI set; the SDK comes from
// `npm ci` in this folder, which scripts/setup runs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { kStepTimeoutMs, LineWatcher, within } from "../node_support.mjs";

const here = dirname(fileURLToPath(import.meta.url));
if (!existsSync(join(here, "node_modules", "@modelcontextprotocol", "sdk"))) {
  throw new Error(
    "the MCP TypeScript SDK is missing: run scripts/setup, or `npm ci` in tests/mcp");
}
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");

const adbwire = process.env.ADBWIRE_CLI;
if (!adbwire) throw new Error("ADBWIRE_CLI must name the adbwire binary (ctest sets it)");
const screens = join(here, "..", "..", "src", "vdevice", "screens", "demo");

let home;
let device;
let deviceOutput;
let target;
let client;

before(async () => {
  home = mkdtempSync(join(tmpdir(), "adbwire-mcp-test-"));
  device = spawn(adbwire, ["vdevice", "--port", "0", "--screens", screens, "--print-events"], {
    env: { ...process.env, HOME: home },
    stdio: ["ignore", "pipe", "inherit"],
  });
  deviceOutput = new LineWatcher(device.stdout);
  const listening = await deviceOutput.wait((l) => l.startsWith("adbwire vdevice listening on "),
                                            "the virtual device's start");
  target = listening.slice("adbwire vdevice listening on ".length);

  const transport = new StdioClientTransport({
    command: adbwire,
    args: ["mcp", target],
    env: { ...process.env, HOME: home },
    stderr: "pipe",
  });
  client = new Client({ name: "adbwire-sdk-test", version: "1.0.0" });
  await within(client.connect(transport), kStepTimeoutMs, "initialize");
});

after(async () => {
  if (client) await client.close();
  if (device) device.kill("SIGTERM");
  if (home) rmSync(home, { recursive: true, force: true });
});

// The text of a tool result's text blocks.
function textOf(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

test("initialize negotiates a version and names the server", () => {
  const info = client.getServerVersion();
  assert.equal(info.name, "adbwire");
  assert.ok(client.getServerCapabilities().tools, "the server offers tools");
  assert.match(client.getInstructions() ?? "", /snapshot/);
});

test("tools/list describes every tool with a schema; shell only when allowed", async () => {
  const { tools } = await within(client.listTools(), kStepTimeoutMs, "tools/list");
  const names = tools.map((t) => t.name);
  for (const name of ["devices", "connect", "snapshot", "tap", "type", "press", "scroll", "swipe",
                      "long_press", "launch", "back", "home", "screenshot", "wait", "find", "webviews"]) {
    assert.ok(names.includes(name), `tools/list has ${name}`);
  }
  assert.ok(!names.includes("shell"), "shell is off without --allow-shell");
  for (const tool of tools) {
    assert.match(tool.name, /^[a-z_]+$/);
    assert.equal(tool.inputSchema.type, "object", `${tool.name} has an object schema`);
    assert.ok(tool.description.length > 20, `${tool.name} has a description`);
    // Every tool that acts on one device may name it; devices and connect act on none.
    if (!["devices", "connect"].includes(tool.name)) {
      assert.ok(tool.inputSchema.properties.device, `${tool.name} takes a device`);
    }
  }
  const snapshot = tools.find((t) => t.name === "snapshot");
  assert.equal(snapshot.annotations.readOnlyHint, true);
});

test("snapshot, find, then tap by ref reaches the device at the element's centre", async () => {
  const snapshot = await within(client.callTool({ name: "snapshot", arguments: {} }), kStepTimeoutMs, "snapshot");
  assert.ok(!snapshot.isError, textOf(snapshot));
  assert.match(textOf(snapshot), /Button \[ref=\d+\] "Add item"/);

  const found = await within(client.callTool({ name: "find", arguments: { text: "Add item" } }),
                             kStepTimeoutMs, "find");
  assert.ok(!found.isError, textOf(found));
  const ref = Number(/\[ref=(\d+)\]/.exec(textOf(found))?.[1]);
  const centre = /(\d+),\s*(\d+)/.exec(textOf(found).split("\n").find((l) => l.includes("ref=")) ?? "");
  assert.ok(ref > 0 && centre, `find names a ref and a centre: ${textOf(found)}`);

  const tapped = await within(client.callTool({ name: "tap", arguments: { ref } }), kStepTimeoutMs, "tap");
  assert.ok(!tapped.isError, textOf(tapped));
  await deviceOutput.wait((l) => l === `event: input tap ${centre[1]} ${centre[2]}`,
                          `the device's log of input tap ${centre[1]} ${centre[2]}`);

  // The demo app moved to its "add item" screen.
  const after = await within(client.callTool({ name: "snapshot", arguments: {} }), kStepTimeoutMs, "snapshot");
  assert.match(textOf(after), /"Save"/);
  const back = await within(client.callTool({ name: "back", arguments: {} }), kStepTimeoutMs, "back");
  assert.ok(!back.isError, textOf(back));
  await deviceOutput.wait((l) => l === "event: input keyevent 4", "the device's log of the back key");
});

test("screenshot returns a PNG image block within the size caps", async () => {
  const result = await within(client.callTool({ name: "screenshot", arguments: {} }), kStepTimeoutMs, "screenshot");
  assert.ok(!result.isError, textOf(result));
  const image = result.content.find((c) => c.type === "image");
  assert.ok(image, "an image block");
  assert.equal(image.mimeType, "image/png");
  const bytes = Buffer.from(image.data, "base64");
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  assert.ok(width > 0 && height > 0 && Math.max(width, height) <= 2000, `${width}x${height}`);
  assert.ok(image.data.length <= 1024 * 1024, `base64 ${image.data.length} bytes`);

  const jpeg = await within(client.callTool({ name: "screenshot", arguments: { format: "jpeg", max_side: 800 } }),
                            kStepTimeoutMs, "jpeg screenshot");
  const jpegImage = jpeg.content.find((c) => c.type === "image");
  assert.equal(jpegImage.mimeType, "image/jpeg");
  assert.deepEqual([...Buffer.from(jpegImage.data, "base64").subarray(0, 3)], [0xff, 0xd8, 0xff]);
});

test("a ref that does not exist is a tool error that says what to do", async () => {
  await client.callTool({ name: "snapshot", arguments: {} });
  const result = await within(client.callTool({ name: "tap", arguments: { ref: 999 } }), kStepTimeoutMs, "tap 999");
  assert.equal(result.isError, true);
  assert.match(textOf(result), /snapshot/i);
});

test("an unknown tool is a JSON-RPC error and the server lives on", async () => {
  await assert.rejects(within(client.callTool({ name: "no_such_tool", arguments: {} }), kStepTimeoutMs, "call"),
                       (error) => /no_such_tool/.test(String(error.message)));
  await within(client.ping(), kStepTimeoutMs, "ping after the error");
});

test("malformed JSON-RPC gets an error reply and the server answers the next request", async () => {
  const raw = spawn(adbwire, ["mcp", target], { env: { ...process.env, HOME: home }, stdio: ["pipe", "pipe", "ignore"] });
  const replies = new LineWatcher(raw.stdout);
  raw.stdin.write("{this is not json\n");
  raw.stdin.write('{"jsonrpc":"2.0","id":7}\n');
  raw.stdin.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
  const parse = JSON.parse(await replies.wait((l) => l.includes("-32700"), "the parse error"));
  assert.equal(parse.error.code, -32700);
  assert.equal(parse.id, null);
  const invalid = JSON.parse(await replies.wait((l) => l.includes('"id":7'), "the invalid request error"));
  assert.equal(invalid.error.code, -32600);
  const pong = JSON.parse(await replies.wait((l) => l.includes('"id":8'), "the ping reply"));
  assert.deepEqual(pong.result, {});
  raw.stdin.end();
  const code = await within(new Promise((resolve) => raw.on("exit", resolve)), kStepTimeoutMs, "exit on EOF");
  assert.equal(code, 0);
  // Nothing but JSON-RPC on stdout: any other line would break every MCP client.
  for (const line of replies.lines) assert.equal(JSON.parse(line).jsonrpc, "2.0", line);
});

// A ZIP archive of one entry stored uncompressed (so the virtual device reads its text), with the
// CRC-32 ZIP requires: the smallest file the install tool takes for an APK.
function storedZip(name, text) {
  const data = Buffer.from(text);
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; ++k) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  crc = (crc ^ 0xffffffff) >>> 0;
  const fileName = Buffer.from(name);
  // The fields both headers share, from "version needed" on, at `at`.
  const shared = (header, at) => {
    header.writeUInt16LE(20, at);
    header.writeUInt16LE(0x21, at + 8);  // 1980-01-01
    header.writeUInt32LE(crc, at + 10);
    header.writeUInt32LE(data.length, at + 14);
    header.writeUInt32LE(data.length, at + 18);
    header.writeUInt16LE(fileName.length, at + 22);
  };
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  shared(local, 4);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);  // made by
  shared(central, 6);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(local.length + fileName.length + data.length, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}

// Resolves once `line` is among the watcher's lines from index `from` on (the device prints an
// event before it answers, but its pipe may lag behind the answer).
async function seenSince(watcher, from, line, what) {
  const deadline = Date.now() + kStepTimeoutMs;
  while (!watcher.lines.slice(from).includes(line)) {
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${kStepTimeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// Every tool the server lists, called once through the SDK in the order an agent would use them
// on the demo app, checked by its reply and, where the device runs something, by the device's
// log. A tool without a case here fails the test, so a verb added to the table gets one.
test("every tool runs against the device (shell allowed, the dumper on for the clipboard)", async () => {
  // install sends only an APK (a ZIP holding AndroidManifest.xml) from a folder the server allows.
  const apks = join(home, "apks");
  mkdirSync(apks, { recursive: true });
  const apk = join(apks, "app.apk");
  writeFileSync(apk, storedZip("AndroidManifest.xml",
                               "package=com.example.app versionCode=3 (the virtual device reads these)"));
  const transport = new StdioClientTransport({
    command: adbwire,
    args: ["mcp", "--allow-shell", "--helper", "on", "--allow-install-from", apks, "--observe",
           target],
    env: { ...process.env, HOME: home },
    stderr: "pipe",
  });
  const agent = new Client({ name: "adbwire-sdk-every-tool", version: "1.0.0" });
  await within(agent.connect(transport), kStepTimeoutMs, "initialize");
  try {
    const cases = [
      ["snapshot", {}, /Button \[ref=5\] "Add item"/],
      ["find", { text: "Groceries" }, /1 match/],
      ["wait", { text: "Groceries", timeout_ms: 5000 }, /is there/],
      ["screenshot", {}, /Screenshot \d+x\d+ PNG/],
      ["page_source", {}, /page-source-\d+\.xml/],
      ["record_start", { time_limit_s: 30 }, /Recording the screen/],
      ["record_stop", {}, /Saved the screen recording .* to \/\S+\.mp4/],
      ["webviews", {}, /debuggable/i],
      ["long_press", { ref: 5 }, /Long-pressed ref 5/,
       "dumper touch 1 finger 1000 ms: 540,2227 -> 540,2227"],
      ["scroll", { ref: 1, direction: "down" }, /croll/],
      ["tap", { text: "Add item" }, /Add item/, "dumper touch 1 finger 0 ms: 540,2227 -> 540,2227"],
      ["type", { id: "name", text: "pears" }, /pears/],
      ["back", {}, /Pressed back/, "input keyevent 4"],
      ["swipe", { from_x: 100, from_y: 800, to_x: 100, to_y: 200 }, /wipe/,
       "dumper touch 1 finger 300 ms: 100,800 -> 100,200"],
      ["pinch", { scale: 0.5, x: 540, y: 1200 }, /zoom out/,
       "dumper touch 2 fingers 300 ms: 108,1200 -> 324,1200; 972,1200 -> 756,1200"],
      ["gesture", { fingers: "100,900 100,300; 300,900 300,300", duration_ms: 200 }, /2-finger gesture/,
       "dumper touch 2 fingers 200 ms: 100,900 -> 100,300; 300,900 -> 300,300"],
      ["drag", { from_x: 100, from_y: 800, to_x: 300, to_y: 900 }, /rag/],
      ["press", { key: "66" }, /Pressed 66/, "input keyevent 66"],
      ["click_area", { x1: 100, y1: 200, x2: 300, y2: 400 }, /centre of the area/,
       "dumper touch 1 finger 0 ms: 200,300 -> 200,300"],
      ["record_trajectory_start", { path: join(apks, "run") },
       /Recording a trajectory to \/\S+\/run\/trajectory\.jsonl/],
      ["home", {}, /Pressed home/, "input keyevent 3"],
      ["record_trajectory_stop", {}, /Saved the trajectory \(1 step\)/],
      ["replay_trajectory", { file: join(apks, "run", "trajectory.jsonl") }, /Replayed 1 action/,
       "input keyevent 3"],
      ["recent", {}, /recent apps/, "input keyevent 187"],
      ["launch", { package: "com.example.adbwire.demo" }, /Launched/,
       "monkey -p com.example.adbwire.demo -c android.intent.category.LAUNCHER 1"],
      ["stop", { package: "com.example.adbwire.demo" }, /Stopped/],
      ["open_url", { url: "https://example.com" }, /Opened https:\/\/example\.com/],
      ["foreground", {}, /com\.example\.adbwire\.demo/],
      ["apps", {}, /com\.example\.adbwire\.demo "adbwire demo"/],
      ["install", { path: apk }, /com\.example\.app|Installed/i],
      ["uninstall", { package: "com.example.app" }, /com\.example\.app/],
      ["push", { path: apk, remote: "/sdcard/Download/" }, /Pushed .*app\.apk to \/sdcard\/Download\/app\.apk \(1 file/],
      ["pull", { remote: "/sdcard/Download/app.apk", path: join(apks, "back.apk") },
       /Pulled \/sdcard\/Download\/app\.apk to .*back\.apk \(1 file/],
      ["notifications", {}, /notification/],
      ["rotate", { orientation: "landscape" }, /Rotated to landscape/],
      ["clipboard_set", { text: "copied text" }, /copied text/],
      ["clipboard_get", {}, /copied text/],
      ["date", {}, /The device's clock/],
      ["setting_put", { key: "screen_off_timeout", value: "60000" }, /60000/],
      ["setting_get", { key: "screen_off_timeout" }, /screen_off_timeout = "60000"/],
      ["logs", {}, /input keyevent 66/],
      ["secrets", {}, /No secrets are configured/],
      ["logs", { follow: true }, /input keyevent 66[\s\S]*cursor: \d+/],
      ["capabilities", {}, /Supported:/],
      ["devices", {}, new RegExp(target.replace(/[.:]/g, "\\$&"))],
      ["connect", { target }, new RegExp("Connected to " + target.replace(/[.:]/g, "\\$&"))],
      ["battery", {}, /Battery: 87%, charging/],
      ["sensors", { filter: "gyro" }, /LSM6DSV Gyroscope \(STMicro\)/],
      ["wifi", { state: "off" }, /Turned Wi-Fi off/, "svc wifi disable"],
      ["data", { state: "off" }, /Turned mobile data off/, "svc data disable"],
      ["airplane", { state: "on" }, /Turned airplane mode on/,
       "cmd connectivity airplane-mode enable"],
      ["camera", {}, /Took a photo: \/sdcard\/DCIM\/Camera\/IMG_/, "input keyevent 27"],
      ["remember", { text: "milk is in aisle 3" }, /Remembered as note/],
      ["recall", { query: "aisle milk" }, /milk is in aisle 3/],
      ["forget", { query: "milk aisle" }, /Forgot/],
      // --observe: the snapshots and actions above fed the cache.
      ["observations", {}, /Screen [0-9a-f]{16}: seen [1-9]\d* times?, last .*; done here/],
      ["shell", { command: "echo from the shell" }, /from the shell/],
    ];
    const { tools } = await within(agent.listTools(), kStepTimeoutMs, "tools/list");
    for (const tool of tools) {
      assert.ok(cases.some(([name]) => name === tool.name), `no case for the tool ${tool.name}`);
    }
    for (const [name, args, expected, event] of cases) {
      const seen = deviceOutput.lines.length;
      const result = await within(agent.callTool({ name, arguments: args }), kStepTimeoutMs, name);
      assert.ok(!result.isError, `${name}: ${textOf(result)}`);
      assert.match(textOf(result), expected, name);
      if (name === "screenshot" || name === "camera")
        assert.ok(result.content.some((c) => c.type === "image"), name);
      if (event) await seenSince(deviceOutput, seen, `event: ${event}`, `${name} ran ${event}`);
    }
    // What pull wrote is what push sent.
    assert.deepEqual(readFileSync(join(apks, "back.apk")), readFileSync(apk));
  } finally {
    await agent.close();
  }
});
