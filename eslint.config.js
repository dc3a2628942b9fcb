import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'test-results/', 'playwright-report/', '.tmp/', 'src/api/schema.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': 'off',
    },
  },
  {
    // No re-exports: a thing is imported from the file that defines it (no barrels, no aliases
    // that hide where a rule lives). Import direction and cycles: .dependency-cruiser.cjs.
    files: ['src/**/*.{ts,tsx}', 'machines/**/*.ts', 'models/**/*.ts', 'server/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'No re-exports: import from the file that defines it.' },
        { selector: 'ExportNamedDeclaration[source]', message: 'No re-exports: import from the file that defines it.' },
      ],
    },
  },
  {
    files: ['models/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['../server/*', '../src/*', '../machines/*', 'react', 'react-dom'] }],
    },
  },
  {
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['../server/*', '../src/*', '../../server/*', '../../src/*', 'react', 'react-dom'] }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['../server/*', '../../server/*', '../../../server/*'] }],
    },
  },
);
