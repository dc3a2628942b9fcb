/**
 * A local stand-in for a provider's API that speaks its documented wire format (tests, e2e and
 * `npm run fakes`). Each fake listens on 127.0.0.1 on a free port; `url` is its origin.
 */
export interface FakeProvider {
  url: string;
  close(): Promise<void>;
}
