/**
 * Resolves the signed-in user of a request. Polling runs at thousands of requests per
 * second, so each session cookie's answer is kept for a short time instead of asking
 * better-auth (and the database) every time. Sign-out through our API drops the entry at
 * once; a session revoked elsewhere stays usable here for at most ttlMs.
 */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
}

type Lookup = (headers: Headers) => Promise<SessionUser | null>;

export class SessionCache {
  private readonly map = new Map<string, { user: SessionUser | null; until: number }>();

  constructor(
    private readonly lookup: Lookup,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 20_000,
  ) {}

  /** Cache key: only the auth cookies matter, not other headers. */
  private key(cookie: string | null): string | null {
    if (!cookie) return null;
    const parts = cookie
      .split(";")
      .map((p) => p.trim())
      .filter((p) => p.includes("session_token") || p.includes("session_data"));
    return parts.length ? parts.sort().join(";") : null;
  }

  async resolve(headers: Headers, now = Date.now()): Promise<SessionUser | null> {
    const key = this.key(headers.get("cookie"));
    if (!key) return null;
    const hit = this.map.get(key);
    if (hit && hit.until > now) return hit.user;
    const user = await this.lookup(headers);
    this.map.set(key, { user, until: now + (user ? this.ttlMs : 2_000) });
    if (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
    return user;
  }

  forget(headers: Headers): void {
    const key = this.key(headers.get("cookie"));
    if (key) this.map.delete(key);
  }
}
