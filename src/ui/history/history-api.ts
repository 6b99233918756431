"use client";
import type { HistoryItem, HistoryPage } from "@/core/history";
import type { ShareLinkInfo } from "@/core/share";

export type { HistoryItem, HistoryPage };

/** One page of the signed-in user's results (GET /api/history). */
export async function fetchHistory(query: {
  effect?: string;
  cursor?: string | null;
  limit?: number;
}): Promise<HistoryPage> {
  const params = new URLSearchParams();
  if (query.effect) params.set("effect", query.effect);
  if (query.cursor) params.set("cursor", query.cursor);
  if (query.limit) params.set("limit", String(query.limit));
  const res = await fetch(`/api/history?${params}`, { credentials: "same-origin", cache: "no-store" });
  if (!res.ok) throw Object.assign(new Error(`history answered ${res.status}`), { status: res.status });
  return (await res.json()) as HistoryPage;
}

/** Deletes a result for good. A 404 means it is already gone, which is what was asked. */
export async function deleteResult(id: string): Promise<void> {
  const res = await fetch(`/api/history/${encodeURIComponent(id)}`, {
    method: "DELETE",
    credentials: "same-origin",
  });
  if (!res.ok && res.status !== 404) throw new Error(`delete answered ${res.status}`);
}

/** The result's public link (made now, or the live one it has). */
export async function createShare(id: string): Promise<ShareLinkInfo> {
  const res = await fetch(`/api/history/${encodeURIComponent(id)}/share`, {
    method: "POST",
    credentials: "same-origin",
  });
  if (!res.ok) throw new Error(`share answered ${res.status}`);
  return (await res.json()) as ShareLinkInfo;
}

/** Turns the result's public link off. */
export async function revokeShare(id: string): Promise<void> {
  const res = await fetch(`/api/history/${encodeURIComponent(id)}/share`, {
    method: "DELETE",
    credentials: "same-origin",
  });
  if (!res.ok) throw new Error(`revoke answered ${res.status}`);
}

/** Where a batch's ZIP downloads from: by its id (history) or by one of its tasks (after a submit). */
export const zipUrl = (by: { batch: string } | { task: string }): string =>
  "batch" in by
    ? `/api/history/zip?batch=${encodeURIComponent(by.batch)}`
    : `/api/history/zip?task=${encodeURIComponent(by.task)}`;

/** The full address of a share page, to copy and send. */
export const shareAddress = (token: string): string => `${window.location.origin}/s/${token}`;
