import type { Env } from "@/config/env";
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

/**
 * The providers this environment configures (any of them may render: ENGINE, an override, the
 * fallback or the runtime settings choose), and whether each keeps photos on the operator's
 * hardware. The privacy policy and the home page's claims are built from this.
 */
export const configuredProviders = (env: Env): Array<{ id: string; selfHosted: boolean }> =>
  PROVIDER_TABLE.filter((p) => p.configured(env)).map((p) => ({ id: p.id, selfHosted: p.selfHosted }));
