import { notFound } from "next/navigation";

/** Any other path inside a locale renders the localized not-found page. */
export default function CatchAll() {
  notFound();
}
