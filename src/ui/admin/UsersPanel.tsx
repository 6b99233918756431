"use client";
import { useFormatter, useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "@/ui/primitives/Button";
import { adminApi, AdminApiError, card, field, newIdempotencyKey, td, th } from "./admin-api";
import { LoadState } from "./Status";
import { useAdminData } from "./use-load";
import { isReason } from "@/core/admin/reason";
import { ReasonField } from "./ReasonField";

interface UserSummary {
  id: string;
  email: string;
  name: string;
  role: string;
  emailVerified: boolean;
  suspended: boolean;
  createdAt: string;
  balance: number;
}

interface UserDetail extends UserSummary {
  plan: { planId: string; status: string; periodEnd: string; provider: string } | null;
  ledger: Array<{
    id: number;
    amount: number;
    kind: string;
    note: string | null;
    createdAt: string;
    effectId: string | null;
  }>;
  tasks: Array<{ id: string; effectId: string; state: string; credits: number; createdAt: string }>;
  taskCounts: Record<string, number>;
  uploads: number;
  lastActive: string | null;
}

/** Search by e-mail or id, then one account: credits by hand, suspension, role. */
export function UsersPanel({
  names,
  userId,
  onUser,
  onTask,
}: {
  names: Record<string, string>;
  userId: string | null;
  onUser(id: string | null): void;
  onTask(id: string): void;
}) {
  const t = useTranslations("admin");
  const [q, setQ] = useState("");
  const [search, setSearch] = useState<string | null>(userId ? null : "");
  const results = useAdminData<{ users: UserSummary[] }>(
    search === null ? null : `/users?q=${encodeURIComponent(search)}`,
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onUser(null);
    setSearch(q.trim());
  };
  return (
    <div className="grid gap-4">
      <form role="search" onSubmit={submit} className="flex flex-col gap-2 sm:flex-row">
        <label htmlFor="admin-user-search" className="sr-only">
          {t("users.search")}
        </label>
        <input
          id="admin-user-search"
          type="search"
          className={field}
          placeholder={t("users.search")}
          value={q}
          maxLength={320}
          onChange={(e) => setQ(e.target.value)}
        />
        <Button type="submit">{t("users.searchButton")}</Button>
      </form>
      {userId ? (
        <UserCard key={userId} id={userId} names={names} onBack={() => onUser(null)} onTask={onTask} />
      ) : results.data ? (
        results.data.users.length ? (
          <ul className="grid gap-2">
            {results.data.users.map((u) => (
              <li key={u.id}>
                <button
                  type="button"
                  onClick={() => onUser(u.id)}
                  className={`${card} w-full text-start hover:bg-zinc-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 dark:hover:bg-zinc-900`}
                  data-testid="admin-user-result"
                >
                  <span className="font-medium break-all">{u.email}</span>
                  <span className="ms-2 text-sm text-zinc-600 dark:text-zinc-400">
                    {t("users.balance")}: {u.balance}
                    {u.role === "admin" ? ` · ${t("users.roleAdmin")}` : ""}
                    {u.suspended ? ` · ${t("users.suspended")}` : ""}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p>{t("users.noResults")}</p>
        )
      ) : (
        <LoadState loading={results.loading} error={results.error} onRetry={results.reload} />
      )}
    </div>
  );
}

function UserCard({
  id,
  names,
  onBack,
  onTask,
}: {
  id: string;
  names: Record<string, string>;
  onBack(): void;
  onTask(id: string): void;
}) {
  const t = useTranslations("admin");
  const format = useFormatter();
  const { data, loading, error, reload } = useAdminData<{ user: UserDetail }>(
    `/users/${encodeURIComponent(id)}`,
  );
  const [amount, setAmount] = useState("10");
  const [reason, setReason] = useState("");
  const [key, setKey] = useState(newIdempotencyKey);
  const [suspendReason, setSuspendReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  const run = async (fn: () => Promise<string>) => {
    setBusy(true);
    setNotice(null);
    try {
      const message = await fn();
      setNotice(message);
      toast.success(message);
      reload();
    } catch (err) {
      toast.error(t("actionFailed", { reason: err instanceof AdminApiError ? err.message : String(err) }));
    } finally {
      setBusy(false);
    }
  };

  if (!data) return <LoadState loading={loading} error={error} onRetry={reload} />;
  const u = data.user;
  const date = (d: string | null) =>
    d ? format.dateTime(new Date(d), { dateStyle: "medium", timeStyle: "short" }) : t("never");

  return (
    <section aria-labelledby="admin-user-h" className="grid gap-4" data-testid="admin-user">
      <div>
        <Button variant="secondary" onClick={onBack}>
          {t("users.back")}
        </Button>
      </div>
      <div className={card}>
        <h2 id="admin-user-h" className="text-xl font-semibold break-all">
          {u.email}
        </h2>
        <p className="font-mono text-xs text-zinc-500">{u.id}</p>
        <dl className="mt-3 grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
          <dt className="text-zinc-600 dark:text-zinc-400">{t("users.balance")}</dt>
          <dd data-testid="admin-user-balance">{u.balance}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("users.plan")}</dt>
          <dd>
            {u.plan
              ? t("users.planLine", {
                  plan: u.plan.planId,
                  status: u.plan.status,
                  date: date(u.plan.periodEnd),
                })
              : t("users.planFree")}
          </dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("users.signedUp")}</dt>
          <dd>{date(u.createdAt)}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("users.lastActive")}</dt>
          <dd>{date(u.lastActive)}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("users.uploads")}</dt>
          <dd>{u.uploads}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("users.tasks")}</dt>
          <dd>
            {Object.entries(u.taskCounts)
              .map(([state, n]) => `${t(`tasks.state_${state as "queued"}`)}: ${n}`)
              .join(" · ") || t("none")}
          </dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("users.role")}</dt>
          <dd>
            {u.role === "admin" ? t("users.roleAdmin") : t("users.roleUser")} ·{" "}
            {u.emailVerified ? t("users.verified") : t("users.unverified")} ·{" "}
            <span className={u.suspended ? "font-semibold text-red-700 dark:text-red-400" : ""}>
              {u.suspended ? t("users.suspended") : t("users.active")}
            </span>
          </dd>
        </dl>
      </div>

      {notice ? (
        <p
          role="status"
          className="rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100"
        >
          {notice}
        </p>
      ) : null}

      <form
        className={`${card} grid gap-3`}
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const res = await adminApi<{ applied: boolean; balance: number }>(`/users/${u.id}/credits`, {
              amount: Number(amount),
              reason,
              idempotencyKey: key,
            });
            setKey(newIdempotencyKey());
            setReason("");
            return res.applied
              ? t("users.granted", { n: Number(amount), balance: res.balance })
              : t("users.alreadyApplied");
          });
        }}
      >
        <h3 className="font-semibold">{t("users.credits")}</h3>
        <div className="grid gap-3 sm:grid-cols-[10rem_1fr]">
          <label className="grid gap-1 text-sm">
            {t("users.amount")}
            <input
              className={field}
              type="number"
              inputMode="numeric"
              step={1}
              min={-100000}
              max={100000}
              required
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
              name="amount"
            />
          </label>
          <ReasonField value={reason} onChange={setReason} name="reason" describedBy="admin-reason-hint" />
        </div>
        <p id="admin-reason-hint" className="text-xs text-zinc-600 dark:text-zinc-400">
          {t("reasonHint")}
        </p>
        <div>
          <Button type="submit" disabled={busy || !Number(amount) || !isReason(reason)}>
            {t("users.apply")}
          </Button>
        </div>
      </form>

      <form
        className={`${card} grid gap-3`}
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const res = await adminApi<{ suspended: boolean; tasksRefunded: number }>(
              `/users/${u.id}/suspend`,
              {
                suspended: !u.suspended,
                reason: suspendReason,
              },
            );
            setSuspendReason("");
            return res.suspended
              ? t("users.suspendDone", { n: res.tasksRefunded })
              : t("users.unsuspendDone");
          });
        }}
      >
        <ReasonField value={suspendReason} onChange={setSuspendReason} name="suspendReason" />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="secondary" disabled={busy || !isReason(suspendReason)}>
            {u.suspended ? t("users.unsuspend") : t("users.suspend")}
          </Button>
          <Button
            variant="secondary"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                await adminApi(`/users/${u.id}/role`, { role: u.role === "admin" ? "user" : "admin" });
                return t("saved");
              })
            }
          >
            {u.role === "admin" ? t("users.removeAdmin") : t("users.makeAdmin")}
          </Button>
        </div>
      </form>

      <section className={card} aria-labelledby="admin-user-tasks">
        <h3 id="admin-user-tasks" className="font-semibold">
          {t("users.recentTasks")}
        </h3>
        {u.tasks.length ? (
          <ul className="mt-2 grid gap-1 text-sm">
            {u.tasks.map((task) => (
              <li key={task.id}>
                <button
                  type="button"
                  className="text-start underline-offset-2 hover:underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600"
                  onClick={() => onTask(task.id)}
                  aria-label={t("tasks.open", { id: task.id })}
                >
                  {date(task.createdAt)} · {names[task.effectId] ?? task.effectId} ·{" "}
                  {t(`tasks.state_${task.state as "queued"}`)}
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm">{t("none")}</p>
        )}
      </section>

      <section className={card} aria-labelledby="admin-user-ledger">
        <h3 id="admin-user-ledger" className="font-semibold">
          {t("users.ledger")}
        </h3>
        <div className="overflow-x-auto">
          <table className="mt-2 w-full min-w-[28rem] text-sm">
            <tbody>
              {u.ledger.map((e) => (
                <tr
                  key={e.id}
                  className="border-b border-zinc-100 dark:border-zinc-900"
                  data-testid="admin-ledger-row"
                >
                  <td className={`${td} whitespace-nowrap`}>{date(e.createdAt)}</td>
                  <td className={`${td} font-mono text-xs`}>{e.kind}</td>
                  <td className={td}>{e.note ?? ""}</td>
                  <th scope="row" className={`${th} text-end tabular-nums`}>
                    {e.amount > 0 ? `+${e.amount}` : e.amount}
                  </th>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </section>
  );
}
