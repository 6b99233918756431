import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { ObjectStorage } from "@/core/ports/storage";

const KEY_PATTERN = /^[a-z0-9][a-z0-9/._-]{0,200}$/i;

/**
 * Local-disk storage under `${dataDir}/objects`, outside any folder a web server serves.
 * Writes go to a temporary file first and are renamed into place, so a crash never leaves
 * a half-written object under its real key.
 */
export class LocalDiskStorage implements ObjectStorage {
  readonly kind = "local" as const;
  private readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, "objects");
  }

  private pathFor(key: string): string {
    if (!KEY_PATTERN.test(key) || key.includes("..")) throw new Error(`Invalid storage key: ${key}`);
    return path.join(this.root, key);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.pathFor(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    await fs.writeFile(tmp, bytes, { mode: 0o600 });
    await fs.rename(tmp, file);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.pathFor(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathFor(key), { force: true });
  }

  async ping(): Promise<void> {
    await fs.mkdir(this.root, { recursive: true });
    await fs.access(this.root);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fs.access(this.pathFor(key));
      return true;
    } catch {
      return false;
    }
  }
}
