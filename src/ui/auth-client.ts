"use client";
import { createAuthClient } from "better-auth/react";

/** better-auth's browser client, on the same origin as the pages. */
export const authClient = createAuthClient();
