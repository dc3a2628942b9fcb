import { describe, expectTypeOf, it } from 'vitest';
import type { Cost, CostBody } from '../../../models/costs';
import type { IntegrationAnswer } from '../../../models/integrations';
import type { Payment, PaymentBody } from '../../../models/payments';
import type { operations } from '../../../src/api/schema';

/**
 * The wire types models/ writes by hand (the forms convert to and from them) agree with the API
 * document, generated from the server's route schemas: an answer is exactly the document's, and
 * a body the client builds is one the document accepts (the server's bodies are looser, so that
 * a wrong value gets the spec's message instead of a schema error). The type-check fails when
 * either side drifts; the runtime part only keeps vitest from calling the file empty.
 */
type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type PaymentAnswer = Json<operations['updatePayment']['responses'][200]>;
type PaymentUpsertBody = Json<operations['upsertPayment']['requestBody']>;
type CostAnswer = Json<operations['createCost']['responses'][201]>;
type CostCreateBody = Json<operations['createCost']['requestBody']>;
type IntegrationsAnswer = Json<operations['listIntegrations']['responses'][200]>;
type ConfigureAnswer = Json<operations['configureChargebee']['responses'][200]>;

describe('hand-written wire types', () => {
  it('are the generated API types', () => {
    expectTypeOf<Payment>().toEqualTypeOf<PaymentAnswer>();
    expectTypeOf<PaymentBody>().toExtend<PaymentUpsertBody>();
    expectTypeOf<Cost>().toEqualTypeOf<CostAnswer>();
    expectTypeOf<CostBody>().toExtend<CostCreateBody>();
    expectTypeOf<IntegrationAnswer>().toEqualTypeOf<IntegrationsAnswer['items'][number]>();
    expectTypeOf<IntegrationAnswer>().toEqualTypeOf<ConfigureAnswer>();
  });
});
