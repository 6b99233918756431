import fs from "node:fs";
import path from "node:path";
import { IntlMessageFormat } from "intl-messageformat";
import { describe, expect, it } from "vitest";
import { EFFECTS } from "@/core/catalogue";
import { defaultFaqSchema, effectCopySchema } from "./effect-copy";
import { LOCALE_TAGS, LOCALES } from "./locales";
import { NAMESPACES } from "./messages";

const ROOT = path.resolve(__dirname, "../..");
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"));

function flatten(obj: Record<string, unknown>, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v && typeof v === "object")
      Object.assign(out, flatten(v as Record<string, unknown>, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = String(v);
  }
  return out;
}

/** Placeholder names and rich-text tags of an ICU message. */
function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  for (const m of message.matchAll(/\{\s*([a-zA-Z]+)\s*(?:[,}])/g)) names.add(m[1]!);
  for (const m of message.matchAll(/<([a-z]+)>/g)) names.add(`<${m[1]}>`);
  return [...names].sort();
}

describe("message catalogues", () => {
  const english = Object.fromEntries(NAMESPACES.map((ns) => [ns, flatten(read(`messages/en/${ns}.json`))]));

  it("has one file per namespace in English and nothing else", () => {
    expect(fs.readdirSync(path.join(ROOT, "messages/en")).sort()).toEqual(
      NAMESPACES.map((n) => `${n}.json`).sort(),
    );
  });

  for (const locale of LOCALES.filter((l) => l !== "en")) {
    it(`${locale}: every English key, no extra key, same placeholders, valid ICU`, () => {
      for (const ns of NAMESPACES) {
        const file = `messages/${locale}/${ns}.json`;
        expect(fs.existsSync(path.join(ROOT, file)), `${file} is missing`).toBe(true);
        const own = flatten(read(file));
        const en = english[ns]!;
        expect(Object.keys(own).sort(), `${file}: keys differ from English`).toEqual(Object.keys(en).sort());
        for (const [key, text] of Object.entries(own)) {
          expect(argumentsOf(text), `${file} ${key}: placeholders`).toEqual(argumentsOf(en[key]!));
          expect(() => new IntlMessageFormat(text, LOCALE_TAGS[locale]), `${file} ${key}`).not.toThrow();
        }
      }
    });
  }
});

describe("effect copy", () => {
  for (const locale of LOCALES) {
    it(`${locale}: valid copy (4 to 6 FAQ pairs) for every catalogue effect, and 4 default FAQ entries`, () => {
      const dir = `src/i18n/effect-copy/${locale}`;
      const files = fs.readdirSync(path.join(ROOT, dir)).filter((f) => f !== "_faq.json");
      expect(files.sort()).toEqual(EFFECTS.map((e) => `${e.id}.json`).sort());
      for (const f of files) effectCopySchema.parse(read(`${dir}/${f}`));
      expect(defaultFaqSchema.parse(read(`${dir}/_faq.json`))).toHaveLength(4);
    });
  }
});
