// What a page gets: where to draw, its route's parameters, and timers that stop when the user
// leaves the page (live refresh without reloading is polling, stopped on navigation).

export interface Route {
  project: string;
  path: string[]; // after "#/p/<project>/": ["jobs", "<id>"]
  query: URLSearchParams;
}

export class Page {
  private timers: number[] = [];
  private alive = true;

  constructor(
    readonly root: HTMLElement,
    readonly route: Route,
  ) {}

  // Runs `tick` now and then every `ms` (after the previous one finished) while the page lives.
  every(ms: number, tick: () => Promise<void> | void): void {
    const run = async () => {
      if (!this.alive) return;
      try {
        await tick();
      } catch (error) {
        console.error(error);
      }
      if (this.alive) this.timers.push(window.setTimeout(run, ms));
    };
    void run();
  }

  get live(): boolean {
    return this.alive;
  }

  close(): void {
    this.alive = false;
    for (const t of this.timers) clearTimeout(t);
  }
}

export function href(project: string, ...path: string[]): string {
  return "#/p/" + [project, ...path].map(encodeURIComponent).join("/");
}
