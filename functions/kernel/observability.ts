/**
 * Structured logs and metrics (Powertools), shared by every function. Logs carry ids, statuses
 * and codes, never personal data or secrets: callers pass only those. Locally the same logger
 * writes JSON lines to stdout, and metrics are off unless POWERTOOLS_METRICS_DISABLED=false.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricName } from './metrics.ts';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'leads';

export const logger = new Logger({ serviceName });

export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Leads',
  serviceName,
});

/** Counts one occurrence of `name` (EMF, published by `flushMetrics`); names: metrics.ts. */
export function count(name: MetricName, value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
}

/** Records a duration in seconds under `name` (EMF; alarms take its Maximum). */
export function seconds(name: MetricName, value: number): void {
  metrics.addMetric(name, MetricUnit.Seconds, value);
}

/** Records a plain number under `name` (a ratio, say; EMF, no unit). */
export function ratio(name: MetricName, value: number): void {
  metrics.addMetric(name, MetricUnit.NoUnit, value);
}

/**
 * Records `value` of `name` under one more dimension (an upstream account, say), published at
 * once in its own EMF line, so that each value keeps its own dimension (names: metrics.ts).
 */
export function countBy(name: MetricName, dimension: [string, string], value: number): void {
  const single = metrics.singleMetric();
  single.addDimension(dimension[0], dimension[1]);
  single.addMetric(name, MetricUnit.Count, value);
}

/** Publishes what was counted during this invocation; call once at its end. */
export function flushMetrics(): void {
  // Nothing counted (a report GET, a 304): publishing would only log a warning per invocation.
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
