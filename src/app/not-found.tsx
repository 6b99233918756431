import Link from "next/link";
import "./globals.css";

/** Paths outside any locale (rare: the proxy routes almost everything into one). */
export default function RootNotFound() {
  return (
    <html lang="en">
      <body className="grid min-h-screen place-items-center p-6">
        <main className="text-center">
          <h1 className="text-2xl font-bold">Page not found</h1>
          <Link className="mt-4 inline-block underline" href="/">
            photofx
          </Link>
        </main>
      </body>
    </html>
  );
}
