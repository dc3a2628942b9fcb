import { readCommittedContract, renderContract, writeContract } from './contract';

/** `npm run api:generate` writes docs/openapi.json and src/api/schema.ts; `-- --check` only compares. */
const contract = await renderContract();
const committed = readCommittedContract();
const stale = contract.openapi !== committed.openapi || contract.types !== committed.types;
if (process.argv.includes('--check')) {
  if (stale) {
    console.error('The API contract is stale: run `npm run api:generate` and commit docs/openapi.json and src/api/schema.ts');
    process.exit(1);
  }
  console.log('API contract is up to date');
} else {
  writeContract(contract);
  console.log(stale ? 'Wrote docs/openapi.json and src/api/schema.ts' : 'API contract already up to date');
}
