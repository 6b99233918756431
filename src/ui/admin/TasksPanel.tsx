"use client";
import { useFormatter, useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "@/ui/primitives/Button";
import { adminApi, AdminApiError, card, field, td, th } from "./admin-api";
import type { EffectName } from "./AdminConsole";
import { LoadState } from "./Status";
import { useAdminData } from "./use-load";
import { isReason } from "@/core/admin/reason";
import { ReasonField } from "./ReasonField";

interface TaskRow {
  id: string;
  userId: string;
  email: string;
  effectId: string;
  state: string;
  credits: number;
  provider: string | null;
  failedCode: string | null;
  createdAt: string;
  renderSeconds: number | null;
}

interface Story {
  task: {
    id: string;
    userId: string;
    email: string;
    effectId: string;
    route: string;
    state: string;
    credits: number;
    attempts: number;
    inputs: number;
    failedReason: string | null;
    failedCode: string | null;
    provider: string | null;
    model: string | null;
    renderSeconds: number | null;
  };
  events: Array<{ at: string; kind: string; detail?: string | number | null }>;
  refunded: boolean;
  refundable: boolean;
}

const STATES = ["queued", "running", "succeeded", "failed"] as const;
const ENGINES = ["local", "comfyui", "fal", "gemini", "openai", "replicate"] as const;

/** Tasks with filters, and one task's story with a refund by hand. */
export function TasksPanel({
  effects,
  names,
  taskId,
  onTask,
  onUser,
}: {
  effects: EffectName[];
  names: Record<string, string>;
  taskId: string | null;
  onTask(id: string | null): void;
  onUser(id: string): void;
}) {
  const t = useTranslations("admin");
  const format = useFormatter();
  const [form, setForm] = useState({ status: "", effect: "", provider: "", user: "", from: "", to: "" });
  const [query, setQuery] = useState("");
  const [more, setMore] = useState<{ rows: TaskRow[]; next: string | null } | null>(null);
  const list = useAdminData<{ rows: TaskRow[]; nextCursor: string | null }>(
    taskId ? null : `/tasks?${query}`,
  );

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) {
      if (!v) continue;
      q.set(k, k === "from" || k === "to" ? new Date(v).toISOString() : v);
    }
    setMore(null);
    setQuery(q.toString());
  };
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));

  if (taskId)
    return (
      <TaskStoryView key={taskId} id={taskId} names={names} onBack={() => onTask(null)} onUser={onUser} />
    );

  const rows = [...(list.data?.rows ?? []), ...(more?.rows ?? [])];
  const next = more ? more.next : (list.data?.nextCursor ?? null);
  return (
    <div className="grid gap-4">
      <form
        onSubmit={apply}
        className={`${card} grid gap-3 sm:grid-cols-3 lg:grid-cols-7`}
        aria-label={t("tasks.filters")}
      >
        <label className="grid gap-1 text-sm">
          {t("tasks.status")}
          <select className={field} value={form.status} onChange={set("status")} name="status">
            <option value="">{t("tasks.any")}</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {t(`tasks.state_${s}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-sm">
          {t("tasks.effect")}
          <select className={field} value={form.effect} onChange={set("effect")} name="effect">
            <option value="">{t("tasks.any")}</option>
            {effects.map((e) => (
              <option key={e.id} value={e.id}>
                {e.title}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-sm">
          {t("tasks.provider")}
          <select className={field} value={form.provider} onChange={set("provider")} name="provider">
            <option value="">{t("tasks.any")}</option>
            {ENGINES.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-sm">
          {t("tasks.user")}
          <input className={field} value={form.user} onChange={set("user")} maxLength={320} name="user" />
        </label>
        <label className="grid gap-1 text-sm">
          {t("tasks.from")}
          <input
            className={field}
            type="datetime-local"
            value={form.from}
            onChange={set("from")}
            name="from"
          />
        </label>
        <label className="grid gap-1 text-sm">
          {t("tasks.to")}
          <input className={field} type="datetime-local" value={form.to} onChange={set("to")} name="to" />
        </label>
        <div className="flex items-end">
          <Button type="submit" className="w-full">
            {t("tasks.apply")}
          </Button>
        </div>
      </form>
      {!list.data ? (
        <LoadState loading={list.loading} error={list.error} onRetry={list.reload} />
      ) : rows.length === 0 ? (
        <p>{t("tasks.empty")}</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full min-w-[40rem] text-sm">
            <thead>
              <tr className="border-b border-zinc-200 dark:border-zinc-800">
                <th className={th}>{t("tasks.created")}</th>
                <th className={th}>{t("tasks.effect")}</th>
                <th className={th}>{t("tasks.status")}</th>
                <th className={th}>{t("tasks.provider")}</th>
                <th className={th}>{t("tasks.renderTime")}</th>
                <th className={th}>{t("users.email")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr
                  key={r.id}
                  className="border-b border-zinc-100 dark:border-zinc-900"
                  data-testid="admin-task-row"
                >
                  <td className={`${td} whitespace-nowrap`}>
                    <button
                      type="button"
                      className="text-violet-700 underline underline-offset-2 focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 dark:text-violet-300"
                      onClick={() => onTask(r.id)}
                      aria-label={t("tasks.open", { id: r.id })}
                    >
                      {format.dateTime(new Date(r.createdAt), { dateStyle: "short", timeStyle: "medium" })}
                    </button>
                  </td>
                  <td className={td}>{names[r.effectId] ?? r.effectId}</td>
                  <td className={td}>{t(`tasks.state_${r.state as "queued"}`)}</td>
                  <td className={td}>{r.provider ?? "–"}</td>
                  <td className={td}>
                    {r.renderSeconds === null
                      ? "–"
                      : t("tasks.seconds", {
                          s: format.number(r.renderSeconds, { maximumFractionDigits: 1 }),
                        })}
                  </td>
                  <td className={`${td} break-all`}>{r.email}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next ? (
        <div>
          <Button
            variant="secondary"
            onClick={async () => {
              const q = new URLSearchParams(query);
              q.set("cursor", next);
              const page = await adminApi<{ rows: TaskRow[]; nextCursor: string | null }>(`/tasks?${q}`);
              setMore({ rows: [...(more?.rows ?? []), ...page.rows], next: page.nextCursor });
            }}
          >
            {t("tasks.more")}
          </Button>
        </div>
      ) : null}
    </div>
  );
}

function TaskStoryView({
  id,
  names,
  onBack,
  onUser,
}: {
  id: string;
  names: Record<string, string>;
  onBack(): void;
  onUser(id: string): void;
}) {
  const t = useTranslations("admin");
  const tErrors = useTranslations("errors");
  const format = useFormatter();
  const { data, loading, error, reload } = useAdminData<Story>(`/tasks/${encodeURIComponent(id)}`);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  if (!data) return <LoadState loading={loading} error={error} onRetry={reload} />;
  const task = data.task;
  const failure = (code: string | null, text: string | null): string => {
    const key = code ? `server.task_${code}` : null;
    return key && tErrors.has(key as "server.busy") ? tErrors(key as "server.busy") : (text ?? code ?? "");
  };
  const eventText = (e: Story["events"][number]): string => {
    switch (e.kind) {
      case "submitted":
        return t("tasks.event_submitted");
      case "charged":
        return t("tasks.event_charged", { n: Number(e.detail ?? 0) });
      case "claimed":
        return t("tasks.event_claimed", { n: Number(e.detail ?? 1) });
      case "rendered":
        return t("tasks.event_rendered", { engine: String(e.detail ?? "?") });
      case "failed":
        return t("tasks.event_failed", { reason: failure(task.failedCode, task.failedReason) });
      case "refunded":
        return t("tasks.event_refunded", { n: Number(e.detail ?? 0) });
      default:
        return `${e.kind} ${e.detail ?? ""}`;
    }
  };
  const refund = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const res = await adminApi<{ refunded: number }>(`/tasks/${task.id}/refund`, { reason });
      const message = t("tasks.refundDone", { n: res.refunded });
      setNotice(message);
      toast.success(message);
      reload();
    } catch (err) {
      const why =
        err instanceof AdminApiError && err.reason === "alreadyRefunded"
          ? t("tasks.alreadyRefunded")
          : err instanceof AdminApiError && err.reason === "taskUnfinished"
            ? t("tasks.unfinished")
            : t("actionFailed", { reason: err instanceof AdminApiError ? err.message : String(err) });
      setNotice(why);
      toast.error(why);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="grid gap-4" aria-labelledby="admin-task-h" data-testid="admin-task">
      <div>
        <Button variant="secondary" onClick={onBack}>
          {t("tasks.back")}
        </Button>
      </div>
      <div className={card}>
        <h2 id="admin-task-h" className="text-xl font-semibold">
          {names[task.effectId] ?? task.effectId} · {t(`tasks.state_${task.state as "queued"}`)}
        </h2>
        <p className="font-mono text-xs break-all text-zinc-500">{task.id}</p>
        <dl className="mt-3 grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
          <dt className="text-zinc-600 dark:text-zinc-400">{t("users.email")}</dt>
          <dd>
            <button
              type="button"
              className="underline underline-offset-2"
              onClick={() => onUser(task.userId)}
            >
              {task.email}
            </button>
          </dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("tasks.credits")}</dt>
          <dd>{task.credits}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("tasks.provider")}</dt>
          <dd>{task.provider ?? "–"}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("tasks.model")}</dt>
          <dd>{task.model ?? "–"}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("tasks.renderTime")}</dt>
          <dd>
            {task.renderSeconds === null
              ? "–"
              : t("tasks.seconds", { s: format.number(task.renderSeconds, { maximumFractionDigits: 2 }) })}
          </dd>
          {task.state === "failed" ? (
            <>
              <dt className="text-zinc-600 dark:text-zinc-400">{t("tasks.failure")}</dt>
              <dd data-testid="admin-task-failure">{failure(task.failedCode, task.failedReason)}</dd>
            </>
          ) : null}
        </dl>
      </div>
      <section className={card} aria-labelledby="admin-task-story">
        <h3 id="admin-task-story" className="font-semibold">
          {t("tasks.story")}
        </h3>
        <ol className="mt-2 grid gap-1 text-sm">
          {data.events.map((e, i) => (
            <li key={i} className="flex gap-3" data-testid="admin-task-event">
              <time className="shrink-0 text-zinc-600 tabular-nums dark:text-zinc-400" dateTime={e.at}>
                {format.dateTime(new Date(e.at), { timeStyle: "medium" })}
              </time>
              <span>{eventText(e)}</span>
            </li>
          ))}
        </ol>
      </section>
      {notice ? (
        <p
          role="status"
          className="rounded-lg bg-zinc-100 px-3 py-2 text-sm dark:bg-zinc-900"
          data-testid="admin-task-notice"
        >
          {notice}
        </p>
      ) : null}
      <form onSubmit={refund} className={`${card} grid gap-3`}>
        {data.refunded ? <p className="text-sm font-medium">{t("tasks.refunded")}</p> : null}
        <ReasonField value={reason} onChange={setReason} name="refundReason" />
        <div>
          <Button type="submit" disabled={busy || !isReason(reason)}>
            {t("tasks.refund")}
          </Button>
        </div>
      </form>
    </section>
  );
}
