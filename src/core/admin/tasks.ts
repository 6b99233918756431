import { and, asc, desc, eq, gte, lt, lte, or, sql } from "drizzle-orm";
import { z } from "zod";
import { getEffect } from "../catalogue";
import { addCreditsTx } from "../credits";
import type { Db } from "../db";
import { AppError } from "../errors";
import { creditEntry, image, task, taskInput, TASK_STATES, user } from "../schema";
import { writeAuditTx } from "./audit";
import type { Actor } from "./roles";
import { REASON_MAX, REASON_MIN } from "./reason";

/** The console's tasks: a filtered list, one task's story, a refund by hand. */

const id = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/);

export const taskQuerySchema = z
  .object({
    status: z.enum(TASK_STATES).optional(),
    effect: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,80}$/)
      .optional(),
    provider: z
      .string()
      .regex(/^[a-z0-9-]{1,40}$/)
      .optional(),
    user: z.string().trim().max(320).optional(),
    from: z.coerce.date().optional(),
    to: z.coerce.date().optional(),
    /** The last row's `createdAt|id` of the previous page. */
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .strict();

export interface TaskRow {
  id: string;
  userId: string;
  email: string;
  effectId: string;
  state: string;
  credits: number;
  provider: string | null;
  failedCode: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  /** Render time (claimed to finished), seconds. */
  renderSeconds: number | null;
}

/** The provider a task's figures count under: its own column, else its image's. */
const providerOf = sql<string | null>`coalesce(${task.provider}, ${image.provider})`;

export async function listTasks(
  db: Db,
  q: z.output<typeof taskQuerySchema>,
): Promise<{ rows: TaskRow[]; nextCursor: string | null }> {
  let cursor: { at: Date; id: string } | null = null;
  if (q.cursor) {
    const [at, cid] = q.cursor.split("|");
    const date = new Date(at ?? "");
    if (!cid || Number.isNaN(date.getTime()) || !id.safeParse(cid).success)
      throw new AppError("VALIDATION", "Bad cursor.");
    cursor = { at: date, id: cid };
  }
  const rows = await db
    .select({
      id: task.id,
      userId: task.userId,
      email: user.email,
      effectId: task.effectId,
      state: task.state,
      credits: task.credits,
      provider: providerOf,
      failedCode: task.failedCode,
      createdAt: task.createdAt,
      startedAt: task.startedAt,
      finishedAt: task.finishedAt,
    })
    .from(task)
    .innerJoin(user, eq(user.id, task.userId))
    .leftJoin(image, eq(image.taskId, task.id))
    .where(
      and(
        q.status ? eq(task.state, q.status) : undefined,
        q.effect ? eq(task.effectId, q.effect) : undefined,
        q.provider ? sql`${providerOf} = ${q.provider}` : undefined,
        q.user
          ? q.user.includes("@")
            ? eq(sql`lower(${user.email})`, q.user.toLowerCase())
            : eq(task.userId, q.user)
          : undefined,
        q.from ? gte(task.createdAt, q.from) : undefined,
        q.to ? lte(task.createdAt, q.to) : undefined,
        cursor
          ? or(lt(task.createdAt, cursor.at), and(eq(task.createdAt, cursor.at), lt(task.id, cursor.id)))
          : undefined,
      ),
    )
    .orderBy(desc(task.createdAt), desc(task.id))
    .limit(q.limit + 1);
  const more = rows.length > q.limit;
  const page = rows.slice(0, q.limit).map(({ startedAt, ...r }) => ({
    ...r,
    renderSeconds: startedAt && r.finishedAt ? (r.finishedAt.getTime() - startedAt.getTime()) / 1000 : null,
  }));
  const last = page[page.length - 1];
  return { rows: page, nextCursor: more && last ? `${last.createdAt.toISOString()}|${last.id}` : null };
}

export interface TaskStory {
  task: {
    id: string;
    userId: string;
    email: string;
    effectId: string;
    effectTitle: string;
    route: string;
    state: string;
    credits: number;
    attempts: number;
    inputs: number;
    failedReason: string | null;
    failedCode: string | null;
    provider: string | null;
    model: string | null;
    imageId: string | null;
    renderSeconds: number | null;
  };
  /** In time order: submitted, charged, claimed, rendered, settled or failed, refunded. */
  events: Array<{ at: Date; kind: string; detail?: string | number | null }>;
  ledger: Array<{ amount: number; kind: string; key: string; note: string | null; createdAt: Date }>;
  refunded: boolean;
  /** Whether a refund by hand is possible now (ended, not refunded yet). */
  refundable: boolean;
}

