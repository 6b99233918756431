import fs from "node:fs";
import path from "node:path";
import { IntlMessageFormat } from "intl-messageformat";
import { describe, expect, it } from "vitest";
import { LOCALE_TAGS, LOCALES, type Locale } from "./locales";

/**
 * Wording conventions: within a locale, messages of one family say the same thing the same
 * way (one term for "refund", one for "effect", one apostrophe, one ellipsis, one way of
 * writing numbers next to CJK text). Every message file of a locale is checked, including
 * files added later: messages/<locale>/*.json and src/i18n/effect-copy/<locale>/*.json.
 */

const ROOT = path.resolve(__dirname, "../..");

function flatten(value: unknown, prefix: string, out: Record<string, string>): void {
  if (typeof value === "string") out[prefix] = value;
  else if (Array.isArray(value)) value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value))
      flatten(v, prefix.endsWith(":") ? `${prefix}${k}` : `${prefix}.${k}`, out);
}

/** Every message of a locale, keyed "errors.json:errors.server.task_noFace" or "effect-copy/x.json:title". */
function messagesOf(locale: Locale): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [dir, label] of [
    [`messages/${locale}`, ""],
    [`src/i18n/effect-copy/${locale}`, "effect-copy/"],
  ] as const) {
    for (const file of fs
      .readdirSync(path.join(ROOT, dir))
      .filter((f) => f.endsWith(".json"))
      .sort())
      flatten(JSON.parse(fs.readFileSync(path.join(ROOT, dir, file), "utf8")), `${label}${file}:`, out);
  }
  return out;
}

/** A wording to avoid: `pattern` must not match (in keys matching `only`, except keys in `except`). */
interface Avoid {
  pattern: RegExp;
  use: string;
  only?: RegExp;
  except?: string[];
}

/** Messages whose English the spec fixes word for word (section 2, 5 and 8). */
const SPEC_EXACT = {
  premiumCap: ["errors.json:errors.server.premiumCap", "upload.json:upload.premiumCap"],
  dots: ["effect.json:effect.generating", "upload.json:upload.uploading"],
};

/** No whitespace between CJK text and a number (a digit, `#` or a numeric placeholder). */
const NUMBER_ARGS = "n|min|max|seconds|credits|count|cap|hours|width|height|value|balance";
const CJK = "[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}、。，：；（）！？]";
const CJK_SPACING: Avoid = {
  pattern: new RegExp(
    `${CJK}[ \\u00a0]+(?:\\d|#|\\{(?:${NUMBER_ARGS})[,}])|(?:\\d|#|\\{(?:${NUMBER_ARGS})\\})[ \\u00a0]+${CJK}`,
    "u",
  ),
  use: "no space between CJK text and a number",
};
const STRAIGHT_APOSTROPHE: Avoid = { pattern: /\u2019/, use: "the straight apostrophe '" };

/** Every locale: one ellipsis character, one spelling of WebP. */
const COMMON: Avoid[] = [
  { pattern: /\.\.\./, use: "…", except: SPEC_EXACT.dots },
  { pattern: /WEBP/, use: "WebP" },
];

