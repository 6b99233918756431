import Link from "next/link";
import { EFFECTS } from "@/core/catalogue";

/** Home: the effect list (the full effect pages arrive with the effect-page issue). */
export default function Home() {
  return (
    <main className="mx-auto max-w-5xl p-6">
      <h1 className="text-3xl font-bold">photofx</h1>
      <p className="mt-2 text-gray-600">Upload a photo, pick a style effect, press Create.</p>
      <ul className="mt-6 grid grid-cols-2 gap-3 sm:grid-cols-3">
        {EFFECTS.map((e) => (
          <li key={e.id} className="rounded border p-3">
            <Link href={e.href}>{e.title}</Link>
            {e.isHot ? <span className="ml-2 text-xs text-red-600">Hot</span> : null}
            {e.isNew ? <span className="ml-2 text-xs text-blue-600">New</span> : null}
          </li>
        ))}
      </ul>
    </main>
  );
}
