import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { getEffect, toClientEffect } from "@/core/catalogue";
import { examplesWithheld } from "@/core/effect-definition";
import { publicConfig } from "@/config/public";
import { getEffectCopy } from "@/i18n/effect-copy";
import type { Locale } from "@/i18n/locales";
import { localizedPath, pageMetadata, siteOrigin } from "@/i18n/seo";
import { Link } from "@/i18n/navigation";
import { EffectWorkspace } from "@/ui/effect/EffectWorkspace";
import { realExamples } from "@/ui/effect/examples";
import { Faq } from "@/ui/faq/Faq";
import { ExampleGallery } from "@/ui/gallery/ExampleGallery";
import { effectSwitchedOff } from "@/ui/admin/effect-availability";
import { ClientMessages } from "@/ui/layout/ClientMessages";

type Params = Promise<{ locale: Locale; model: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { locale, model } = await params;
  const effect = getEffect(model);
  const copy = await getEffectCopy(locale, model);
  if (!effect || !copy) return {};
  return pageMetadata({
    locale,
    path: effect.href,
    title: `${copy.title} | photofx`,
    description: copy.description,
    image: realExamples(effect)[0]?.after,
  });
}

export default async function EffectPage({ params }: { params: Params }) {
  const { locale, model } = await params;
  setRequestLocale(locale);
  const effect = getEffect(model);
  const copy = effect ? await getEffectCopy(locale, model) : null;
  if (!effect || !copy) notFound();
  await connection(); // the support address is read per request
  const { supportEmail, signupCredits } = publicConfig();
  const t = await getTranslations("common");
  const tEffect = await getTranslations("effect");
  const examples = realExamples(effect);
  // Switched off by an operator (admin console): the page says so; submit refuses it anyway.
  const switchedOff = effectSwitchedOff(effect.id);
  const tErrors = switchedOff ? await getTranslations("errors") : null;
  const origin = siteOrigin();
  // Structured data: the breadcrumb trail and the FAQ, as schema.org JSON-LD.
  const jsonLd = [
    {
      "@context": "https://schema.org",
      "@type": "BreadcrumbList",
      itemListElement: [
        { "@type": "ListItem", position: 1, name: t("home"), item: `${origin}${localizedPath(locale, "/")}` },
        {
          "@type": "ListItem",
          position: 2,
          name: t("effects"),
          item: `${origin}${localizedPath(locale, "/nano-banana-lora")}`,
        },
        {
          "@type": "ListItem",
          position: 3,
          name: copy.title,
          item: `${origin}${localizedPath(locale, effect.href)}`,
        },
      ],
    },
    {
      "@context": "https://schema.org",
      "@type": "FAQPage",
      mainEntity: copy.faq.map((f) => ({
        "@type": "Question",
        name: f.question,
        acceptedAnswer: { "@type": "Answer", text: f.answer },
      })),
    },
  ];
  return (
    <ClientMessages scope="effect">
      <main className="mx-auto max-w-7xl px-4 py-6">
        <script
          type="application/ld+json"
          // JSON.stringify output with "<" escaped cannot close the script element.
          dangerouslySetInnerHTML={{ __html: JSON.stringify(jsonLd).replace(/</g, "\\u003c") }}
        />
        <nav aria-label={tEffect("breadcrumb")} className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">
          <ol className="flex flex-wrap items-center gap-1">
            <li>
              <Link href="/" className="hover:underline">
                {t("home")}
              </Link>
            </li>
            <li aria-hidden>
              <BreadcrumbChevron />
            </li>
            <li>
              <Link href="/nano-banana-lora" className="hover:underline">
                {t("effects")}
              </Link>
            </li>
            <li aria-hidden>
              <BreadcrumbChevron />
            </li>
            <li aria-current="page" className="font-medium text-zinc-900 dark:text-zinc-100">
              {copy.title}
            </li>
          </ol>
        </nav>
        {tErrors ? (
          <p
            role="status"
            className="mb-4 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
            data-testid="effect-unavailable"
          >
            {tErrors("server.effectDisabled")}
          </p>
        ) : null}
        <EffectWorkspace
          effect={toClientEffect(effect)}
          formTitle={copy.formTitle}
          formDesc={copy.formDesc}
          resultTitle={copy.resultTitle}
          signupCredits={signupCredits}
        />
        <ExampleGallery pairs={examples} title={copy.title} withheld={examplesWithheld(effect)} />
        <section className="mt-12">
          <h1 className="text-3xl font-bold">{copy.title}</h1>
          <p className="mt-3 max-w-3xl text-lg text-zinc-700 dark:text-zinc-300">{copy.description}</p>
        </section>
        <Faq items={copy.faq} email={supportEmail} />
      </main>
    </ClientMessages>
  );
}

/** The trail's separator: a chevron pointing the reading way (mirrored in right-to-left pages). */
function BreadcrumbChevron() {
  return (
    <svg
      viewBox="0 0 16 16"
      width="12"
      height="12"
      className="rtl:-scale-x-100"
      fill="none"
      stroke="currentColor"
    >
      <path d="M6 3l5 5-5 5" strokeWidth="1.75" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
