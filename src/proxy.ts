import createMiddleware from "next-intl/middleware";
import { routing } from "./i18n/routing";

/** Locale negotiation (prefix, cookie, Accept-Language) for pages; the API never gets here. */
export default createMiddleware(routing);

export const config = {
  matcher: "/((?!api|_next|_vercel|examples|.*\\..*).*)",
};
