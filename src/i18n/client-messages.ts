/**
 * Which messages the browser gets. Every page's HTML carries the messages its client
 * components may show, inline in the page's RSC payload; sending all of them cost the list
 * page 37 kB of its 58 kB payload for about 3 kB it uses (docs/PERFORMANCE.md). The layout
 * sends what the header needs; a page that renders other client components adds theirs
 * with `<ClientMessages scope=…>` (src/ui/layout/ClientMessages.tsx).
 *
 * A path is a namespace (`"effect"`) or a key below it (`"front.search"`); it takes all
 * messages under it. `client-messages.test.ts` reads every client component each page can
 * render (dynamic imports too), and fails when one of them uses a key its page does not send.
 *
 * No imports: client components import this file (the merge below).
 */

/** The layout's client components: the header, its phone menu, the locale switcher. */
export const LAYOUT_CLIENT_MESSAGES = ["common", "front.menu", "history.navLink", "admin.navLink"] as const;

/** What each page's own client components use, beyond the layout's. */
export const PAGE_CLIENT_MESSAGES = {
  /** The list page's search, category chips and cards. */
  list: ["front.search", "front.categories", "front.card"],
  /** The effect page: the workspace, its gallery, modals (loaded on first use), bot-check. */
  effect: ["effect", "upload", "results", "modals", "botcheck", "errors", "history"],
  account: ["account", "auth", "errors", "history", "privacy", "subscription"],
  history: ["botcheck", "errors", "history", "privacy"],
  pricing: ["errors", "pricing", "subscription"],
  checkout: ["checkout", "errors", "subscription"],
  /** Sign-in, sign-up, e-mail verification and the password reset. */
  auth: ["auth"],
} as const satisfies Record<string, readonly string[]>;

export type ClientMessagesScope = keyof typeof PAGE_CLIENT_MESSAGES;

type Tree = Record<string, unknown>;

function isTree(v: unknown): v is Tree {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The messages under the given paths (missing paths are skipped). */
export function pickMessages(messages: Tree, paths: readonly string[]): Tree {
  const out: Tree = {};
  for (const path of paths) {
    const keys = path.split(".");
    let from: unknown = messages;
    for (const k of keys) from = isTree(from) ? from[k] : undefined;
    if (from === undefined) continue;
    let to = out;
    keys.forEach((k, i) => {
      if (i === keys.length - 1)
        to[k] = isTree(from) && isTree(to[k]) ? mergeTrees(to[k] as Tree, from) : from;
      else to = (isTree(to[k]) ? to[k] : (to[k] = {})) as Tree;
    });
  }
  return out;
}

/** The messages minus those under the given paths (what the layout already sends). */
export function omitMessages(messages: Tree, paths: readonly string[]): Tree {
  const out: Tree = { ...messages };
  for (const path of paths) {
    const keys = path.split(".");
    const walk = (node: Tree, i: number): void => {
      const k = keys[i]!;
      if (!(k in node)) return;
      if (i === keys.length - 1) {
        delete node[k];
        return;
      }
      if (!isTree(node[k])) return;
      const copy = { ...(node[k] as Tree) };
      node[k] = copy;
      walk(copy, i + 1);
      if (Object.keys(copy).length === 0) delete node[k];
    };
    walk(out, 0);
  }
  return out;
}

/** Deep merge: `over`'s messages added to `base`'s. */
export function mergeTrees(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [k, v] of Object.entries(over))
    out[k] = isTree(v) && isTree(base[k]) ? mergeTrees(base[k], v) : v;
  return out;
}
