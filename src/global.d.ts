import type { Locale } from "@/i18n/locales";
import type { Messages } from "@/i18n/messages";

declare module "next-intl" {
  interface AppConfig {
    Locale: Locale;
    Messages: Messages;
  }
}

// The ALTCHA widget is a custom element; React 19 passes its attributes through.
declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "altcha-widget": React.DetailedHTMLProps<React.HTMLAttributes<HTMLElement>, HTMLElement> & {
        challenge?: string;
        auto?: "off" | "onfocus" | "onload" | "onsubmit";
        configuration?: string;
      };
    }
  }
}
