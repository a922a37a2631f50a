/**
 * Route matching as API Gateway (REST) does it: a request's raw path against the resource paths
 * (`/leads/{profile}`, `{name+}` greedy), the most specific resource first (a literal segment
 * beats `{name}`, which beats `{name+}`), then the method on that resource (`ANY` matches every
 * method). A path no resource matches, or a method its resource lacks, has no route: the gateway
 * answers its MISSING_AUTHENTICATION_TOKEN response (local/gateway-responses.ts).
 */

export interface MatchedRoute {
  /** The resource path that matched (`/leads/{profile}`). */
  resource: string;
  pathParameters: Record<string, string> | null;
}

/** The raw path of a request URL (`/leads/site?token=x` → `/leads/site`), still percent-encoded. */
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end < 0 ? url : url.slice(0, end);
}

type Segment =
  | { kind: 'literal'; value: string }
  | { kind: 'param'; name: string }
  | { kind: 'greedy'; name: string };

/** Lower ranks win: a literal segment beats `{name}`, which beats `{name+}`. */
const RANK = { literal: 0, param: 1, greedy: 2 } as const;

/**
 * Raw path segments; `/` has none. One trailing slash is dropped, as API Gateway (REST) routes
 * `/admin/` to the resource `/admin` (the event's `path` keeps the slash).
 */
function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed === '/' ? [] : trimmed.split('/').slice(1);
}

function parseResource(resource: string): Segment[] {
  return splitPath(resource).map((part): Segment => {
    const param = /^\{([^{}]+?)(\+)?\}$/.exec(part);
    if (!param?.[1]) return { kind: 'literal', value: part };
    return param[2] ? { kind: 'greedy', name: param[1] } : { kind: 'param', name: param[1] };
  });
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Path parameters when `segments` matches the path's raw segments, else undefined. */
function matchSegments(
  segments: readonly Segment[],
  parts: readonly string[],
): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [i, segment] of segments.entries()) {
    if (segment.kind === 'greedy') {
      const rest = parts.slice(i);
      if (rest.length === 0 || rest.every((part) => part === '')) return undefined;
      params[segment.name] = rest.map(decodeSegment).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (segment.kind === 'literal') {
      if (decodeSegment(part) !== segment.value) return undefined;
    } else {
      if (part === '') return undefined;
      params[segment.name] = decodeSegment(part);
    }
  }
  return segments.length === parts.length ? params : undefined;
}

function compareSpecificity(a: readonly Segment[], b: readonly Segment[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const left = a[i];
    const right = b[i];
    if (!left || !right) return left ? -1 : 1;
    const diff = RANK[left.kind] - RANK[right.kind];
    if (diff !== 0) return diff;
  }
  return 0;
}

export interface RouteTable<T> {
  /**
   * The route for a method and raw path: API Gateway picks the most specific resource first,
   * then the method on it (`ANY` matches every method). Undefined: no route (the gateway's
   * MISSING_AUTHENTICATION_TOKEN answer).
   */
  match(method: string, path: string): { route: T; matched: MatchedRoute } | undefined;
}

export function createRouteTable<T extends { method: string; path: string }>(
  routes: readonly T[],
): RouteTable<T> {
  const resources = new Map<string, { segments: Segment[]; routes: T[] }>();
  for (const route of routes) {
    const entry = resources.get(route.path) ?? { segments: parseResource(route.path), routes: [] };
    entry.routes.push(route);
    resources.set(route.path, entry);
  }
  const ordered = [...resources.entries()].sort(([, a], [, b]) =>
    compareSpecificity(a.segments, b.segments),
  );
  return {
    match(method, path) {
      const parts = splitPath(path);
      for (const [resource, entry] of ordered) {
        const params = matchSegments(entry.segments, parts);
        if (!params) continue;
        const route =
          entry.routes.find((r) => r.method.toUpperCase() === method.toUpperCase()) ??
          entry.routes.find((r) => r.method.toUpperCase() === 'ANY');
        if (!route) return undefined;
        const pathParameters = Object.keys(params).length > 0 ? params : null;
        return { route, matched: { resource, pathParameters } };
      }
      return undefined;
    },
  };
}
