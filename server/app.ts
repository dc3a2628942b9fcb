import fastifyMultipart from '@fastify/multipart';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { authPlugin } from './auth/plugin';
import { cablePlugin } from './cable/plugin';
import type { Config } from './config';
import type { Database } from './db/database';
import { registerConnectionDraining } from './http/shutdown';
import { frameworkErrorHandler, registerErrorHandler } from './http/errors';
import { registerInputHardening } from './http/hardening';
import { registerRateLimits } from './http/rateLimits';
import { buildMemoizedSerializer, memoizeAjvCompile } from './http/schemaCompilers';
import { registerSecurityHeaders } from './http/securityHeaders';
import { registerSpa } from './http/spa';
import type { Mailer } from './mail/mailer';
import { mailerPlugin } from './mail/plugin';
import { metricsPlugin } from './metrics/plugin';
import { CSV_IMPORT_MAX_FILE_BYTES } from '../models/constants';
import { importsPlugin } from './imports/plugin';
import type { JobQueue } from './jobs/queue';
import { csvImportRoutes } from './routes/csvImports';
import { segmentImportRoutes } from './routes/segmentImports';
import { customerSegmentRoutes } from './routes/customerSegments';
import { customerMetricsRoutes } from './routes/customerMetrics';
import { devOutboxRoutes } from './routes/devOutbox';
import { healthRoutes } from './routes/health';
import { invitationRoutes } from './routes/invitations';
import { passwordRoutes } from './routes/passwords';
import { sectionDefinitionRoutes } from './routes/sectionDefinitions';
import { businessReportRoutes } from './routes/businessReports';
import { reportFilterRoutes } from './routes/reportFilters';
import { keyNumberRoutes } from './routes/keyNumbers';
import { reportSharingRoutes } from './routes/reportSharing';
import { accountSettingsRoutes } from './routes/accountSettings';
import { objectAttributeRoutes } from './routes/objectAttributes';
import { segmenterDefinitionRoutes } from './routes/segmenterDefinitions';
import { planRoutes } from './routes/plans';
import { paymentRoutes } from './routes/payments';
import { costRoutes } from './routes/costs';
import { costImportRoutes } from './routes/costImports';
import { integrationRoutes } from './routes/integrations';
import { invoiceRoutes } from './routes/invoices';
import { oauthRoutes } from './routes/oauth';
import { stripeWebhookRoutes } from './routes/stripeWebhooks';
import { graphqlPlugin } from './graphql/plugin';
import { sectionExportRoutes } from './routes/sectionExports';
import { reportSectionRoutes } from './routes/reportSections';
import { customSectionRoutes } from './routes/customSections';
import { sectionDetailsRoutes } from './routes/sectionDetails';
import { customerRoutes } from './routes/customers';
import { customerListRoutes } from './routes/customerList';
import { customerChangesRoutes } from './routes/customerChanges';
import { customerSegmentValuesRoutes } from './routes/customerSegmentValues';
import { customerExploreRoutes } from './routes/customerExplore';
import { customerColumnsRoutes } from './routes/customerColumns';
import { customerColumnsPlugin } from './customers/columnsRunner';
import { commentRoutes } from './routes/comments';
import { currencyRoutes } from './routes/currencies';
import { FilteredAnswerCache, ReportAnswerCache } from './reports/answerCache';
import { ReportRecalculations } from './reports/recalculations';
import { sessionRoutes } from './routes/sessions';
import { testSupportRoutes } from './routes/testSupport';
import { userRoutes } from './routes/users';
import { API_PREFIX, APP_VERSION } from './version';

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    config: AppConfig;
    /** Recalculation of reports (server/reports/recalculations.ts). */
    reports: ReportRecalculations;
    /** The last serialised answer of each report's page (server/reports/answerCache.ts). */
    reportAnswers: ReportAnswerCache;
    /** Filtered answers of reports by secret and filter item (server/reports/answerCache.ts). */
    filteredAnswers: FilteredAnswerCache;
  }
}

export type AppConfig = Pick<Config, 'production' | 'jwtSecret' | 'testRoutes'> &
  Partial<Pick<Config, 'jwtTtlSeconds' | 'publicUrl' | 'smtpUrl' | 'mailFrom' | 'trustProxy' | 'port' | 'devOutbox' | 'rateLimitScale' | 'integrationSecretsKey' | 'providerUrls' | 'oauthClients' | 'stripeWebhookSecret'>>;

export interface AppOptions {
  db: Database;
  config: AppConfig;
  /** Folder of the built SPA; undefined serves the API only. */
  spaDir?: string;
  logger?: FastifyServerOptions['logger'];
  /** E-mail delivery; by default SMTP (`config.smtpUrl`) or the outbox table. */
  mailer?: Mailer;
  /** The clock of auth decisions (token expiry, throttling); tests inject one. */
  now?: () => Date;
  /** The job queue; without one, imports run in this process (server/imports/plugin.ts). */
  queue?: JobQueue;
  /** Largest uploaded file (default the spec's 200 MB; tests of the limit use less). */
  uploadLimitBytes?: number;
}