/** Per locale: the sentence every refunded refusal ends with, and the variants to avoid. */
const CONVENTIONS: Record<Locale, { refunded: string; avoid: Avoid[] }> = {
  en: {
    refunded: "Your credits have been refunded.",
    avoid: [
      { pattern: /Premium users/, use: "Subscribers", except: SPEC_EXACT.premiumCap },
      STRAIGHT_APOSTROPHE,
    ],
  },
  ar: {
    refunded: "أُعيدت نقاطك إلى رصيدك.",
    avoid: [{ pattern: /تمت? إعادة نقاطك/, use: "أُعيدت نقاطك إلى رصيدك" }],
  },
  de: {
    refunded: "Deine Credits wurden erstattet.",
    avoid: [
      { pattern: /\S…/, use: "a space before …" },
      { pattern: /\b[Ee]u(?:er|re[mnrs]?)\b/, use: "du/dein (the informal singular)" },
      { pattern: /[^.!?:\s]\s+(?:Sie|Ihnen|Ihre?[mnrs]?)\b/, use: "du/dein (the informal singular)" },
      { pattern: /Premium/, use: "Abonnenten" },
    ],
  },
  es: {
    refunded: "Te hemos reembolsado los créditos.",
    avoid: [
      { pattern: /devuelto los créditos|devolvemos los créditos/, use: "reembolsado" },
      { pattern: /Premium/, use: "suscriptores" },
      { pattern: /más de una sola vez/, use: "más imágenes a la vez" },
    ],
  },
  fr: {
    refunded: "Vos crédits ont été remboursés.",
    avoid: [
      STRAIGHT_APOSTROPHE,
      { pattern: /Premium/, use: "abonnés" },
      {
        pattern: /vous seul\b|adulte seul\b|vous êtes (?:autorisé|habillé|déconnecté)\b|^Connecté\b/,
        use: "a phrasing that does not assume a gender",
      },
    ],
  },
  it: {
    refunded: "I tuoi crediti sono stati rimborsati.",
    avoid: [STRAIGHT_APOSTROPHE, { pattern: /Premium/, use: "abbonati" }],
  },
  ja: {
    refunded: "クレジットは払い戻されました。",
    avoid: [
      { pattern: /返金/, use: "払い戻し" },
      { pattern: /(?:この|その|各|すべての)効果/, use: "エフェクト" },
      { pattern: /プレミアム/, use: "有料会員" },
      CJK_SPACING,
    ],
  },
  ko: {
    refunded: "크레딧은 환불되었어요.",
    avoid: [
      { pattern: /프리미엄/, use: "구독 회원" },
      // The UI speaks in 해요체 (-어요/-해요), mails and sign-in pages included. The user's own
      // affirmations on the consent checkboxes and the set phrase 감사합니다 stay in 합니다체.
      {
        pattern: /[습입됩합]니다|[습ㅂ]니까/,
        use: "the -어요 style of the rest of the Korean UI",
        except: [
          "effect.json:effect.rightsConfirm",
          "effect.json:effect.adultConsent",
          "checkout.json:checkout.successTitle",
        ],
      },
    ],
  },
  pt: {
    refunded: "Seus créditos foram reembolsados.",
    avoid: [
      STRAIGHT_APOSTROPHE,
      { pattern: /mais de uma só vez/, use: "mais imagens por vez" },
      {
        pattern: /\s(?!(?:IA|LinkedIn|Y2K|3D)\b)[A-ZÀ-ÖØ-Þ]/u,
        use: "sentence case (Portuguese titles capitalise only the first word)",
        only: /^effect-copy\/.*:title$/,
      },
    ],
  },
  tw: {
    refunded: "你的點數已退還。",
    avoid: [
      { pattern: /(?:此|這個|這款|該)效果|（效果/, use: "特效" },
      { pattern: /進階會員/, use: "訂閱會員" },
      CJK_SPACING,
    ],
  },
  vi: {
    refunded: "Điểm của bạn đã được hoàn lại.",
    avoid: [
      { pattern: /Hạt giống/, use: "seed" },
      { pattern: /^Không khí/, use: "Bầu không khí" },
      { pattern: /Dự đoán/, use: "a title that does not promise a prediction", only: /:title$/ },
    ],
  },
  zh: {
    refunded: "积分已退还。",
    avoid: [
      { pattern: /你的积分已退还/, use: "积分已退还" },
      { pattern: /(?:此|这个|这款|该)效果|（效果/, use: "特效" },
      { pattern: /高级会员/, use: "订阅用户" },
      CJK_SPACING,
    ],
  },
};

const english = messagesOf("en");
const refundedKeys = Object.keys(english).filter((k) => english[k]!.endsWith(CONVENTIONS.en.refunded));

