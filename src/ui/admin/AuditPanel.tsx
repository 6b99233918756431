"use client";
import { useFormatter, useTranslations } from "next-intl";
import { useState } from "react";
import { Button } from "@/ui/primitives/Button";
import { adminApi, td, th } from "./admin-api";
import { LoadState } from "./Status";
import { useAdminData } from "./use-load";

interface AuditRow {
  id: number;
  actorId: string;
  actorEmail: string | null;
  action: string;
  targetType: string;
  targetId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason: string | null;
  createdAt: string;
}

const short = (v: Record<string, unknown> | null) => (v ? JSON.stringify(v) : "∅");

/** The audit log, newest first (append-only; "show older" pages back). */
export function AuditPanel() {
  const t = useTranslations("admin");
  const format = useFormatter();
  const { data, loading, error, reload } = useAdminData<{ rows: AuditRow[]; nextBefore: number | null }>(
    "/audit?limit=50",
  );
  const [older, setOlder] = useState<{ rows: AuditRow[]; next: number | null } | null>(null);
  if (!data) return <LoadState loading={loading} error={error} onRetry={reload} />;
  const rows = [...data.rows, ...(older?.rows ?? [])];
  const next = older ? older.next : data.nextBefore;
  if (!rows.length) return <p>{t("audit.empty")}</p>;
  return (
    <div>
      <div className="overflow-x-auto">
        <table className="w-full min-w-[40rem] text-sm">
          <thead>
            <tr className="border-b border-zinc-200 dark:border-zinc-800">
              <th className={th}>{t("audit.when")}</th>
              <th className={th}>{t("audit.who")}</th>
              <th className={th}>{t("audit.action")}</th>
              <th className={th}>{t("audit.target")}</th>
              <th className={th}>{t("audit.change")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr
                key={r.id}
                className="border-b border-zinc-100 dark:border-zinc-900"
                data-testid="audit-row"
              >
                <td className={`${td} whitespace-nowrap`}>
                  {format.dateTime(new Date(r.createdAt), { dateStyle: "short", timeStyle: "medium" })}
                </td>
                <td className={td}>{r.actorEmail ?? t("audit.deletedAccount")}</td>
                <td className={`${td} font-mono text-xs`}>{r.action}</td>
                <td className={`${td} font-mono text-xs break-all`}>
                  {r.targetType}:{r.targetId.startsWith("deleted_") ? t("audit.deletedAccount") : r.targetId}
                </td>
                <td className={`${td} font-mono text-xs break-all`}>
                  {short(r.before)} → {short(r.after)}
                  {r.reason ? (
                    <span className="block font-sans text-zinc-600 dark:text-zinc-400">{r.reason}</span>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {next ? (
        <Button
          variant="secondary"
          className="mt-3"
          onClick={async () => {
            const page = await adminApi<{ rows: AuditRow[]; nextBefore: number | null }>(
              `/audit?limit=50&before=${next}`,
            );
            setOlder({ rows: [...(older?.rows ?? []), ...page.rows], next: page.nextBefore });
          }}
        >
          {t("audit.more")}
        </Button>
      ) : null}
    </div>
  );
}
