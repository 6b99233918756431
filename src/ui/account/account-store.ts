"use client";
import { useEffect, useSyncExternalStore } from "react";

/**
 * The signed-in user and their balance, shared by the header, the effect page and the
 * account page. One fetch of /api/me serves them all; refreshAccount() reloads it (after a
 * generation, a sign-in or a sign-out). A 401 from any of our API calls (the session expired
 * or was revoked) switches it to signed out at once: see watchSession below.
 */
export interface AccountState {
  status: "loading" | "signedOut" | "signedIn";
  user?: { id: string; email: string; name: string };
  balance?: number;
  /** An admin of the console (the header links to /admin). */
  isAdmin?: boolean;
  plan?: {
    plan: "free" | "subscribed";
    uploadCap: number;
    planId?: string;
    status?: string;
    periodEnd?: string;
  };
}

let state: AccountState = { status: "loading" };
const listeners = new Set<() => void>();
let inflight: Promise<void> | null = null;
let loaded = false;

function set(next: AccountState) {
  state = next;
  for (const l of listeners) l();
}

export function refreshAccount(): Promise<void> {
  if (inflight) return inflight;
  inflight = (async () => {
    try {
      const res = await fetch("/api/me", { credentials: "same-origin", cache: "no-store" });
      if (res.ok) {
        const body = (await res.json()) as {
          user: AccountState["user"] | null;
          balance: number | null;
          plan: AccountState["plan"] | null;
          isAdmin?: boolean;
        };
        set(
          body.user
            ? {
                status: "signedIn",
                user: body.user,
                balance: body.balance ?? 0,
                plan: body.plan ?? undefined,
                ...(body.isAdmin ? { isAdmin: true } : {}),
              }
            : { status: "signedOut" },
        );
      }
    } catch {
      // Offline: keep what we had.
    } finally {
      loaded = true;
      inflight = null;
    }
  })();
  return inflight;
}

/** The store's current state (what useAccount returns), outside React. */
export const getAccountState = (): AccountState => state;

/** The session is gone (a 401 from our API): every subscriber (the header first) shows signed out. */
export function markSignedOut(): void {
  loaded = true;
  if (state.status !== "signedOut") set({ status: "signedOut" });
}

/** Whether a request went to this site's API (relative, or absolute on this origin). */
function ownApiPath(input: RequestInfo | URL): string | null {
  const raw = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  let url: URL;
  try {
    url = new URL(raw, window.location.href);
  } catch {
    return null;
  }
  return url.origin === window.location.origin && url.pathname.startsWith("/api/") ? url.pathname : null;
}

/**
 * Watches every API answer this page gets, wherever it is fetched (upload, submit, polling,
 * history, checkout, account sections...): the client has many callers and a single place
 * must notice that the session ended. Our own routes answer 401 only when there is no valid
 * session, so that switches the store to signed out at once. better-auth's routes (`/api/auth/`)
 * also answer 401 to a wrong password on sign-in, which says nothing about the current
 * session: there the store asks /api/me instead.
 */
function watchSession(): void {
  const w = window as Window & { __photofxSessionWatch?: true };
  if (w.__photofxSessionWatch) return;
  w.__photofxSessionWatch = true;
  const original = window.fetch.bind(window);
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await original(input, init);
    if (res.status === 401) {
      const path = ownApiPath(input);
      if (path?.startsWith("/api/auth/")) void refreshAccount();
      else if (path) markSignedOut();
    }
    return res;
  };
}

if (typeof window !== "undefined") watchSession();

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export function useAccount(): AccountState {
  const snapshot = useSyncExternalStore(
    subscribe,
    () => state,
    () => state,
  );
  useEffect(() => {
    if (!loaded) void refreshAccount();
  }, []);
  return snapshot;
}
