import { describe, expect, it } from "vitest";
import { localeOfAcceptLanguage, LOCALE_HEADER, requestLocale } from "./request-locale";

describe("the locale of an account e-mail", () => {
  it("is the page's locale our pages send, checked against LOCALES", () => {
    expect(requestLocale(new Headers({ [LOCALE_HEADER]: "ja", "accept-language": "de" }))).toBe("ja");
    expect(requestLocale(new Headers({ [LOCALE_HEADER]: "xx", "accept-language": "de" }))).toBe("de");
    expect(requestLocale(new Headers({ [LOCALE_HEADER]: "../../etc" }))).toBe("en");
  });

  it("else the NEXT_LOCALE cookie, else Accept-Language, else English", () => {
    expect(requestLocale(new Headers({ cookie: "a=b; NEXT_LOCALE=ko", "accept-language": "fr" }))).toBe("ko");
    expect(requestLocale(new Headers({ cookie: "NEXT_LOCALE=klingon", "accept-language": "fr" }))).toBe("fr");
    expect(requestLocale(new Headers({}))).toBe("en");
    expect(requestLocale(undefined)).toBe("en");
  });

  it("reads Accept-Language by quality, with Traditional Chinese as tw", () => {
    expect(localeOfAcceptLanguage("xx-YY, de;q=0.5, it;q=0.9")).toBe("it");
    expect(localeOfAcceptLanguage("zh-TW,zh;q=0.9")).toBe("tw");
    expect(localeOfAcceptLanguage("zh-Hant-HK")).toBe("tw");
    expect(localeOfAcceptLanguage("zh-CN")).toBe("zh");
    expect(localeOfAcceptLanguage("pt-BR;q=0, es")).toBe("es");
    expect(localeOfAcceptLanguage("nl, sv")).toBeNull();
    expect(localeOfAcceptLanguage("x".repeat(10_000))).toBeNull();
  });
});
