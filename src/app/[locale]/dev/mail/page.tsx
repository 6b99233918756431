import { notFound } from "next/navigation";
import { connection } from "next/server";
import { setRequestLocale } from "next-intl/server";
import { Fragment } from "react";
import { listOutbox } from "@/adapters/mail/outbox-reader";
import { outboxDir } from "@/adapters/mail/outbox";
import { getEnv } from "@/config/env";
import type { Locale } from "@/i18n/locales";

/**
 * Development only (NODE_ENV=development; a 404 otherwise): the outbox's newest messages, so
 * a developer without a mail server can follow verification and reset links. A tool for
 * developers, in English.
 */
export default async function DevMailPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection();
  const env = getEnv();
  if (env.NODE_ENV !== "development") notFound();
  const dir = outboxDir(env.dataDir);
  const messages = await listOutbox(dir, 50);
  return (
    <main className="mx-auto max-w-4xl px-4 py-10">
      <h1 className="text-2xl font-bold">Outbox</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        {env.SMTP_URL ? "SMTP_URL is set: new mail goes to the SMTP server, not here. " : ""}
        The newest messages in <code>{dir}</code> (development only).
      </p>
      {messages.length === 0 ? <p className="mt-6">No messages yet.</p> : null}
      <ol className="mt-6 space-y-6">
        {messages.map((m) => (
          <li key={m.file} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              {m.date?.toISOString() ?? m.file} · to {m.to}
            </p>
            <h2 className="mt-1 font-semibold">{m.subject}</h2>
            <pre className="mt-3 whitespace-pre-wrap break-words font-sans text-sm">
              {m.text.split(/(https?:\/\/[^\s<>"]+)/g).map((part, i) =>
                i % 2 === 1 ? (
                  <a key={i} href={part} className="text-violet-700 underline dark:text-violet-300">
                    {part}
                  </a>
                ) : (
                  <Fragment key={i}>{part}</Fragment>
                ),
              )}
            </pre>
          </li>
        ))}
      </ol>
    </main>
  );
}
