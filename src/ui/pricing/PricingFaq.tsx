/**
 * The pricing page's FAQ: native disclosure widgets (<details>/<summary>: keyboard, screen
 * readers and find-in-page work with no script) and the same questions as schema.org
 * FAQPage JSON-LD. The JSON-LD is a data block, never executed, so the nonce CSP does not
 * apply to it; "<" is escaped so the text cannot close the script element.
 */
export interface PricingFaqItem {
  id: string;
  question: string;
  /** One string per paragraph. */
  answer: string[];
}

export function PricingFaq({ title, items }: { title: string; items: PricingFaqItem[] }) {
  const jsonLd = {
    "@context": "https://schema.org",
    "@type": "FAQPage",
    mainEntity: items.map((item) => ({
      "@type": "Question",
      name: item.question,
      acceptedAnswer: { "@type": "Answer", text: item.answer.join(" ") },
    })),
  };
  return (
    <section className="mt-12" aria-labelledby="pricing-faq-heading" data-testid="pricing-faq">
      <script
        type="application/ld+json"
        dangerouslySetInnerHTML={{ __html: JSON.stringify(jsonLd).replace(/</g, "\\u003c") }}
      />
      <h2 id="pricing-faq-heading" className="text-2xl font-semibold">
        {title}
      </h2>
      <div className="mt-4 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {items.map((item) => (
          <details key={item.id} className="group" data-testid={`faq-${item.id}`}>
            <summary className="flex cursor-pointer list-none items-center justify-between gap-4 px-4 py-3 font-medium focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 [&::-webkit-details-marker]:hidden">
              {item.question}
              <span aria-hidden className="shrink-0 transition group-open:rotate-180">
                ▾
              </span>
            </summary>
            <div className="space-y-2 px-4 pb-4 text-zinc-700 dark:text-zinc-300">
              {item.answer.map((paragraph, i) => (
                <p key={i}>{paragraph}</p>
              ))}
            </div>
          </details>
        ))}
      </div>
    </section>
  );
}
