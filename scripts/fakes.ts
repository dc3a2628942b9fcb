import { startAllFakes } from '../tests/fakes/all';

/**
 * `npm run fakes`: starts the local fakes of Stripe, Chargebee, HubSpot, Intercom, Fakturownia and wFirma and prints the
 * environment lines that point the product at them (put them before `npm run dev` or in your
 * shell). Any Chargebee site or Fakturownia subdomain works; the credentials they accept are
 * printed too. Each fake takes data and failure controls under `POST {url}/__fake/...`
 * (docs/integrations.md). Stops on Ctrl-C.
 */
const fakes = await startAllFakes();
const lines = Object.entries(fakes.env).map(([name, value]) => `${name}='${value}'`);
console.log('Provider fakes are running. Start the product with:\n');
console.log(`${lines.join(' \\\n')} \\\n  npm run dev\n`);
console.log('Chargebee API key: test_chargebee_key (any site)');
console.log('Fakturownia API token: test_fakturownia_token (any subdomain)');
console.log('wFirma password: test_wfirma_password (any e-mail)');
console.log('Stripe, HubSpot and Intercom connect by OAuth: their fakes approve the authorization at once');
console.log(`Seed Chargebee: curl -X POST ${fakes.chargebee.url}/__fake/seed -d '{"customers": 20}'`);

const stop = () => {
  void fakes.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
