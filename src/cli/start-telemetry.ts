import { UsageError } from './usage-error.js';

/** Stops exporting: what is buffered is sent first (bounded, so a dead collector cannot hold exit). */
export type StopTelemetry = () => Promise<void>;

/**
 * `--otlp URL` / `[telemetry] otlp_endpoint`: the OpenTelemetry Node SDK, in the CLI only (the
 * library speaks the API and stays a no-op unless its host registers an SDK). Traces and metrics go
 * to an OTLP/HTTP collector at URL (`/v1/traces`, `/v1/metrics`), JSON encoded; the SDK's modules
 * are loaded only here. Registers the W3C propagator and an async-hooks context manager too.
 */
export async function startTelemetry(endpoint: string, version: string): Promise<StopTelemetry> {
  let base: URL;
  try {
    base = new URL(endpoint);
  } catch {
    throw new UsageError(
      `--otlp expects the collector's URL, e.g. http://127.0.0.1:4318 (got "${endpoint}")`,
    );
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new UsageError(`--otlp expects an http:// or https:// URL (got "${endpoint}")`);
  const root = base.href.replace(/\/+$/, '');
  const [api, traceNode, traceExporter, sdkMetrics, metricExporter, resources] = await Promise.all([
    import('@opentelemetry/api').then(named),
    import('@opentelemetry/sdk-trace-node').then(named),
    import('@opentelemetry/exporter-trace-otlp-http').then(named),
    import('@opentelemetry/sdk-metrics').then(named),
    import('@opentelemetry/exporter-metrics-otlp-http').then(named),
    import('@opentelemetry/resources').then(named),
  ]);
  const resource = resources.resourceFromAttributes({
    'service.name': 'toolgate',
    'service.version': version,
  });
  const tracerProvider = new traceNode.NodeTracerProvider({
    resource,
    spanProcessors: [
      new traceNode.BatchSpanProcessor(new traceExporter.OTLPTraceExporter({ url: `${root}/v1/traces` }), {
        scheduledDelayMillis: 1000,
      }),
    ],
  });
  tracerProvider.register(); // global tracer provider, W3C propagator, AsyncLocalStorage context
  const meterProvider = new sdkMetrics.MeterProvider({
    resource,
    readers: [
      new sdkMetrics.PeriodicExportingMetricReader({
        exporter: new metricExporter.OTLPMetricExporter({ url: `${root}/v1/metrics` }),
        exportIntervalMillis: 10_000,
      }),
    ],
  });
  api.metrics.setGlobalMeterProvider(meterProvider);
  return async () => {
    const bounded = (work: Promise<unknown>) =>
      Promise.race([work.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    await bounded(Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]));
  };
}

/** The SDK's packages are CommonJS: bundled as ESM, their exports may sit under `default`. */
function named<T>(module: T): T {
  const inner = (module as { default?: T }).default;
  return inner && typeof inner === 'object' ? inner : module;
}
