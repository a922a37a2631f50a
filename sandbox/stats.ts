/**
 * What the sandbox counts of the requests it answers (`GET|DELETE /_sandbox/stats`): a total,
 * per route the answers by status, and the last STATS_CAPACITY requests in arrival order (a
 * ring). Control routes (`/_sandbox/*`) are not counted; exchange.ts records each answer once.
 */

export interface RequestRecord {
  /** Arrival, epoch ms. */
  at: number;
  method: string;
  /** Route pattern, e.g. `POST /api/v1/prospects`, `GET /graph/{id}`, `GET (unmatched)`. */
  route: string;
  /** Status answered; 0 when the connection was destroyed (outage). */
  status: number;
  /** A POSTed prospect's e-mail, lower case, when its body had one: one lead's attempts. */
  email?: string;
}

export interface SandboxStats {
  total: number;
  byRoute: Record<string, Record<string, number>>;
  requests: RequestRecord[];
}

/** How many request records `GET /_sandbox/stats` keeps. */
export const STATS_CAPACITY = 20_000;

export class RequestStats {
  #total = 0;
  #byRoute = new Map<string, Map<number, number>>();
  #ring: RequestRecord[] = [];
  #head = 0;

  record(entry: RequestRecord): void {
    this.#total += 1;
    let counts = this.#byRoute.get(entry.route);
    if (!counts) {
      counts = new Map();
      this.#byRoute.set(entry.route, counts);
    }
    counts.set(entry.status, (counts.get(entry.status) ?? 0) + 1);
    if (this.#ring.length < STATS_CAPACITY) this.#ring.push(entry);
    else {
      this.#ring[this.#head] = entry;
      this.#head = (this.#head + 1) % STATS_CAPACITY;
    }
  }

  snapshot(): SandboxStats {
    const byRoute: Record<string, Record<string, number>> = {};
    for (const [route, counts] of this.#byRoute) {
      byRoute[route] = Object.fromEntries([...counts].map(([status, n]) => [String(status), n]));
    }
    const requests = [...this.#ring.slice(this.#head), ...this.#ring.slice(0, this.#head)];
    return { total: this.#total, byRoute, requests };
  }

  reset(): void {
    this.#total = 0;
    this.#byRoute.clear();
    this.#ring = [];
    this.#head = 0;
  }
}