describe("wording conventions", () => {
  it("finds the refusal family (messages that say the credits were refunded)", () => {
    expect(refundedKeys.length).toBeGreaterThan(20);
  });

  for (const locale of LOCALES) {
    const own = messagesOf(locale);
    const { refunded, avoid } = CONVENTIONS[locale];

    it(`${locale}: every refunded refusal ends with the same sentence`, () => {
      const off = refundedKeys.filter((k) => own[k] !== undefined && !own[k].endsWith(refunded));
      expect(off.map((k) => `${k}: ${own[k]}`)).toEqual([]);
    });

    it(`${locale}: no variant wording`, () => {
      const found: string[] = [];
      for (const rule of [...COMMON, ...avoid])
        for (const [key, text] of Object.entries(own))
          if ((!rule.only || rule.only.test(key)) && !rule.except?.includes(key) && rule.pattern.test(text))
            found.push(`${key}: use ${rule.use}: ${text}`);
      expect(found).toEqual([]);
    });
  }
});

describe("upload status badge", () => {
  // 10 px text on a thumbnail that is 55 px wide at its narrowest (a 4-column grid in the
  // form panel): measured in chromium, a word of 9 Latin letters or 4 CJK characters fits.
  for (const locale of LOCALES) {
    it(`${locale}: every word of a badge label fits the thumbnail`, () => {
      const own = messagesOf(locale);
      const labels = Object.keys(english)
        .filter((k) => k.startsWith("upload.json:upload.status"))
        .map((k) => own[k] ?? "");
      const tooWide = labels.filter((label) =>
        label
          .split(/\s+/)
          .some((word) => [...word].length > (/[\u3040-\u30ff\u4e00-\u9fff]/.test(word) ? 4 : 9)),
      );
      expect(tooWide).toEqual([]);
    });
  }
});

/** Arabic plural categories; =0/=1/=2 cover zero/one/two (Arabic's zero, one, two are exactly 0, 1, 2). */
const AR_CATEGORIES = [["zero", "=0"], ["one", "=1"], ["two", "=2"], ["few"], ["many"], ["other"]] as const;
/** Counted nouns: a number placed right before one of them must be a plural argument. */
const AR_COUNTED = /^\s*(?:ثانية|ثوانٍ|ثوان|دقيقة|دقائق|ساعة|ساعات|يوم|أيام|صورة|صور|نقطة|نقاط|حرف|أحرف)/;

interface AstNode {
  type: number;
  value?: string;
  options?: Record<string, { value: AstNode[] }>;
  children?: AstNode[];
}

/** Problems in one Arabic message's ICU tree (1 = argument, 0 = literal, 6 = plural, 8 = tag). */
function arabicPluralProblems(nodes: AstNode[]): string[] {
  const problems: string[] = [];
  nodes.forEach((node, i) => {
    const next = nodes[i + 1];
    if (node.type === 1 && next?.type === 0 && AR_COUNTED.test(next.value ?? ""))
      problems.push(`{${node.value}} before a counted noun needs plural forms`);
    if (node.type === 6) {
      const keys = Object.keys(node.options ?? {});
      for (const names of AR_CATEGORIES)
        if (!names.some((n) => keys.includes(n))) problems.push(`{${node.value}} has no "${names[0]}" form`);
    }
    for (const option of Object.values(node.options ?? {}))
      problems.push(...arabicPluralProblems(option.value));
    if (node.children) problems.push(...arabicPluralProblems(node.children));
  });
  return problems;
}

describe("Arabic numbers", () => {
  it("ar: every counted number has all six plural forms (zero, one, two, few, many, other)", () => {
    const found: string[] = [];
    for (const [key, text] of Object.entries(messagesOf("ar"))) {
      const ast = new IntlMessageFormat(text, LOCALE_TAGS.ar).getAst() as unknown as AstNode[];
      for (const p of arabicPluralProblems(ast)) found.push(`${key}: ${p}`);
    }
    expect(found).toEqual([]);
  });
});
