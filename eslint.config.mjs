import js from "@eslint/js";
import globals from "globals";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", "data/", "test-results/", "drizzle/", "next-env.d.ts", "public/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  nextPlugin.configs["core-web-vitals"],
  { files: ["**/*.mjs", "**/*.js"], languageOptions: { globals: globals.node } },
  {
    files: ["src/**/*.tsx", "src/ui/**/*.ts"],
    plugins: { "react-hooks": reactHooks },
    rules: { "react-hooks/rules-of-hooks": "error", "react-hooks/exhaustive-deps": "warn" },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-require-imports": "off",
    },
  },
  {
    // The domain speaks to ports (src/core/ports) only: no adapter, no engine internals,
    // no SDK, no framework. Drizzle is its query layer and stays allowed.
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/adapters", "@/adapters/*", "**/adapters/**"],
              message:
                "Core imports no adapter: define a port in src/core/ports and let the composition root wire it.",
            },
            {
              // Exactly one engine path is allowed: the browser-safe catalogue index.
              regex: "^(@/engine(?!/effects/catalogue$)(/.*)?|(\\.\\./)+engine(/.*)?)$",
              message:
                "Core sees the engine only through ports (Renderer, InputRules, ImageSanitizer) and the browser-safe catalogue index.",
            },
            {
              group: [
                "@aws-sdk/*",
                "stripe",
                "stripe/*",
                "@fal-ai/*",
                "@google/genai",
                "@google/genai/*",
                "bullmq",
                "ioredis",
                "pg",
                "pg/*",
                "@electric-sql/*",
                "better-auth",
                "better-auth/*",
                "better-auth*",
                "next",
                "next/*",
                "react",
                "react/*",
                "react-dom",
                "react-dom/*",
                "sharp",
                "hono",
                "hono/*",
                "@hono/*",
              ],
              message:
                "Domain code speaks to interfaces only: no SDK, framework or image library in src/core.",
            },
          ],
        },
      ],
    },
  },
  {
    // Configuration is read in one place: src/config validates the environment once.
    files: ["src/**/*.ts", "src/**/*.tsx"],
    ignores: ["src/config/**", "src/**/*.test.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "MemberExpression[object.name='process'][property.name='env'], MemberExpression[object.name='process'][property.value='env']",
          message:
            "Read configuration through src/config (getEnv(), the Services' env, or a function there), never process.env.",
        },
      ],
    },
  },
  {
    // An effect is one folder (ADR 009): it may use src/engine/shared, vision and core, never
    // another effect's folder. Composition between effects goes through shared modules.
    files: ["src/engine/effects/*/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?!\\.\\./)",
              message: "No effect imports another effect's folder: move what both need to src/engine/shared.",
            },
            {
              regex: "(^@/engine/effects/|(^|/)effects/)[^/]+/",
              message: "No effect imports another effect's folder: move what both need to src/engine/shared.",
            },
          ],
        },
      ],
    },
  },
);
