import type { SessionRevocation } from "@/core/ports/session-revocations";

/**
 * Resolves the signed-in user of a request. Polling runs at thousands of requests per
 * second, so each session's answer is kept for a short time instead of asking better-auth
 * (and the database) every time.
 *
 * The cache is keyed by the session cookie's value as better-auth reads it (first
 * occurrence of the cookie, quotes removed, percent-decoded), never by the raw Cookie
 * header: `abc.sig%3D` and `abc.sig=` are one session and one entry. A session that ends
 * (sign-out, revoked, account deleted or suspended) is evicted by its id or its user's id
 * on every process (`evict`, fed by better-auth's database hooks and the revocation
 * channel), and a lookup that raced with an eviction is not stored.
 */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
}

/** What better-auth answered for a session cookie. */
export interface ResolvedSession {
  user: SessionUser;
  sessionId: string;
  /** The session token (the cookie's value before its signature). */
  token: string;
  /** When the session expires (ms since the epoch): an entry never outlives it. */
  expiresAt: number;
}

type Lookup = (headers: Headers) => Promise<ResolvedSession | null>;

interface Entry {
  session: ResolvedSession | null;
  until: number;
}

export interface SessionCacheOptions {
  /** The session cookie's name as better-auth sets it (`better-auth.session_token`, or `__Secure-…`). */
  cookieName: string;
  ttlMs?: number;
  /** How long "no session" is kept for a cookie (a typo'd or expired cookie). */
  negativeTtlMs?: number;
  maxEntries?: number;
}

/** A session cookie value is a 32-character token, a dot and a 44-character signature: bounded. */
const MAX_COOKIE_VALUE = 512;

/**
 * The named cookie's value as better-call (better-auth's cookie reader) parses it: the
 * first pair with that name, trimmed, unquoted, percent-decoded when it decodes.
 */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1) continue;
    if (pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.codePointAt(0) === 34) value = value.slice(1, -1);
    if (value.includes("%")) {
      try {
        value = decodeURIComponent(value);
      } catch {
        // better-call keeps a value that does not decode as it is
      }
    }
    return value;
  }
  return null;
}

/** The token part of a signed cookie value (`token.signature`). */
const tokenOf = (value: string): string => {
  const dot = value.lastIndexOf(".");
  return dot < 1 ? value : value.slice(0, dot);
};

export class SessionCache {
  private readonly map = new Map<string, Entry>();
  private readonly cookieName: string;
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly maxEntries: number;
  /** Bumped by every eviction: a lookup that started before one is answered but not stored. */
  private epoch = 0;

  constructor(
    private readonly lookup: Lookup,
    opts: SessionCacheOptions,
  ) {
    this.cookieName = opts.cookieName;
    this.ttlMs = opts.ttlMs ?? 30_000;
    this.negativeTtlMs = opts.negativeTtlMs ?? 2_000;
    this.maxEntries = opts.maxEntries ?? 20_000;
  }

  /** The cache key of a request: its session cookie's decoded value, or null without one. */
  private key(headers: Headers): string | null {
    const value = readCookie(headers.get("cookie"), this.cookieName);
    if (!value || value.length > MAX_COOKIE_VALUE) return null;
    return value;
  }

  async resolve(headers: Headers, now = Date.now()): Promise<SessionUser | null> {
    const key = this.key(headers);
    if (!key) {
      // No session cookie we can key: better-auth decides, nothing is cached.
      if (!headers.get("cookie")?.includes(this.cookieName)) return null;
      return (await this.lookup(headers))?.user ?? null;
    }
    const hit = this.map.get(key);
    if (hit && hit.until > now) return hit.session?.user ?? null;
    if (hit) this.map.delete(key);
    const epoch = this.epoch;
    const session = await this.lookup(headers);
    // Stored only when nothing was revoked meanwhile, and only under the token better-auth
    // itself resolved (its cookie parser and ours agree on this request).
    if (epoch === this.epoch && (!session || session.token === tokenOf(key))) {
      const until = session ? Math.min(now + this.ttlMs, session.expiresAt) : now + this.negativeTtlMs;
      if (until > now) {
        this.map.set(key, { session, until });
        if (this.map.size > this.maxEntries) {
          const oldest = this.map.keys().next().value;
          if (oldest !== undefined) this.map.delete(oldest);
        }
      }
    }
    return session?.user ?? null;
  }

  /** Drops the entry of the request's session (every encoding of its cookie). */
  forget(headers: Headers): void {
    const key = this.key(headers);
    if (!key) return;
    const token = tokenOf(key);
    this.epoch++;
    for (const [k, entry] of this.map) {
      if (k === key || tokenOf(k) === token || entry.session?.token === token) this.map.delete(k);
    }
  }

  /** Drops the entries of ended sessions and of every session of the users named. */
  evict(revocation: SessionRevocation): void {
    const sessions = new Set(revocation.sessionIds ?? []);
    const users = new Set(revocation.userIds ?? []);
    if (!sessions.size && !users.size) return;
    this.epoch++;
    for (const [k, entry] of this.map) {
      const s = entry.session;
      if (s && (sessions.has(s.sessionId) || users.has(s.user.id))) this.map.delete(k);
    }
  }

  /** Entries held (for tests and metrics). */
  get size(): number {
    return this.map.size;
  }
}
