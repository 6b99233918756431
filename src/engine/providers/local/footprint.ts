import v8 from "node:v8";
import { tfHeapBytes } from "../../vision/human";
import { opencvHeapBytes } from "../../shared/opencv";

/**
 * This worker thread's own memory, in MB: its JavaScript heap plus the WebAssembly heaps of
 * the models it has run (tfjs, OpenCV). Those heaps grow to the largest working set they have
 * held and never shrink, so the pool retires a thread whose footprint passes the budget.
 * (Process RSS cannot tell threads apart; this is the part one thread can answer for.)
 */
export function threadFootprintMb(): number {
  const bytes = v8.getHeapStatistics().total_heap_size + tfHeapBytes() + opencvHeapBytes();
  return Math.round(bytes / 1048576);
}
