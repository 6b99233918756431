import { sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * What a failed task's `failedCode` says about the engine, for the console's error rates
 * (ADR 018). A task fails with a refund for three kinds of reasons:
 * - "refused": the user's input was refused by rules while the engine worked as it should: an
 *   effect's input rules (no face, several people, may show a minor...), the output screen
 *   (nsfw), or a hosted provider's own filters and photo checks. Shown apart as refused
 *   inputs, never as engine errors (an effect with strict rules is not a broken engine).
 * - "other": ended by the server before or outside the render: the upload was gone, the
 *   account was suspended or deleted. Neither an error nor a refusal; left out of the rates.
 * - "engine": everything else (a provider down or busy, a timeout, a crash, an unusable
 *   output, an unknown code): the engine's errors.
 *
 * Every failure code that has a message (`errors.server.task_<code>` or `input_<code>` in
 * messages/en/errors.json) is listed here; failures.test.ts fails on a new one not sorted.
 */

export type FailureKind = "engine" | "refused" | "other";

/** The user's input refused by the rules; the engine itself did its job. */
export const REFUSED_INPUT_CODES = [
  // An effect's input rules (checked before charging where possible, ADR 008, and at render).
  "noFace",
  "tooSmall",
  "severalFaces",
  "notFrontal",
  "headwear",
  "noWatermark",
  "mayBeMinor",
  "severalPeople",
  "noSubject",
  "noUpperBody",
  "chestOutOfFrame",
  "bodyTurned",
  "chestCovered",
  "changeNotVisible",
  "hairOverFace",
  "hairTouchesOther",
  "needTwoFaces",
  "needTwoPhotos",
  "noShoulders",
  "freeFormMinor",
  "promptRequired",
  // Content safety on the output (ADR 012).
  "nsfw",
  // A hosted provider's filters and checks refused this photo or request.
  "providerUnreadablePhoto",
  "providerSafetyBlocked",
  "providerProhibited",
  "providerRecitation",
  "providerBlockedTerms",
  "providerRefused",
] as const;

/** Ended by the server, not by a render: neither an engine error nor a refusal. */
export const OTHER_FAILURE_CODES = ["sourceGone", "accountSuspended", "accountDeleted"] as const;

/** The engine's errors (listed so that every known code is sorted; unknown codes count here too). */
export const ENGINE_FAILURE_CODES = [
  "engine",
  "timeout",
  "interrupted",
  "internal",
  "notAvailable",
  "providerNoImage",
  "providerBadOutput",
  "providerUnavailable",
  "providerTimeout",
  "providerUnexpected",
  "providerBusy",
] as const;

const refused = new Set<string>(REFUSED_INPUT_CODES);
const other = new Set<string>(OTHER_FAILURE_CODES);

export function failureKind(code: string | null | undefined): FailureKind {
  if (code && refused.has(code)) return "refused";
  if (code && other.has(code)) return "other";
  return "engine";
}

const list = (codes: readonly string[]) =>
  sql.join(
    codes.map((c) => sql`${c}`),
    sql`, `,
  );

/**
 * SQL counts over task rows: `failed` (engine errors), `refused` (refused inputs) and
 * `excluded` (refused plus ended by the server), each `count(*) filter (...)::int`.
 */
export function failureCounts(
  state: AnyPgColumn,
  code: AnyPgColumn,
): {
  failed: SQL<number>;
  refused: SQL<number>;
  excluded: SQL<number>;
} {
  const isRefused = sql`coalesce(${code}, '') in (${list(REFUSED_INPUT_CODES)})`;
  const isOther = sql`coalesce(${code}, '') in (${list(OTHER_FAILURE_CODES)})`;
  return {
    failed: sql<number>`count(*) filter (where ${state} = 'failed' and not ${isRefused} and not ${isOther})::int`,
    refused: sql<number>`count(*) filter (where ${state} = 'failed' and ${isRefused})::int`,
    excluded: sql<number>`count(*) filter (where ${state} = 'failed' and (${isRefused} or ${isOther}))::int`,
  };
}

/**
 * The engine error rate: engine errors among the finished tasks that reached a verdict about
 * the engine (finished minus refused inputs and tasks ended by the server). Null without any.
 */
export function errorRate(finished: number, failed: number, excluded: number): number | null {
  const judged = finished - excluded;
  return judged > 0 ? failed / judged : null;
}
