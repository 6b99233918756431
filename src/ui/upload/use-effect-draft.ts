"use client";
import { useCallback, useEffect, useRef } from "react";
import { clearDraft, loadDraft, saveDraft, type EffectDraft } from "./draft-store";

type DraftOptions = Pick<EffectDraft, "prompt" | "edges" | "rightsConfirmed" | "adultConsent">;

/**
 * Keeps a signed-out visitor's photos and options for this effect across sign-up or sign-in
 * (see draft-store.ts). Once the account is known, a saved draft is put back: the options
 * into the form and the photos through `addFiles`, which uploads them when the visitor is now
 * signed in (the draft is then deleted) or keeps them waiting when still signed out. While
 * signed out, every change is saved again; `persist()` saves at once (before navigating away).
 */
export function useEffectDraft({
  effectId,
  status,
  files,
  options,
  addFiles,
  restoreOptions,
}: {
  effectId: string;
  status: "loading" | "signedOut" | "signedIn";
  /** The photos the visitor picked that are not uploaded yet. */
  files: File[];
  options: DraftOptions;
  addFiles(files: File[]): void;
  restoreOptions(options: DraftOptions): void;
}) {
  const restored = useRef(false);
  const latest = useRef({ files, options });
  latest.current = { files, options };
  const addRef = useRef(addFiles);
  addRef.current = addFiles;
  const restoreRef = useRef(restoreOptions);
  restoreRef.current = restoreOptions;

  useEffect(() => {
    if (status === "loading" || restored.current) return;
    let cancelled = false;
    void (async () => {
      const draft = await loadDraft(effectId);
      if (cancelled) return;
      restored.current = true;
      if (!draft) return;
      restoreRef.current({
        prompt: draft.prompt,
        edges: draft.edges,
        rightsConfirmed: draft.rightsConfirmed,
        adultConsent: draft.adultConsent,
      });
      if (draft.files.length) addRef.current(draft.files);
      // Signed in now: the photos are being uploaded, the draft has done its job.
      if (status === "signedIn") await clearDraft(effectId);
    })();
    return () => {
      cancelled = true;
    };
  }, [effectId, status]);

  const persist = useCallback(async (): Promise<boolean> => {
    const { files: f, options: o } = latest.current;
    if (f.length === 0) {
      await clearDraft(effectId);
      return true;
    }
    return saveDraft({ effectId, files: f, ...o });
  }, [effectId]);

  // While signed out, keep the saved draft in step with the form (after the restore ran, so an
  // empty form on arrival never erases it).
  const { prompt, edges, rightsConfirmed, adultConsent } = options;
  useEffect(() => {
    if (status !== "signedOut" || !restored.current) return;
    const timer = setTimeout(() => void persist(), 300);
    return () => clearTimeout(timer);
  }, [status, files, prompt, edges, rightsConfirmed, adultConsent, persist]);

  return { persist };
}
