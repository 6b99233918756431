"use client";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { Modal } from "@/ui/primitives/Modal";

type Config = { kind: "altcha"; challengeUrl: string } | { kind: "turnstile"; siteKey: string };

interface TurnstileApi {
  render(el: HTMLElement, opts: Record<string, unknown>): string;
  remove(id: string): void;
}

function loadTurnstile(): Promise<TurnstileApi> {
  const w = window as unknown as { turnstile?: TurnstileApi };
  if (w.turnstile) return Promise.resolve(w.turnstile);
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit";
    s.async = true;
    s.onload = () => (w.turnstile ? resolve(w.turnstile) : reject(new Error("Turnstile did not load")));
    s.onerror = () => reject(new Error("Turnstile did not load"));
    document.head.appendChild(s);
  });
}

/**
 * How the check ended: passed (with the token the submit sends), failed (the widget or its
 * script reported an error: the spec's "Verification failed"), or cancelled by the user
 * (Escape, the close button, a click outside), which is not a failure.
 */
export type BotCheckOutcome =
  { kind: "verified"; token: string } | { kind: "failed" } | { kind: "cancelled" };

/**
 * The free plan's bot-check, shown when a free user presses Create: ALTCHA solves its proof
 * of work by itself (or Turnstile runs), and on success the token goes back to the submit,
 * which then continues on its own.
 */
export default function BotCheckDialog({ onDone }: { onDone(outcome: BotCheckOutcome): void }) {
  const t = useTranslations("botcheck");
  const tc = useTranslations("common");
  const [config, setConfig] = useState<Config | null>(null);
  const [ready, setReady] = useState(false);
  const host = useRef<HTMLDivElement>(null);
  const widget = useRef<HTMLElement>(null);
  const done = useRef(false);
  const finish = (outcome: BotCheckOutcome) => {
    if (done.current) return;
    done.current = true;
    onDone(outcome);
  };
  const failed = () => finish({ kind: "failed" });

  useEffect(() => {
    void fetch("/api/botcheck/config")
      .then((r) => r.json() as Promise<Config>)
      .then(async (c) => {
        if (c.kind === "altcha") await import("altcha");
        setConfig(c);
        setReady(true);
      })
      .catch(failed);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    if (!ready || !config) return;
    if (config.kind === "altcha") {
      const el = widget.current;
      if (!el) return;
      const onState = (e: Event) => {
        const detail = (e as CustomEvent<{ state: string; payload?: string }>).detail;
        if (detail.state === "verified" && detail.payload)
          finish({ kind: "verified", token: detail.payload });
        if (detail.state === "error") failed();
      };
      el.addEventListener("statechange", onState);
      return () => el.removeEventListener("statechange", onState);
    }
    let id: string | undefined;
    let api: TurnstileApi | undefined;
    loadTurnstile()
      .then((t) => {
        api = t;
        id = t.render(host.current!, {
          sitekey: config.siteKey,
          action: "submit",
          callback: (token: string) => finish({ kind: "verified", token }),
          "error-callback": failed,
        });
      })
      .catch(failed);
    return () => {
      if (id && api) api.remove(id);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, config]);

  return (
    <Modal
      open
      onOpenChange={(o) => !o && finish({ kind: "cancelled" })}
      title={t("title")}
      description={t("body")}
      closeLabel={tc("close")}
    >
      <div ref={host} data-testid="botcheck">
        {config?.kind === "altcha" ? (
          <altcha-widget ref={widget} challenge={config.challengeUrl} auto="onload" />
        ) : (
          !config && <p className="text-sm">{t("running")}</p>
        )}
      </div>
    </Modal>
  );
}
