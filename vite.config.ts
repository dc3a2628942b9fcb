import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const apiTarget = `http://localhost:${process.env.API_PORT ?? 3001}`;

const proxy = {
  '/api': { target: apiTarget, changeOrigin: true },
  '/graphql': { target: apiTarget, changeOrigin: true },
  '/cable': { target: apiTarget, ws: true, changeOrigin: true },
};

/**
 * Vendor chunks that the entry loads anyway (React, Mantine's runtime: its provider, styles
 * API, Box and hooks), split out so they cache across deploys. Mantine's components are not
 * grouped: a group takes every module it matches, so the components only lazy pages use (the
 * tables, drawers, steppers, date and number inputs) went into the sign-in page's download and
 * took it from 225 KB to 270 KB gzipped (bench:report's initial_js_kb_gz, target 250). Left to
 * the bundler, each lands with the pages that use it. Libraries that only lazy pages use
 * (apexcharts, @mantine/dates) stay out of these groups too.
 */
const vendorChunks = [
  { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/, priority: 3 },
  {
    name: 'mantine',
    test: /node_modules[\\/](@mantine[\\/]core[\\/]esm[\\/]core[\\/]|@mantine[\\/](hooks|store)[\\/]|clsx[\\/])/,
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
