"use client";
import { useTranslations } from "next-intl";
import { FREE_FORM_EDIT_ID, TEXT_TO_IMAGE_ID } from "@/core/free-form";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { Link, useRouter } from "@/i18n/navigation";
import { Button } from "@/ui/primitives/Button";
import { Modal } from "@/ui/primitives/Modal";
import { downloadImage } from "@/ui/results/download";
import type { EffectLabel } from "./effect-titles";
import { CompareRerun } from "@/ui/privacy/CompareRerun";
import { HistoryCard, historyActionClass } from "./HistoryCard";
import { deleteResult, fetchHistory, zipUrl, type HistoryItem } from "./history-api";
import { ShareDialog } from "./ShareDialog";
import { TextRerun } from "./TextRerun";

/** Results per page (the API's largest page). */
const PAGE = 24;

/**
 * "My creations": the signed-in user's results, newest first, filtered by effect (kept in the
 * address), a page at a time; each can be downloaded, shared or deleted.
 */
export function HistoryView({
  effects,
  initialEffect,
}: {
  effects: EffectLabel[];
  initialEffect: string | null;
}) {
  const t = useTranslations("history");
  const tc = useTranslations("common");
  const router = useRouter();
  const [effect, setEffect] = useState(initialEffect ?? "");
  const [items, setItems] = useState<HistoryItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [status, setStatus] = useState<"loading" | "ready" | "error">("loading");
  const [loadingMore, setLoadingMore] = useState(false);
  const [sharing, setSharing] = useState<HistoryItem | null>(null);
  const [deleting, setDeleting] = useState<HistoryItem | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const request = useRef(0);
  const listTop = useRef<HTMLHeadingElement>(null);
  const labels = useMemo(() => new Map(effects.map((e) => [e.id, e])), [effects]);

  const signedOut = useCallback(
    (err: unknown) => {
      if ((err as { status?: number }).status !== 401) return false;
      router.replace({ pathname: "/sign-in", query: { next: "/history" } });
      return true;
    },
    [router],
  );

  const load = useCallback(
    async (filter: string, after: string | null) => {
      const mine = ++request.current;
      try {
        const page = await fetchHistory({ effect: filter || undefined, cursor: after, limit: PAGE });
        if (mine !== request.current) return;
        setItems((list) =>
          after ? [...list, ...page.items.filter((i) => !list.some((l) => l.id === i.id))] : page.items,
        );
        setCursor(page.nextCursor);
        setStatus("ready");
      } catch (err) {
        if (mine !== request.current || signedOut(err)) return;
        if (after) toast.error(t("loadFailed"));
        else setStatus("error");
      }
    },
    [signedOut, t],
  );

  useEffect(() => {
    setStatus("loading");
    void load(effect, null);
  }, [effect, load]);

  const changeFilter = (next: string) => {
    setEffect(next);
    const url = new URL(window.location.href);
    if (next) url.searchParams.set("effect", next);
    else url.searchParams.delete("effect");
    window.history.replaceState(window.history.state, "", url);
  };

  const more = async () => {
    setLoadingMore(true);
    await load(effect, cursor);
    setLoadingMore(false);
  };

  const title = (item: HistoryItem) =>
    labels.get(item.effectId)?.title ??
    (item.effectId === FREE_FORM_EDIT_ID
      ? t("freeFormTitle")
      : item.effectId === TEXT_TO_IMAGE_ID
        ? t("textToImageTitle")
        : item.effectId);

  const download = async (item: HistoryItem) => {
    try {
      await downloadImage(item.url, item.effectId, 1);
    } catch {
      toast.error(t("downloadFailed"));
    }
  };

  const confirmDelete = async () => {
    const gone = deleting;
    if (!gone) return;
    setDeleteBusy(true);
    try {
      await deleteResult(gone.id);
      setItems((list) =>
        list
          .filter((i) => i.id !== gone.id)
          .map((i) => (i.batchId === gone.batchId ? { ...i, batchSize: Math.max(1, i.batchSize - 1) } : i)),
      );
      setDeleting(null);
      toast.success(t("deleted"));
      listTop.current?.focus();
    } catch {
      toast.error(t("deleteFailed"));
    } finally {
      setDeleteBusy(false);
    }
  };

  const setShare = (id: string, share: HistoryItem["share"]) => {
    setItems((list) => list.map((i) => (i.id === id ? { ...i, share } : i)));
    setSharing((s) => (s && s.id === id ? { ...s, share } : s));
  };

  return (
    <div className="mt-6">
      <div className="flex flex-wrap items-end gap-3">
        <label className="flex flex-col gap-1 text-sm font-medium" htmlFor="history-effect">
          {t("filterLabel")}
          <select
            id="history-effect"
            value={effect}
            onChange={(e) => changeFilter(e.target.value)}
            className="min-w-56 rounded-lg border border-zinc-300 bg-white px-2 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
            data-testid="history-filter"
          >
            <option value="">{t("allEffects")}</option>
            {effects.map((e) => (
              <option key={e.id} value={e.id}>
                {e.title}
              </option>
            ))}
          </select>
        </label>
      </div>

      <h2 ref={listTop} tabIndex={-1} className="sr-only">
        {effect ? (labels.get(effect)?.title ?? t("allEffects")) : t("allEffects")}
      </h2>

      {status === "loading" ? (
        <p className="mt-8 text-zinc-600 dark:text-zinc-400" role="status">
          {tc("loading")}
        </p>
      ) : status === "error" ? (
        <div className="mt-8" role="alert">
          <p>{t("loadFailed")}</p>
          <Button variant="secondary" className="mt-3" onClick={() => void load(effect, null)}>
            {t("retry")}
          </Button>
        </div>
      ) : items.length === 0 ? (
        <div
          className="mt-8 rounded-xl border border-dashed border-zinc-300 p-10 text-center dark:border-zinc-700"
          data-testid="history-empty"
        >
          <p>{effect ? t("emptyFiltered") : t("empty")}</p>
          <Link
            href={effect ? (labels.get(effect)?.href ?? "/nano-banana-lora") : "/nano-banana-lora"}
            className="mt-4 inline-block rounded-lg bg-violet-600 px-4 py-2 text-sm font-medium text-white hover:bg-violet-700"
          >
            {t("tryEffect")}
          </Link>
        </div>
      ) : (
        <>
          <ul className="mt-6 grid grid-cols-1 gap-4 min-[440px]:grid-cols-2 md:grid-cols-3 lg:grid-cols-4">
            {items.map((item) => (
              <HistoryCard
                key={item.id}
                item={item}
                effectTitle={title(item)}
                effectHref={labels.get(item.effectId)?.href ?? null}
                onDownload={() => void download(item)}
                onShare={() => setSharing(item)}
                onDelete={() => setDeleting(item)}
                zipHref={item.batchSize > 1 ? zipUrl({ batch: item.batchId }) : undefined}
              >
                {item.effectId === TEXT_TO_IMAGE_ID ? (
                  <TextRerun imageId={item.id} className={historyActionClass} />
                ) : (
                  <CompareRerun
                    imageId={item.id}
                    imageUrl={item.url}
                    width={item.width}
                    height={item.height}
                    actionClassName={historyActionClass}
                  />
                )}
              </HistoryCard>
            ))}
          </ul>
          {cursor ? (
            <div className="mt-8 flex justify-center">
              <Button
                variant="secondary"
                disabled={loadingMore}
                aria-busy={loadingMore}
                onClick={() => void more()}
                data-testid="history-more"
              >
                {loadingMore ? tc("loading") : t("loadMore")}
              </Button>
            </div>
          ) : null}
        </>
      )}

      {sharing ? (
        <ShareDialog
          item={sharing}
          effectTitle={title(sharing)}
          onClose={() => setSharing(null)}
          onChange={(share) => setShare(sharing.id, share)}
        />
      ) : null}
      {deleting ? (
        <Modal
          open
          onOpenChange={(open) => (open || deleteBusy ? undefined : setDeleting(null))}
          title={t("deleteTitle")}
          description={t("deleteBody")}
          closeLabel={tc("close")}
        >
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="secondary" onClick={() => setDeleting(null)} disabled={deleteBusy}>
              {t("cancel")}
            </Button>
            <button
              type="button"
              className="inline-flex items-center justify-center rounded-lg bg-red-700 px-4 py-2 text-sm font-semibold text-white hover:bg-red-800 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 disabled:cursor-not-allowed disabled:bg-red-400"
              onClick={() => void confirmDelete()}
              disabled={deleteBusy}
              aria-busy={deleteBusy}
            >
              {t("deleteConfirm")}
            </button>
          </div>
        </Modal>
      ) : null}
    </div>
  );
}
