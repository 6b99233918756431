import type { ReactNode } from "react";
import Markdown from "react-markdown";

const prose =
  "mt-6 space-y-4 leading-relaxed text-zinc-800 dark:text-zinc-200 [&_a]:text-violet-800 [&_a]:underline dark:[&_a]:text-violet-300 [&_h2]:mt-8 [&_h2]:text-xl [&_h2]:font-semibold [&_h3]:mt-6 [&_h3]:font-semibold [&_li]:ms-5 [&_ol]:list-decimal [&_ol]:space-y-2 [&_ul]:list-disc [&_ul]:space-y-2";

/**
 * A legal page: its title, then the operator's Markdown (DATA_DIR/legal) when there is one,
 * else the built-in text. Markdown is rendered without raw HTML (react-markdown's default)
 * and with its safe-URL filter.
 */
export function LegalPage({
  title,
  operatorText,
  before,
  children,
}: {
  title: string;
  operatorText: string | null;
  /** Shown above either text (the contact page's address). */
  before?: ReactNode;
  children: ReactNode;
}) {
  return (
    <main className="mx-auto max-w-3xl px-4 py-10" data-testid="legal-page">
      <h1 className="text-3xl font-bold">{title}</h1>
      {before}
      <div className={prose} data-testid={operatorText ? "legal-operator-text" : "legal-default-text"}>
        {operatorText ? <Markdown>{operatorText}</Markdown> : children}
      </div>
    </main>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section>
      <h2>{title}</h2>
      <div className="mt-3 space-y-3">{children}</div>
    </section>
  );
}
