import { renderToStaticMarkup } from "react-dom/server";
import { NextIntlClientProvider } from "next-intl";
import { describe, expect, it } from "vitest";
import results from "../../../messages/en/results.json";
import { PendingCard } from "./PendingCard";

const html = (props: Parameters<typeof PendingCard>[0]) =>
  renderToStaticMarkup(
    <NextIntlClientProvider locale="en" timeZone="UTC" messages={results}>
      <PendingCard {...props} />
    </NextIntlClientProvider>,
  );

describe("the pending card", () => {
  const startedAt = Date.now() - 5_000;
  it("shows the backend's queue position, steps with a bar, and time left instead of bare elapsed seconds", () => {
    expect(html({ index: 0, startedAt, progress: { queuePosition: 2 } })).toContain(
      "2 images ahead of yours",
    );
    const steps = html({
      index: 0,
      startedAt,
      progress: { value: 3, max: 8, etaSeconds: 12 },
      progressAt: Date.now(),
    });
    expect(steps).toContain("Step 3 of 8");
    expect(steps).toMatch(/<progress[^>]*value="3"[^>]*max="8"/);
    expect(steps).toContain("about 12s left");
    expect(steps).not.toMatch(/>5s</);
  });

  it("falls back to the elapsed time when the backend says nothing", () => {
    const plain = html({ index: 1, startedAt });
    expect(plain).toContain("Generating image 2");
    expect(plain).toMatch(/>5s</);
  });
});
