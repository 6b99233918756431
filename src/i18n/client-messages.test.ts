import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  LAYOUT_CLIENT_MESSAGES,
  mergeTrees,
  omitMessages,
  PAGE_CLIENT_MESSAGES,
  pickMessages,
} from "./client-messages";
import { loadMessages } from "./messages";

/**
 * The browser gets only the messages its page sends (client-messages.ts): a client component
 * using a key its page does not send would show the raw key. This test reads, from each
 * page and from the layout, every client component it can render (a file with "use client"
 * and everything it imports, dynamic imports included), finds each translator
 * (`useTranslations(ns)`) and what it is called with, and checks that the page sends it.
 * A key built at run time counts by its fixed start (`categories.${c}` needs all of
 * `front.categories`); a translator handed to other code, or called with a variable, needs
 * its whole namespace; `useMessages()` or a root translator called with a variable needs all.
 */

const ROOT = path.resolve(__dirname, "../..");
const APP = path.join(ROOT, "src/app/[locale]");
const LAYOUT = path.join(APP, "layout.tsx");

function resolveImport(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(ROOT, "src", spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null; // a package
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, "index.ts"),
    path.join(base, "index.tsx"),
  ]) {
    if (/\.tsx?$/.test(candidate) && fs.existsSync(candidate) && fs.statSync(candidate).isFile())
      return candidate;
  }
  return null;
}

