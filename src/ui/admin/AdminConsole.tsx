"use client";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { AuditPanel } from "./AuditPanel";
import { EffectsPanel } from "./EffectsPanel";
import { EnginesPanel } from "./EnginesPanel";
import { OverviewPanel } from "./OverviewPanel";
import { TasksPanel } from "./TasksPanel";
import { UsersPanel } from "./UsersPanel";

const TABS = ["overview", "users", "tasks", "effects", "engines", "audit"] as const;
type Tab = (typeof TABS)[number];

export interface EffectName {
  id: string;
  title: string;
}

/**
 * The console: six sections behind a tab list (arrow keys, Home and End move between tabs,
 * as the WAI-ARIA tabs pattern says). The open section and an opened user or task are kept in
 * the address (`?tab=…&user=…&task=…`), so a support answer can link to them.
 */
export function AdminConsole({
  me,
  effects,
  initial,
}: {
  me: { id: string; email: string };
  effects: EffectName[];
  /** From the address: `?tab=…&user=…&task=…`. */
  initial: { tab?: string; user?: string; task?: string };
}) {
  const t = useTranslations("admin");
  const [tab, setTab] = useState<Tab>(
    (TABS as readonly string[]).includes(initial.tab ?? "") ? (initial.tab as Tab) : "overview",
  );
  const [userId, setUserId] = useState<string | null>(initial.user ?? null);
  const [taskId, setTaskId] = useState<string | null>(initial.task ?? null);
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);

  useEffect(() => {
    const q = new URLSearchParams({ tab });
    if (tab === "users" && userId) q.set("user", userId);
    if (tab === "tasks" && taskId) q.set("task", taskId);
    window.history.replaceState(null, "", `${window.location.pathname}?${q}`);
  }, [tab, userId, taskId]);

  const onKey = (e: KeyboardEvent, i: number) => {
    const next =
      e.key === "ArrowRight"
        ? (i + 1) % TABS.length
        : e.key === "ArrowLeft"
          ? (i - 1 + TABS.length) % TABS.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? TABS.length - 1
              : null;
    if (next === null) return;
    e.preventDefault();
    // Right-to-left pages: the arrows follow the reading direction.
    const rtl = document.dir === "rtl";
    const target =
      rtl && (e.key === "ArrowRight" || e.key === "ArrowLeft")
        ? (i * 2 - next + TABS.length) % TABS.length
        : next;
    setTab(TABS[target]!);
    tabs.current[target]?.focus();
  };

  const names = Object.fromEntries(effects.map((e) => [e.id, e.title]));
  return (
    <div className="mt-4">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{me.email}</p>
      <div
        role="tablist"
        aria-label={t("sections")}
        className="mt-4 flex gap-1 overflow-x-auto border-b border-zinc-200 dark:border-zinc-800"
      >
        {TABS.map((id, i) => (
          <button
            key={id}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`admin-tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`admin-panel-${id}`}
            tabIndex={tab === id ? 0 : -1}
            onClick={() => setTab(id)}
            onKeyDown={(e) => onKey(e, i)}
            className={`shrink-0 border-b-2 px-3 py-2 text-sm font-medium whitespace-nowrap focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 ${
              tab === id
                ? "border-violet-600 text-violet-700 dark:text-violet-300"
                : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"
            }`}
          >
            {t(`tab.${id}`)}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`admin-panel-${tab}`}
        aria-labelledby={`admin-tab-${tab}`}
        tabIndex={0}
        className="mt-4 focus-visible:outline-none"
      >
        {tab === "overview" ? <OverviewPanel names={names} /> : null}
        {tab === "users" ? (
          <UsersPanel
            names={names}
            userId={userId}
            onUser={setUserId}
            onTask={(id) => {
              setTaskId(id);
              setTab("tasks");
            }}
          />
        ) : null}
        {tab === "tasks" ? (
          <TasksPanel
            effects={effects}
            names={names}
            taskId={taskId}
            onTask={setTaskId}
            onUser={(id) => {
              setUserId(id);
              setTab("users");
            }}
          />
        ) : null}
        {tab === "effects" ? <EffectsPanel names={names} /> : null}
        {tab === "engines" ? <EnginesPanel /> : null}
        {tab === "audit" ? <AuditPanel /> : null}
      </div>
    </div>
  );
}
