"use client";
import { useEffect, useSyncExternalStore } from "react";

/**
 * The signed-in user and their balance, shared by the header, the effect page and the
 * account page. One fetch of /api/me serves them all; refreshAccount() reloads it (after a
 * generation, a sign-in or a sign-out).
 */
export interface AccountState {
  status: "loading" | "signedOut" | "signedIn";
  user?: { id: string; email: string; name: string };
  balance?: number;
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
        };
        set(
          body.user
            ? {
                status: "signedIn",
                user: body.user,
                balance: body.balance ?? 0,
                plan: body.plan ?? undefined,
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
