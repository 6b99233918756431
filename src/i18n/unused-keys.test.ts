import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NAMESPACES } from "./messages";

/**
 * Every English message is used somewhere: a key no source file references is dead copy
 * that translators keep paying for (and that drifts from what users see).
 *
 * A key `a.b.c` counts as referenced when one non-test file under src/ holds, as a string
 * literal, a split of it into a namespace and a rest: `"a.b"` and `"c"`, `"a"` and `"b.c"`,
 * or the whole path (`useTranslations()` without a namespace). The rest may also be
 * matched by a template literal with a static part (`kind_${kind}`, `${k}.subject`,
 * `errors.server.task_${code}`): that is how keys built from data are found.
 */

/**
 * Namespaces whose keys travel as data from another file than the one that translates
 * them: `src/core/billing.ts` throws `AppError`s carrying `{ key: "billingUnavailable" }`,
 * and the pricing UI translates them under `subscription.server`. For these the rest may
 * appear in any source file.
 */
const KEYS_AS_DATA = ["subscription.server"];

const ROOT = path.resolve(__dirname, "../..");

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(p, out);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(p);
  }
  return out;
}

interface Source {
  file: string;
  literals: Set<string>;
  templates: RegExp[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function scan(file: string): Source {
  const text = fs.readFileSync(file, "utf8");
  const literals = new Set<string>();
  for (const m of text.matchAll(/"([\w.-]+)"|'([\w.-]+)'|`([\w.-]+)`/g)) literals.add(m[1] ?? m[2] ?? m[3]!);
  const templates: RegExp[] = [];
  for (const m of text.matchAll(/`((?:[\w.-]|\$\{[^}`]*\})*\$\{[^}`]*\}(?:[\w.-]|\$\{[^}`]*\})*)`/g)) {
    const parts = m[1]!.split(/\$\{[^}`]*\}/);
    // `${a}` or `${a}-${b}` would match any key: only templates with some fixed text count.
    if (parts.join("").length < 3) continue;
    templates.push(new RegExp(`^${parts.map(escape).join("[\\w-]+")}$`));
  }
  return { file, literals, templates };
}

function flatten(obj: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(obj).flatMap(([k, v]) =>
    v && typeof v === "object" ? flatten(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

const mentions = (src: Source, rest: string) =>
  src.literals.has(rest) || src.templates.some((re) => re.test(rest));

function referenced(key: string, sources: Source[]): boolean {
  const parts = key.split(".");
  const inOneFile = sources.some((src) =>
    parts.some(
      (_, i) =>
        (i === 0 || src.literals.has(parts.slice(0, i).join("."))) && mentions(src, parts.slice(i).join(".")),
    ),
  );
  if (inOneFile) return true;
  const ns = KEYS_AS_DATA.find((n) => key.startsWith(`${n}.`));
  return ns !== undefined && sources.some((src) => mentions(src, key.slice(ns.length + 1)));
}

describe("message keys", () => {
  const sources = sourceFiles(path.join(ROOT, "src")).map(scan);

  it("finds references the way the test expects (a used key passes, a made-up one fails)", () => {
    expect(referenced("effect.createCost", sources)).toBe(true); // t("effect.createCost") under useTranslations()
    expect(referenced("admin.tasks.state_queued", sources)).toBe(true); // t(`tasks.state_${s}`)
    expect(referenced("mail.verify.subject", sources)).toBe(true); // t(`${k}.subject`) under "mail"
    expect(referenced("home.noSuchKeyAnywhere", sources)).toBe(false);
  });

  for (const ns of NAMESPACES) {
    it(`${ns}: every English key is referenced by a source file`, () => {
      const keys = flatten(JSON.parse(fs.readFileSync(path.join(ROOT, `messages/en/${ns}.json`), "utf8")));
      expect(keys.filter((k) => !referenced(k, sources))).toEqual([]);
    });
  }
});
