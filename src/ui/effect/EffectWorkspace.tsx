"use client";
import { useTranslations } from "next-intl";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import dynamic from "next/dynamic";
import type { ClientEffect } from "@/core/catalogue";
import { OUTPAINT_EDGES, type OutpaintEdge } from "@/core/catalogue-constants";
import { useAccount } from "@/ui/account/account-store";
import { Button } from "@/ui/primitives/Button";
import { downloadImage } from "@/ui/results/download";
import { NoImagesGuide } from "@/ui/results/NoImagesGuide";
import { PendingCard } from "@/ui/results/PendingCard";
import { ResultCard } from "@/ui/results/ResultCard";
import { ResultsToolbar } from "@/ui/history/recent-results";
import { UploadArea } from "@/ui/upload/UploadArea";
import { useEffectDraft } from "@/ui/upload/use-effect-draft";
import { createCost } from "./cost";
import { OutpaintSizes } from "./OutpaintSizes";
import { useGeneration, type ResultImage } from "./use-generation";

// The full-screen slider loads only when a result is opened.
const ResultLightbox = dynamic(() => import("@/ui/results/ResultLightbox"), { ssr: false });
// Modals load on first use too: they are not needed to show the page.
const ImageDetailsModal = dynamic(
  () => import("@/ui/modals/ImageDetailsModal").then((m) => m.ImageDetailsModal),
  {
    ssr: false,
  },
);
const InsufficientCreditsModal = dynamic(
  () => import("@/ui/modals/CreditsModals").then((m) => m.InsufficientCreditsModal),
  { ssr: false },
);
const SignUpToCreate = dynamic(() => import("@/ui/upload/SignUpToCreate"), { ssr: false });
const BotCheckDialog = dynamic(() => import("@/ui/botcheck/BotCheckDialog"), { ssr: false });
const UpgradeModal = dynamic(() => import("@/ui/modals/CreditsModals").then((m) => m.UpgradeModal), {
  ssr: false,
});
const UploadPreviewModal = dynamic(
  () => import("@/ui/modals/CreditsModals").then((m) => m.UploadPreviewModal),
  {
    ssr: false,
  },
);

/**
 * The effect page's working area: the form panel (one third) and the results panel (two
 * thirds) on desktop, stacked on a phone. The empty results panel shows the spec's "No
 * images yet" guide (its other option, a carousel of the example pairs, would repeat the
 * example gallery right below the workspace).
 */
