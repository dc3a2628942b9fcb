import type { FakeApi } from '../../support/fakeApi';
import { createFakeApi } from '../../support/fakeApi';

export const SECRET = 'sec_report';

export const segmentValues = [
  { id: 'customer_segment:seg_plan', name: 'Plan', value: 'Pro' },
  { id: 'customer_segment:seg_plan', name: 'Plan', value: 'Team' },
  { id: 'customer_segment:seg_plan', name: 'Plan', value: 'Basic' },
  { id: 'subscription_segment:attribute:att_region', name: 'Region', value: 'Europe' },
  { id: 'subscription_segment:attribute:att_region', name: 'Region', value: 'North America' },
];
export const dealOwners = [{ owner_name: 'Anna Smith' }, { owner_name: 'Piotr Nowak' }];
export const products = [
  { key: 'pro_monthly', name: 'Pro monthly' },
  { key: 'team_yearly', name: 'Team yearly' },
];
export const customerSegments = [
  { id: 'seg_plan', name: 'Plan', object_attribute_id: 'att_plan', value_source: 'parent', time_sensitive: false },
  { id: 'seg_industry', name: 'Industry', object_attribute_id: 'att_industry', value_source: 'parent', time_sensitive: false },
];

/** The filter lists' calls, each answering the fixtures above. */
export function filtersApi(): FakeApi {
  return createFakeApi({
    'GET /business_report_segment_values/by_secret': () => ({ status: 200, body: { items: segmentValues } }),
    'GET /deal_owners': () => ({ status: 200, body: { items: dealOwners } }),
    'GET /product/search': () => ({ status: 200, body: { items: products } }),
    'GET /customer_segments': () => ({ status: 200, body: { items: customerSegments } }),
    'GET /customer_segments/:id/search_values': () => ({ status: 200, body: { items: [{ value: 'Pro' }, { value: 'Team' }] } }),
  });
}
