import { readFileSync, writeFileSync } from "node:fs";
import { render as line } from "./src/engine/effects/image-to-line-drawing/render";
import { render as pix } from "./src/engine/effects/pixel-illustration/render";
import { render as mir } from "./src/engine/effects/inverted-face-filter/render";
async function main() {
  const files = process.argv.slice(2);
  for (const f of files) {
    const bytes = readFileSync("tests/fixtures/photos/" + f);
    for (const [name, fn] of [
      ["mirror", mir],
      ["pixel", pix],
      ["line", line],
    ] as const) {
      const req = {
        effectId: name,
        route: "v1" as const,
        images: [{ bytes, mime: "" }],
        options: {},
        prompt: "",
        seed: 1,
      };
      await fn(req);
      const t0 = performance.now();
      const out = await fn(req);
      console.log(
        f,
        name,
        out.width,
        out.height,
        (performance.now() - t0).toFixed(0) + "ms",
        out.bytes.length,
      );
      writeFileSync(`/tmp/out-${name}-${f}.png`, out.bytes);
    }
  }
}
void main();
