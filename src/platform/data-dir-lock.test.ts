import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DataDirLockedError, LOCK_FILE, lockDataDir } from "./data-dir-lock";

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-lock-"));
  dirs.push(d);
  return d;
}

/** Another live process (a sleeping node), as the holder of a lock. */
async function otherProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  children.push(child);
  await new Promise((resolve) => child.once("spawn", resolve));
  return child;
}

function startTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function writeLock(dir: string, record: Record<string, unknown>): void {
  fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(record));
}

describe("DATA_DIR lock", () => {
  it("takes the lock (creating the folder) and releases it", () => {
    const dir = path.join(tempDir(), "nested", "data");
    const lock = lockDataDir(dir);
    const record = JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), "utf8"));
    expect(record).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    lock.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    // Free again.
    lockDataDir(dir).release();
  });

  it("refuses while another live process holds it, naming the folder and the pid", async () => {
    const dir = tempDir();
    const holder = await otherProcess();
    writeLock(dir, {
      pid: holder.pid,
      startTime: startTime(holder.pid!),
      hostname: os.hostname(),
      startedAt: "2026-01-01T00:00:00.000Z",
    });
    let caught: unknown;
    try {
      lockDataDir(dir);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DataDirLockedError);
    expect((caught as Error).message).toContain(`DATA_DIR ${dir} is in use by another photofx process`);
    expect((caught as Error).message).toContain(`pid ${holder.pid}`);
    // The holder's lock is untouched.
    expect(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), "utf8")).pid).toBe(holder.pid);
  });

  it("takes over the lock of a process that died without releasing it", async () => {
    const dir = tempDir();
    const dead = await otherProcess();
    const pid = dead.pid!;
    const start = startTime(pid);
    dead.kill("SIGKILL");
    await new Promise((resolve) => dead.once("exit", resolve));
    writeLock(dir, { pid, startTime: start, hostname: os.hostname(), startedAt: "earlier" });
    const stale: number[] = [];
    const lock = lockDataDir(dir, { onStaleLock: (h) => stale.push(h.pid) });
    expect(stale).toEqual([pid]);
    expect(JSON.parse(fs.readFileSync(lock.path, "utf8")).pid).toBe(process.pid);
    lock.release();
  });

  it("takes over a lock whose pid now belongs to another program, or that cannot be read", async () => {
    const dir = tempDir();
    const other = await otherProcess();
    if (startTime(other.pid!) !== null) {
      // Same pid, another start time: not the process that wrote the lock.
      writeLock(dir, { pid: other.pid, startTime: "1", hostname: os.hostname(), startedAt: "earlier" });
      lockDataDir(dir).release();
    }
    fs.writeFileSync(path.join(dir, LOCK_FILE), '{"pid": 12');
    lockDataDir(dir).release();
  });
});
