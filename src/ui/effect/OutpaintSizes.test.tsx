import { renderToStaticMarkup } from "react-dom/server";
import { NextIntlClientProvider } from "next-intl";
import { describe, expect, it } from "vitest";
import effect from "../../../messages/en/effect.json";
import { OutpaintSizes } from "./OutpaintSizes";

const html = (props: Parameters<typeof OutpaintSizes>[0]) =>
  renderToStaticMarkup(
    <NextIntlClientProvider locale="en" timeZone="UTC" messages={effect}>
      <OutpaintSizes {...props} />
    </NextIntlClientProvider>,
  );

describe("the outpainting size note", () => {
  it("tells the result's size before Create, and that a photo past 4096 px is scaled to fit", () => {
    const small = html({ assets: [{ id: "a", width: 1920, height: 1080 }], edges: ["left", "right"] });
    expect(small).toContain("Photo 1: the result will be 2880 × 1080 px.");
    expect(small).not.toContain("scaled down");

    const big = html({
      assets: [
        { id: "a", width: 1920, height: 1080 },
        { id: "b", width: 4032, height: 3024 },
      ],
      edges: ["top", "bottom", "left", "right"],
    });
    const items = big.match(/<li[^>]*>.*?<\/li>/g) ?? [];
    expect(items).toHaveLength(2);
    expect(items[0]).toContain("2880 × 1620 px");
    expect(items[1]).toMatch(
      /Photo 2: the result will be 4096 × 3072 px\. That is the largest.*4096 px.*scaled down/,
    );
  });

  it("shows nothing until an upload's size is known", () => {
    expect(html({ assets: [{ id: "a" }], edges: ["left"] })).toBe("");
  });
});
