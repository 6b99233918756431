/**
 * `npm run worker`: a worker process for scale-out mode (REDIS_URL set). It consumes the
 * BullMQ queue and renders in its own engine threads; web processes then render nothing.
 * SIGTERM lets running jobs finish (up to WORKER_SHUTDOWN_GRACE_SECONDS) and hands the rest
 * back to the queue.
 */
import { EnvError, parseEnv } from "@/config/env";
import { createServices } from "@/platform/services";

async function main() {
  let env;
  try {
    env = parseEnv();
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  if (!env.REDIS_URL) {
    console.error(
      "REDIS_URL: required for `npm run worker` (on one machine the web process renders by itself)",
    );
    process.exit(1);
  }
  const services = await createServices(env, { role: "worker" });
  services.log.info(
    { queue: env.QUEUE_NAME, concurrency: env.WORKER_CONCURRENCY ?? env.ENGINE_THREADS },
    "photofx worker ready",
  );
  process.send?.({ ready: true });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    services.log.info({ signal }, "worker shutting down");
    await services.close(env.WORKER_SHUTDOWN_GRACE_SECONDS * 1000);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
