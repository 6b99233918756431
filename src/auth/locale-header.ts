/** The header our pages send with account calls: the locale of the page the user is on (browser-safe). */
export const LOCALE_HEADER = "x-photofx-locale";
