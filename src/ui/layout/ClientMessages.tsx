import { getMessages } from "next-intl/server";
import type { ReactNode } from "react";
import {
  type ClientMessagesScope,
  LAYOUT_CLIENT_MESSAGES,
  omitMessages,
  PAGE_CLIENT_MESSAGES,
  pickMessages,
} from "@/i18n/client-messages";
import { MergeMessages } from "./MergeMessages";

/**
 * Sends the browser the messages a page's client components use, beyond the layout's
 * (src/i18n/client-messages.ts): wrap the page's client components in it.
 */
export async function ClientMessages({
  scope,
  children,
}: {
  scope: ClientMessagesScope;
  children: ReactNode;
}) {
  const all = (await getMessages()) as Record<string, unknown>;
  const messages = omitMessages(pickMessages(all, PAGE_CLIENT_MESSAGES[scope]), LAYOUT_CLIENT_MESSAGES);
  return <MergeMessages messages={messages}>{children}</MergeMessages>;
}
