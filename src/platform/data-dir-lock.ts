import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * One server per DATA_DIR. The embedded database (PGlite) and the stored files are this
 * process's alone: a second process on the same folder used to crash PGlite mid-start, or
 * worse. The lock is a file in DATA_DIR created exclusively (O_EXCL) and held for the
 * process's life, holding the owner's pid, the pid's start time and the host name:
 *
 * - the owner is alive: the second process refuses to start (DataDirLockedError);
 * - the owner is gone (killed, crashed, power cut): its lock is stale and is taken over at
 *   once, no waiting. A pid reused by another program is told apart by its start time
 *   (Linux), and a lock naming this very pid is ours from an earlier life (a container
 *   restarted with the same pid).
 *
 * A lock written on another host (a shared volume, or a container recreated with a new
 * host name) cannot be checked; it is taken over with a warning, since the usual cause is
 * a container that no longer exists.
 */

export const LOCK_FILE = "photofx.lock";

interface LockRecord {
  pid: number;
  /** The pid's start time in clock ticks since boot (/proc/<pid>/stat), when known. */
  startTime: string | null;
  hostname: string;
  startedAt: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockRecord,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another photofx process (pid ${holder.pid}, started ${holder.startedAt}). ` +
        `Only one server may use a data folder: stop that process, or give this one another DATA_DIR.`,
    );
    this.name = "DataDirLockedError";
  }
}

export interface DataDirLock {
  path: string;
  /** Removes the lock file if it is still ours (idempotent). */
  release(): void;
}

/** A process's start time from /proc (Linux), or null where there is none. */
function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22; the command name (field 2) is in parentheses and may contain spaces.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return rest[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readRecord(file: string): LockRecord | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  try {
    const r = JSON.parse(text) as Partial<LockRecord>;
    if (typeof r.pid === "number" && Number.isInteger(r.pid) && r.pid > 0) {
      return {
        pid: r.pid,
        startTime: typeof r.startTime === "string" ? r.startTime : null,
        hostname: typeof r.hostname === "string" ? r.hostname : "",
        startedAt: typeof r.startedAt === "string" ? r.startedAt : "an unknown time",
      };
    }
  } catch {
    // Unreadable (a crash while writing it): no live owner can be named, so it is stale.
  }
  return { pid: 0, startTime: null, hostname: "", startedAt: "" };
}

/** Whether the process a lock names is still running (and is the one that wrote it). */
function holderAlive(r: LockRecord): boolean {
  if (r.pid <= 0 || r.pid === process.pid) return false;
  if (r.hostname && r.hostname !== os.hostname()) return false;
  if (!isAlive(r.pid)) return false;
  if (r.startTime) {
    const now = processStartTime(r.pid);
    if (now !== null && now !== r.startTime) return false; // the pid now belongs to another program
  }
  return true;
}

/**
 * Takes DATA_DIR's lock for this process's life (it is released on exit, however the process
 * ends short of SIGKILL; after a SIGKILL the next start takes the stale lock over). Throws
 * DataDirLockedError when a live process holds it.
 */
export function lockDataDir(
  dataDir: string,
  opts: { onStaleLock?: (holder: LockRecord) => void } = {},
): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const mine: LockRecord = {
    pid: process.pid,
    startTime: processStartTime(process.pid),
    hostname: os.hostname(),
    startedAt: new Date().toISOString(),
  };
  const text = JSON.stringify(mine);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = fs.openSync(file, "wx", 0o644);
      try {
        fs.writeFileSync(fd, text);
      } finally {
        fs.closeSync(fd);
      }
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(file, "utf8") === text) fs.unlinkSync(file);
        } catch {
          // Already gone.
        }
      };
      process.once("exit", release);
      return {
        path: file,
        release() {
          process.removeListener("exit", release);
          release();
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = readRecord(file);
    if (!holder) continue; // released between our two calls: try again
    if (holderAlive(holder)) throw new DataDirLockedError(dataDir, holder);
    // Stale. Move it aside under a name of our own (atomic), and check that what we moved is
    // the stale lock we read, not a fresh one another starting process wrote meanwhile.
    const aside = `${file}.stale-${process.pid}-${attempt}`;
    try {
      fs.renameSync(file, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw err;
    }
    const moved = readRecord(aside);
    if (moved && holderAlive(moved)) {
      // A live process's fresh lock: put it back (unless yet another one got in) and refuse.
      try {
        fs.linkSync(aside, file);
      } catch {
        // Someone else's lock is in place now; the retry reads it.
      }
      fs.rmSync(aside, { force: true });
      throw new DataDirLockedError(dataDir, moved);
    }
    fs.rmSync(aside, { force: true });
    opts.onStaleLock?.(holder);
  }
  throw new Error(`Could not take the lock ${file}: other processes keep replacing it.`);
}
