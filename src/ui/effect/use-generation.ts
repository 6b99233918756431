"use client";
import { useTranslations } from "next-intl";
import { useCallback, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { isHeif } from "@/ui/upload/formats";
import { zipUrl } from "@/ui/history/history-api";
import { mergeRecent, useRecentResults } from "@/ui/history/recent-results";
import type { ClientEffect } from "@/core/catalogue";
import { FREE_UPLOAD_CAP } from "@/core/plan-limits";
import { refreshAccount, useAccount } from "@/ui/account/account-store";
import type { BotCheckOutcome } from "@/ui/botcheck/BotCheckDialog";
import { createCost } from "./cost";
import {
  classifySubmitFailure,
  extractTaskIds,
  followTask,
  type TaskProgress,
  type ClientMessageTable,
  type TaskState,
} from "./task-client";

export interface UploadAsset {
  id: string;
  file: File;
  previewUrl: string;
  /** "waiting": picked by a signed-out visitor, kept in the browser until sign-in (no upload). */
  status: "uploading" | "done" | "error" | "waiting";
  /** Server URL of the upload; cleared once a task has used (and deleted) the original. */
  url?: string;
  /** The photo's size as the server stored it (EXIF orientation applied). */
  width?: number;
  height?: number;
}

export interface PendingImage {
  taskId: string;
  startedAt: number;
  /** The server's last word on its progress, and when it came (to count the time left down). */
  progress?: TaskProgress;
  progressAt?: number;
}

export interface ResultImage {
  taskId: string;
  url: string;
  prompt: string;
  seed: number | null;
  createdAt: string;
  provider?: string;
  model?: string;
  /** Local preview of the photo it came from, for the before/after comparison. */
  sourcePreview?: string;
  /** Its batch's ZIP, when the submit made several results. */
  zipUrl?: string;
}

export type Dialog = "insufficientCredits" | "upgrade" | "signUp" | null;

export interface GenerationOptions {
  edges: Array<"top" | "bottom" | "left" | "right">;
  rightsConfirmed: boolean;
  adultConsent: boolean;
  prompt: string;
}

interface ImageMeta {
  taskId: string;
  url: string;
  prompt: string;
  seed: number;
  createdAt: string;
  provider: string;
  model: string;
}

const API_BASE = "/api/img/nano-banana";

/**
 * A preview the browser can show of an upload it cannot (HEIC): the server's converted JPEG,
 * kept as a local object URL because the server deletes the original once a task used it.
 */
async function convertedPreview(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(url, { credentials: "same-origin" });
    return res.ok ? URL.createObjectURL(await res.blob()) : undefined;
  } catch {
    return undefined;
  }
}

async function uploadFile(file: File): Promise<{ url: string; width?: number; height?: number }> {
  const form = new FormData();
  form.append("file", file);
  const res = await fetch("/api/upload", { method: "POST", body: form, credentials: "same-origin" });
  const body = (await res.json().catch(() => ({}))) as {
    url?: string;
    width?: number;
    height?: number;
    message?: string;
    reason?: string;
  };
  if (!res.ok || !body.url) {
    const err = new Error(body.message ?? "upload failed") as Error & { status?: number; reason?: string };
    err.status = res.status;
    err.reason = body.reason;
    throw err;
  }
  return { url: body.url, width: body.width, height: body.height };
}

/**
 * The effect page's state: uploads, the submit, following tasks, results, and which modal
 * is open. Everything the spec's section 4 describes happens here.
 */
