import fastifyPlugin from 'fastify-plugin';
import { createMetricsService, type MetricsService } from './service';

declare module 'fastify' {
  interface FastifyInstance {
    /** The metrics engine: cached account snapshots and every computation (server/metrics/service.ts). */
    metrics: MetricsService;
  }
}

export interface MetricsPluginOptions {
  /** A ready service (tests); by default one over `app.db`. */
  service?: MetricsService;
}

/**
 * Decorates `app.metrics` and keeps it in step with the other server processes: it LISTENs on
 * `metrics_invalidate` from start to close. Register it after the auth plugin (its clock is
 * the service's clock, so "today" moves with the tests' clock).
 */
export const metricsPlugin = fastifyPlugin<MetricsPluginOptions>(
  async (app, options) => {
    const service = options.service ?? createMetricsService(app.db, { now: () => (app.hasDecorator('now') ? app.now() : new Date()) });
    await service.start();
    app.decorate('metrics', service);
    app.addHook('onClose', async () => {
      await service.close();
    });
  },
  { name: 'subscope-metrics', fastify: '5.x' },
);
