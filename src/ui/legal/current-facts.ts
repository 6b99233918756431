import { pageServices } from "@/ui/share/page-services";
import { siteFacts, type SiteFacts } from "./site-facts";

/** This running server's facts (its validated configuration and configured providers). */
export function currentSiteFacts(): SiteFacts {
  const services = pageServices();
  return siteFacts(services.env, services.imageProviders, services.pricing);
}
