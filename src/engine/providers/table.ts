import type { ProviderDescriptor } from "./descriptor";
import { comfyuiDescriptor } from "./comfyui/descriptor";
import { falDescriptor } from "./fal/descriptor";
import { geminiDescriptor } from "./gemini/descriptor";
import { localDescriptor } from "./local/descriptor";
import { openaiDescriptor } from "./openai/descriptor";
import { replicateDescriptor } from "./replicate/descriptor";

/**
 * The provider table: one row per provider (ADR 010). The router, the fallback order, the
 * spend caps, the breakers and `POST /api/providers/:id/webhook` all read it; nothing else
 * lists providers.
 */
export const PROVIDER_TABLE: readonly ProviderDescriptor[] = [
  localDescriptor,
  comfyuiDescriptor,
  falDescriptor,
  geminiDescriptor,
  openaiDescriptor,
  replicateDescriptor,
];

export const PROVIDER_IDS: readonly string[] = PROVIDER_TABLE.map((p) => p.id);

export const providerById = (id: string): ProviderDescriptor | undefined =>
  PROVIDER_TABLE.find((p) => p.id === id);
