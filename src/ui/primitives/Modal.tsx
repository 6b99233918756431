"use client";
import { Dialog } from "radix-ui";
import { useLayoutEffect, useRef, type ReactNode } from "react";

/** An accessible modal (Radix Dialog): focus trap, Escape, labelled title. */
export function Modal({
  open,
  onOpenChange,
  title,
  description,
  children,
  wide,
  closeLabel,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  title: string;
  description?: string;
  children: ReactNode;
  wide?: boolean;
  closeLabel: string;
}) {
  // These dialogs open from state, not from a Radix Trigger, so Radix has nowhere to send focus
  // back on close and it fell to the page body: remember what had focus when it opened.
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (open && document.activeElement instanceof HTMLElement && document.activeElement !== document.body) {
      opener.current = document.activeElement;
    }
  }, [open]);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/60 motion-safe:animate-[fade_150ms_ease-out]" />
        <Dialog.Content
          onCloseAutoFocus={(e) => {
            const el = opener.current;
            opener.current = null;
            if (el?.isConnected) {
              e.preventDefault();
              el.focus();
            }
          }}
          className={
            "fixed start-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100vw-2rem)] -translate-y-1/2 overflow-y-auto rounded-2xl bg-white p-6 shadow-xl ltr:-translate-x-1/2 rtl:translate-x-1/2 dark:bg-zinc-900 " +
            (wide ? "max-w-3xl" : "max-w-md")
          }
        >
          <Dialog.Title className="text-lg font-semibold">{title}</Dialog.Title>
          {description ? (
            <Dialog.Description className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
              {description}
            </Dialog.Description>
          ) : (
            <Dialog.Description className="sr-only">{title}</Dialog.Description>
          )}
          <div className="mt-4">{children}</div>
          <Dialog.Close
            className="absolute end-3 top-3 grid h-8 w-8 place-items-center rounded-full text-zinc-500 hover:bg-zinc-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 dark:hover:bg-zinc-800"
            aria-label={closeLabel}
          >
            ✕
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
