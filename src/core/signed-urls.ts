import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed, expiring URLs for stored files, for readers without the owner's session
 * (a hosted provider fetching an input, a shared link). The signature covers the kind,
 * the id and the expiry time.
 */
export type FileKind = "uploads" | "images";

export class UrlSigner {
  constructor(private readonly secret: string) {}

  private mac(kind: FileKind, id: string, expires: number): string {
    return createHmac("sha256", this.secret).update(`${kind}:${id}:${expires}`).digest("base64url");
  }

  /** A path with `?expires=…&sig=…`, valid for ttlSeconds. */
  sign(kind: FileKind, id: string, ttlSeconds: number, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + ttlSeconds;
    return `/api/${kind}/${id}?expires=${expires}&sig=${this.mac(kind, id, expires)}`;
  }

  verify(
    kind: FileKind,
    id: string,
    expires: string | undefined,
    sig: string | undefined,
    now = Date.now(),
  ): boolean {
    if (!expires || !sig || !/^\d{1,12}$/.test(expires)) return false;
    const exp = Number(expires);
    if (exp * 1000 < now) return false;
    const expected = Buffer.from(this.mac(kind, id, exp));
    const given = Buffer.from(sig);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
