import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectFaces } from "./human";

const photo = (name: string) =>
  fs.readFileSync(path.resolve(__dirname, "../../../tests/fixtures/photos", name));

describe("vision layer (Human on tfjs WASM, models from the installed package)", () => {
  it("finds one face with a 468-point mesh and a near-frontal pose in a portrait", async () => {
    const { faces, width, height } = await detectFaces(photo("portrait-female-1.jpg"));
    expect(faces).toHaveLength(1);
    const [face] = faces;
    expect(face!.mesh).toHaveLength(468);
    expect(face!.score).toBeGreaterThan(0.8);
    const [x, y, w, h] = face!.box;
    expect(x).toBeGreaterThan(0);
    expect(y).toBeGreaterThan(0);
    expect(x + w).toBeLessThanOrEqual(width);
    expect(y + h).toBeLessThanOrEqual(height);
    expect(Math.abs(face!.rotation.yaw)).toBeLessThan(0.3);
  }, 60_000);

  it("counts the faces of a couple and of three children, and none in a landscape", async () => {
    expect((await detectFaces(photo("couple-1-daguerreotype-1850s.jpg"))).faces).toHaveLength(2);
    expect((await detectFaces(photo("child-1-three-children-1860s.jpg"))).faces).toHaveLength(3);
    expect((await detectFaces(photo("landscape-1-meadow-cc0.jpg"))).faces).toHaveLength(0);
  }, 60_000);
});

describe("person matte", () => {
  it("separates the person from the background", async () => {
    const { personMatte } = await import("./human");
    const { alpha, width, height } = await personMatte(photo("portrait-female-1.jpg"));
    expect(alpha.length).toBe(width * height);
    expect(alpha[0]).toBeLessThan(30); // top-left corner: background
    expect(alpha[Math.floor(height / 2) * width + Math.floor(width / 2)]).toBeGreaterThan(220); // the face
    const person = alpha.filter((v) => v > 128).length / alpha.length;
    expect(person).toBeGreaterThan(0.3);
    expect(person).toBeLessThan(0.8);
  }, 60_000);
});