export function EffectWorkspace({
  effect,
  formTitle,
  formDesc,
  resultTitle,
  signupCredits = 0,
}: {
  effect: ClientEffect;
  formTitle: string;
  formDesc: string;
  resultTitle: string;
  /** Credits a new account gets (SIGNUP_CREDITS), said in the sign-up offer to signed-out visitors. */
  signupCredits?: number;
}) {
  const t = useTranslations();
  const gen = useGeneration(effect);
  const account = useAccount();
  const [edges, setEdges] = useState<OutpaintEdge[]>([...OUTPAINT_EDGES]);
  const [prompt, setPrompt] = useState("");
  const [rightsConfirmed, setRightsConfirmed] = useState(false);
  const [adultConsent, setAdultConsent] = useState(false);
  // A signed-out visitor's photos and options survive sign-up or sign-in (kept in the browser).
  const waitingFiles = useMemo(
    () => gen.assets.filter((a) => a.status === "waiting").map((a) => a.file),
    [gen.assets],
  );
  const draftOptions = useMemo(
    () => ({ prompt, edges, rightsConfirmed, adultConsent }),
    [prompt, edges, rightsConfirmed, adultConsent],
  );
  const draft = useEffectDraft({
    effectId: effect.id,
    status: account.status,
    files: waitingFiles,
    options: draftOptions,
    addFiles: gen.addFiles,
    restoreOptions: (o) => {
      setPrompt(o.prompt);
      if (o.edges.length) setEdges(o.edges);
      setRightsConfirmed(o.rightsConfirmed);
      setAdultConsent(o.adultConsent);
    },
  });
  const [preview, setPreview] = useState<string | null>(null);
  const [details, setDetails] = useState<ResultImage | null>(null);
  const [lightbox, setLightbox] = useState(-1);

  // What Create charges: the effect's credits for each task the photos make.
  const cost = createCost(effect, gen.assets.filter((a) => a.status !== "error").length);
  const needsConfirm =
    (effect.optionsForm === "rightsConfirmed" && !rightsConfirmed) ||
    (effect.optionsForm === "adultConsent" && !adultConsent);

  const download = async (image: ResultImage) => {
    try {
      await downloadImage(image.url, effect.id, gen.results.indexOf(image) + 1);
    } catch {
      toast.error(t("results.downloadFailed"));
    }
  };

  const toggleEdge = (edge: OutpaintEdge) =>
    setEdges((list) => (list.includes(edge) ? list.filter((e) => e !== edge) : [...list, edge]));

  return (
    <div className="grid gap-8 lg:grid-cols-3">
      <section className="lg:col-span-1" aria-labelledby="form-title">
        <form
          className="rounded-2xl border border-zinc-200 p-5 shadow-sm dark:border-zinc-800"
          onSubmit={(e) => {
            e.preventDefault();
            void gen.submit({ edges, rightsConfirmed, adultConsent, prompt });
          }}
        >
          <h2 id="form-title" className="text-xl font-semibold">
            {formTitle}
          </h2>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{formDesc}</p>
          <div className="mt-4">
            <UploadArea
              assets={gen.assets}
              onFiles={gen.addFiles}
              onReject={gen.rejectFiles}
              onRemove={gen.removeAsset}
              onClear={gen.clearAssets}
              onPreview={(a) => setPreview(a.previewUrl)}
            />
          </div>

          {effect.optionsForm === "outpaintEdges" ? (
            <fieldset className="mt-4">
              <legend className="text-sm font-medium">{t("effect.edgesLabel")}</legend>
              <div className="mt-2 flex flex-wrap gap-2">
                {OUTPAINT_EDGES.map((edge) => (
                  <label
                    key={edge}
                    className="flex cursor-pointer items-center gap-1.5 rounded-lg border border-zinc-300 px-2.5 py-1 text-sm has-[:checked]:border-violet-600 has-[:checked]:bg-violet-50 dark:border-zinc-700 dark:has-[:checked]:bg-violet-950/40"
                  >
                    <input type="checkbox" checked={edges.includes(edge)} onChange={() => toggleEdge(edge)} />
                    {t(`effect.edge${edge[0]!.toUpperCase()}${edge.slice(1)}` as "effect.edgeTop")}
                  </label>
                ))}
                <button
                  type="button"
                  className="rounded-lg border border-zinc-300 px-2.5 py-1 text-sm dark:border-zinc-700"
                  aria-pressed={edges.length === 4}
                  onClick={() => setEdges([...OUTPAINT_EDGES])}
                >
                  {t("effect.edgeAll")}
                </button>
              </div>
              <OutpaintSizes assets={gen.assets} edges={edges} />
            </fieldset>
          ) : null}

          {effect.acceptsPrompt ? (
            <label className="mt-4 block text-sm font-medium">
              {t("effect.promptLabel")}
              <textarea
                className="mt-1 block w-full rounded-lg border border-zinc-300 bg-transparent p-2 text-sm dark:border-zinc-700"
                rows={3}
                maxLength={500}
                value={prompt}
                placeholder={t("effect.promptPlaceholder")}
                onChange={(e) => setPrompt(e.target.value)}
              />
            </label>
          ) : null}

          {effect.optionsForm === "rightsConfirmed" ? (
            <label className="mt-4 flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                className="mt-0.5"
                checked={rightsConfirmed}
                onChange={(e) => setRightsConfirmed(e.target.checked)}
              />
              {t("effect.rightsConfirm")}
            </label>
          ) : null}
          {effect.optionsForm === "adultConsent" ? (
            <label className="mt-4 flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                className="mt-0.5"
                checked={adultConsent}
                onChange={(e) => setAdultConsent(e.target.checked)}
              />
              {t("effect.adultConsent")}
            </label>
          ) : null}
          {effect.id === "baby-face-generator" ? (
            <p className="mt-4 text-xs text-zinc-600 dark:text-zinc-400">{t("effect.entertainmentNote")}</p>
          ) : null}

          {/* Busy is aria-disabled, not disabled: a disabled button drops its focus to the page
              body; this one keeps it while the check runs and the results arrive (a second
              press is ignored by the submit). */}
          <Button
            type="submit"
            className="mt-5 w-full py-3 text-base aria-disabled:cursor-not-allowed aria-disabled:bg-violet-400 aria-disabled:hover:bg-violet-400"
            disabled={needsConfirm}
            aria-disabled={gen.generating || undefined}
            aria-busy={gen.generating}
            data-testid="create-button"
          >
            {gen.generating ? t("effect.generating") : t("effect.createCost", { credits: cost })}
          </Button>
          {account.plan?.plan === "subscribed" ? null : (
            <p className="mt-2 text-center text-xs text-zinc-600 dark:text-zinc-400">
              {t("effect.freePlanHint")}
            </p>
          )}
        </form>
      </section>

      <section className="lg:col-span-2" aria-labelledby="results-title" aria-live="polite">
        <h2 id="results-title" className="mb-3 text-xl font-semibold">
          {resultTitle}
        </h2>
        <ResultsToolbar results={gen.results} />
        {gen.pending.length > 0 || gen.results.length > 0 ? (
          <div className="grid gap-4 sm:grid-cols-2" data-testid="results-grid">
            {gen.pending.map((p, i) => (
              <PendingCard
                key={p.taskId}
                index={i}
                startedAt={p.startedAt}
                progress={p.progress}
                progressAt={p.progressAt}
              />
            ))}
            {gen.results.map((r, i) => (
              <ResultCard
                key={r.taskId}
                image={r}
                index={i}
                onOpen={() => setLightbox(i)}
                onDetails={() => setDetails(r)}
                onDownload={() => void download(r)}
              />
            ))}
          </div>
        ) : (
          <NoImagesGuide />
        )}
      </section>

      {lightbox >= 0 ? (
        <ResultLightbox
          index={lightbox}
          onClose={() => setLightbox(-1)}
          slides={gen.results.map((r, i) => ({ src: r.url, alt: t("results.resultAlt", { n: i + 1 }) }))}
        />
      ) : null}
      {details ? (
        <ImageDetailsModal
          image={details}
          onClose={() => setDetails(null)}
          onDownload={(img) => void download(img)}
        />
      ) : null}
      {preview ? <UploadPreviewModal src={preview} onClose={() => setPreview(null)} /> : null}
      {gen.dialog === "insufficientCredits" ? (
        <InsufficientCreditsModal
          open
          onClose={() => gen.setDialog(null)}
          credits={cost}
          balance={account.balance ?? 0}
        />
      ) : null}
      {gen.dialog === "upgrade" ? <UpgradeModal open onClose={() => gen.setDialog(null)} /> : null}
      {gen.botCheck ? <BotCheckDialog onDone={gen.botCheck} /> : null}
      {gen.dialog === "signUp" ? (
        <SignUpToCreate
          onClose={() => gen.setDialog(null)}
          next={effect.href}
          signupCredits={signupCredits}
          persist={draft.persist}
        />
      ) : null}
    </div>
  );
}
