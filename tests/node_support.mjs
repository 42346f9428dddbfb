// What the Node.js tests (tests/mcp, tests/peers) share: a bound on every step, and the lines a
// child process prints, waited for.
import { createInterface } from "node:readline";

export const kStepTimeoutMs = 20000;

// Rejects after ms so that no step can hang the test.
export function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Lines a child prints on stdout, with a way to wait for one that matches.
export class LineWatcher {
  constructor(stream) {
    this.lines = [];
    this.waiters = [];
    createInterface({ input: stream }).on("line", (line) => {
      this.lines.push(line);
      this.waiters = this.waiters.filter(({ test, resolve }) => {
        if (!test(line)) return true;
        resolve(line);
        return false;
      });
    });
  }
  wait(test, what) {
    const seen = this.lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return within(new Promise((resolve) => this.waiters.push({ test, resolve })), kStepTimeoutMs, what);
  }
}
