"use client";

import { lazy, Suspense } from "react";

// The words, styles and locale logic load only when this page shows: the error boundary's module
// is in every page's first-load JavaScript, and the page itself rarely is (docs/PERFORMANCE.md,
// session 11).
const ErrorContent = lazy(() => import("@/ui/layout/GlobalErrorContent"));

/**
 * Shown when rendering fails and no segment below has its own error boundary. No stylesheet is
 * imported here or in the root layout: Turbopack lists a layout's CSS for the modules below it,
 * and with `inlineCss` every page's RSC payload then carried the stylesheet once more.
 */
export default function GlobalError({
  retry,
  reset,
}: {
  error: Error;
  retry?: () => void;
  reset?: () => void;
}) {
  return (
    <html>
      <body>
        <Suspense fallback={null}>
          <ErrorContent retry={retry ?? reset} />
        </Suspense>
      </body>
    </html>
  );
}
