/** npm run effects:prompts: the prompt table as hosted providers send it, one effect a block. */
import { EFFECTS } from "@/core/catalogue";
import { PROMPT_TABLE } from "@/engine/prompts";

for (const effect of EFFECTS) {
  const row = PROMPT_TABLE[effect.id];
  console.log(`## ${effect.id} (${effect.imageType})`);
  console.log(
    `aspect ratio: ${row?.aspectRatio ?? "the input's"}${row?.extend ? "; plus a request-dependent sentence" : ""}`,
  );
  console.log(row ? row.instruction : "(no hosted prompt: the local engine only)");
  console.log();
}
