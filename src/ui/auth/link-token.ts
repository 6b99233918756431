/** A token from an e-mail link's query (`?token=`): a bounded, URL-safe string, or null. */
export function linkToken(value: string | string[] | undefined): string | null {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === "string" && v.length > 0 && v.length <= 4096 && /^[A-Za-z0-9._-]+$/.test(v) ? v : null;
}
