import { randomBytes, randomInt } from "node:crypto";

/** Unguessable ids: 128 random bits, URL-safe. Upload and image ids double as capabilities. */
export const newId = (): string => randomBytes(16).toString("base64url").replace(/[-_]/g, "x");

/** A seed for the engine: a non-negative 31-bit integer. */
export const newSeed = (): number => randomInt(0, 2 ** 31 - 1);