/**
 * Builds the HTTP application: external plugins, then ours, then routes. Listening and
 * shutdown belong to server/main.ts, so tests drive the same app with `inject`.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    // Only behind a proxy we were told about may X-Forwarded-For name the client (sign-in throttling uses it).
    trustProxy: options.config.trustProxy ?? false,
    bodyLimit: 2 * 1024 * 1024,
    // Keep-alive sockets that are idle are closed at once on shutdown; busy ones finish first,
    // then close too (server/http/shutdown.ts).
    forceCloseConnections: 'idle',
    // A malformed %-escape or an over-long path parameter answers in the API's error shape.
    frameworkErrors: frameworkErrorHandler,
    // Path parameters up to the schemas' own limits (customer ids are up to 200 characters).
    routerOptions: { maxParamLength: 256 },
    // Route schemas compiled once per process (server/http/schemaCompilers.ts).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true }, onCreate: memoizeAjvCompile },
    schemaController: { compilersFactory: { buildSerializer: buildMemoizedSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('db', options.db);
  app.decorate('config', options.config);
  registerConnectionDraining(app);
  registerErrorHandler(app);
  registerInputHardening(app);
  await registerSecurityHeaders(app, options.spaDir);
  await registerRateLimits(app, { scale: options.config.rateLimitScale });

  // At the root, so server/main.ts can resume the recalculations a stopped process left; it
  // computes with the metrics service of the API scope (attached below).
  const reports = new ReportRecalculations(options.db, { error: (message) => app.log.error(message) });
  app.decorate('reports', reports);
  app.decorate('reportAnswers', new ReportAnswerCache());
  app.decorate('filteredAnswers', new FilteredAnswerCache());
  await app.register(fastifyMultipart, { limits: { fileSize: options.uploadLimitBytes ?? CSV_IMPORT_MAX_FILE_BYTES, files: 1 } });
  // At the root, so tests (and later root-level plugins) see `app.imports`.
  await app.register(importsPlugin, { queue: options.queue });
  // Live channels at /cable (Action Cable protocol; docs/cable.md), before the routes so upgrades to them are refused.
  await app.register(cablePlugin, { now: options.now });
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Subscope API',
        version: APP_VERSION,
        description:
          'HTTP API v11 of Subscope. Errors use the shape {errors: [{source: {pointer}, detail, title, code, status}]}. ' +
          'Money is whole minor units of the currency named beside it (cents for USD: 123456 is $1,234.56; yen have none), ' +
          'rates and shares are fractions (0.05 = 5 %), days are YYYY-MM-DD and instants ISO 8601 in UTC. ' +
          'In a report section a series has one data point per period of `periods` (a cohort row: its initial cell, then one per period from its cohort on); in mrr_movements contraction and churn are negative.',
      },
      servers: [{ url: API_PREFIX }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    // Paths are written relative to the versioned server URL, as clients call them.
    transformObject: (documentObject) => {
      const document = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
      const paths = Object.entries(document.paths ?? {}).map(([route, item]) => [route.startsWith(API_PREFIX) ? route.slice(API_PREFIX.length) || '/' : route, item]);
      return { ...document, paths: Object.fromEntries(paths) };
    },
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: `${API_PREFIX}/docs`,
    staticCSP: true,
    // Swagger UI sets inline styles as it renders (its header already forbids framing).
    transformStaticCSP: (header) => header.replace("style-src 'self' https:", "style-src 'self' 'unsafe-inline'"),
  });

  await app.register(
    async (api) => {
      await api.register(mailerPlugin, { mailer: options.mailer });
      await api.register(authPlugin, { now: options.now });
      await api.register(metricsPlugin);
      reports.attach(api.metrics, () => api.now());
      // Registered after the metrics service: onClose hooks run in reverse, so runs end before it closes.
      api.addHook('onClose', async () => {
        await reports.settled();
      });
      await api.register(healthRoutes);
      await api.register(sessionRoutes);
      await api.register(userRoutes);
      await api.register(passwordRoutes);
      await api.register(invitationRoutes);
      await api.register(sectionDefinitionRoutes);
      await api.register(customerMetricsRoutes);
      await api.register(csvImportRoutes, { uploadLimitBytes: options.uploadLimitBytes });
      await api.register(segmentImportRoutes, { uploadLimitBytes: options.uploadLimitBytes });
      await api.register(customerSegmentRoutes);
      await api.register(businessReportRoutes);
      await api.register(reportFilterRoutes);
      await api.register(keyNumberRoutes);
      await api.register(reportSharingRoutes);
      await api.register(accountSettingsRoutes);
      await api.register(objectAttributeRoutes);
      await api.register(segmenterDefinitionRoutes);
      await api.register(planRoutes);
      await api.register(paymentRoutes);
      await api.register(costRoutes);
      await api.register(costImportRoutes, { uploadLimitBytes: options.uploadLimitBytes });
      await api.register(integrationRoutes, { queue: options.queue });
      await api.register(invoiceRoutes);
      await api.register(stripeWebhookRoutes);
      await api.register(graphqlPlugin);
      await api.register(sectionExportRoutes, { queue: options.queue });
      await api.register(reportSectionRoutes);
      await api.register(customSectionRoutes);
      await api.register(sectionDetailsRoutes);
      await api.register(customerRoutes);
      await api.register(customerListRoutes);
      await api.register(customerChangesRoutes);
      await api.register(customerSegmentValuesRoutes);
      await api.register(customerExploreRoutes);
      await api.register(customerColumnsPlugin, { root: app });
      await api.register(customerColumnsRoutes);
      await api.register(commentRoutes);
      await api.register(currencyRoutes);
      if (options.config.devOutbox && !options.config.production) await api.register(devOutboxRoutes);
      if (options.config.testRoutes && !options.config.production) await api.register(testSupportRoutes);
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: API_PREFIX },
  );

  // OAuth connect starts and callbacks are browser navigations (/users/auth/{provider}), outside the API prefix.
  await app.register(oauthRoutes, { now: options.now });
  await registerSpa(app, options.spaDir);
  return app;
}
