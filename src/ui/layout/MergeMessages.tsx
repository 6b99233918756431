"use client";
import type { AbstractIntlMessages } from "next-intl";
import { NextIntlClientProvider, useLocale, useMessages } from "next-intl";
import { type ReactNode, useMemo } from "react";
import { mergeTrees } from "@/i18n/client-messages";

/** The layout's messages plus a page's own (see ClientMessages). */
export function MergeMessages({
  messages,
  children,
}: {
  messages: Record<string, unknown>;
  children: ReactNode;
}) {
  const locale = useLocale();
  const parent = useMessages() as Record<string, unknown>;
  const merged = useMemo(() => mergeTrees(parent, messages) as AbstractIntlMessages, [parent, messages]);
  return (
    <NextIntlClientProvider locale={locale} messages={merged}>
      {children}
    </NextIntlClientProvider>
  );
}
