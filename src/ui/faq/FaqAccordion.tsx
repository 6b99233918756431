"use client";
import { Accordion } from "radix-ui";
import type { ReactNode } from "react";

/** The accordion itself: every item open by default, several open at once. */
export function FaqAccordion({ items }: { items: Array<{ question: string; answer: ReactNode }> }) {
  return (
    <Accordion.Root
      type="multiple"
      defaultValue={items.map((_, i) => `q${i}`)}
      className="mt-4 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
    >
      {items.map((item, i) => (
        <Accordion.Item key={i} value={`q${i}`}>
          <Accordion.Header>
            <Accordion.Trigger className="group flex w-full items-center justify-between px-4 py-3 text-start font-medium focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600">
              {item.question}
              <span aria-hidden className="transition group-data-[state=open]:rotate-180">
                ▾
              </span>
            </Accordion.Trigger>
          </Accordion.Header>
          <Accordion.Content className="px-4 pb-4 text-zinc-700 dark:text-zinc-300 [&_li]:ms-5 [&_ol]:list-decimal [&_p+p]:mt-2 [&_ul]:list-disc">
            {item.answer}
          </Accordion.Content>
        </Accordion.Item>
      ))}
    </Accordion.Root>
  );
}
