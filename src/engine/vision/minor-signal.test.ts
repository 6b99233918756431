import { describe, expect, it } from "vitest";
import { decodePortrait } from "../shared/face-rules";
import { photo } from "../shared/test-utils";
import { detectBodies, detectFaces } from "./human";
import { minorSignals } from "./minor-signal";

async function verdicts(name: string) {
  const src = await decodePortrait(await photo(name));
  const { faces } = await detectFaces(src, { age: true });
  const { bodies } = await detectBodies(src);
  return faces.map((f) => minorSignals(f, faces.length === 1 ? bodies[0] : undefined));
}

describe("minor signal", () => {
  it("flags every child face in the fixtures", async () => {
    const children = [
      ...(await verdicts("child-1-three-children-1860s.jpg")),
      ...(await verdicts("child-2-girl-1860s-crop.jpg")),
    ];
    expect(children).toHaveLength(4);
    for (const s of children) expect(s.mayBeMinor).toBe(true);
  }, 60_000);

  it("passes the adult portraits (colour and old black-and-white)", async () => {
    for (const name of [
      "portrait-female-1.jpg",
      "portrait-female-3-nasa.png",
      "portrait-male-1.jpg",
      "portrait-male-2.jpg",
      "old-bw-1-migrant-mother-1936.jpg",
      "couple-1-daguerreotype-1850s.jpg",
    ]) {
      for (const s of await verdicts(name)) expect(s.flags, name).toEqual([]);
    }
  }, 60_000);
});
