"use client";
import { del, get, set } from "idb-keyval";

/**
 * What a signed-out visitor prepared on an effect page (photos and options), kept in this
 * browser's IndexedDB while they sign up or sign in: a full page navigation, a social
 * sign-in's redirect or a reload all keep it. Nothing is uploaded before sign-in (the API
 * refuses it), and nothing leaves the device: IndexedDB stores the File objects themselves.
 */
export interface EffectDraft {
  v: 1;
  effectId: string;
  savedAt: number;
  files: File[];
  prompt: string;
  edges: Array<"top" | "bottom" | "left" | "right">;
  rightsConfirmed: boolean;
  adultConsent: boolean;
}

/** A draft older than this is dropped, not restored. */
export const DRAFT_TTL_MS = 24 * 60 * 60 * 1000;
/** At most this many photos are kept (the largest plan cap; each is at most 10 MB). */
const MAX_FILES = 10;

const key = (effectId: string) => `photofx:draft:${effectId}`;

/** Stores the draft; false when the browser refuses (private mode, storage full). */
export async function saveDraft(draft: Omit<EffectDraft, "v" | "savedAt">): Promise<boolean> {
  try {
    await set(key(draft.effectId), {
      ...draft,
      files: draft.files.slice(0, MAX_FILES),
      v: 1,
      savedAt: Date.now(),
    } satisfies EffectDraft);
    return true;
  } catch {
    return false;
  }
}

/** The effect's draft if there is a fresh, well-formed one (a stale or broken one is deleted). */
export async function loadDraft(effectId: string, now = Date.now()): Promise<EffectDraft | null> {
  let value: unknown;
  try {
    value = await get(key(effectId));
  } catch {
    return null;
  }
  if (value === undefined) return null;
  const draft = value as Partial<EffectDraft>;
  const ok =
    draft.v === 1 &&
    draft.effectId === effectId &&
    typeof draft.savedAt === "number" &&
    now - draft.savedAt < DRAFT_TTL_MS &&
    Array.isArray(draft.files) &&
    draft.files.every((f) => f instanceof Blob);
  if (!ok) {
    await clearDraft(effectId);
    return null;
  }
  return {
    v: 1,
    effectId,
    savedAt: draft.savedAt!,
    files: draft.files!.slice(0, MAX_FILES),
    prompt: typeof draft.prompt === "string" ? draft.prompt.slice(0, 500) : "",
    edges: Array.isArray(draft.edges)
      ? draft.edges.filter((e): e is EffectDraft["edges"][number] =>
          ["top", "bottom", "left", "right"].includes(e as string),
        )
      : [],
    rightsConfirmed: draft.rightsConfirmed === true,
    adultConsent: draft.adultConsent === true,
  };
}

export async function clearDraft(effectId: string): Promise<void> {
  try {
    await del(key(effectId));
  } catch {
    // Nothing to clear where there is no storage.
  }
}
