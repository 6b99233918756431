import { getTranslations } from "next-intl/server";
import { EFFECT_CREDITS } from "@/core/catalogue-constants";
import { KEEP_ORIGINALS_DAYS } from "@/core/originals";
import { Section } from "./LegalPage";
import type { SiteFacts } from "./site-facts";

const PROCESSOR_KEYS = {
  fal: "processorFal",
  gemini: "processorGemini",
  openai: "processorOpenai",
  replicate: "processorReplicate",
} as const;

function mailLink(email: string) {
  return (chunks: React.ReactNode) => <a href={`mailto:${email}`}>{chunks}</a>;
}

/**
 * The built-in privacy policy, composed from the configuration's facts: it names each
 * service that actually receives data here, and only those.
 */
export async function PrivacyText({ facts }: { facts: SiteFacts }) {
  const t = await getTranslations("legal.privacy");
  const others = [
    ...(facts.payments === "stripe" ? [t("otherStripe")] : []),
    ...(facts.smtp ? [t("otherSmtp")] : []),
    ...(facts.turnstile ? [t("otherTurnstile")] : []),
    ...(facts.oauth.includes("google") ? [t("otherGoogle")] : []),
    ...(facts.oauth.includes("github") ? [t("otherGithub")] : []),
  ];
  return (
    <>
      <p>{t("intro")}</p>
      <Section title={t("collectTitle")}>
        <ul>
          <li>{t("collectAccount")}</li>
          <li>{t("collectCredits")}</li>
          <li>{t("collectImages")}</li>
        </ul>
      </Section>
      <Section title={t("photosTitle")}>
        <ul>
          <li>{t("photosDeleted")}</li>
          <li>{t("photosKept", { days: KEEP_ORIGINALS_DAYS })}</li>
          <li>{t("photosUnused", { minutes: facts.uploadTtlMinutes })}</li>
          {facts.contentCheck ? <li>{t("photosScreened")}</li> : null}
        </ul>
      </Section>
      <Section title={t("processorsTitle")}>
        <ul data-testid="privacy-processors">
          <li data-processor="local">{t("processorLocal")}</li>
          {facts.ownGpuServers ? <li data-processor="comfyui">{t("processorComfyui")}</li> : null}
          {facts.thirdPartyEngines.map((id) =>
            id in PROCESSOR_KEYS ? (
              <li key={id} data-processor={id}>
                {t(PROCESSOR_KEYS[id as keyof typeof PROCESSOR_KEYS])}
              </li>
            ) : (
              <li key={id} data-processor={id}>
                {id}
              </li>
            ),
          )}
          <li data-processor={facts.storage.kind === "s3" ? "s3" : "disk"}>
            {facts.storage.kind === "s3" ? t("storageS3", { host: facts.storage.host }) : t("storageDisk")}
          </li>
        </ul>
        {facts.thirdPartyEngines.length ? <p>{t("processorsThirdPartyNote")}</p> : null}
      </Section>
      <Section title={t("othersTitle")}>
        {others.length ? (
          <ul data-testid="privacy-others">
            {others.map((o) => (
              <li key={o}>{o}</li>
            ))}
          </ul>
        ) : (
          <p data-testid="privacy-others">{t("otherNone")}</p>
        )}
      </Section>
      <Section title={t("cookiesTitle")}>
        <p>{t("cookies")}</p>
      </Section>
      <Section title={t("rightsTitle")}>
        <ul>
          <li>{t("rightsDelete")}</li>
          <li>{t("rightsExport")}</li>
        </ul>
        <p>{t.rich("contact", { email: facts.supportEmail, mail: mailLink(facts.supportEmail) })}</p>
      </Section>
    </>
  );
}

export async function TermsText({ supportEmail }: { supportEmail: string }) {
  const t = await getTranslations("legal.terms");
  return (
    <>
      <p>{t("intro")}</p>
      <Section title={t("serviceTitle")}>
        <p>{t("service")}</p>
      </Section>
      <Section title={t("creditsTitle")}>
        <p>{t("credits", { credits: EFFECT_CREDITS })}</p>
      </Section>
      <Section title={t("useTitle")}>
        <p>{t("use")}</p>
      </Section>
      <Section title={t("resultsTitle")}>
        <p>{t("results")}</p>
      </Section>
      <Section title={t("liabilityTitle")}>
        <p>{t("liability")}</p>
      </Section>
      <Section title={t("changesTitle")}>
        <p>{t("changes")}</p>
      </Section>
      <p>{t.rich("contact", { email: supportEmail, mail: mailLink(supportEmail) })}</p>
    </>
  );
}

export async function ContactText() {
  const t = await getTranslations("legal.contact");
  return (
    <>
      <p>{t("intro")}</p>
      <p>{t("tips")}</p>
      <p>{t("selfService")}</p>
    </>
  );
}