function importsOf(file: string, text: string): string[] {
  const specs = [
    ...text.matchAll(/^\s*import\s+(?!type\s)(?:[^"';]*?\sfrom\s*)?["']([^"']+)["']/gm),
    ...text.matchAll(/^\s*export\s+(?!type\s)[^"';]*?\sfrom\s*["']([^"']+)["']/gm),
    ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((m) => m[1]!);
  return specs.map((s) => resolveImport(file, s)).filter((f): f is string => f !== null);
}

/** The files a server entry (page or layout) renders in the browser. */
export function clientFiles(entry: string): string[] {
  const seen = new Map<string, boolean>(); // file -> reached as client code
  const visit = (file: string, client: boolean) => {
    const known = seen.get(file);
    if (known === true || (known === false && !client)) return;
    const text = fs.readFileSync(file, "utf8");
    const isClient = client || /^\s*["']use client["']/.test(text);
    seen.set(file, isClient);
    for (const dep of importsOf(file, text)) visit(dep, isClient);
  };
  visit(entry, false);
  return [...seen].filter(([, client]) => client).map(([file]) => file);
}

/** A need: a key (`front.search.label`), a key's fixed start (`front.categories.…`), or "*". */
export function neededKeys(text: string): string[] {
  const needs: string[] = [];
  // A provider reads the messages to pass them on (MergeMessages); anyone else may show any.
  if (/\buseMessages\s*\(/.test(text) && !/<NextIntlClientProvider\b/.test(text)) needs.push("*");
  for (const b of text.matchAll(
    /\b(?:const|let)\s+(\w+)\s*=\s*useTranslations\(\s*(?:["']([\w.]*)["'])?\s*\)/g,
  )) {
    const [, name, ns = ""] = b as unknown as [string, string, string | undefined];
    const whole = ns || "*";
    const join = (key: string) => (ns ? `${ns}.${key}` : key);
    // Every mention but the declaration itself.
    const uses = [...text.matchAll(new RegExp(`(?<![\\w.$])${name}\\b(?!\\s*=\\s*useTranslations)`, "g"))];
    for (const use of uses) {
      const after = text.slice(use.index! + name.length);
      const call = /^(?:\.(?:rich|markup|raw|has))?\(\s*/.exec(after);
      if (!call) {
        // A hook's dependency list only names it; anything else hands it to other code.
        const inDeps =
          /^\s*[\],]/.test(after) && /\[[^()]*$/.test(text.slice(0, use.index).split("\n").pop()!);
        if (!inDeps) needs.push(whole);
        continue;
      }
      const arg = after.slice(call[0].length);
      const literal = /^(["'])([\w.-]+)\1/.exec(arg);
      const template = /^`([^`$]*)(\$\{)?/.exec(arg);
      // `t(key as "errors.server.busy")`: a key from data, typed as one of a family.
      const family = /^[\w.]+\s+as\s+(["'])([\w.-]+)\.[\w-]+\1/.exec(arg);
      if (literal) needs.push(join(literal[2]!));
      else if (family) needs.push(`${join(family[2]!)}.…`);
      else if (template && !template[2]) needs.push(join(template[1]!));
      else if (template?.[1]) needs.push(`${join(template[1])}…`);
      else needs.push(whole);
    }
  }
  return needs;
}

/** Whether the paths send a need (see neededKeys; a trailing "…" marks a key's fixed start). */
export function covers(paths: readonly string[], need: string): boolean {
  if (need === "*") return false;
  if (need.endsWith("…")) {
    const start = need.replace(/…$/, "");
    return paths.some((p) => start.startsWith(`${p}.`));
  }
  return paths.some((p) => need === p || need.startsWith(`${p}.`));
}

function pagesOf(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) pagesOf(p, out);
    else if (entry.name === "page.tsx" || entry.name === "not-found.tsx") out.push(p);
  }
  return out;
}

/** What a page sends besides the layout's: its scopes, or everything with its own provider. */
function pagePaths(file: string): readonly string[] | "all" {
  const text = fs.readFileSync(file, "utf8");
  if (/<NextIntlClientProvider\b/.test(text)) return "all";
  const scopes = [...text.matchAll(/<ClientMessages\s+scope="(\w+)"/g)].map((m) => m[1]!);
  return scopes.flatMap((s) => {
    const paths = (PAGE_CLIENT_MESSAGES as Record<string, readonly string[]>)[s];
    if (!paths) throw new Error(`${file}: unknown scope ${s}`);
    return paths;
  });
}

function missing(entry: string, paths: readonly string[] | "all"): string[] {
  if (paths === "all") return [];
  const out: string[] = [];
  for (const file of clientFiles(entry)) {
    for (const need of neededKeys(fs.readFileSync(file, "utf8"))) {
      if (!covers(paths, need)) out.push(`${path.relative(ROOT, file)}: ${need}`);
    }
  }
  return [...new Set(out)];
}

const rel = (f: string) => path.relative(APP, f);

describe("messages sent to the browser", () => {
  it("reads client components the way the checks below rely on", () => {
    const list = clientFiles(path.join(APP, "nano-banana-lora/page.tsx")).map((f) => path.relative(ROOT, f));
    expect(list).toEqual(
      expect.arrayContaining(["src/ui/list/EffectBrowser.tsx", "src/ui/list/EffectCard.tsx"]),
    );
    // The home page renders its cards on the server: they need nothing in the browser.
    expect(clientFiles(path.join(APP, "page.tsx")).map((f) => path.relative(ROOT, f))).not.toContain(
      "src/ui/list/EffectCard.tsx",
    );
    // Dynamic imports count: the effect page's modals load on first use.
    expect(
      clientFiles(path.join(APP, "nano-banana-lora/[model]/page.tsx")).map((f) => path.relative(ROOT, f)),
    ).toContain("src/ui/modals/CreditsModals.tsx");
    const needs = neededKeys(
      'const t = useTranslations("front");\nt("search.label"); t(`categories.${c}`); t.rich("card.x", {});\nconst u = useTranslations();\nu(key); helper(t); u.has(k as "errors.server.busy");\nuseMemo(() => 1, [a, t]);',
    );
    expect(needs).toEqual([
      "front.search.label",
      "front.categories.…",
      "front.card.x",
      "front",
      "*",
      "errors.server.…",
    ]);
    expect(covers(["front.search"], "front.search.label")).toBe(true);
    expect(covers(["front.search"], "front.categories.…")).toBe(false);
    expect(covers(["front.categories"], "front.categories.…")).toBe(true);
    expect(covers(["errors"], "errors.server.task_…")).toBe(true);
    // Without its own paths the list page would show raw keys: the check fails.
    expect(missing(path.join(APP, "nano-banana-lora/page.tsx"), LAYOUT_CLIENT_MESSAGES)).toContain(
      "src/ui/list/EffectBrowser.tsx: front.search.label",
    );
  });

  it("the layout sends every key the header, its menu and the locale switcher use", () => {
    expect(missing(LAYOUT, LAYOUT_CLIENT_MESSAGES)).toEqual([]);
  });

  for (const page of pagesOf(APP)) {
    it(`${rel(page)}: sends every key its client components use`, () => {
      const own = pagePaths(page);
      expect(missing(page, own === "all" ? own : [...LAYOUT_CLIENT_MESSAGES, ...own])).toEqual([]);
    });
  }

  it("every key a client component names exists in English", async () => {
    const en = (await loadMessages("en")) as unknown as Record<string, unknown>;
    const has = (key: string) => {
      let node: unknown = en;
      for (const k of key.split("."))
        node = node && typeof node === "object" ? (node as Record<string, unknown>)[k] : undefined;
      return node !== undefined;
    };
    const files = new Set([LAYOUT, ...pagesOf(APP)].flatMap(clientFiles));
    const unknown: string[] = [];
    for (const file of files) {
      for (const need of neededKeys(fs.readFileSync(file, "utf8"))) {
        if (need === "*" || need.endsWith("…")) continue;
        if (!has(need)) unknown.push(`${path.relative(ROOT, file)}: ${need}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it("picks, omits and merges message paths", () => {
    const all = { common: { a: "A", b: "B" }, front: { menu: { x: "X" }, search: { y: "Y" }, hero: "H" } };
    const picked = pickMessages(all, ["common", "front.search"]);
    expect(picked).toEqual({ common: { a: "A", b: "B" }, front: { search: { y: "Y" } } });
    expect(omitMessages(picked, ["common", "front.menu"])).toEqual({ front: { search: { y: "Y" } } });
    expect(omitMessages(picked, ["front.search"])).toEqual({ common: { a: "A", b: "B" } });
    expect(picked.common).toEqual(all.common); // omit copies, never edits what it was given
    expect(mergeTrees(pickMessages(all, ["front.menu"]), { front: { search: { y: "Y" } } })).toEqual({
      front: { menu: { x: "X" }, search: { y: "Y" } },
    });
  });
});
