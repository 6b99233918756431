"use client";

/**
 * Calls better-auth's HTTP endpoints directly. Its browser client would add ~11 kB
 * gzipped to every page for three POSTs.
 */
async function post(
  path: string,
  body: unknown,
): Promise<{ error: { message: string; code?: string } | null }> {
  try {
    const res = await fetch(`/api/auth/${path}`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    if (res.ok) return { error: null };
    const data = (await res.json().catch(() => ({}))) as { message?: string; code?: string };
    return { error: { message: data.message ?? res.statusText, code: data.code } };
  } catch (err) {
    return { error: { message: err instanceof Error ? err.message : "Network error" } };
  }
}

export const signInEmail = (email: string, password: string) => post("sign-in/email", { email, password });
export const signUpEmail = (email: string, password: string, name: string) =>
  post("sign-up/email", { email, password, name });
export const signOut = () => post("sign-out", {});
