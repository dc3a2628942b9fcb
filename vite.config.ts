import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const apiTarget = `http://localhost:${process.env.API_PORT ?? 3001}`;

const proxy = {
  '/api': { target: apiTarget, changeOrigin: true },
  '/graphql': { target: apiTarget, changeOrigin: true },
  '/cable': { target: apiTarget, ws: true, changeOrigin: true },
};

/**
 * Vendor chunks that the entry loads anyway (React, Mantine's runtime), split out so they
 * cache across deploys. Libraries that only lazy pages use (apexcharts, @mantine/dates)
 * stay out of these groups, so the sign-in page never downloads them.
 */
const vendorChunks = [
  { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/, priority: 3 },
  {
    name: 'mantine',
    test: /node_modules[\\/](@mantine[\\/](core|hooks|store|notifications|modals)|@floating-ui|react-remove-scroll|react-remove-scroll-bar|react-style-singleton|use-callback-ref|use-sidecar|react-number-format|clsx|tslib|get-nonce|detect-node-es)[\\/]/,
    priority: 2,
  },
  { name: 'charts', test: /node_modules[\\/](apexcharts|react-apexcharts)[\\/]/, priority: 1 },
];

export default defineConfig({
  plugins: [react()],
  resolve: { dedupe: ['apexcharts'] },
  server: { proxy },
  preview: { proxy },
  build: {
    outDir: 'dist',
    rolldownOptions: {
      output: {
        codeSplitting: { groups: vendorChunks },
      },
    },
  },
});
