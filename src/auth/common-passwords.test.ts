import { describe, expect, it } from "vitest";
import { isCommonPassword } from "./common-passwords";

describe("common passwords", () => {
  it("refuses the passwords people use most, whatever their case or surrounding spaces", async () => {
    for (const p of [
      "password",
      "12345678",
      "qwertyuiop",
      "iloveyou",
      "Password1",
      " SUNSHINE ",
      "baseball",
    ]) {
      expect(await isCommonPassword(p), p).toBe(true);
    }
  });

  it("accepts passwords that are not on the list", async () => {
    for (const p of ["correct-horse-battery", "plum-Orbit-47-lantern", "kx9!Tq2#wLm8", "a".repeat(200)]) {
      expect(await isCommonPassword(p), p).toBe(false);
    }
  });
});
