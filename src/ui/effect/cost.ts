import type { InputRule } from "@/core/catalogue";

/**
 * How many tasks a submit of `images` photos makes, by the effect's input rule (as the
 * server's submit plans them): one per photo, or one for all of them together (baby face,
 * hug my younger self). Never fewer than one: the button states the price of a first task
 * before any photo is picked.
 */
export function taskCount(input: InputRule, images: number): number {
  if (input.mode === "together") return 1;
  return Math.max(1, images);
}

/** What pressing Create costs: every task is charged the effect's credits. */
export function createCost(effect: { credits: number; input: InputRule }, images: number): number {
  return effect.credits * taskCount(effect.input, images);
}
