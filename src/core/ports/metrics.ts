/**
 * What the domain reports for operators. The Prometheus adapter implements it; tests and
 * scripts can pass NO_METRICS.
 */
export interface Metrics {
  taskFinished(effectId: string, outcome: "succeeded" | "failed", seconds: number, failedCode?: string): void;
  creditsCharged(amount: number): void;
  creditsRefunded(amount: number): void;
}

export const NO_METRICS: Metrics = {
  taskFinished() {},
  creditsCharged() {},
  creditsRefunded() {},
};
