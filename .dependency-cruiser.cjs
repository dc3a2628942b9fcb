/**
 * Architecture rules, checked by `npm run lint` (dependency-cruiser):
 * imports go `src -> machines -> models` and `server -> models`; `models` imports nothing of
 * ours; nothing imports `server` but the server itself (and its tests, scripts, benchmarks);
 * no cycles, type-only imports included; no index files (a folder's public face is what its
 * files export, never a barrel that only re-exports).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle (type-only imports count) makes load order and ownership unclear.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'models-import-nothing-of-ours',
      severity: 'error',
      comment: 'models/ is shared by client and server: it imports only models/ and libraries.',
      from: { path: '^models/' },
      to: { path: '^(src|machines|server|tests|scripts|bench|e2e)/' },
    },
    {
      name: 'machines-import-only-models',
      severity: 'error',
      comment: 'Machines have no React, no fetch and no server: they import models/ and libraries.',
      from: { path: '^machines/' },
      to: { path: '^(src|server|tests|scripts|bench|e2e)/' },
    },
    {
      name: 'machines-no-react',
      severity: 'error',
      comment: 'Machines run in tests without a DOM.',
      from: { path: '^machines/' },
      to: { path: 'node_modules/(react|react-dom|@mantine)/' },
    },
    {
      name: 'src-never-imports-server',
      severity: 'error',
      comment: 'The SPA reaches the server only through the API contract.',
      from: { path: '^src/' },
      to: { path: '^(server|tests|scripts|bench|e2e)/' },
    },
    {
      name: 'server-imports-only-models',
      severity: 'error',
      comment: 'The server shares rules through models/, never through the SPA or its machines.',
      from: { path: '^server/' },
      to: { path: '^(src|machines|tests|scripts|bench|e2e)/' },
    },
    {
      name: 'no-index-barrels',
      severity: 'error',
      comment: 'No folder barrels: import the file that defines the thing.',
      from: {},
      to: { path: '(^|/)index\\.(ts|tsx)$', pathNot: 'node_modules' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|data|\\.tmp|test-results|playwright-report)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
