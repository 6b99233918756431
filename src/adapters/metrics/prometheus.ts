import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Metrics } from "@/core/ports/metrics";

/** Prometheus metrics: queue depth, task durations per effect, failures by reason, credits. */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly durations: Histogram<"effect" | "outcome">;
  private readonly failures: Counter<"effect" | "reason">;
  private readonly charged: Counter;
  private readonly refunded: Counter;

  constructor(queueDepth: () => Promise<number>) {
    collectDefaultMetrics({ register: this.registry, prefix: "photofx_" });
    this.durations = new Histogram({
      name: "photofx_task_duration_seconds",
      help: "Time from a task's start to its end, by effect and outcome",
      labelNames: ["effect", "outcome"],
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers: [this.registry],
    });
    this.failures = new Counter({
      name: "photofx_task_failures_total",
      help: "Failed tasks by effect and reason code",
      labelNames: ["effect", "reason"],
      registers: [this.registry],
    });
    this.charged = new Counter({
      name: "photofx_credits_charged_total",
      help: "Credits charged at submit",
      registers: [this.registry],
    });
    this.refunded = new Counter({
      name: "photofx_credits_refunded_total",
      help: "Credits refunded for failed tasks",
      registers: [this.registry],
    });
    new Gauge({
      name: "photofx_queue_depth",
      help: "Jobs waiting or running",
      registers: [this.registry],
      async collect() {
        this.set(await queueDepth().catch(() => -1));
      },
    });
  }

  taskFinished(
    effectId: string,
    outcome: "succeeded" | "failed",
    seconds: number,
    failedCode?: string,
  ): void {
    this.durations.observe({ effect: effectId, outcome }, seconds);
    if (outcome === "failed") this.failures.inc({ effect: effectId, reason: failedCode ?? "internal" });
  }

  creditsCharged(amount: number): void {
    this.charged.inc(amount);
  }

  creditsRefunded(amount: number): void {
    this.refunded.inc(amount);
  }
}
