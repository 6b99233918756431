"use client";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { toast } from "sonner";
import { adminApi, AdminApiError, field, td, th } from "./admin-api";
import { LoadState } from "./Status";
import { useAdminData } from "./use-load";

interface EffectRow {
  id: string;
  enabled: boolean;
  engine: string | null;
}

/** Each effect on or off and its engine; a change takes effect at once in every process. */
export function EffectsPanel({ names }: { names: Record<string, string> }) {
  const t = useTranslations("admin");
  const { data, loading, error, reload } = useAdminData<{ effects: EffectRow[]; engines: string[] }>(
    "/effects",
  );
  const [rows, setRows] = useState<Record<string, EffectRow>>({});
  const [busy, setBusy] = useState<string | null>(null);

  const change = async (id: string, patch: { enabled?: boolean; engine?: string | null }) => {
    // Shown at once (a switch answers the click); put back if the server refuses.
    const previous = rows[id] ?? data?.effects.find((e) => e.id === id);
    if (previous) setRows((r) => ({ ...r, [id]: { ...previous, ...patch } }));
    setBusy(id);
    try {
      const { effect } = await adminApi<{ effect: EffectRow }>(`/effects/${id}`, patch);
      setRows((r) => ({ ...r, [id]: effect }));
      const name = names[id] ?? id;
      toast.success(
        patch.engine !== undefined
          ? t("effects.engineSet", { effect: name, engine: effect.engine ?? t("effects.envDefault") })
          : effect.enabled
            ? t("effects.switchedOn", { effect: name })
            : t("effects.switchedOff", { effect: name }),
      );
    } catch (err) {
      if (previous) setRows((r) => ({ ...r, [id]: previous }));
      toast.error(t("actionFailed", { reason: err instanceof AdminApiError ? err.message : String(err) }));
    } finally {
      setBusy(null);
    }
  };

  if (!data) return <LoadState loading={loading} error={error} onRetry={reload} />;
  const list = data.effects
    .map((e) => rows[e.id] ?? e)
    .sort((a, b) => (names[a.id] ?? a.id).localeCompare(names[b.id] ?? b.id));
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-[28rem] text-sm">
        <thead>
          <tr className="border-b border-zinc-200 dark:border-zinc-800">
            <th className={th}>{t("effects.effect")}</th>
            <th className={th}>{t("effects.enabled")}</th>
            <th className={th}>{t("effects.engine")}</th>
          </tr>
        </thead>
        <tbody>
          {list.map((e) => {
            const name = names[e.id] ?? e.id;
            return (
              <tr
                key={e.id}
                className="border-b border-zinc-100 dark:border-zinc-900"
                data-testid={`effect-row-${e.id}`}
              >
                <td className={td}>
                  <span className="font-medium">{name}</span>
                  <span className="block text-xs text-zinc-500">{e.id}</span>
                </td>
                <td className={td}>
                  <label className="inline-flex items-center gap-2">
                    <input
                      type="checkbox"
                      role="switch"
                      className="h-5 w-5 accent-violet-600"
                      checked={e.enabled}
                      aria-busy={busy === e.id}
                      aria-label={`${t("effects.enabled")}: ${name}`}
                      onChange={(ev) => void change(e.id, { enabled: ev.target.checked })}
                    />
                  </label>
                </td>
                <td className={td}>
                  <select
                    className={field}
                    value={e.engine ?? ""}
                    disabled={busy === e.id}
                    aria-label={`${t("effects.engine")}: ${name}`}
                    onChange={(ev) => void change(e.id, { engine: ev.target.value || null })}
                  >
                    <option value="">{t("effects.envDefault")}</option>
                    {data.engines.map((id) => (
                      <option key={id} value={id}>
                        {id}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
