import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { operatorLegalText } from "./operator-text";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-legal-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe("the operator's legal texts (DATA_DIR/legal)", () => {
  it("are absent by default: the built-in text shows", async () => {
    expect(await operatorLegalText(dataDir, "privacy", "en")).toBeNull();
  });

  it("prefer the locale's file, then the file for every language", async () => {
    fs.mkdirSync(path.join(dataDir, "legal"), { recursive: true });
    fs.writeFileSync(path.join(dataDir, "legal", "terms.md"), "# Terms\n\nFor everyone.");
    fs.writeFileSync(path.join(dataDir, "legal", "terms.de.md"), "# AGB\n\nAuf Deutsch.");
    expect(await operatorLegalText(dataDir, "terms", "de")).toContain("Auf Deutsch.");
    expect(await operatorLegalText(dataDir, "terms", "fr")).toContain("For everyone.");
    expect(await operatorLegalText(dataDir, "privacy", "fr")).toBeNull();
  });

  it("ignore an empty file and one too large to be a legal text", async () => {
    fs.writeFileSync(path.join(dataDir, "legal", "contact.en.md"), "  \n");
    expect(await operatorLegalText(dataDir, "contact", "en")).toBeNull();
    fs.writeFileSync(path.join(dataDir, "legal", "privacy.md"), "x".repeat(300_000));
    expect(await operatorLegalText(dataDir, "privacy", "en")).toBeNull();
  });
});
