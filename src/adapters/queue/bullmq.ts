import { Queue, Worker, type ConnectionOptions } from "bullmq";
import type { JobHandler, JobQueue } from "@/core/ports/job-queue";

/**
 * BullMQ on Redis, for several web and worker processes. A job is `{taskId}` with the task
 * id as job id (adding it twice is a no-op while it waits). A worker that dies mid-job
 * stops renewing its lock; BullMQ hands the job to another worker as a redelivery. Rendering
 * runs in worker threads, so a live worker's event loop always renews its locks in time.
 */
export class BullmqQueue implements JobQueue {
  readonly kind = "bullmq" as const;
  private readonly queue: Queue;
  private worker?: Worker;

  constructor(
    private readonly connection: ConnectionOptions,
    private readonly name: string,
    private readonly concurrency: number,
    private readonly onError: (taskId: string, err: unknown) => void = () => {},
    private readonly lockMs = 30_000,
  ) {
    this.queue = new Queue(name, { connection });
  }

  async enqueue(taskId: string): Promise<void> {
    await this.queue.add(
      "render",
      { taskId },
      {
        jobId: taskId,
        // The task row is the truth: finished jobs need not be kept, and a later re-enqueue
        // of a still-queued task (after a Redis restart) must not be deduplicated away.
        removeOnComplete: true,
        removeOnFail: true,
        attempts: 3,
        backoff: { type: "exponential", delay: 1_000 },
      },
    );
  }

  start(handler: JobHandler): void {
    this.worker = new Worker(
      this.name,
      async (job) => {
        const taskId = String(job.data.taskId);
        try {
          await handler(taskId, { redelivered: job.attemptsStarted > 1 || (job.stalledCounter ?? 0) > 0 });
        } catch (err) {
          this.onError(taskId, err);
          throw err;
        }
      },
      {
        connection: this.connection,
        concurrency: this.concurrency,
        lockDuration: this.lockMs,
        // Look for stalled jobs as often as a lock can expire, so a dead worker's job moves on.
        stalledInterval: this.lockMs,
        maxStalledCount: 2,
      },
    );
    this.worker.on("error", (err) => this.onError("(worker)", err));
  }

  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts("waiting", "active", "delayed", "prioritized");
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  async ping(): Promise<void> {
    // A round trip to Redis through the queue's own connection.
    await this.queue.getJobCounts("waiting");
  }

  async close(graceMs = 10_000): Promise<void> {
    if (this.worker) {
      // close() waits for active jobs; past the grace period, force: BullMQ redelivers them.
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          void this.worker!.close(true).then(resolve, resolve);
        }, graceMs);
      });
      await Promise.race([this.worker.close(), forced]);
      clearTimeout(timer);
    }
    await this.queue.close();
  }
}
