import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "src") } },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "tests/**/*.test.ts"],
    environment: "node",
    // Integration tests render on device and, in scale-out mode, through BullMQ workers: on a
    // machine busy with other work one test can take well past 30 s without anything wrong.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration files each start a server and a database; run files one at a time per core.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
