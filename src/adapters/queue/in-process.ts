import type { JobHandler, JobQueue } from "@/core/ports/job-queue";

/**
 * An in-memory FIFO for one machine. It only orders and limits jobs; the CPU work itself
 * runs in the engine's worker-thread pool, so the event loop stays free. Nothing is lost
 * on a crash: the task rows are the truth, and start-up re-enqueues queued tasks.
 */
export class InProcessQueue implements JobQueue {
  readonly kind = "in-process" as const;
  private readonly waiting: string[] = [];
  private readonly pending = new Set<string>();
  private running = 0;
  private handler?: JobHandler;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly onError: (taskId: string, err: unknown) => void = () => {},
  ) {}

  async enqueue(taskId: string): Promise<void> {
    if (this.closed || this.pending.has(taskId)) return;
    this.pending.add(taskId);
    this.waiting.push(taskId);
    this.pump();
  }

  start(handler: JobHandler): void {
    this.handler = handler;
    this.pump();
  }

  async depth(): Promise<number> {
    return this.pending.size;
  }

  async ping(): Promise<void> {}

  private pump(): void {
    if (!this.handler) return;
    while (!this.closed && this.running < this.concurrency && this.waiting.length > 0) {
      const taskId = this.waiting.shift()!;
      this.running++;
      void this.handler(taskId, { redelivered: false })
        .catch((err) => this.onError(taskId, err))
        .finally(() => {
          this.running--;
          this.pending.delete(taskId);
          if (this.running === 0 && this.waiting.length === 0) {
            for (const w of this.idleWaiters.splice(0)) w();
          }
          this.pump();
        });
    }
  }

  /** Resolves when no job is waiting or running (tests and graceful shutdown). */
  idle(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops taking jobs and waits up to graceMs for running ones. A job still running then is
   * left to start-up recovery (its task row says "running"), as after a crash.
   */
  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    if (this.running === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
  }
}
