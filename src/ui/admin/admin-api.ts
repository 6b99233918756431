"use client";

/** A refusal of the console API: the server's English message and its reason code, if any. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** Calls `/api/admin/*` (same origin: the Origin check passes), JSON in and out. */
export async function adminApi<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/api/admin${path}`, {
    method: body === undefined ? "GET" : "POST",
    credentials: "same-origin",
    cache: "no-store",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!res.ok)
    throw new AdminApiError(
      res.status,
      typeof json.message === "string" ? json.message : `HTTP ${res.status}`,
      typeof json.reason === "string" ? json.reason : undefined,
    );
  return json as T;
}

/** A fresh key for one credit change: the same key again applies nothing. */
export const newIdempotencyKey = (): string =>
  typeof crypto !== "undefined" && "randomUUID" in crypto
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;

export const field =
  "w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900";
export const card = "rounded-xl border border-zinc-200 p-4 dark:border-zinc-800";
export const th = "px-2 py-2 text-start font-medium";
export const td = "px-2 py-2 align-top";
