import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/adapters/db/client";
import { SettingsValidationError, type RuntimeSettings } from "@/core/ports/settings";
import { effectSetting } from "@/core/schema";
import { InProcessSettingsChannel } from "./channel";
import { DbSettings } from "./db-settings";

const defaults: RuntimeSettings = {
  effects: { "pixel-illustration": { enabled: true }, "3d-finger": { enabled: true } },
};

describe("database-backed runtime settings", () => {
  // One in-memory database for the file (PGlite takes seconds to start); emptied per test.
  let shared: DatabaseHandle;
  beforeAll(async () => {
    shared = await openDatabase({ dataDir: "memory://" });
  });
  afterAll(async () => {
    await shared?.close();
  });
  beforeEach(async () => {
    await shared.db.delete(effectSetting);
  });
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const o of open.splice(0).reverse()) await o.close();
  });

  async function setup(): Promise<{ database: DatabaseHandle; channel: InProcessSettingsChannel }> {
    const channel = new InProcessSettingsChannel();
    open.push(channel);
    return { database: shared, channel };
  }

  async function settingsOn(database: DatabaseHandle, channel: InProcessSettingsChannel) {
    const s = await DbSettings.open({ db: database.db, channel, defaults });
    open.push(s);
    return s;
  }

  it("starts from the env's defaults: every effect on, no engine chosen", async () => {
    const { database, channel } = await setup();
    const s = await settingsOn(database, channel);
    expect(s.current()).toEqual(defaults);
  });

  it("serves current() from its cache, and an update changes the cache and the table", async () => {
    const { database, channel } = await setup();
    const s = await settingsOn(database, channel);
    const before = s.current();
    expect(s.current()).toBe(before); // the same snapshot, no read

    const after = await s.update({ effects: { "3d-finger": { enabled: false, engine: "fal" } } }, "admin-1");
    expect(after.effects["3d-finger"]).toEqual({ enabled: false, engine: "fal" });
    expect(s.current()).toBe(after);
    expect(Object.isFrozen(after.effects["3d-finger"])).toBe(true);
    const rows = await database.db.select().from(effectSetting);
    expect(rows).toMatchObject([
      { effectId: "3d-finger", enabled: false, engine: "fal", updatedBy: "admin-1" },
    ]);

    // A field left out keeps its value; engine null goes back to the env's choice.
    await s.update({ effects: { "3d-finger": { engine: null } } }, "admin-2");
    expect(s.current().effects["3d-finger"]).toEqual({ enabled: false });
    await s.update({ effects: { "3d-finger": { enabled: true } } }, "admin-2");
    expect(s.current().effects["3d-finger"]).toEqual({ enabled: true });

    // The cache answers without the database.
    await s.update({ effects: { "pixel-illustration": { enabled: false } } }, "admin-2");
    const reads = vi.spyOn(database.db, "select");
    for (let i = 0; i < 100; i++)
      expect(s.current().effects["pixel-illustration"]).toEqual({ enabled: false });
    expect(reads).not.toHaveBeenCalled();
  });

  it("loads stored settings at start", async () => {
    const { database, channel } = await setup();
    const first = await settingsOn(database, channel);
    await first.update({ effects: { "pixel-illustration": { enabled: false } } }, "admin");
    const second = await settingsOn(database, new InProcessSettingsChannel());
    expect(second.current().effects["pixel-illustration"]).toEqual({ enabled: false });
  });

  it("notifies subscribers of its own changes and of changes signalled by another instance", async () => {
    const { database, channel } = await setup();
    const a = await settingsOn(database, channel);
    const b = await settingsOn(database, channel);
    const seenA: RuntimeSettings[] = [];
    const seenB: RuntimeSettings[] = [];
    a.subscribe((s) => seenA.push(s));
    const unsubscribe = b.subscribe((s) => seenB.push(s));

    await a.update({ effects: { "3d-finger": { enabled: false } } }, "admin");
    expect(seenA.map((s) => s.effects["3d-finger"]!.enabled)).toEqual([false]);
    await expect.poll(() => b.current().effects["3d-finger"]!.enabled).toBe(false);
    expect(seenB).toHaveLength(1);

    // No change, no notification; an unsubscribed listener hears nothing more.
    await a.update({ effects: { "3d-finger": { enabled: false } } }, "admin");
    unsubscribe();
    await a.update({ effects: { "3d-finger": { enabled: true } } }, "admin");
    await expect.poll(() => b.current().effects["3d-finger"]!.enabled).toBe(true);
    expect(seenA).toHaveLength(2);
    expect(seenB).toHaveLength(1);
  });

  it("refuses an unknown effect or a malformed engine id, changing nothing", async () => {
    const { database, channel } = await setup();
    const s = await settingsOn(database, channel);
    await expect(s.update({ effects: { nope: { enabled: false } } }, "admin")).rejects.toThrow(
      SettingsValidationError,
    );
    await expect(s.update({ effects: { "3d-finger": { engine: "Not An Id" } } }, "admin")).rejects.toThrow(
      SettingsValidationError,
    );
    expect(s.current()).toEqual(defaults);
    expect(await database.db.select().from(effectSetting)).toEqual([]);
  });
});