export function useGeneration(effect: ClientEffect) {
  const t = useTranslations();
  const [assets, setAssets] = useState<UploadAsset[]>([]);
  const [pending, setPending] = useState<PendingImage[]>([]);
  const [results, setResults] = useState<ResultImage[]>([]);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [generating, setGenerating] = useState(false);
  const account = useAccount();
  const cap = account.plan?.plan === "subscribed" ? account.plan.uploadCap : FREE_UPLOAD_CAP;
  const subscribed = account.plan?.plan === "subscribed";
  /** While set, the bot-check dialog is open; it resolves with how the check ended. */
  const [botCheck, setBotCheck] = useState<((outcome: BotCheckOutcome) => void) | null>(null);
  const capRef = useRef(cap);
  capRef.current = cap;
  const subscribedRef = useRef(subscribed);
  subscribedRef.current = subscribed;
  const busy = useRef(false);
  const assetsRef = useRef(assets);
  assetsRef.current = assets;
  const signedOutRef = useRef(false);
  signedOutRef.current = account.status === "signedOut";
  const statusKnownRef = useRef(false);
  statusKnownRef.current = account.status !== "loading";
  /** Photos picked before the page knew whether the visitor is signed in: decided once it does. */
  const undecidedRef = useRef(new Set<string>());
  /** Assets whose (HEIC) preview is being fetched from the server, once each. */
  const previewsRef = useRef(new Set<string>());
  // The user's last results of this effect stay across reloads.
  useRecentResults(effect.id, account.status === "signedIn", (stored) =>
    setResults((r) => mergeRecent(r, stored)),
  );

  const messages: ClientMessageTable = {
    signIn: t("effect.signInToast"),
    verificationFailed: t("errors.verificationFailed"),
    somethingWrong: t("errors.somethingWrong"),
    noTaskIds: t("errors.noTaskIds"),
    noImageUrl: t("errors.noImageUrl"),
    allFailed: t("errors.allFailed"),
    taskFailed: t("errors.taskFailed"),
    timeout: t("errors.timeout"),
  };

  /** The server's message in the user's language when it names a catalogue entry. */
  const serverText = (body: unknown, fallback: string): string => {
    const b = body as { messageKey?: string; messageValues?: Record<string, string | number> } | null;
    const key = b?.messageKey ? `errors.server.${b.messageKey}` : null;
    return key && t.has(key as "errors.server.busy")
      ? t(key as "errors.server.busy", b?.messageValues ?? {})
      : fallback;
  };
  /** A failed task's reason in the user's language (engine-specific reasons stay as sent). */
  const reasonText = (f: { reason: string; code?: string }): string => {
    const key = f.code && f.code !== "engine" ? `errors.server.task_${f.code}` : null;
    return key && t.has(key as "errors.server.busy") ? t(key as "errors.server.busy") : f.reason;
  };

  useEffect(
    () => () => {
      for (const a of assetsRef.current) URL.revokeObjectURL(a.previewUrl);
    },
    [],
  );

  const patch = (id: string, change: Partial<UploadAsset>) =>
    setAssets((list) => list.map((a) => (a.id === id ? { ...a, ...change } : a)));

  const startUpload = useCallback(
    async (asset: UploadAsset, quiet = false) => {
      const toastId = quiet ? undefined : toast.loading(t("upload.uploading"));
      try {
        const { url, width, height } = await uploadFile(asset.file);
        patch(asset.id, { status: "done", url, width, height });
        if (!asset.previewUrl && !previewsRef.current.has(asset.id)) {
          previewsRef.current.add(asset.id);
          const preview = await convertedPreview(url);
          if (preview) patch(asset.id, { previewUrl: preview });
        }
        if (toastId !== undefined) toast.success(t("upload.uploaded"), { id: toastId });
        return url;
      } catch (err) {
        patch(asset.id, { status: "error", url: undefined });
        const e = err as { status?: number; message?: string };
        const message =
          e.status === 401
            ? t("effect.signInToast")
            : e.status === 400 || e.status === 413
              ? t("upload.rejected")
              : t("upload.failed");
        if (toastId !== undefined) toast.error(message, { id: toastId });
        throw err;
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );

  const addFiles = useCallback(
    (incoming: File[]) => {
      // The plan's cap: a free user past it sees the upgrade modal, a subscriber a message.
      const room = Math.max(0, capRef.current - assetsRef.current.length);
      if (incoming.length > room) {
        if (subscribedRef.current) toast.error(t("upload.premiumCap", { n: capRef.current }));
        else setDialog("upgrade");
      }
      const files = incoming.slice(0, room);
      // A signed-out visitor's photos stay in the browser (nothing is uploaded before sign-in);
      // they are offered sign-up or sign-in. HEIC gets its preview from the server's JPEG.
      const signedOut = signedOutRef.current;
      // Picked before the account is known (a quick tap while the page loads): kept waiting,
      // then uploaded or offered sign-up once it is (below), never uploaded unsigned.
      const undecided = !statusKnownRef.current;
      const fresh: UploadAsset[] = files.map((file) => ({
        id: crypto.randomUUID(),
        file,
        previewUrl: isHeif(file) ? "" : URL.createObjectURL(file),
        status: signedOut || undecided ? "waiting" : "uploading",
      }));
      setAssets((list) => [...list, ...fresh]);
      if (undecided) {
        for (const a of fresh) undecidedRef.current.add(a.id);
        return;
      }
      if (signedOut) {
        if (fresh.length) setDialog("signUp");
        return;
      }
      for (const a of fresh) void startUpload(a).catch(() => {});
    },
    [startUpload, t],
  );

  // The account became known: photos picked meanwhile are uploaded (signed in) or wait for
  // sign-up, which is offered (signed out).
  useEffect(() => {
    if (account.status === "loading" || undecidedRef.current.size === 0) return;
    const ids = undecidedRef.current;
    undecidedRef.current = new Set();
    if (account.status === "signedOut") {
      setDialog("signUp");
      return;
    }
    const picked = assetsRef.current.filter((a) => ids.has(a.id) && a.status === "waiting");
    setAssets((list) =>
      list.map((a) => (picked.some((p) => p.id === a.id) ? { ...a, status: "uploading" } : a)),
    );
    for (const a of picked) void startUpload({ ...a, status: "uploading" }).catch(() => {});
  }, [account.status, startUpload]);

  const removeAsset = (id: string) => {
    setAssets((list) => {
      const gone = list.find((a) => a.id === id);
      if (gone) URL.revokeObjectURL(gone.previewUrl);
      return list.filter((a) => a.id !== id);
    });
    toast(t("upload.removed"));
  };

  const clearAssets = () => {
    for (const a of assets) URL.revokeObjectURL(a.previewUrl);
    setAssets([]);
  };

  const loadMeta = async (): Promise<Map<string, ImageMeta>> => {
    try {
      const res = await fetch("/api/images", { credentials: "same-origin", cache: "no-store" });
      if (!res.ok) return new Map();
      const body = (await res.json()) as { images: ImageMeta[] };
      return new Map(body.images.map((i) => [i.taskId, i]));
    } catch {
      return new Map();
    }
  };

  const submit = async (options: GenerationOptions) => {
    // A submit while already generating is ignored (spec section 4).
    if (busy.current) return;
    if (account.status === "signedOut") {
      setDialog("signUp");
      return;
    }
    const ready = assets.filter((a) => a.status !== "error");
    if (ready.length === 0) {
      toast.error(t("effect.noImages"));
      return;
    }
    if (ready.length > cap) {
      if (subscribed) toast.error(t("upload.premiumCap", { n: cap }));
      else setDialog("upgrade");
      return;
    }
    // The balance is known: a user who cannot pay is told so before any bot-check (the
    // server still checks and answers 402 if the balance changed meanwhile).
    if (account.balance !== undefined && account.balance < createCost(effect, ready.length)) {
      setDialog("insufficientCredits");
      return;
    }
    busy.current = true;
    setGenerating(true);
    try {
      // Free users pass the bot-check first; the submit then continues by itself.
      let token: string | null = null;
      if (!subscribed) {
        const outcome = await new Promise<BotCheckOutcome>((resolve) => setBotCheck(() => resolve));
        setBotCheck(null);
        // Closing the check is the user's choice, not a failure: nothing to report.
        if (outcome.kind === "cancelled") return;
        if (outcome.kind === "failed") {
          toast.error(messages.verificationFailed);
          return;
        }
        token = outcome.token;
      }
      // Originals are deleted after each task: re-upload any photo a task has used.
      const urls: string[] = [];
      for (const a of ready) {
        urls.push(a.url && a.status === "done" ? a.url : await startUpload(a, true));
      }
      const sources = new Map(ready.map((a, i) => [i, a.previewUrl]));
      const payloadOptions: Record<string, unknown> = {};
      if (effect.optionsForm === "outpaintEdges") payloadOptions.edges = options.edges;
      if (effect.optionsForm === "rightsConfirmed" && options.rightsConfirmed)
        payloadOptions.rightsConfirmed = true;
      if (effect.optionsForm === "adultConsent" && options.adultConsent) payloadOptions.adultConsent = true;
      const res = await fetch(`${API_BASE}/submit`, {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify({
          prompt: effect.acceptsPrompt ? options.prompt.trim() : "",
          image_urls: urls,
          num_images: "1",
          turnstileToken: token,
          imageType: effect.imageType,
          options: payloadOptions,
        }),
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) {
        const failure = classifySubmitFailure(res.status, body, messages);
        if (failure.kind === "insufficientCredits") {
          // The balance changed elsewhere: the modal states the real one.
          setDialog("insufficientCredits");
          void refreshAccount();
        } else if (failure.kind === "upgrade") setDialog("upgrade");
        else toast.error(failure.kind === "signIn" ? failure.message : serverText(body, failure.message));
        if (failure.kind === "error") toast.error(t("effect.genericToast"));
        return;
      }
      const taskIds = extractTaskIds(body);
      if (taskIds.length === 0) {
        toast.error(messages.noTaskIds);
        return;
      }
      // Every task used its inputs: the server deletes them when it ends.
      setAssets((list) => list.map((a) => (ready.some((r) => r.id === a.id) ? { ...a, url: undefined } : a)));
      void refreshAccount();
      const startedAt = Date.now();
      setPending((p) => [...taskIds.map((taskId) => ({ taskId, startedAt })), ...p]);
      const states: TaskState[] = await Promise.all(
        taskIds.map(async (taskId, i) => {
          const state = await followTask(taskId, {
            base: API_BASE,
            eventSource: typeof EventSource === "undefined" ? undefined : (u) => new EventSource(u),
            messages,
            onProgress: (progress) =>
              setPending((p) =>
                p.map((x) => (x.taskId === taskId ? { ...x, progress, progressAt: Date.now() } : x)),
              ),
          });
          setPending((p) => p.filter((x) => x.taskId !== taskId));
          if (state.kind === "success") {
            setResults((r) => [
              {
                taskId,
                url: state.imageUrl,
                prompt: options.prompt,
                seed: null,
                createdAt: new Date().toISOString(),
                sourcePreview: sources.get(effect.input.mode === "each" ? i : 0),
                ...(taskIds.length > 1 ? { zipUrl: zipUrl({ task: taskIds[0]! }) } : {}),
              },
              ...r,
            ]);
          }
          return state;
        }),
      );
      const ok = states.filter((s) => s.kind === "success").length;
      if (ok > 0) {
        toast.success(t("effect.successToast", { n: ok }));
        const meta = await loadMeta();
        setResults((r) =>
          r.map((res) => {
            const m = meta.get(res.taskId);
            return m
              ? {
                  ...res,
                  prompt: m.prompt,
                  seed: m.seed,
                  createdAt: m.createdAt,
                  provider: m.provider,
                  model: m.model,
                }
              : res;
          }),
        );
      }
      const failed = states.filter((s): s is Extract<TaskState, { kind: "failed" }> => s.kind === "failed");
      if (failed.length === states.length) {
        toast.error(failed.length === 1 ? reasonText(failed[0]!) : messages.allFailed);
      } else {
        for (const f of failed) toast.error(reasonText(f));
      }
      await refreshAccount();
    } catch {
      toast.error(t("effect.genericToast"));
    } finally {
      busy.current = false;
      setGenerating(false);
    }
  };

  return {
    assets,
    addFiles,
    removeAsset,
    clearAssets,
    pending,
    results,
    generating,
    submit,
    dialog,
    setDialog,
    botCheck,
    rejectFiles: () => toast.error(t("upload.rejected")),
  };
}
