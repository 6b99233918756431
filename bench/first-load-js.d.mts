export function scriptSrcsOfHtml(html: string): string[];
export function measureScripts(bodies: Uint8Array[]): { scripts: number; rawKb: number; gzipKb: number };
export function buildScriptsOfRoute(nextDir: string, route: string): string[];
export function firstLoadOfBuiltRoute(
  nextDir: string,
  route: string,
): { files: string[]; scripts: number; rawKb: number; gzipKb: number };
