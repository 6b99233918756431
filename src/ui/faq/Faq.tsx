"use client";
import { Accordion } from "radix-ui";
import { useTranslations } from "next-intl";
import Markdown from "react-markdown";

/** FAQ accordion: every item open by default, several open at once, markdown answers. */
export function Faq({ items, email }: { items: Array<{ question: string; answer: string }>; email: string }) {
  const t = useTranslations("effect");
  return (
    <section className="mt-12" aria-labelledby="faq-heading">
      <h2 id="faq-heading" className="text-2xl font-bold">
        {t("faqTitle")}
      </h2>
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
            <Accordion.Content className="prose prose-sm max-w-none px-4 pb-4 text-zinc-700 dark:text-zinc-300">
              <Markdown
                allowedElements={["p", "strong", "em", "ul", "ol", "li", "a", "code", "br"]}
                unwrapDisallowed
              >
                {item.answer}
              </Markdown>
            </Accordion.Content>
          </Accordion.Item>
        ))}
      </Accordion.Root>
      <p className="mt-4 text-sm text-zinc-600 dark:text-zinc-400">
        {t.rich("faqFooter", {
          address: email,
          email: (chunks) => (
            <a className="underline" href={`mailto:${email}`}>
              {chunks}
            </a>
          ),
        })}
      </p>
    </section>
  );
}