export async function taskStory(db: Db, taskId: string): Promise<TaskStory | null> {
  if (!id.safeParse(taskId).success) return null;
  const [row] = await db
    .select({ t: task, email: user.email, img: image })
    .from(task)
    .innerJoin(user, eq(user.id, task.userId))
    .leftJoin(image, eq(image.taskId, task.id))
    .where(eq(task.id, taskId));
  if (!row) return null;
  const { t, img } = row;
  const [ledger, [inputs]] = await Promise.all([
    db
      .select({
        amount: creditEntry.amount,
        kind: creditEntry.kind,
        key: creditEntry.idempotencyKey,
        note: creditEntry.note,
        createdAt: creditEntry.createdAt,
      })
      .from(creditEntry)
      .where(eq(creditEntry.taskId, taskId))
      .orderBy(asc(creditEntry.createdAt), asc(creditEntry.id)),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(taskInput)
      .where(eq(taskInput.taskId, taskId)),
  ]);
  const refunded = ledger.some((e) => e.key === `refund:${taskId}`);
  const provider = t.provider ?? img?.provider ?? null;
  const renderSeconds =
    t.startedAt && t.finishedAt ? (t.finishedAt.getTime() - t.startedAt.getTime()) / 1000 : null;
  // Sorted in the order things happen: a ledger entry is stamped with its transaction's start
  // (the database clock) and the task's times by the application, so an entry never sorts
  // before the step it belongs to (the charge after the submit, a refund after the end).
  const events: Array<TaskStory["events"][number] & { order: number }> = [
    { at: t.createdAt, kind: "submitted", order: t.createdAt.getTime() },
  ];
  const ended = t.finishedAt ?? t.createdAt;
  for (const e of ledger) {
    const kind = e.key.startsWith("charge:") ? "charged" : e.key.startsWith("refund:") ? "refunded" : e.kind;
    const anchor = kind === "refunded" ? ended : t.createdAt;
    events.push({
      at: e.createdAt,
      kind,
      detail: Math.abs(e.amount),
      order: Math.max(e.createdAt.getTime(), anchor.getTime()),
    });
  }
  if (t.startedAt)
    events.push({ at: t.startedAt, kind: "claimed", detail: t.attempts, order: t.startedAt.getTime() });
  if (t.finishedAt)
    events.push({
      at: t.finishedAt,
      kind: t.state === "succeeded" ? "rendered" : "failed",
      detail: t.state === "succeeded" ? provider : (t.failedCode ?? t.failedReason),
      order: t.finishedAt.getTime(),
    });
  const rank: Record<string, number> = {
    submitted: 0,
    charged: 1,
    claimed: 2,
    rendered: 3,
    failed: 3,
    refunded: 4,
  };
  events.sort((a, b) => a.order - b.order || (rank[a.kind] ?? 5) - (rank[b.kind] ?? 5));
  return {
    task: {
      id: t.id,
      userId: t.userId,
      email: row.email,
      effectId: t.effectId,
      effectTitle: getEffect(t.effectId)?.title ?? t.effectId,
      route: t.route,
      state: t.state,
      credits: t.credits,
      attempts: t.attempts,
      inputs: inputs?.n ?? 0,
      failedReason: t.failedReason,
      failedCode: t.failedCode,
      provider,
      model: img?.model ?? null,
      imageId: img?.id ?? null,
      renderSeconds,
    },
    events: events.map(({ order: _order, ...e }) => e),
    ledger,
    refunded,
    refundable: !refunded && (t.state === "succeeded" || t.state === "failed"),
  };
}

export const refundSchema = z.object({ reason: z.string().trim().min(REASON_MIN).max(REASON_MAX) }).strict();

/**
 * Refunds a task by hand (a bad result): its credits back under `refund:{task}`, the very
 * key of the automatic refund, so a task is refunded at most once in total: a failed task
 * (already refunded when it failed) is refused, and two operators clicking at once refund
 * once. An unfinished task is refused too (it is refunded automatically if it fails).
 */
export async function refundTask(
  db: Db,
  actor: Actor,
  taskId: string,
  body: unknown,
): Promise<{ refunded: number }> {
  const parsed = refundSchema.safeParse(body);
  if (!parsed.success)
    throw new AppError("VALIDATION", `Send { reason: ${REASON_MIN} to ${REASON_MAX} characters }.`);
  if (!id.safeParse(taskId).success) throw new AppError("NOT_FOUND", "Not found");
  return db.transaction(async (tx) => {
    const [t] = await tx.select().from(task).where(eq(task.id, taskId)).for("update");
    if (!t) throw new AppError("NOT_FOUND", "Not found");
    if (t.state === "queued" || t.state === "running")
      throw new AppError("CONFLICT", "This task has not finished yet.", { reason: "taskUnfinished" });
    const applied = await addCreditsTx(tx, {
      userId: t.userId,
      amount: t.credits,
      kind: "refund",
      key: `refund:${taskId}`,
      taskId,
      note: getEffect(t.effectId)?.title ?? t.effectId,
    });
    if (!applied)
      throw new AppError("CONFLICT", "This task has already been refunded.", { reason: "alreadyRefunded" });
    await writeAuditTx(tx, {
      actor,
      action: "task.refund",
      targetType: "task",
      targetId: taskId,
      before: { state: t.state, refunded: false, userId: t.userId },
      after: { refunded: true, credits: t.credits },
      reason: parsed.data.reason,
    });
    return { refunded: t.credits };
  });
}
