import { getTranslations } from "next-intl/server";
import Markdown from "react-markdown";
import { FaqAccordion } from "./FaqAccordion";

/**
 * The FAQ: answers' basic markdown is rendered on the server (no markdown parser ships to
 * the browser), then handed to the client accordion.
 */
export async function Faq({
  items,
  email,
}: {
  items: Array<{ question: string; answer: string }>;
  email: string;
}) {
  const t = await getTranslations("effect");
  return (
    <section className="mt-12" aria-labelledby="faq-heading">
      <h2 id="faq-heading" className="text-2xl font-bold">
        {t("faqTitle")}
      </h2>
      <FaqAccordion
        items={items.map((item) => ({
          question: item.question,
          answer: (
            <Markdown
              allowedElements={["p", "strong", "em", "ul", "ol", "li", "a", "code", "br"]}
              unwrapDisallowed
            >
              {item.answer}
            </Markdown>
          ),
        }))}
      />
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
